// The harness of the expected-failure executables: stress runs of a data structure over a
// reclaimer with a PLANTED BUG (tests/support/broken_reclaimers.hpp) that must end in a
// detection. ctest runs them with WILL_FAIL, so the verdict rules are built to make only a
// detection count:
//   detection     -> non-zero exit: an AddressSanitizer report (ASan builds: exit code 1), a
//                    gtest failure (checksum mismatch, malformed popped value, wrong result on
//                    a private key, broken invariant), or SIGSEGV on a poisoned link (plain
//                    builds: 0xDD bytes make a non-canonical pointer; exit code 3).
//   no detection  -> exit 0, which WILL_FAIL reports as a failure: the time budget ran out with
//                    every check passing, a run hung (watchdog), or something aborted (an
//                    assertion is not the detection these tests are about).
// A ctest TIMEOUT fails regardless of WILL_FAIL, so a hang can never pass either.
//
// Detector: in ASan builds nodes are really freed and ASan reports the first access; in other
// builds poison mode (core/node.hpp) overwrites freed nodes with 0xDD and quarantines them, so a
// late reader sees impossible values or follows a poisoned link.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <thread>
#include <unistd.h>
#include <vector>

#include "smr/core/node.hpp"
#include "support/broken_reclaimers.hpp"
#include "support/reclaimers.hpp"
#include "support/stress.hpp"
// After the reclaimers: treiber_stack.hpp relies on them for core::marked_ptr.
#include "smr/ds/treiber_stack.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define SMR_PLANTED_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SMR_PLANTED_ASAN 1
#endif
#endif

namespace smr::test {

// The planted reclaimers' test configurations are their rules' eager_config(), as for every
// reclaimer (support/reclaimers.hpp).

namespace planted {

#if defined(SMR_PLANTED_ASAN)
inline constexpr bool asan = true;
#else
inline constexpr bool asan = false;
#endif

// Writes a line with async-signal-safe calls only.
inline void say(const char* msg) {
  std::size_t n = 0;
  while (msg[n] != '\0') ++n;
  (void)!::write(2, msg, n);
}

extern "C" inline void on_segv(int) {
  say("planted bug DETECTED: SIGSEGV or SIGBUS, a poisoned (freed) link was followed\n");
  ::_exit(3);
}
extern "C" inline void on_abort(int) {
  say("aborted (watchdog or assertion): NOT counted as a detection\n");
  ::_exit(0);
}

// Installs the detector and the verdict rules above. Call first in every test.
inline void arm() {
  if (!asan) {
    core::set_poison_on_free(true);
    std::signal(SIGSEGV, on_segv);  // ASan has its own SEGV report (exit code 1)
    // A poisoned pointer used as a frame-based address (rbp) faults on the stack segment, which
    // Linux reports as SIGBUS: the same detection.
    std::signal(SIGBUS, on_segv);
  }
  std::signal(SIGABRT, on_abort);
}

// Runs body(t) on `threads` threads released together; a run that makes no progress within
// `limit` ends the process with exit 0 (not a detection) instead of aborting.
inline void run_threads(unsigned threads, const std::function<void(unsigned)>& body,
                        std::chrono::seconds limit) {
  std::atomic<bool> done{false};
  std::thread dog([&] {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done.load(std::memory_order_acquire)) {
      if (std::chrono::steady_clock::now() > deadline) {
        say("planted-bug run hung: NOT counted as a detection\n");
        ::_exit(0);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  std::atomic<unsigned> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> pool;
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
  done.store(true, std::memory_order_release);
  dog.join();
}

// Repeats `round` (which records gtest failures on a detection) until a failure is recorded or
// the budget is spent. Returns normally either way; the caller's test then passes or fails.
inline void until_detected(std::chrono::seconds budget, const std::function<void()>& round) {
  const auto end = std::chrono::steady_clock::now() + budget;
  unsigned rounds = 0;
  while (!::testing::Test::HasFailure() && std::chrono::steady_clock::now() < end) {
    round();
    ++rounds;
  }
  core::drain_quarantine();
  if (::testing::Test::HasFailure())
    std::fprintf(stderr, "planted bug DETECTED after %u rounds\n", rounds);
  else
    std::fprintf(stderr, "planted bug NOT detected in %u rounds (%lld s)\n", rounds,
                 static_cast<long long>(budget.count()));
}

// One round of Treiber stack stress: oversubscribed threads push unique values and pop for
// `duration`. Every popped value must be well formed (a thread index below `threads` and a
// sequence number that thread has pushed) and, at the end, every pushed value must have been
// popped exactly once or still be in the stack.
template <class R>
void stack_round(unsigned threads, std::chrono::milliseconds duration) {
  R domain(stress_config<R>::make());
  std::vector<std::uint64_t> pushed, popped;
  std::mutex merge;
  std::atomic<bool> malformed{false};
  std::atomic<std::uint64_t> bad_value{0};
  {
    treiber_stack<std::uint64_t, R> stack(domain);
    const auto end = std::chrono::steady_clock::now() + duration;
    run_threads(
        threads,
        [&](unsigned t) {
          auto h = domain.attach();
          rng r(t * 7919 + 17);
          std::vector<std::uint64_t> my_pushed, my_popped;
          std::uint64_t seq = 0;
          while (!malformed.load(std::memory_order_relaxed) &&
                 std::chrono::steady_clock::now() < end) {
            for (int i = 0; i < 64; ++i) {
              if (r.below(2) == 0) {
                const std::uint64_t v = (std::uint64_t{t} << 40) | seq++;
                stack.push(h, v);
                my_pushed.push_back(v);
              } else if (auto v = stack.pop(h)) {
                if ((*v >> 40) >= threads) {  // e.g. 0xDDDD...: read from a freed node
                  bad_value.store(*v, std::memory_order_relaxed);
                  malformed.store(true, std::memory_order_relaxed);
                }
                my_popped.push_back(*v);
              }
            }
          }
          std::lock_guard<std::mutex> g(merge);
          pushed.insert(pushed.end(), my_pushed.begin(), my_pushed.end());
          popped.insert(popped.end(), my_popped.begin(), my_popped.end());
        },
        std::chrono::seconds(60));
    if (!malformed.load()) stack.for_each_unsafe([&](std::uint64_t v) { popped.push_back(v); });
  }
  if (malformed.load()) {
    ADD_FAILURE() << "popped a value no thread pushed: 0x" << std::hex << bad_value.load()
                  << " (read from a freed node)";
    return;
  }
  std::sort(pushed.begin(), pushed.end());
  std::sort(popped.begin(), popped.end());
  // Compared whole, reported briefly (the vectors hold hundreds of thousands of values).
  EXPECT_TRUE(pushed == popped) << "values lost or duplicated: " << pushed.size()
                                << " pushed, " << popped.size() << " popped or left";
}

}  // namespace planted
}  // namespace smr::test
