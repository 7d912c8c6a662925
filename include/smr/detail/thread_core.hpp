// The per-thread part every reclaimer shares: statistics, the instruments' buffers (timeline,
// free profile), the batched unreclaimed gauge, and the routines that actually free safe nodes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "smr/detail/limbo_bag.hpp"
#include "smr/core/stats.hpp"
#include "smr/core/free_profile.hpp"
#include "smr/core/timeline.hpp"

namespace smr::detail {
using namespace ::smr::core;  // the public building blocks (atomics, nodes, stats)


class thread_core {
 public:
  static constexpr std::int64_t gauge_flush_every = 32;

  thread_core(thread_stats& stats, unreclaimed_gauge& gauge, timeline_buffer* timeline,
              free_profile_buffer* profile = nullptr)
      : stats_(&stats), gauge_(&gauge), timeline_(timeline), profile_(profile),
        // Threads draw different gaps; xorshift needs a non-zero state.
        sample_rng_(static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(this) >> 6) | 1u) {}
  thread_core(const thread_core&) = delete;
  thread_core& operator=(const thread_core&) = delete;
  ~thread_core() { flush_gauge(); }

  void note_retired() {
    stats_->retired.add();
    if (++pending_delta_ >= gauge_flush_every) flush_gauge();
  }

  // Frees every node of `bag`; the caller has proven that no thread can reach them.
  void free_now(limbo_bag&& bag) {
    free_now(std::move(bag), [] {}, 0);
  }
  // The same, calling progress() after every `every` frees (0: never): a protocol that must not
  // wait for a long batch (Token-EBR's periodic pass) keeps moving from inside it. One timed
  // batch all the same.
  template <class Progress>
  void free_now(limbo_bag&& bag, Progress&& progress, std::size_t every) {
    if (bag.empty()) return;
    const std::size_t n = bag.size();
    // Off the gauge before the first free: each freed block may at once be allocated, published
    // and retired again by another thread, and counting it twice would inflate the peak by up
    // to a whole batch (seen as a peak above a bounded pool's size). The batch was counted as
    // unreclaimed up to now, so the peak loses nothing. Retirements not yet folded absorb the
    // batch when they cover it: the gauge then still reads at most the true count, with no
    // shared RMW. An epoch scheme at 2 threads frees a batch of about 4 nodes per epoch, a
    // million times a second, and two RMWs per batch were 5% of DEBRA's time (20K-key hash map).
    const auto freed = static_cast<std::int64_t>(n);
    if (pending_delta_ >= freed) {
      pending_delta_ -= freed;
    } else {
      gauge_->add(pending_delta_ - freed);
      pending_delta_ = 0;
    }
    const std::uint32_t weight = batch_weight(n);
    const std::uint64_t start = weight != 0 ? monotonic_ns() : 0;
    std::size_t since = 0;
    while (retired_node* node = bag.pop_front()) {
      if (profile_ != nullptr && sample_due()) {
        const std::uint64_t t0 = monotonic_ns();
        free_node(node);
        profile_->calls.add(net_interval_ns(t0, monotonic_ns()));
      } else {
        free_node(node);
      }
      if (every != 0 && ++since == every) {
        since = 0;
        progress();
      }
    }
    stats_->freed.add(n);
    stats_->free_batches.add();
    if (weight == 0) return;
    const std::uint64_t end = monotonic_ns();
    stats_->free_time_ns.add((end - start) * weight);
    if (profile_ != nullptr) profile_->batches.add(end - start, weight);
    record(event_kind::batch_free, start, end, n);
  }

  // Frees one safe node (amortized free). Timing every call would cost as much as the free
  // itself, so about one call in `free_sample_every` (at random gaps, see sample_due) is timed
  // and counted for the whole sample; with a timeline, every call is timed and the long ones are
  // recorded (Epochs Fig. 9).
  static constexpr unsigned free_sample_every = free_profile::sample_every;
  static constexpr unsigned small_batch_sample_every = free_profile::small_batch_sample_every;
  static constexpr std::uint64_t long_free_ns = 100'000;

  void free_one(retired_node* node) {
    // Folded into the gauge like retirements, not one shared RMW per free (which cost amortized
    // free its throughput at 2 threads and more). Until the fold, a node freed and at once
    // reused and retired elsewhere counts twice: at most gauge_flush_every per thread, the
    // gauge's stated precision.
    if (--pending_delta_ <= -gauge_flush_every) flush_gauge();
    const bool sampled = sample_due();
    if (timeline_ == nullptr && !sampled) {
      free_node(node);
    } else {
      const std::uint64_t start = monotonic_ns();
      free_node(node);
      const std::uint64_t took = net_interval_ns(start, monotonic_ns());
      stats_->free_time_ns.add(timeline_ != nullptr ? took : took * free_sample_every);
      // The profile takes the sampled calls only, as in free_now: the same distribution whether
      // or not a timeline is on.
      if (sampled && profile_ != nullptr) profile_->calls.add(took);
      if (took >= long_free_ns) record(event_kind::free_call, start, start + took, took);
    }
    stats_->freed.add();
  }

  // Runs work that a free policy does on the way to the allocator (amortized free's address
  // sort of a large batch) and counts its time as time in free, timed each: such work is done
  // once per batch of a thousand nodes or more, so two clock reads are noise beside it.
  template <class Work>
  void free_work(Work&& work) {
    const std::uint64_t start = monotonic_ns();
    work();
    stats_->free_time_ns.add(net_interval_ns(start, monotonic_ns()));
  }

  void record(event_kind kind, std::uint64_t start, std::uint64_t end, std::uint64_t value) {
    if (timeline_ != nullptr) timeline_->record(kind, start, end, value);
  }
  void record_instant(event_kind kind, std::uint64_t value) {
    if (timeline_ != nullptr) {
      const std::uint64_t now = monotonic_ns();
      timeline_->record(kind, now, now, value);
    }
  }

  thread_stats& stats() { return *stats_; }

  // Folds the pending retirements into the domain's gauge. The handle calls it before it leaves
  // the registry: after that the domain may be destroyed (the destructor's call then adds nothing).
  void flush_gauge() {
    if (pending_delta_ != 0) gauge_->add(pending_delta_);
    pending_delta_ = 0;
  }

 private:
  // Whether this free call is sampled: gaps drawn uniformly from [1, 2 x free_sample_every - 1]
  // (mean free_sample_every) by a per-thread xorshift, so that no allocator period aliases.
  bool sample_due() {
    if (--until_sample_ != 0) return false;
    until_sample_ = random_gap(free_sample_every);
    return true;
  }

  // How many batches this batch free stands for in free_time_ns and the profile; 0: not timed.
  // Two clock reads cost as much as freeing a few nodes, and an epoch scheme at 2 threads frees a
  // batch of about 4 nodes a million times a second (2.5% of DEBRA's time on the 20K-key hash
  // map). So a batch smaller than free_sample_every nodes is timed at random gaps of mean
  // small_batch_sample_every and counts for that many; larger batches, and every batch when a
  // timeline draws them, are timed each.
  std::uint32_t batch_weight(std::size_t n) {
    if (timeline_ != nullptr || n >= free_sample_every) return 1;
    if (--until_small_batch_ != 0) return 0;
    until_small_batch_ = random_gap(small_batch_sample_every);
    return small_batch_sample_every;
  }

  // A gap drawn uniformly from [1, 2 x mean - 1] by a per-thread xorshift.
  std::uint32_t random_gap(unsigned mean) {
    sample_rng_ ^= sample_rng_ << 13;
    sample_rng_ ^= sample_rng_ >> 17;
    sample_rng_ ^= sample_rng_ << 5;
    return 1 + sample_rng_ % (2 * mean - 1);
  }

  thread_stats* stats_;
  unreclaimed_gauge* gauge_;
  timeline_buffer* timeline_;
  free_profile_buffer* profile_;
  // Retirements minus amortized frees not yet on the gauge, within +-gauge_flush_every.
  std::int64_t pending_delta_ = 0;
  std::uint32_t until_sample_ = free_sample_every;
  std::uint32_t until_small_batch_ = 1;  // the first small batch is timed
  std::uint32_t sample_rng_;
};

}  // namespace smr::detail
