// NBR under late signal delivery. pthread_kill only queues a signal; the target may run its
// handler milliseconds later. Here readers block the neutralization signal for random short
// windows (pthread_sigmask), which is exactly a late delivery, while workloads reclaim with a
// tiny bag threshold. Run under ASan: any node freed under a reader is a use-after-free.
//
// The planted-bug tests show that the acknowledgement protocol is what makes this safe: with
// planted_nbr (a round frees right after signalling, as a naive NBR does) the same workload
// reads freed nodes, detected through poisoned nodes in every build, and by ASan itself in ASan
// builds. They are skipped under TSan, which would (rightly) report the planted race.
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "smr/smr.hpp"
#include "support/broken_reclaimers.hpp"
#include "support/stress.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define NBR_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NBR_TEST_ASAN 1
#endif
#endif

namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;
using smr::test::rng;

void set_signal_blocked(bool block, int sig = SIGUSR1) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  pthread_sigmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, nullptr);
}

// Opens and closes windows in which this thread does not take the neutralization signal.
class late_delivery {
 public:
  explicit late_delivery(std::uint64_t seed) : r_(seed) {}
  ~late_delivery() { set_signal_blocked(false); }
  // Called between operations: maybe open a window lasting the next few operations.
  void step() {
    if (left_ > 0 && --left_ == 0) set_signal_blocked(false);
    if (left_ == 0 && r_.below(6) == 0) {
      set_signal_blocked(true);
      left_ = 1 + static_cast<unsigned>(r_.below(12));
    }
  }

 private:
  rng r_;
  unsigned left_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Stack and lists (the library's own structures) with late delivery.

// Stack pops have tiny read phases, so few rounds catch a reader; signalling every thread
// also exercises signals that stay pending across blocked windows and land in write phases.
class NbrLateDeliveryStack : public ::testing::TestWithParam<bool> {};

TEST_P(NbrLateDeliveryStack, TreiberStack) {
  // Two rounds pending at most: blocked windows make the reclaimers wait at the cap too.
  smr::nbr domain({.bag_threshold = 8, .max_pending_rounds = 2, .signal_every_thread = GetParam()});
  std::vector<std::uint64_t> pushed, popped;
  std::mutex merge;
  std::atomic<std::uint64_t> waited{0};
  {
    smr::treiber_stack<std::uint64_t, smr::nbr> stack(domain);
    smr::test::run_threads(
        6,
        [&](unsigned t) {
          auto h = domain.attach();
          late_delivery late(t + 100);
          rng r(t + 1);
          std::vector<std::uint64_t> mine_in, mine_out;
          for (std::uint64_t i = 0; i < smr::test::scaled_ops(20000); ++i) {
            late.step();
            if (r.below(2) == 0) {
              const std::uint64_t v = (std::uint64_t{t} << 40) | i;
              stack.push(h, v);
              mine_in.push_back(v);
            } else if (auto v = stack.pop(h)) {
              mine_out.push_back(*v);
            }
          }
          waited += h.waited_rounds();
          std::lock_guard<std::mutex> g(merge);
          pushed.insert(pushed.end(), mine_in.begin(), mine_in.end());
          popped.insert(popped.end(), mine_out.begin(), mine_out.end());
        },
        std::chrono::seconds(240), "nbr late delivery: stack");
    stack.for_each_unsafe([&](std::uint64_t v) { popped.push_back(v); });
  }
  std::sort(pushed.begin(), pushed.end());
  std::sort(popped.begin(), popped.end());
  EXPECT_EQ(pushed, popped) << "values lost or duplicated";
  const auto s = domain.stats();
  EXPECT_GT(s.freed, 0u);
  EXPECT_LE(s.freed, s.retired);
  RecordProperty("signals", std::to_string(s.signals));
  RecordProperty("restarts", std::to_string(s.restarts));
  RecordProperty("waited_rounds", std::to_string(waited.load()));
}

INSTANTIATE_TEST_SUITE_P(SignalMode, NbrLateDeliveryStack, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "SignalAll" : "ReadersOnly"; });

// Lists: searches are long read phases, so restarts and blocked windows overlap often.
template <class Set>
void run_list_with_late_delivery(const char* what) {
  smr::nbr domain({.bag_threshold = 8, .max_pending_rounds = 2});
  constexpr std::uint64_t key_range = 64;
  std::atomic<std::uint64_t> sum{0};
  std::atomic<std::int64_t> count{0};
  {
    Set set(domain);
    smr::test::run_threads(
        6,
        [&](unsigned t) {
          auto h = domain.attach();
          late_delivery late(t + 200);
          rng r(t + 11);
          std::uint64_t my_sum = 0;
          std::int64_t my_count = 0;
          for (std::uint64_t i = 0; i < smr::test::scaled_ops(8000); ++i) {
            late.step();
            const std::uint64_t k = r.below(key_range);
            switch (r.below(3)) {
              case 0:
                if (set.insert(h, k)) my_sum += k, ++my_count;
                break;
              case 1:
                if (set.remove(h, k)) my_sum -= k, --my_count;
                break;
              default:
                (void)set.contains(h, k);
            }
          }
          sum += my_sum;
          count += my_count;
        },
        std::chrono::seconds(240), what);
    std::uint64_t present_sum = 0;
    std::int64_t present = 0;
    set.for_each_unsafe([&](const std::uint64_t& k) { present_sum += k, ++present; });
    EXPECT_EQ(present_sum, sum.load()) << what;
    EXPECT_EQ(present, count.load()) << what;
    EXPECT_EQ(set.check_invariants_unsafe(), "") << what;
  }
  const auto s = domain.stats();
  EXPECT_GT(s.freed, 0u);
  EXPECT_LE(s.freed, s.retired);
}

TEST(NbrLateDelivery, LazyList) {
  run_list_with_late_delivery<smr::lazy_list<std::uint64_t, smr::nbr>>("lazy_list");
}

TEST(NbrLateDelivery, HarrisMichaelListRestartFromRoot) {
  run_list_with_late_delivery<smr::hm_list<std::uint64_t, smr::nbr, true>>("hm_list_rr");
}

// ---------------------------------------------------------------------------------------------
// Snapshot chains: long read phases that stay blocked for a while *inside* the read phase.
// Writers replace a whole chain of nodes and retire the old one; readers walk the current
// chain and check that every node is alive and belongs to the same chain.

constexpr std::uint64_t kAlive = 0xA11CE0FC4A1A0001ull;
constexpr std::uint64_t kChain = 24;

struct cnode : smr::nbr::node_base {
  explicit cnode(std::uint64_t g) { gen.store(g, std::memory_order_relaxed); }
  std::atomic<std::uint64_t> magic{kAlive};
  std::atomic<std::uint64_t> gen{0};
  smr::nbr::atomic_ptr<cnode> next;
};

bool poisoned(std::uintptr_t bits) { return (bits >> 56) == smr::core::poison_byte; }

struct chain_result {
  std::uint64_t readers_saw_dead_nodes = 0;
  std::uint64_t inconsistent = 0;
  std::uint64_t walks = 0;
  smr::core::stats_snapshot stats;
};

// Runs readers and writers on chains until `budget` elapses or (if stop_on_dead) a reader sees
// a dead node. Readers block the signal before a walk and unblock it midway, after a sleep.
// R: smr::nbr, or smr::test::planted_nbr (frees without waiting for acknowledgements).
template <class R>
chain_result run_chains(const smr::nbr::config& cfg, milliseconds budget, bool stop_on_dead,
                        unsigned readers = 3, unsigned writers = 1) {
  chain_result out;
  R domain(cfg);
  smr::nbr::atomic_ptr<cnode> head;
  auto build = [](std::uint64_t g, auto& guard) {
    cnode* first = nullptr;
    for (std::uint64_t i = 0; i < kChain; ++i) {
      cnode* n = guard.template create<cnode>(g);
      n->next.store(first, smr::core::mo_relaxed);
      first = n;
    }
    return first;
  };
  {
    auto h = domain.attach();
    auto g = h.begin_op();
    head.store(build(1, g), smr::core::mo_release);
  }
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> dead{0}, inconsistent{0}, walks{0}, next_gen{2};
  const auto deadline = std::chrono::steady_clock::now() + budget;
  smr::test::run_threads(
      readers + writers,
      [&](unsigned t) {
        auto h = domain.attach();
        rng r(t + 31);
        while (!stop.load(std::memory_order_relaxed) && std::chrono::steady_clock::now() < deadline) {
          if (t < writers) {  // writer: swap in a fresh chain, retire the old one
            auto g = h.begin_op();
            cnode* fresh = build(next_gen.fetch_add(1), g);
            // acq_rel: release publishes the fresh chain; acquire makes the old one ours.
            cnode* old = head.exchange(fresh, smr::core::mo_acq_rel).get();
            while (old != nullptr) {
              cnode* next = old->next.load(smr::core::mo_relaxed).get();  // before retiring it
              g.retire(old);
              old = next;
            }
            std::this_thread::sleep_for(microseconds(50));
            continue;
          }
          // reader. A late walk blocks the signal, then naps midway (a reclamation round
          // happens meanwhile) and takes the pending signal either right there, inside the
          // read phase (it restarts), or only after the walk (the round must wait for it).
          const bool late = r.below(2) == 0;
          const bool unblock_inside = r.below(2) == 0;
          const std::uint64_t nap_at = r.below(kChain);
          const auto nap = microseconds(20 + r.below(300));
          if (late) set_signal_blocked(true);
          bool saw_dead = false, mixed = false;
          unsigned runs = 0;  // in this frame, not the read phase's: survives restarts
          {
            auto g = h.begin_op();
            auto slot = g.slot();  // made outside the read phase: a restart skips no destructor
            g.read_phase([&] {
              const bool first_run = runs++ == 0;  // nap once, so restarts cannot livelock
              saw_dead = mixed = false;            // set afresh on every run
              cnode* n = slot.protect(head).get();
              const std::uint64_t gen = n->gen.load(std::memory_order_relaxed);
              for (std::uint64_t i = 0; n != nullptr; ++i) {
                if (late && first_run && i == nap_at) {
                  std::this_thread::sleep_for(nap);
                  if (unblock_inside) set_signal_blocked(false);  // a pending signal lands here
                }
                const auto next = slot.protect(n->next);
                if (n->magic.load(std::memory_order_relaxed) != kAlive || poisoned(next.bits())) {
                  saw_dead = true;
                  return;
                }
                if (n->gen.load(std::memory_order_relaxed) != gen) mixed = true;
                n = next.get();
              }
            });
          }
          if (late) set_signal_blocked(false);
          walks.fetch_add(1, std::memory_order_relaxed);
          if (mixed) inconsistent.fetch_add(1, std::memory_order_relaxed);
          if (saw_dead) {
            dead.fetch_add(1, std::memory_order_relaxed);
            if (stop_on_dead) stop.store(true, std::memory_order_relaxed);
          }
        }
      },
      std::chrono::duration_cast<std::chrono::seconds>(budget) + std::chrono::seconds(120),
      "nbr chains");
  {
    auto h = domain.attach();
    auto g = h.begin_op();
    cnode* n = head.exchange(nullptr, smr::core::mo_acq_rel).get();
    while (n != nullptr) {
      cnode* next = n->next.load(smr::core::mo_relaxed).get();
      g.dispose(n);
      n = next;
    }
  }
  out.readers_saw_dead_nodes = dead.load();
  out.inconsistent = inconsistent.load();
  out.walks = walks.load();
  out.stats = domain.stats();
  return out;
}

smr::nbr::config chain_config() { return {.bag_threshold = kChain, .max_pending_rounds = 2}; }

// The correct protocol: real frees (ASan watches every access) and no dead node ever seen.
TEST(NbrLateDelivery, ChainsBlockedInsideReadPhases) {
  const chain_result r = run_chains<smr::nbr>(chain_config(), milliseconds(1500), false);
  EXPECT_EQ(r.readers_saw_dead_nodes, 0u);
  EXPECT_EQ(r.inconsistent, 0u) << "a walk mixed nodes of two chains";
  EXPECT_GT(r.walks, 0u);
  EXPECT_GT(r.stats.freed, 0u);
  RecordProperty("restarts", std::to_string(r.stats.restarts));
  RecordProperty("signals", std::to_string(r.stats.signals));
}

// Poisoned frees (no allocator reuse, freed bytes become 0xDD): the correct protocol sees no
// poisoned node; the planted bug does.
class PoisonScope {
 public:
  PoisonScope() { smr::core::set_poison_on_free(true); }
  ~PoisonScope() {
    smr::core::set_poison_on_free(false);
    smr::core::drain_quarantine();
  }
};

#if defined(SMR_TSAN)
#define NBR_SKIP_PLANTED_UNDER_TSAN() \
  GTEST_SKIP() << "the planted bug is a real data race; TSan would report it, as it should"
#else
#define NBR_SKIP_PLANTED_UNDER_TSAN() (void)0
#endif

TEST(NbrLateDelivery, PoisonedFreesNeverSeenWithTheProtocol) {
  PoisonScope poison;
  const chain_result r = run_chains<smr::nbr>(chain_config(), milliseconds(1000), false);
  EXPECT_EQ(r.readers_saw_dead_nodes, 0u);
  EXPECT_GT(r.stats.freed, 0u);
}

TEST(NbrLateDelivery, PlantedBugIsCaughtThroughPoison) {
  NBR_SKIP_PLANTED_UNDER_TSAN();
  PoisonScope poison;
  const chain_result r = run_chains<smr::test::planted_nbr>(chain_config(), milliseconds(10000), true);
  EXPECT_GT(r.readers_saw_dead_nodes, 0u)
      << "skipping the acknowledgement wait went unnoticed in " << r.walks << " walks";
}

#if defined(NBR_TEST_ASAN)
// The same planted bug with real frees: ASan itself reports the use-after-free.
TEST(NbrLateDelivery, PlantedBugIsCaughtByAsan) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        const chain_result r = run_chains<smr::test::planted_nbr>(chain_config(), milliseconds(20000), true);
        std::fprintf(stderr, "no use-after-free in %llu walks\n",
                     static_cast<unsigned long long>(r.walks));
        std::exit(0);
      },
      "heap-use-after-free");
}
#endif

}  // namespace
