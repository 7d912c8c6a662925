// Timeline recorder (Epochs too epic, §3.1): per-thread preallocated buffers of events with two
// timestamps and a value, cheap enough to record 100,000 events per thread during a trial.
//
// Recording is a bounds check and four stores into the owning thread's buffer: no locks, no
// allocation, no shared cache lines. A full buffer drops further events and counts them.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace smr::core {

enum class event_kind : std::uint8_t {
  batch_free,     // value: nodes freed in the batch
  free_call,      // value: duration of one long free call, ns
  epoch_advance,  // value: the new epoch or era
  signal,         // value: threads signalled
  garbage,        // value: this thread's unreclaimed nodes when it saw an epoch change
  stall,          // a deliberately stalled thread's sleep
};

inline const char* event_kind_name(event_kind k) {
  switch (k) {
    case event_kind::batch_free: return "batch_free";
    case event_kind::free_call: return "free_call";
    case event_kind::epoch_advance: return "epoch_advance";
    case event_kind::signal: return "signal";
    case event_kind::garbage: return "garbage";
    case event_kind::stall: return "stall";
  }
  return "unknown";
}

struct timeline_event {
  std::uint64_t start_ns;
  std::uint64_t end_ns;
  std::uint64_t value;
  event_kind kind;
};

inline std::uint64_t monotonic_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

// What two back-to-back monotonic_ns() calls measure with nothing between them (the median of
// 31 tries, taken once): the part of a short timed interval that is the clock itself. About
// 20 ns on the development VM, twice a typical free call, so timings of single free calls
// subtract it.
inline std::uint64_t clock_overhead_ns() {
  static const std::uint64_t overhead = [] {
    std::array<std::uint64_t, 31> d{};
    for (auto& x : d) {
      const std::uint64_t a = monotonic_ns();
      x = monotonic_ns() - a;
    }
    std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
    return d[d.size() / 2];
  }();
  return overhead;
}

// end - start without the clock's own cost, never below zero.
inline std::uint64_t net_interval_ns(std::uint64_t start, std::uint64_t end) {
  const std::uint64_t raw = end - start;
  return raw > clock_overhead_ns() ? raw - clock_overhead_ns() : 0;
}

class timeline_buffer {
 public:
  timeline_buffer(std::size_t capacity, std::uint64_t origin_ns) : origin_ns_(origin_ns) {
    events_.reserve(capacity);
  }

  // Times are absolute monotonic_ns(); they are stored relative to the timeline's origin.
  void record(event_kind kind, std::uint64_t start_ns, std::uint64_t end_ns, std::uint64_t value) {
    if (events_.size() == events_.capacity()) {
      ++dropped_;
      return;
    }
    events_.push_back({start_ns - origin_ns_, end_ns - origin_ns_, value, kind});
  }

  // Only while the owning thread is not recording (between prefill and the timed trial).
  void reset(std::uint64_t origin_ns) {
    events_.clear();
    origin_ns_ = origin_ns;
    dropped_ = 0;
  }

  const std::vector<timeline_event>& events() const { return events_; }
  std::uint64_t dropped() const { return dropped_; }

 private:
  std::vector<timeline_event> events_;
  std::uint64_t origin_ns_;
  std::uint64_t dropped_ = 0;
};

// Owns one buffer per thread id. Attaching (at thread registration) takes a lock; recording
// never does. Buffers outlive their threads so the trial can write them out afterwards.
class timeline {
 public:
  explicit timeline(std::size_t events_per_thread = 100000)
      : capacity_(events_per_thread), origin_ns_(monotonic_ns()) {}

  timeline_buffer* attach(std::size_t thread_id) {
    std::lock_guard<std::mutex> g(lock_);
    if (buffers_.size() <= thread_id) buffers_.resize(thread_id + 1);
    if (!buffers_[thread_id]) buffers_[thread_id] = std::make_unique<timeline_buffer>(capacity_, origin_ns_);
    return buffers_[thread_id].get();
  }

  // Resets the time origin (start of the timed trial, after prefill) and clears events; only
  // while no thread records.
  void restart() {
    std::lock_guard<std::mutex> g(lock_);
    origin_ns_ = monotonic_ns();
    for (auto& b : buffers_)
      if (b) b->reset(origin_ns_);
  }

  template <class F>
  void for_each_buffer(F&& fn) const {
    std::lock_guard<std::mutex> g(lock_);
    for (std::size_t i = 0; i < buffers_.size(); ++i)
      if (buffers_[i]) fn(i, *buffers_[i]);
  }

 private:
  mutable std::mutex lock_;
  std::vector<std::unique_ptr<timeline_buffer>> buffers_;
  std::size_t capacity_;
  std::uint64_t origin_ns_;
};

}  // namespace smr::core
