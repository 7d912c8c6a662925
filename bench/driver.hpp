// One timed trial of data structure DS with reclaimer R (Hart §4, IBR §5, NBR §6, Epochs §3):
//
//  1. a fresh domain and structure; worker threads attach and prefill it together to the
//     requested size (timed, reported as prefill_s);
//  2. stalled threads (--stall) each begin an operation: before the start, so that every trial
//     is comparable;
//  3. with every thread waiting, the timeline is restarted and the statistics baseline taken;
//  4. all workers are released at once and run the operation mix until the stop signal, which
//     the main thread raises after --duration; a monitor samples RSS and unreclaimed nodes;
//  5. statistics are read while the handles still live, then threads exit and the structure is
//     validated single-threaded.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "ds_ops.hpp"
#include "interrupt.hpp"
#include "memory_monitor.hpp"
#include "pinning.hpp"
#include "progress.hpp"
#include "reclaimer_list.hpp"
#include "sync.hpp"
#include "trial.hpp"
#include "tunables.hpp"

namespace smrbench {

namespace detail {

inline std::uint64_t now_ns() { return smr::core::monotonic_ns(); }

struct alignas(64) worker_state {
  accounting prefill;
  accounting trial;
  std::uint64_t ops = 0;
  // One per kind of operation the workload draws (indexed by op_kind), allocated by the worker.
  std::array<std::unique_ptr<latency_histogram>, op_kind_count> latency;
  std::string pin_error;
};

// One operation with --node-pool: an attempt that found the pool empty failed before it
// changed anything (pool_exhausted); it is retried after a pause taken outside any operation
// (node_pool.hpp says why) until it gets its block. Returns false when the trial stopped while
// it waited: the operation is abandoned and not counted. Out of line: the loop without a pool
// must not pay for it.
template <class DS>
[[gnu::noinline]] bool run_op_from_pool(DS& ds, typename DS::handle& h, op_kind op, key_type k, accounting& acc,
                                        node_pool& pool, const stop_signal& stop) {
  std::uint64_t waiting_since = 0;
  for (;;) {
    try {
      run_op(ds, h, op, k, acc);
      break;
    } catch (const pool_exhausted&) {
      if (waiting_since == 0) waiting_since = now_ns();
      if (stop.raised()) {
        pool.note_wait(now_ns() - waiting_since, true);
        return false;
      }
      pool.pause();
    }
  }
  if (waiting_since != 0) pool.note_wait(now_ns() - waiting_since, false);
  return true;
}

// One operation of the timed loop; false if it was abandoned (see run_op_from_pool).
template <class DS>
[[gnu::always_inline]] inline bool run_timed_op(DS& ds, typename DS::handle& h, op_kind op, key_type k,
                                                accounting& acc, node_pool* pool, const stop_signal& stop) {
  if (pool == nullptr) [[likely]] {
    run_op(ds, h, op, k, acc);
    return true;
  }
  return run_op_from_pool(ds, h, op, k, acc, *pool, stop);
}

// The parts of a trial that depend on neither the structure nor the reclaimer, compiled once
// (driver.cpp) instead of in every registered pair.
smr::core::stats_snapshot delta(const smr::core::stats_snapshot& end, const smr::core::stats_snapshot& start);

// Waits until every worker prefilled, printing progress. On an interrupt, the workers stop
// claiming prefill slots and it returns false: the caller abandons the trial.
bool wait_for_prefill(const arrival_counter& prefilled, unsigned workers, std::atomic<std::uint64_t>& claimed,
                      std::uint64_t target, unsigned trial, progress& prog);

struct timed_phase {
  bool interrupted = false;
  double elapsed_s = 0;  // from the release of the workers to the stop signal
  double cpu_at_go = 0;  // process CPU seconds at the release
};

// Starts the node pool's timed phase (--node-pool), releases the workers (phase `running`),
// sleeps until --duration passed or an interrupt came, printing progress, and raises the stop
// signal.
timed_phase run_timed_phase(const options& o, const trial_spec& spec, phase_gate& phase, stop_signal& stop,
                            progress& prog);

// Adds the workers' counts, latencies and the free profile to the result; returns the element
// count and key sum that validation expects.
struct expected_contents {
  std::uint64_t count = 0, sum = 0;
};
expected_contents collect_workers(trial_result& res, const std::vector<worker_state>& states,
                                  const smr::core::free_profile_buffer& free_profile, const progress& prog);

// Records the validation's verdict; a trial in which no operation completed fails whatever it says.
void record_validation(trial_result& res, const validation& v);

enum phase : int { prefilling = 0, prefilled = 1, running = 2, released = 3 };

// A worker's handle, which --reattach-every replaces: handles are neither copied nor moved, so
// the attachment receives attach()'s prvalue directly and lives in a std::optional.
template <class R>
struct attachment {
  explicit attachment(R& domain) : h(domain.attach()) {}
  typename R::handle h;
};

// Starts a thread running `body`. Out of line and type-erased: a std::thread per lambda type would
// instantiate its state and the vector's growth path in every registered pair.
void start_thread(std::vector<std::thread>& threads, std::function<void()> body);

}  // namespace detail

// Builds the structure for a trial. A structure that takes a size hint (hash_map: its bucket
// count) gets the steady-state size of equal insert and delete shares, key_range / 2, so its
// load factor is ~1 for any key range up to 2^27. Construction errors (too few protection slots for the
// structure, say) are bad input.
template <class DS, class R>
void build_structure(std::optional<DS>& out, R& domain, std::uint64_t key_range) {
  try {
    if constexpr (std::is_constructible_v<DS, R&, std::size_t>) {
      constexpr std::uint64_t max_hint = std::uint64_t{1} << 26;  // a sane table for huge ranges
      out.emplace(domain, static_cast<std::size_t>(std::clamp<std::uint64_t>(key_range / 2, 1, max_hint)));
    } else {
      out.emplace(domain);
    }
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string(DS::name) + " with " + reclaimer_name<R>() + ": " + e.what());
  }
}

// Everything a trial would refuse, checked before any trial runs: the tunables and the
// construction of the domain and the structure. Returns "" or the reason.
// DS is the structure over reclaimer R.
template <class DS, class R>
std::string preflight(const options& o) {
  typename R::config cfg{};
  if (std::string err = apply_params<R>(cfg, o.params); !err.empty()) return err;
  try {
    R domain(cfg);
    std::optional<DS> ds;
    build_structure(ds, domain, o.key_range);
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

template <class DS, class R>
trial_result run_trial(const trial_spec& spec) {
  using ds_t = DS;
  using handle_t = typename R::handle;
  const options& o = *spec.opt;
  const unsigned workers = o.threads;
  const unsigned stallers = o.stall;
  const std::uint64_t key_range = o.key_range;
  const std::uint64_t prefill_target = o.prefill.value_or(0);

  trial_result res;
  typename R::config cfg{};
  if (std::string err = apply_params<R>(cfg, o.params); !err.empty()) throw usage_error(err);
  res.params = describe_params<R>(cfg);
  res.metrics = R::traits.metrics;

  smr::core::free_profile frees;  // outlives the domain that records into it
  R domain(cfg, smr::core::instruments{spec.timeline, &frees});
  std::optional<ds_t> ds_storage;  // destroyed before the domain
  build_structure(ds_storage, domain, key_range);
  ds_t& ds = *ds_storage;

  std::vector<detail::worker_state> states(workers);
  std::atomic<std::uint64_t> prefill_claimed{0};
  phase_gate phase;
  arrival_counter prefilled, stalled, workers_done, stallers_done;
  stop_signal stop;
  std::atomic<std::uint64_t> timeline_origin{0};  // first instant a stall event may start at

  auto worker = [&](unsigned i) {
    detail::worker_state& st = states[i];
    if (!spec.worker_cpus.empty()) st.pin_error = pin_current_thread(spec.worker_cpus[i]);
    // Roles (--readers): the last `readers` workers run the readers' mix.
    const workload_mix& mix = i >= workers - o.readers ? o.reader_workload : o.workload;
    for (unsigned k = 0; k < op_kind_count; ++k)
      if (share_of(mix, static_cast<op_kind>(k)) != 0) st.latency[k] = std::make_unique<latency_histogram>();
    rng rnd(spec.seed * 0x9E3779B97F4A7C15ull + i);
    std::optional<detail::attachment<R>> attached;
    attached.emplace(domain);
    handle_t* h = &attached->h;

    // Prefill: claim a slot, then add keys until one is new (sets skip keys already present).
    accounting pre;
    while (prefill_claimed.fetch_add(1, std::memory_order_relaxed) < prefill_target) {
      while (!add_key(ds, *h, static_cast<key_type>(rnd.below(key_range)), pre)) {
      }
    }
    st.prefill = pre;
    prefilled.arrive();
    phase.wait_for(detail::running);

    const op_chooser chooser(mix);
    accounting acc;
    std::uint64_t ops = 0;
    const std::uint64_t reattach_every = o.reattach_every.value_or(0);  // 0: never
    std::uint64_t until_reattach = reattach_every;
    while (!o.test_no_ops && !stop.raised()) {
      const std::uint64_t r = rnd.next();
      const op_kind op = chooser.pick(static_cast<std::uint32_t>(r >> 32));
      const auto k = static_cast<key_type>(rnd.below(key_range));
      if ((r & 63) == 0) {  // time one operation in 64, chosen at random so no period aliases
        const std::uint64_t t0 = detail::now_ns();
        if (!detail::run_timed_op(ds, *h, op, k, acc, spec.pool, stop)) break;
        // Net of the clock's own cost (two back-to-back reads, 20-80 ns here): a short
        // operation would otherwise read up to twice its length.
        st.latency[static_cast<unsigned>(op)]->add(smr::core::net_interval_ns(t0, detail::now_ns()));
      } else if (!detail::run_timed_op(ds, *h, op, k, acc, spec.pool, stop)) {
        break;
      }
      ++ops;
      if (until_reattach != 0 && --until_reattach == 0) {  // timed: the churn's cost is the point
        attached.reset();
        attached.emplace(domain);
        h = &attached->h;
        until_reattach = reattach_every;
      }
    }
    st.trial = acc;
    st.ops = ops;
    workers_done.arrive();
    phase.wait_for(detail::released);  // the handle must live until the statistics are read
  };

  auto staller = [&](unsigned) {
    handle_t h = domain.attach();
    smr::core::timeline_buffer* tl = nullptr;
    if constexpr (requires { h.thread_id(); }) {
      if (spec.timeline != nullptr) tl = spec.timeline->attach(h.thread_id());
    }
    const auto stall_length = std::chrono::duration<double, std::milli>(o.stall_ms.value_or(0));
    phase.wait_for(detail::prefilled);
    bool first = true;
    for (;;) {
      std::uint64_t begin = 0;
      {
        [[maybe_unused]] auto g = h.begin_op();
        begin = detail::now_ns();
        if (first) {
          first = false;
          stalled.arrive();
          phase.wait_for(detail::running);
        }
        if (o.stall_kind == stall_mode::whole) {
          stop.wait();
        } else {
          stop.sleep_for(stall_length);
        }
      }
      const std::uint64_t end = detail::now_ns();
      if (tl != nullptr) {
        // Stalls begun before the timeline restarted are clipped to its origin.
        tl->record(smr::core::event_kind::stall, std::max(begin, timeline_origin.load(std::memory_order_relaxed)),
                   std::max(end, timeline_origin.load(std::memory_order_relaxed)), 0);
      }
      if (o.stall_kind == stall_mode::whole || stop.raised()) break;
      if (stop.sleep_for(stall_length)) break;  // outside any operation between stalls
    }
    stallers_done.arrive();
    phase.wait_for(detail::released);
  };

  progress prog(o.quiet);
  std::vector<std::thread> threads;
  threads.reserve(workers + stallers);
  auto abandon = [&] {
    stop.raise();
    phase.advance_to(detail::released);
    for (auto& t : threads) t.join();
  };
  try {
    for (unsigned i = 0; i < workers; ++i) detail::start_thread(threads, [&worker, i] { worker(i); });
    for (unsigned j = 0; j < stallers; ++j) detail::start_thread(threads, [&staller, j] { staller(j); });
  } catch (...) {
    abandon();
    throw;
  }

  // 1. Prefill.
  const auto prefill_start = std::chrono::steady_clock::now();
  if (!detail::wait_for_prefill(prefilled, workers, prefill_claimed, prefill_target, spec.trial, prog)) {
    abandon();
    res.interrupted = true;
    return res;
  }
  res.prefill_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - prefill_start).count();

  // 2. Stalled threads enter their operation.
  phase.advance_to(detail::prefilled);
  stalled.wait_for(stallers);

  // 3. Baselines, with every thread waiting.
  if (spec.timeline != nullptr) {
    spec.timeline->restart();
    timeline_origin.store(smr::core::monotonic_ns(), std::memory_order_relaxed);
  }
  frees.restart();
  // The peak of the timed part alone: a prefill of inserts retires too in the structures that
  // copy on update (bonsai_tree's paths, ab_tree's nodes).
  if constexpr (requires { domain.reset_peak_unreclaimed(); }) domain.reset_peak_unreclaimed();
  const smr::core::stats_snapshot start_stats = domain.stats();

  // 4. The timed trial.
  const auto period = std::clamp<std::chrono::microseconds>(
      std::chrono::microseconds(static_cast<std::int64_t>(o.duration_s * 1e6 / 200)), std::chrono::milliseconds(1),
      std::chrono::milliseconds(10));
  memory_monitor monitor(period, [&] { return domain.stats().unreclaimed; });
  const detail::timed_phase timed = detail::run_timed_phase(o, spec, phase, stop, prog);
  res.interrupted = timed.interrupted;
  res.elapsed_s = timed.elapsed_s;

  // 5. Statistics while every handle is alive, then teardown.
  workers_done.wait_for(workers);
  res.cpu_s = process_cpu_seconds() - timed.cpu_at_go;
  const smr::core::stats_snapshot end_stats = domain.stats();
  const memory_monitor::result mem = monitor.finish();
  stallers_done.wait_for(stallers);
  // Every thread that may free is done (a staller frees at the start of each stall).
  const smr::core::free_profile_buffer free_profile = frees.merged();
  phase.advance_to(detail::released);
  for (auto& t : threads) t.join();
  if (res.interrupted) return res;

  res.stats = detail::delta(end_stats, start_stats);
  res.peak_unreclaimed = std::max<std::int64_t>(end_stats.peak_unreclaimed, mem.max_sampled);
  res.avg_unreclaimed = mem.avg_sampled;
  res.avg_unreclaimed_per_op = mem.avg_sampled / workers;
  res.peak_rss_bytes = mem.peak_rss_bytes;
  res.end_rss_bytes = mem.end_rss_bytes;

  const detail::expected_contents expected = detail::collect_workers(res, states, free_profile, prog);

  if (o.test_corrupt) {
    handle_t h = domain.attach();
    corrupt(ds, h);
  }
  handle_t searcher = domain.attach();
  detail::record_validation(res, validate(ds, expected.count, expected.sum, key_range, [&](key_type k) {
                              if constexpr (set_like<DS>) return static_cast<bool>(ds.contains(searcher, k));
                              else return false;
                            }));
  return res;
}

}  // namespace smrbench
