// What one timed trial takes and what it yields: the boundary between the templated driver
// (driver.hpp, instantiated per data structure x reclaimer) and everything else, which is not
// templated.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "smr/core/latency_histogram.hpp"
#include "options.hpp"
#include "workload.hpp"
#include "smr/core/stats.hpp"
#include "smr/core/timeline.hpp"

namespace smrbench {

using smr::core::latency_bucket;
using smr::core::latency_histogram;

struct trial_spec {
  const options* opt = nullptr;
  unsigned trial = 1;                   // 1-based
  std::uint64_t seed = 0;               // this trial's seed (derived from --seed and trial)
  std::vector<int> worker_cpus;         // empty = not pinned; else one CPU per worker
  smr::core::timeline* timeline = nullptr;
  node_pool* pool = nullptr;  // --node-pool: installed by the caller; waits only while timed
};

struct latency_summary {
  std::uint64_t p50 = 0, p99 = 0, p999 = 0, max = 0;
  std::uint64_t samples = 0;
};

// Sampled latencies (of one kind of operation, or of free calls), all workers merged: compact
// enough to keep per trial and to export whole.
struct latency_distribution {
  latency_summary summary;
  std::vector<latency_bucket> buckets;  // non-empty, increasing
};

inline latency_summary summary_of(const latency_histogram& h) {
  return {h.percentile(0.50), h.percentile(0.99), h.percentile(0.999), h.max(), h.samples()};
}
inline latency_distribution distribution_of(const latency_histogram& h) {
  return {summary_of(h), h.nonempty_buckets()};
}

struct trial_result {
  nlohmann::json params = nlohmann::json::object();  // effective reclaimer tunables
  std::vector<std::uint64_t> per_thread_ops;
  std::uint64_t ops = 0;
  double elapsed_s = 0;  // from the start signal to the stop signal
  double cpu_s = 0;      // process CPU time (user + system) over the same interval
  double prefill_s = 0;
  std::uint64_t prefill_count = 0;
  latency_summary latency;
  // Indexed by op_kind; empty for a kind the workload never draws.
  std::array<std::optional<latency_distribution>, op_kind_count> latency_by_kind;
  // The free profile (smr/core/free_profile.hpp): sampled individual free calls and whole batch
  // frees; empty when the reclaimer made none (or frees outside the library, as the external ones).
  std::optional<latency_distribution> free_calls;
  std::optional<latency_distribution> batch_frees;
  std::uint64_t peak_rss_bytes = 0;
  std::uint64_t end_rss_bytes = 0;
  double avg_unreclaimed_per_op = 0;  // see docs/results-format.md for the exact definition
  double avg_unreclaimed = 0;         // domain-wide, time-averaged
  std::int64_t peak_unreclaimed = 0;
  smr::core::stats_snapshot stats;  // deltas over the timed trial
  smr::core::metric_support metrics;
  bool valid = false;
  std::string validation_detail;
  std::vector<int> worker_cpus;  // --pin: the CPU of each worker (operating-system numbers); else empty
  std::optional<node_pool::counters> pool;  // --node-pool, read after teardown
  bool interrupted = false;  // stopped by a signal: incomplete, neither validated nor reported
};

}  // namespace smrbench
