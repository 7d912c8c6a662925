// Shared machinery of the concurrent stress tests: start barrier, per-thread RNG, an op budget
// per thread, and a watchdog that fails (instead of hanging) a run that stops progressing.
#pragma once

#include <gtest/gtest.h>

#include "smr/core/node.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string_view>
#include <thread>
#include <vector>

namespace smr::test {

// Small, fast, seedable RNG (xorshift64*), one per thread.
class rng {
 public:
  explicit rng(std::uint64_t seed) : s_(seed * 0x9E3779B97F4A7C15ull + 1) {}
  std::uint64_t next() {
    s_ ^= s_ >> 12;
    s_ ^= s_ << 25;
    s_ ^= s_ >> 27;
    return s_ * 0x2545F4914F6CDD1Dull;
  }
  std::uint64_t below(std::uint64_t n) { return next() % n; }

 private:
  std::uint64_t s_;
};

// Watchdog: aborts the process with a message if not disarmed within the limit, so a
// deadlocked or livelocked test fails CI instead of hanging it.
class watchdog {
 public:
  explicit watchdog(std::chrono::seconds limit, const char* what) : what_(what) {
    thread_ = std::thread([this, limit] {
      const auto deadline = std::chrono::steady_clock::now() + limit;
      while (!done_.load(std::memory_order_acquire)) {
        if (std::chrono::steady_clock::now() > deadline) {
          std::fprintf(stderr, "watchdog: '%s' made no progress within its limit\n", what_);
          std::abort();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    });
  }
  ~watchdog() {
    done_.store(true, std::memory_order_release);
    thread_.join();
  }

 private:
  const char* what_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// Runs body(thread_index) on `threads` threads released together by a barrier.
inline void run_threads(unsigned threads, const std::function<void(unsigned)>& body,
                        std::chrono::seconds limit = std::chrono::seconds(240),
                        const char* what = "stress run") {
  watchdog dog(limit, what);
  std::atomic<unsigned> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      ready.fetch_add(1, std::memory_order_acq_rel);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      body(t);
    });
  }
  while (ready.load(std::memory_order_acquire) != threads) std::this_thread::yield();
  go.store(true, std::memory_order_release);
  for (auto& th : pool) th.join();
}

// After the last test, poison mode ends and the quarantine's blocks go back to the allocator, so
// that LeakSanitizer (ASan with SMR_POISON=1) does not report them. Every test's domains are gone
// by then; a block freed later (a function-local static) goes straight back, unpoisoned.
class poison_quarantine_drain final : public ::testing::Environment {
 public:
  void TearDown() override {
    smr::core::set_poison_on_free(false);
    smr::core::drain_quarantine();
  }
};

// SMR_POISON=1 turns on poison mode (core/node.hpp) for the whole test program: the
// use-after-free detector of builds without ASan (freed nodes are overwritten and quarantined,
// so a late reader sees impossible keys or follows a poisoned link and faults).
inline const bool poison_from_environment = [] {
  const char* s = std::getenv("SMR_POISON");
  const bool on = s != nullptr && std::string_view(s) == "1";
  smr::core::set_poison_on_free(on);
  if (on) ::testing::AddGlobalTestEnvironment(new poison_quarantine_drain);  // gtest owns it
  return on;
}();

// Sanitizer builds run several times slower; scale operation budgets so the suite stays fast.
inline std::uint64_t scaled_ops(std::uint64_t base) {
  if (const char* s = std::getenv("SMR_STRESS_SCALE")) {
    const double f = std::atof(s);
    if (f > 0) return static_cast<std::uint64_t>(static_cast<double>(base) * f) + 1;
  }
  return base;
}

}  // namespace smr::test
