// Thread churn: threads attach, work and exit (their handles destroyed, their OS threads gone)
// over and over, while persistent threads keep working, with every reclaimer.
//
// What it checks:
//  - thread ids are recycled: every attach reports its registry id (handle.thread_id()); the
//    largest id stays below a small multiple of the threads attached at once, whatever the
//    number of attaches (the registry's high-water mark is that largest id plus one);
//  - nothing is lost or freed under a reader when threads leave: exit paths free what is safe
//    and donate the rest, which later threads adopt. The set's key checksum (inserted minus
//    removed, over every thread life, plus the prefill) must equal its contents, results on
//    thread-private keys must match each life's own model, and in ASan builds any node freed
//    while another thread still reads it is a heap-use-after-free report;
//  - nothing leaks: in ASan builds LeakSanitizer checks at exit that every retired node was
//    freed, the ones exiting threads donated included (the domain frees orphans no thread
//    adopted when it is destroyed).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "support/reclaimers.hpp"
#include "support/stress.hpp"

namespace {

constexpr unsigned persistent_threads = 2;
constexpr unsigned transient_slots = 4;  // transient threads alive at once, at most
constexpr std::uint64_t key_range = 32;

// Accumulates what each thread life inserted and removed, and the ids it was given.
struct ledger {
  std::atomic<std::uint64_t> sum{0};  // wraps; compared for equality only
  std::atomic<std::int64_t> count{0};
  std::atomic<std::uint64_t> private_mismatches{0};
  std::atomic<std::size_t> largest_id{0};
  std::atomic<std::uint64_t> attaches{0};

  void saw_id(std::size_t id) {
    attaches.fetch_add(1, std::memory_order_relaxed);
    std::size_t cur = largest_id.load(std::memory_order_relaxed);
    while (id > cur && !largest_id.compare_exchange_weak(cur, id, std::memory_order_relaxed)) {
    }
  }
};

// One thread life: attach, run `ops` random operations (a quarter of them on keys only this
// life uses, placed above the shared range), fold the results into the ledger, detach.
template <class Set, class R>
void live(R& domain, Set& set, ledger& book, std::uint64_t seed, std::uint64_t ops,
          std::uint64_t private_base, const std::atomic<bool>* stop) {
  auto h = domain.attach();
  book.saw_id(h.thread_id());
  smr::test::rng r(seed);
  std::uint64_t sum = 0;
  std::int64_t count = 0;
  std::uint64_t mismatches = 0;
  constexpr std::uint64_t private_keys = 4;
  bool mine[private_keys] = {};
  for (std::uint64_t i = 0; i < ops || (stop != nullptr && !stop->load(std::memory_order_acquire));
       ++i) {
    const unsigned op = static_cast<unsigned>(r.below(3));
    if (r.below(4) == 0) {
      const std::uint64_t j = r.below(private_keys);
      const std::uint64_t k = private_base + j;
      bool got, want;
      if (op == 0) {
        got = set.insert(h, k);
        want = !mine[j];
        mine[j] = true;
      } else if (op == 1) {
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
    const std::uint64_t k = r.below(key_range);
    if (op == 0) {
      if (set.insert(h, k)) sum += k, ++count;
    } else if (op == 1) {
      if (set.remove(h, k)) sum -= k, --count;
    } else {
      (void)set.contains(h, k);
    }
  }
  // Private keys are removed before the life ends, so the next owner of this key block starts
  // from an empty block (each life's model starts empty).
  for (std::uint64_t j = 0; j < private_keys; ++j)
    if (mine[j] && !set.remove(h, private_base + j)) ++mismatches;
  book.sum.fetch_add(sum, std::memory_order_relaxed);
  book.count.fetch_add(count, std::memory_order_relaxed);
  book.private_mismatches.fetch_add(mismatches, std::memory_order_relaxed);
}

template <class R>
class ThreadChurn : public ::testing::Test {};
TYPED_TEST_SUITE(ThreadChurn, smr::test::all_reclaimers, smr::test::reclaimer_name);

TYPED_TEST(ThreadChurn, AttachWorkExit) {
  using R = TypeParam;
  using set_t = smr::test::set_for<R>;
  const std::uint64_t lives_per_slot = smr::test::scaled_ops(100);
  const std::uint64_t ops_per_life = 300;

  R domain(smr::test::stress_config<R>::make());
  ledger book;
  {
    set_t set(domain);
    std::uint64_t expected_sum = 0;
    std::int64_t expected_count = 0;
    {
      auto h = domain.attach();
      smr::test::rng r(7);
      while (static_cast<std::uint64_t>(expected_count) < key_range / 2) {
        const std::uint64_t k = r.below(key_range);
        if (set.insert(h, k)) expected_sum += k, ++expected_count;
      }
    }

    // Private key blocks, above the shared range: one per persistent thread and per transient
    // slot (a slot's lives use its block one after another).
    auto block = [](unsigned i) { return key_range + 8 * std::uint64_t{i}; };
    std::atomic<bool> stop{false};
    std::atomic<unsigned> slots_done{0};
    smr::test::run_threads(
        persistent_threads + transient_slots,
        [&](unsigned t) {
          if (t < persistent_threads) {
            live(domain, set, book, 1000 + t, ops_per_life, block(t), &stop);
            return;
          }
          // A transient slot: each life is a fresh OS thread that attaches, works, exits.
          for (std::uint64_t life = 0; life < lives_per_slot; ++life) {
            std::thread worker([&, t, life] {
              smr::test::rng jitter(t * 131 + life);
              live(domain, set, book, t * 100000 + life, ops_per_life / 2 + jitter.below(ops_per_life),
                   block(t), nullptr);
            });
            worker.join();
          }
          // The last transient slot to finish stops the persistent threads.
          if (slots_done.fetch_add(1, std::memory_order_acq_rel) + 1 == transient_slots)
            stop.store(true, std::memory_order_release);
        },
        std::chrono::seconds(600), "thread churn");

    expected_sum += book.sum.load();
    expected_count += book.count.load();
    std::uint64_t present_sum = 0;
    std::int64_t present_count = 0;
    set.for_each_unsafe([&](const std::uint64_t& k) { present_sum += k, ++present_count; });
    EXPECT_EQ(book.private_mismatches.load(), 0u) << "wrong results on thread-private keys";
    EXPECT_EQ(present_sum, expected_sum) << "key checksum: updates lost or duplicated";
    EXPECT_EQ(present_count, expected_count);
    EXPECT_EQ(set.check_invariants_unsafe(), "");
  }

  // Ids: at most persistent + transient threads are attached at once (the prefill handle is gone
  // before they start). A thread whose scan of the registry races with others leaving and
  // arriving may pass over a slot that is freed just after, so the bound allows twice that; what
  // matters is that it does not grow with the number of attaches.
  const std::size_t at_once = persistent_threads + transient_slots;
  const std::uint64_t attaches = book.attaches.load();
  std::printf("%s: %llu attaches, largest thread id %zu\n", std::string(R::base_name).c_str(),
              static_cast<unsigned long long>(attaches), book.largest_id.load());
  ASSERT_GE(attaches, transient_slots * lives_per_slot);
  EXPECT_LT(book.largest_id.load(), 2 * at_once) << "thread ids are not recycled";
  const auto s = domain.stats();
  EXPECT_LE(s.freed, s.retired);
}

// Handles that live three operations each, one after another on one thread, with the
// reclaimer's default configuration: every retirement happens in a handle that detaches long
// before its own thresholds (an epoch advance every advance_every operations, a grace period or a
// round every few thousand retirements) would ask for a reclamation. What the detaching handles
// leave must still be freed. Before the exit step of the epoch schemes, their tagged orphans and
// rcu's start of a grace period for orphans, qsbr, ebr, debra, nebr and rcu freed nothing here.
TYPED_TEST(ThreadChurn, ShortLivedHandlesKeepFreeing) {
  using R = TypeParam;
  using set_t = smr::test::set_for<R>;
  if constexpr (!R::traits.frees) GTEST_SKIP() << "frees nothing by design";
  constexpr std::uint64_t lives = 3000, ops_per_life = 3;
  R domain(typename R::config{});
  {
    set_t set(domain);
    for (std::uint64_t life = 0; life < lives; ++life) {
      auto h = domain.attach();
      for (std::uint64_t i = 0; i < ops_per_life; ++i) {
        ASSERT_TRUE(set.insert(h, i));
        ASSERT_TRUE(set.remove(h, i));  // retires the node
      }
    }
    const auto s = domain.stats();
    ASSERT_GE(s.retired, lives * ops_per_life / 2);
    // A scheme that keeps freeing holds a few lives' worth; one that stopped holds them all.
    EXPECT_LE(s.retired - s.freed, 1000u) << R::name << ": " << s.retired << " retired, " << s.freed
                                          << " freed: short-lived handles stopped reclamation";
  }
}

}  // namespace
