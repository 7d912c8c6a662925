// Reclamation statistics: per-thread counters written only by their owner, summed on demand.
//
// Unreclaimed nodes (retired, not yet freed) are also tracked domain-wide so that a peak can be
// reported: each thread folds its retirements and amortized frees into the shared counter
// every thread_core::gauge_flush_every (32) of them, and a batch free at once unless the
// retirements it has not folded yet cover the batch, so the peak is exact to within
// 32 x threads (and, without amortized free, never above the true count).
#pragma once

#include <cstdint>

#include "smr/core/atomic.hpp"

namespace smr::core {

// Which statistics mean something for a reclaimer; the others are reported as null.
struct metric_support {
  bool epochs = false;           // epochs or eras advanced
  bool signals = false;          // neutralization signals sent
  bool restarts = false;         // read phases restarted
  bool protect_retries = false;  // protect() validations that failed and retried
  bool round_waits = false;      // reclamation rounds that waited for other threads first
};

struct thread_stats {
  owned_counter retired;
  owned_counter freed;
  owned_counter epochs;  // advances performed by this thread
  owned_counter signals;
  owned_counter restarts;
  owned_counter protect_retries;
  owned_counter round_waits;
  owned_counter free_time_ns;
  owned_counter free_batches;
};

struct stats_snapshot {
  std::uint64_t retired = 0;
  std::uint64_t freed = 0;
  std::uint64_t epochs = 0;
  std::uint64_t signals = 0;
  std::uint64_t restarts = 0;
  std::uint64_t protect_retries = 0;
  std::uint64_t round_waits = 0;
  // An estimate: batches of fewer than 64 nodes and amortized frees are timed at random gaps
  // and scaled (detail/thread_core.hpp), since timing each would cost as much as the frees.
  std::uint64_t free_time_ns = 0;
  std::uint64_t free_batches = 0;
  std::int64_t unreclaimed = 0;
  std::int64_t peak_unreclaimed = 0;

  void add(const thread_stats& t) {
    retired += t.retired.read();
    freed += t.freed.read();
    epochs += t.epochs.read();
    signals += t.signals.read();
    restarts += t.restarts.read();
    protect_retries += t.protect_retries.read();
    round_waits += t.round_waits.read();
    free_time_ns += t.free_time_ns.read();
    free_batches += t.free_batches.read();
  }
};

// On a cache line of its own: every thread writes it once per 32 retirements or amortized frees,
// and beside the domain's read-mostly fields (its configuration, the registry's slot list) those
// writes made the threads that read them miss. That false sharing cost wfe_af 11-12% of its
// throughput on a 20K-key hash map (2 and 8 threads, jemalloc): amortized free folds a batch
// into the gauge 32 nodes at a time, where a batch free does it once.
class alignas(cache_line) unreclaimed_gauge {
 public:
  void add(std::int64_t delta) {
    std::int64_t now = value_.fetch_add(delta, mo_relaxed) + delta;
    std::int64_t peak = peak_.load(mo_relaxed);
    while (now > peak && !peak_.compare_exchange_weak(peak, now, mo_relaxed)) {
    }
  }
  std::int64_t value() const { return value_.load(mo_relaxed); }
  std::int64_t peak() const { return peak_.load(mo_relaxed); }
  void reset_peak() { peak_.store(value_.load(mo_relaxed), mo_relaxed); }

 private:
  atomic<std::int64_t> value_{0};
  atomic<std::int64_t> peak_{0};
};

}  // namespace smr::core
