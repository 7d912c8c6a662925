// The generic concurrent stress of a set (hm_list, lazy_list, hash_map, ...) with one reclaimer.
//
// After prefilling half of the shared key range, threads released together do random
// insert/remove/contains. Two checks run:
//  - shared keys (heavy contention): each thread sums the keys it inserted minus those it
//    removed, and counts them; over all threads plus the prefill this must equal the keys left
//    in the set (the papers' validation), and the set's own invariants must hold;
//  - private keys, interleaved in the same structure: each thread also owns keys no other
//    thread touches, so every result on them must match the thread's own model, even while
//    neighbouring nodes are being inserted and unlinked by others;
//  - with `check_every` set, the threads also meet at a barrier every that many operations, and
//    the set's invariants are checked at each meeting, a quiescent point: a shape the updates
//    leave wrong only until a later update happens to redo it (a rebalancing repair that stopped
//    early) is caught where one check at the end would miss it.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "support/reclaimers.hpp"
#include "support/stress.hpp"

namespace smr::test {

struct set_stress_params {
  unsigned threads = 8;
  std::uint64_t key_range = 16;    // shared keys: [0, key_range)
  std::uint64_t private_keys = 8;  // per thread, interleaved above the shared range
  std::uint64_t ops_per_thread = 10000;
  unsigned insert_pct = 40;  // remove_pct the same; the rest are contains
  std::uint64_t check_every = 0;  // operations per thread between quiescent checks (0: at the end only)
};

// What a stress run ends with, and its checks: not a template, so that each test program
// compiles the assertions once rather than once per reclaimer.
struct set_stress_totals {
  std::uint64_t expected_sum = 0, present_sum = 0;  // wrap; only compared for equality
  std::int64_t expected_count = 0, present_count = 0, size = 0;
  std::string invariants;  // check_invariants_unsafe(): "" when they hold
  std::string quiescent_invariants;  // the first failure at a meeting, with its number
  std::uint64_t private_mismatches = 0;
  std::uint64_t freed = 0, retired = 0;
};

inline void check_set_stress_totals(const set_stress_totals& t) {
  EXPECT_EQ(t.private_mismatches, 0u) << "results on thread-private keys were wrong";
  EXPECT_EQ(t.present_sum, t.expected_sum) << "key checksum: updates lost or duplicated";
  EXPECT_EQ(t.present_count, t.expected_count);
  EXPECT_EQ(t.size, t.expected_count);
  EXPECT_EQ(t.invariants, "");
  EXPECT_EQ(t.quiescent_invariants, "") << "at a quiescent point during the run";
  EXPECT_LE(t.freed, t.retired);
}

// Set is e.g. smr::hm_list<std::uint64_t, R>; extra constructor arguments follow the domain.
template <class Set, class R, class... Args>
void run_set_stress(const set_stress_params& p, Args&&... set_args) {
  R domain(stress_config<R>::make());
  {
    Set set(domain, std::forward<Args>(set_args)...);
    std::uint64_t expected_sum = 0;  // wraps; only compared for equality
    std::int64_t expected_count = 0;
    {
      auto h = domain.attach();
      rng r(0xC0FFEE);
      while (static_cast<std::uint64_t>(expected_count) < p.key_range / 2) {
        const std::uint64_t k = r.below(p.key_range);
        if (set.insert(h, k)) {
          expected_sum += k;
          ++expected_count;
        }
      }
    }

    std::atomic<std::uint64_t> sum_delta{0};
    std::atomic<std::int64_t> count_delta{0};
    std::atomic<std::uint64_t> private_mismatches{0};
    const std::uint64_t private_base = p.key_range;
    // The last thread to reach the barrier checks the set while every other one waits there.
    std::string quiescent_invariants;
    std::uint64_t meetings = 0;
    auto check_quiescent = [&]() noexcept {
      ++meetings;
      if (!quiescent_invariants.empty()) return;
      std::string e = set.check_invariants_unsafe();
      if (!e.empty()) quiescent_invariants = "meeting " + std::to_string(meetings) + ": " + e;
    };
    std::barrier meet(static_cast<std::ptrdiff_t>(p.threads), check_quiescent);
    run_threads(
        p.threads,
        [&](unsigned t) {
          auto h = domain.attach();
          rng r(t + 1);
          std::uint64_t my_sum = 0;
          std::int64_t my_count = 0;
          std::uint64_t mismatches = 0;
          std::vector<bool> mine(p.private_keys, false);
          for (std::uint64_t i = 0; i < p.ops_per_thread; ++i) {
            if (p.check_every != 0 && i != 0 && i % p.check_every == 0) meet.arrive_and_wait();  // same count in every thread
            const unsigned op = static_cast<unsigned>(r.below(100));
            // One op in four goes to this thread's private keys.
            if (p.private_keys != 0 && r.below(4) == 0) {
              const std::uint64_t j = r.below(p.private_keys);
              const std::uint64_t k = private_base + t + j * p.threads;
              bool got;
              bool want;
              if (op < p.insert_pct) {
                got = set.insert(h, k);
                want = !mine[j];
                mine[j] = true;
              } else if (op < 2 * p.insert_pct) {
                got = set.remove(h, k);
                want = mine[j];
                mine[j] = false;
              } else {
                got = set.contains(h, k);
                want = mine[j];
              }
              if (got != want) ++mismatches;
              continue;
            }
            const std::uint64_t k = r.below(p.key_range);
            if (op < p.insert_pct) {
              if (set.insert(h, k)) {
                my_sum += k;
                ++my_count;
              }
            } else if (op < 2 * p.insert_pct) {
              if (set.remove(h, k)) {
                my_sum -= k;
                --my_count;
              }
            } else {
              (void)set.contains(h, k);
            }
          }
          // Private keys still present count as inserted by this thread.
          for (std::uint64_t j = 0; j < p.private_keys; ++j) {
            if (mine[j]) {
              my_sum += private_base + t + j * p.threads;
              ++my_count;
            }
          }
          sum_delta.fetch_add(my_sum, std::memory_order_relaxed);
          count_delta.fetch_add(my_count, std::memory_order_relaxed);
          private_mismatches.fetch_add(mismatches, std::memory_order_relaxed);
        },
        std::chrono::seconds(240), "set stress");

    set_stress_totals totals;
    totals.expected_sum = expected_sum + sum_delta.load();
    totals.expected_count = expected_count + count_delta.load();
    set.for_each_unsafe([&](const std::uint64_t& k) {
      totals.present_sum += k;
      ++totals.present_count;
    });
    totals.size = static_cast<std::int64_t>(set.size_unsafe());
    totals.invariants = set.check_invariants_unsafe();
    totals.quiescent_invariants = quiescent_invariants;
    totals.private_mismatches = private_mismatches.load();
    const auto s = domain.stats();
    totals.freed = s.freed;
    totals.retired = s.retired;
    check_set_stress_totals(totals);
  }
}

// The standard trio every set runs: 8 oversubscribed threads on a tiny and on a larger key
// range, and 2 threads hammering the tiny range. The op budgets are per thread (before
// SMR_STRESS_SCALE); the larger range gets its own, since a list traversal there is long.
template <class Set, class R, class... Args>
void set_stress_suite(const char* which, std::uint64_t tiny_ops, std::uint64_t large_ops,
                      Args... set_args) {
  {
    SCOPED_TRACE(std::string(which) + ": 8 threads, 16 keys");
    run_set_stress<Set, R>({.threads = 8, .key_range = 16, .ops_per_thread = scaled_ops(tiny_ops)},
                           set_args...);
  }
  {
    SCOPED_TRACE(std::string(which) + ": 8 threads, 2048 keys");
    run_set_stress<Set, R>(
        {.threads = 8, .key_range = 2048, .ops_per_thread = scaled_ops(large_ops)}, set_args...);
  }
  {
    SCOPED_TRACE(std::string(which) + ": 2 threads, 16 keys");
    run_set_stress<Set, R>(
        {.threads = 2, .key_range = 16, .ops_per_thread = scaled_ops(tiny_ops * 3)}, set_args...);
  }
}

// For trees that rebalance after an update: 8 oversubscribed threads on 128 keys meet every 16
// operations, and the tree must be strict (balanced, heights exact) at each meeting. A repair
// that stops early leaves a node out of balance until a later update below it happens to fix
// it: in the OCC AVL tree before e7ceb41, one such check at the end caught none of 160 runs,
// these meetings about one run in fifty.
template <class Set, class R, class... Args>
void shape_stress(const char* which, std::uint64_t ops, Args... set_args) {
  SCOPED_TRACE(std::string(which) + ": 8 threads, 128 keys, checked every 16 operations");
  run_set_stress<Set, R>({.threads = 8, .key_range = 128, .ops_per_thread = scaled_ops(ops), .check_every = 16},
                         set_args...);
}

}  // namespace smr::test
