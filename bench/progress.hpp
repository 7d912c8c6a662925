// Progress lines on stderr for phases that take a while (long prefill, long trials), so a user
// watching the terminal knows the run is alive. Silenced by --quiet.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace smrbench {

class progress {
 public:
  using clock = std::chrono::steady_clock;
  static constexpr std::chrono::seconds interval{2};

  explicit progress(bool quiet) : quiet_(quiet), last_(clock::now()) {}

  void say(const std::string& line) const {
    if (!quiet_) std::fprintf(stderr, "smrbench: %s\n", line.c_str());
  }
  // Calls make_line() and prints it if `interval` passed since the last periodic line.
  template <class F>
  void tick(F&& make_line) {
    const auto now = clock::now();
    if (quiet_ || now - last_ < interval) return;
    last_ = now;
    say(make_line());
  }

 private:
  bool quiet_;
  clock::time_point last_;
};

}  // namespace smrbench
