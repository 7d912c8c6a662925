// The few synchronization shapes a trial needs between its threads. Waiting blocks (futex via
// C++20 atomic wait, or a condition variable) instead of spinning: trials routinely run more
// threads than cores, where spinning waiters would steal the cores the others need.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace smrbench {

// A phase number that only grows; threads wait until it reaches a value.
class phase_gate {
 public:
  void advance_to(int p) {
    // release: what the main thread did before (timeline restart, stats baseline) happens before
    // the waiters proceed.
    phase_.store(p, std::memory_order_release);
    phase_.notify_all();
  }
  void wait_for(int p) const {
    int cur = phase_.load(std::memory_order_acquire);
    while (cur < p) {
      phase_.wait(cur, std::memory_order_acquire);
      cur = phase_.load(std::memory_order_acquire);
    }
  }

 private:
  std::atomic<int> phase_{0};
};

// Counts arrivals; the main thread waits for a number of them.
class arrival_counter {
 public:
  void arrive() {
    // release: the arriving thread's results happen before the waiter reads them.
    count_.fetch_add(1, std::memory_order_release);
    count_.notify_all();
  }
  unsigned load() const { return count_.load(std::memory_order_acquire); }
  void wait_for(unsigned n) const {
    unsigned cur = load();
    while (cur < n) {
      count_.wait(cur, std::memory_order_acquire);
      cur = load();
    }
  }

 private:
  std::atomic<unsigned> count_{0};
};

// The end of the timed trial: polled by workers between operations (a relaxed load of a line
// nobody writes until the end: the flag has its own cache line, away from the mutex and
// condition variable that sleeping stalled threads write), slept on by stalled threads.
class stop_signal {
 public:
  bool raised() const { return flag_.load(std::memory_order_relaxed); }
  void raise() {
    {
      std::lock_guard<std::mutex> g(lock_);
      flag_.store(true, std::memory_order_relaxed);
    }
    wake_.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> g(lock_);
    wake_.wait(g, [this] { return raised(); });
  }
  // Sleeps for d or until raised; returns whether it was raised.
  template <class Rep, class Period>
  bool sleep_for(std::chrono::duration<Rep, Period> d) {
    std::unique_lock<std::mutex> g(lock_);
    return wake_.wait_for(g, d, [this] { return raised(); });
  }

 private:
  alignas(64) std::atomic<bool> flag_{false};
  alignas(64) std::mutex lock_;
  std::condition_variable wake_;
};

}  // namespace smrbench
