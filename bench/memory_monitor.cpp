#include "memory_monitor.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

namespace smrbench {

std::uint64_t current_rss_bytes() {
  // statm: size resident shared text lib data dt, in pages. Read with one syscall, no allocation.
  const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[128];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  unsigned long long size = 0, resident = 0;
  if (std::sscanf(buf, "%llu %llu", &size, &resident) != 2) return 0;
  return resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

bool reset_peak_rss() {
  const int fd = ::open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, "5", 1) == 1;
  ::close(fd);
  return ok;
}

std::uint64_t peak_rss_bytes_since_reset() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;  // kB
  }
  return 0;
}

double process_cpu_seconds() {
  rusage u{};
  if (::getrusage(RUSAGE_SELF, &u) != 0) return 0;
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return seconds(u.ru_utime) + seconds(u.ru_stime);
}

memory_monitor::memory_monitor(std::chrono::microseconds period, std::function<std::int64_t()> sampler)
    : period_(period), sampler_(std::move(sampler)) {
  hwm_reset_ = reset_peak_rss();
  sample();
  thread_ = std::thread([this] { run(); });
}

memory_monitor::~memory_monitor() { finish(); }

void memory_monitor::sample() {
  const std::uint64_t rss = current_rss_bytes();
  rss_last_ = rss;
  rss_max_ = std::max(rss_max_, rss);
  const std::int64_t v = sampler_();
  sampled_sum_ += v;
  sampled_max_ = samples_ == 0 ? v : std::max(sampled_max_, v);
  ++samples_;
}

void memory_monitor::run() {
  std::unique_lock<std::mutex> g(lock_);
  while (!wake_.wait_for(g, period_, [this] { return stop_; })) sample();
}

memory_monitor::result memory_monitor::finish() {
  if (finished_) return result_;
  finished_ = true;
  {
    std::lock_guard<std::mutex> g(lock_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
  sample();
  result_.end_rss_bytes = rss_last_;
  result_.peak_rss_bytes = rss_max_;
  if (hwm_reset_) result_.peak_rss_bytes = std::max(rss_max_, peak_rss_bytes_since_reset());
  result_.samples = samples_;
  result_.avg_sampled = samples_ == 0 ? 0.0 : static_cast<double>(sampled_sum_ / samples_);
  result_.max_sampled = sampled_max_;
  return result_;
}

}  // namespace smrbench
