// Log-linear latency histogram (the HdrHistogram idea): a fixed 15 KiB whatever the number of
// samples, so recording latencies does not grow the memory being measured. smrbench keeps one
// per thread and kind of operation; the free profile (free_profile.hpp) two per thread.
//
// Values below 32 ns have their own bucket; above, each power of two is split into 32 buckets,
// so a bucket spans at most 1/32 of its value. Percentiles report the bucket's midpoint (relative
// error at most ~1.6%); the maximum is kept exactly. nonempty_buckets() exports the counts with
// each bucket's bounds, so that a reader can recompute any percentile (docs/results-format.md).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

namespace smr::core {

// Values in [lower, upper) nanoseconds were seen `count` times.
struct latency_bucket {
  std::uint64_t lower = 0, upper = 0, count = 0;
};

class latency_histogram {
 public:
  static constexpr unsigned sub_bits = 5;
  static constexpr unsigned sub_count = 1u << sub_bits;
  static constexpr unsigned bucket_count = sub_count + (64 - sub_bits) * sub_count;

  // `weight` > 1 when the sample stands for that many unsampled ones (the free profile's small
  // batches): counts and percentiles are then estimates, the maximum still the largest seen.
  void add(std::uint64_t ns, std::uint64_t weight = 1) {
    counts_[index(ns)] += weight;
    total_ += weight;
    max_ = std::max(max_, ns);
  }

  void merge(const latency_histogram& o) {
    for (unsigned i = 0; i < bucket_count; ++i) counts_[i] += o.counts_[i];
    total_ += o.total_;
    max_ = std::max(max_, o.max_);
  }

  std::uint64_t samples() const { return total_; }
  std::uint64_t max() const { return max_; }

  // Smallest recorded value v (to bucket precision) such that at least q of the samples are <= v.
  std::uint64_t percentile(double q) const {
    if (total_ == 0) return 0;
    const auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(total_)));
    const std::uint64_t target = std::max<std::uint64_t>(rank, 1);
    std::uint64_t seen = 0;
    for (unsigned i = 0; i < bucket_count; ++i) {
      seen += counts_[i];
      if (seen >= target) return std::min(midpoint(i), max_);
    }
    return max_;
  }

  static unsigned index(std::uint64_t v) {
    if (v < sub_count) return static_cast<unsigned>(v);
    const unsigned msb = 63u - static_cast<unsigned>(std::countl_zero(v));
    const unsigned shift = msb - sub_bits;
    const unsigned sub = static_cast<unsigned>((v >> shift) & (sub_count - 1));
    return sub_count + shift * sub_count + sub;
  }

  // Lowest value that maps to bucket i.
  static std::uint64_t lower_bound(unsigned i) {
    if (i < sub_count) return i;
    const unsigned shift = (i - sub_count) / sub_count;
    const unsigned sub = (i - sub_count) % sub_count;
    return (static_cast<std::uint64_t>(sub_count + sub)) << shift;
  }

  // Values in bucket i: 1 below sub_count, else 2^shift.
  static std::uint64_t width(unsigned i) {
    return i < sub_count ? 1 : std::uint64_t{1} << ((i - sub_count) / sub_count);
  }

  static std::uint64_t midpoint(unsigned i) { return lower_bound(i) + width(i) / 2; }

  // The buckets that hold samples, in increasing order. The last bucket's upper bound saturates
  // at 2^64 - 1 (no latency comes near it).
  std::vector<latency_bucket> nonempty_buckets() const {
    std::vector<latency_bucket> out;
    for (unsigned i = 0; i < bucket_count; ++i) {
      if (counts_[i] == 0) continue;
      const std::uint64_t lo = lower_bound(i);
      const std::uint64_t up = lo + width(i) < lo ? ~std::uint64_t{0} : lo + width(i);
      out.push_back({lo, up, counts_[i]});
    }
    return out;
  }

 private:
  std::array<std::uint64_t, bucket_count> counts_{};
  std::uint64_t total_ = 0;
  std::uint64_t max_ = 0;
};

}  // namespace smr::core
