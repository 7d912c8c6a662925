// Resident memory and unreclaimed-node sampling during a timed trial.
//
// A monitor thread wakes every `period`, reads the resident set size from /proc/self/statm and
// calls the sampler (the domain's unreclaimed-node count). Peak RSS additionally uses the
// kernel's own high-water mark: writing 5 to /proc/self/clear_refs resets VmHWM at the start of
// the trial, so the peak between two samples is not missed. (getrusage's ru_maxrss is the same
// high-water mark but cannot be reset, so it would carry the prefill and earlier trials.)
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace smrbench {

std::uint64_t current_rss_bytes();
// Resets the kernel's peak-RSS mark; false if this kernel or sandbox does not allow it.
bool reset_peak_rss();
// VmHWM in bytes, or 0 if unavailable.
std::uint64_t peak_rss_bytes_since_reset();
// User plus system CPU time of the whole process so far (getrusage).
double process_cpu_seconds();

class memory_monitor {
 public:
  struct result {
    std::uint64_t peak_rss_bytes = 0;  // max of samples and (if reset worked) VmHWM
    std::uint64_t end_rss_bytes = 0;
    double avg_sampled = 0;            // time-average of the sampler's values
    std::int64_t max_sampled = 0;
    std::uint64_t samples = 0;
  };

  memory_monitor(std::chrono::microseconds period, std::function<std::int64_t()> sampler);
  ~memory_monitor();
  memory_monitor(const memory_monitor&) = delete;
  memory_monitor& operator=(const memory_monitor&) = delete;

  // Stops sampling (taking one last sample) and returns the summary.
  result finish();

 private:
  void sample();
  void run();

  std::chrono::microseconds period_;
  std::function<std::int64_t()> sampler_;
  bool hwm_reset_ = false;
  std::mutex lock_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::uint64_t rss_max_ = 0;
  std::uint64_t rss_last_ = 0;
  long double sampled_sum_ = 0;
  std::int64_t sampled_max_ = 0;
  std::uint64_t samples_ = 0;
  std::thread thread_;
  bool finished_ = false;
  result result_;
};

}  // namespace smrbench
