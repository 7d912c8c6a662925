// The parts of driver.hpp's trial that depend on neither the structure nor the reclaimer.
#include "driver.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace smrbench::detail {

void start_thread(std::vector<std::thread>& threads, std::function<void()> body) {
  threads.emplace_back(std::move(body));
}

smr::core::stats_snapshot delta(const smr::core::stats_snapshot& end, const smr::core::stats_snapshot& start) {
  smr::core::stats_snapshot d = end;
  d.retired -= start.retired;
  d.freed -= start.freed;
  d.epochs -= start.epochs;
  d.signals -= start.signals;
  d.restarts -= start.restarts;
  d.protect_retries -= start.protect_retries;
  d.round_waits -= start.round_waits;
  d.free_time_ns -= start.free_time_ns;
  d.free_batches -= start.free_batches;
  return d;
}

bool wait_for_prefill(const arrival_counter& prefilled, unsigned workers, std::atomic<std::uint64_t>& claimed,
                      std::uint64_t target, unsigned trial, progress& prog) {
  while (prefilled.load() < workers) {
    if (interrupt_signal() != 0) {
      claimed.store(target, std::memory_order_relaxed);  // the workers stop claiming prefill slots
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    prog.tick([&] {
      const std::uint64_t done = std::min(claimed.load(std::memory_order_relaxed), target);
      return "trial " + std::to_string(trial) + ": prefill " + std::to_string(done) + "/" + std::to_string(target);
    });
  }
  return true;
}

timed_phase run_timed_phase(const options& o, const trial_spec& spec, phase_gate& phase, stop_signal& stop,
                            progress& prog) {
  timed_phase t;
  const auto go = std::chrono::steady_clock::now();
  const auto deadline = go + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                 std::chrono::duration<double>(o.duration_s));
  t.cpu_at_go = process_cpu_seconds();
  if (spec.pool != nullptr) spec.pool->begin_timed();
  phase.advance_to(running);
  for (auto now = go; now < deadline; now = std::chrono::steady_clock::now()) {
    if (interrupt_signal() != 0) {
      t.interrupted = true;
      break;
    }
    // Short naps so that a signal stops the trial promptly.
    std::this_thread::sleep_until(std::min(deadline, now + std::chrono::milliseconds(100)));
    prog.tick([&] {
      char line[96];
      std::snprintf(line, sizeof line, "trial %u: %.1f s of %g s", spec.trial,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - go).count(), o.duration_s);
      return std::string(line);
    });
  }
  stop.raise();
  t.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - go).count();
  return t;
}

expected_contents collect_workers(trial_result& res, const std::vector<worker_state>& states,
                                  const smr::core::free_profile_buffer& free_profile, const progress& prog) {
  expected_contents expected;
  latency_histogram all;
  std::array<std::unique_ptr<latency_histogram>, op_kind_count> by_kind;
  for (const auto& st : states) {
    if (!st.pin_error.empty()) prog.say("warning: " + st.pin_error);
    res.per_thread_ops.push_back(st.ops);
    res.ops += st.ops;
    res.prefill_count += st.prefill.inserted;
    for (unsigned k = 0; k < op_kind_count; ++k) {
      if (!st.latency[k]) continue;
      if (!by_kind[k]) by_kind[k] = std::make_unique<latency_histogram>();
      by_kind[k]->merge(*st.latency[k]);
      all.merge(*st.latency[k]);
    }
    expected.count += st.prefill.inserted + st.trial.inserted - st.trial.removed;
    expected.sum += st.prefill.inserted_sum + st.trial.inserted_sum - st.trial.removed_sum;
  }
  res.latency = summary_of(all);
  if (free_profile.calls.samples() != 0) res.free_calls = distribution_of(free_profile.calls);
  if (free_profile.batches.samples() != 0) res.batch_frees = distribution_of(free_profile.batches);
  for (unsigned k = 0; k < op_kind_count; ++k)
    if (by_kind[k]) res.latency_by_kind[k] = distribution_of(*by_kind[k]);
  return expected;
}

void record_validation(trial_result& res, const validation& v) {
  res.valid = v.ok;
  res.validation_detail = v.detail;
  if (res.ops == 0) {  // nothing was measured: a failed trial, not a result
    res.valid = false;
    res.validation_detail = "no operation completed in the timed part (" + std::to_string(res.elapsed_s) +
                            " s); " + res.validation_detail;
  }
}

}  // namespace smrbench::detail
