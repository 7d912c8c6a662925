// Free-call profile (Epochs too epic §3, Fig. 3 and Tables 1-3): how long individual free calls
// take and how long whole batch frees take, per thread, in two latency histograms.
//
// A batch reclaimer's cost in free is rarely the average call: jemalloc and tcmalloc make an
// occasional call flush a whole thread cache to remote arenas under a lock, and that call is what
// amortized free removes. So the profile keeps the distribution, not a sum.
//
// Individual calls are sampled: about one in `sample_every`, at pseudo-random gaps so that no
// period of the allocator (a cache that flushes every k frees) aliases with the sampling. Two
// clock reads per sampled call; nothing at all when a domain has no profile. Every batch of at
// least `sample_every` nodes is timed and recorded. A smaller batch is timed about one time in
// `small_batch_sample_every` (random gaps, as for calls) and recorded with that weight, since two
// clock reads cost as much as freeing a few nodes; `batches.samples()` is then an estimate of the
// batch count, and its maximum the longest batch timed. With a timeline, every batch is timed.
//
// Like the timeline: owned by the caller, passed to the domain (core::instruments), one buffer
// per thread id, attached at registration, recorded without locks or shared cache lines.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "smr/core/latency_histogram.hpp"

namespace smr::core {

struct free_profile_buffer {
  latency_histogram calls;    // individual free calls (sampled), ns
  latency_histogram batches;  // whole batch frees, ns, each one
};

class free_profile {
 public:
  // Mean gap between sampled free calls.
  static constexpr unsigned sample_every = 64;
  // Mean gap between timed batches of fewer than sample_every nodes.
  static constexpr unsigned small_batch_sample_every = 8;

  free_profile_buffer* attach(std::size_t thread_id) {
    std::lock_guard<std::mutex> g(lock_);
    if (buffers_.size() <= thread_id) buffers_.resize(thread_id + 1);
    if (!buffers_[thread_id]) buffers_[thread_id] = std::make_unique<free_profile_buffer>();
    return buffers_[thread_id].get();
  }

  // Clears every buffer (the start of a timed trial); only while no thread frees.
  void restart() {
    std::lock_guard<std::mutex> g(lock_);
    for (auto& b : buffers_)
      if (b) *b = free_profile_buffer{};
  }

  // Every thread's buffer summed; only while no thread frees.
  free_profile_buffer merged() const {
    std::lock_guard<std::mutex> g(lock_);
    free_profile_buffer out;
    for (const auto& b : buffers_) {
      if (!b) continue;
      out.calls.merge(b->calls);
      out.batches.merge(b->batches);
    }
    return out;
  }

 private:
  mutable std::mutex lock_;
  std::vector<std::unique_ptr<free_profile_buffer>> buffers_;
};

}  // namespace smr::core
