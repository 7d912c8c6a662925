// Behaviour of qsbr, debra and nebr that a generic stress cannot see: who holds a grace period back
// and who does not, exactly when the epoch advances, that nothing is freed early, and what the
// statistics and the timeline report.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "smr/reclaimers/debra.hpp"
#include "smr/reclaimers/nebr.hpp"
#include "smr/reclaimers/qsbr.hpp"
#include "support/stress.hpp"

namespace {

// A node that counts its own destruction.
template <class R>
struct probe : R::node_base {
  explicit probe(std::atomic<long>* c) : freed(c) {}
  ~probe() { freed->fetch_add(1, std::memory_order_relaxed); }
  std::atomic<long>* freed;
};

// One operation that retires a node (standing for a node the operation unlinked).
template <class R>
void retire_one(typename R::handle& h, std::atomic<long>& freed) {
  auto g = h.begin_op();
  g.retire(g.template create<probe<R>>(&freed));
}

template <class R>
void empty_op(typename R::handle& h) {
  auto g = h.begin_op();
}

// Runs operations on h until `freed` reaches `target`; returns the operations it took, or
// `limit` if it never did.
template <class R>
long ops_until_freed(typename R::handle& h, const std::atomic<long>& freed, long target,
                     long limit = 10000) {
  long ops = 0;
  while (freed.load() < target && ops < limit) {
    empty_op<R>(h);
    ++ops;
  }
  return ops;
}

// Worker threads that each attach and retire `ops` nodes, then detach.
template <class R>
void run_retirers(R& domain, unsigned threads, long ops, std::atomic<long>& freed) {
  smr::test::run_threads(
      threads,
      [&](unsigned) {
        auto h = domain.attach();
        for (long i = 0; i < ops; ++i) retire_one<R>(h, freed);
      },
      std::chrono::seconds(120), "epoch family retirers");
}

// ---------------------------------------------------------------------------------------------
// Shared by both schemes.

template <class R>
class EpochFamily : public ::testing::Test {};

template <class R>
typename R::config small_config();
template <>
smr::qsbr::config small_config<smr::qsbr>() {
  return {.quiescent_every = 1};
}
template <>
smr::debra::config small_config<smr::debra>() {
  return {.check_every = 1};
}

struct scheme_name {
  template <class R>
  static std::string GetName(int) {
    return std::string(R::base_name);
  }
};
using schemes = ::testing::Types<smr::qsbr, smr::debra>;
TYPED_TEST_SUITE(EpochFamily, schemes, scheme_name);

TYPED_TEST(EpochFamily, StatsCountRetiredFreedAndEpochs) {
  using R = TypeParam;
  R domain(small_config<R>());
  std::atomic<long> freed{0};
  constexpr long n = 500;
  {
    auto h = domain.attach();
    for (long i = 0; i < n; ++i) retire_one<R>(h, freed);
    const auto s = domain.stats();
    EXPECT_EQ(s.retired, static_cast<std::uint64_t>(n));
    EXPECT_EQ(s.freed, static_cast<std::uint64_t>(freed.load()));
    EXPECT_GT(s.freed, 0u) << "a lone thread must reclaim";
    EXPECT_EQ(s.freed + h.unreclaimed(), s.retired) << "every node is freed or in limbo";
    EXPECT_EQ(s.epochs, domain.epoch() - 1) << "every advance is counted once";
    EXPECT_GT(s.epochs, 0u);
  }
  const auto s = domain.stats();
  EXPECT_EQ(s.unreclaimed, static_cast<std::int64_t>(s.retired - s.freed));
}

// A node that records the domain's epoch at the moment it is freed.
template <class R>
struct epoch_probe : R::node_base {
  epoch_probe(const R* d, std::uint64_t* at) : domain(d), freed_at(at) {}
  ~epoch_probe() { *freed_at = domain->epoch(); }
  const R* domain;
  std::uint64_t* freed_at;
};

TYPED_TEST(EpochFamily, NotFreedBeforeTheEpochMovesTwoPastTheRetire) {
  // Safety at the smallest scale: a node unlinked while the epoch is g is tagged t >= g and may
  // only be freed once the epoch reaches t + 2 >= g + 2, whatever the reclaimer does meanwhile.
  using R = TypeParam;
  R domain(small_config<R>());
  auto h = domain.attach();
  for (int i = 0; i < 3; ++i) empty_op<R>(h);
  std::uint64_t g = 0;
  std::uint64_t freed_at = 0;  // single thread: written by h's own operations
  {
    auto op = h.begin_op();
    g = domain.epoch();
    op.retire(op.template create<epoch_probe<R>>(&domain, &freed_at));
  }
  for (int ops = 0; freed_at == 0 && ops < 10000; ++ops) empty_op<R>(h);
  ASSERT_NE(freed_at, 0u) << "never freed";
  EXPECT_GE(freed_at, g + 2) << "retired at epoch " << g;
}

TYPED_TEST(EpochFamily, ExitedThreadsNodesAreAdoptedAndFreed) {
  using R = TypeParam;
  R domain(small_config<R>());
  std::atomic<long> freed{0};
  constexpr long n = 300;
  // A thread that retires and exits while this one sits in an operation (holding the epoch, so
  // that the exiting thread's own last step cannot free its last nodes) donates them.
  auto h = domain.attach();
  {
    auto g = h.begin_op();
    std::thread([&] {
      auto mine = domain.attach();
      for (long i = 0; i < n; ++i) retire_one<R>(mine, freed);
    }).join();
  }
  ASSERT_LT(freed.load(), n) << "test needs donated nodes";
  EXPECT_LT(ops_until_freed<R>(h, freed, n), 10000) << "orphans never freed";
  EXPECT_EQ(freed.load(), n);
}

TYPED_TEST(EpochFamily, TimelineRecordsAdvancesAndGarbage) {
  using R = TypeParam;
  smr::core::timeline tl(1000);
  R domain(small_config<R>(), &tl);
  std::atomic<long> freed{0};
  {
    auto h = domain.attach();
    for (int i = 0; i < 50; ++i) retire_one<R>(h, freed);
  }
  std::uint64_t advances = 0, garbage = 0, last_epoch = 0;
  tl.for_each_buffer([&](std::size_t, const smr::core::timeline_buffer& b) {
    for (const auto& ev : b.events()) {
      if (ev.kind == smr::core::event_kind::epoch_advance) {
        ++advances;
        EXPECT_GT(ev.value, last_epoch) << "advances are recorded in order with the new epoch";
        last_epoch = ev.value;
      }
      if (ev.kind == smr::core::event_kind::garbage) ++garbage;
    }
  });
  EXPECT_EQ(advances, domain.stats().epochs);
  EXPECT_EQ(last_epoch, domain.epoch());
  EXPECT_GT(garbage, 0u);
}

// ---------------------------------------------------------------------------------------------
// QSBR

TEST(Qsbr, QuiescentStateEveryKOperations) {
  smr::qsbr domain({.quiescent_every = 4});
  auto h = domain.attach();
  const std::uint64_t e0 = domain.epoch();
  for (int round = 1; round <= 3; ++round) {
    for (int i = 1; i < 4; ++i) {
      empty_op<smr::qsbr>(h);
      EXPECT_EQ(domain.epoch(), e0 + round - 1) << "advanced before the 4th operation";
    }
    empty_op<smr::qsbr>(h);  // the 4th: a quiescent state, and the only online thread
    EXPECT_EQ(domain.epoch(), e0 + round);
  }
  EXPECT_EQ(domain.stats().epochs, 3u);
}

TEST(Qsbr, NestedGuardsAreOneOperation) {
  smr::qsbr domain({.quiescent_every = 1});
  auto h = domain.attach();
  const std::uint64_t e0 = domain.epoch();
  {
    auto outer = h.begin_op();
    { auto inner = h.begin_op(); }
    EXPECT_EQ(domain.epoch(), e0) << "the end of an inner guard is not a quiescent state";
  }
  EXPECT_EQ(domain.epoch(), e0 + 1);
}

TEST(Qsbr, ExplicitQuiescentStates) {
  smr::qsbr domain({.quiescent_every = 1u << 30});  // operations never declare one
  std::atomic<long> freed{0};
  auto h = domain.attach();
  const std::uint64_t e0 = domain.epoch();
  for (int i = 0; i < 200; ++i) retire_one<smr::qsbr>(h, freed);
  EXPECT_EQ(domain.epoch(), e0);
  EXPECT_EQ(freed.load(), 0);
  h.quiescent_state();
  h.quiescent_state();
  EXPECT_EQ(domain.epoch(), e0 + 2);
  EXPECT_EQ(freed.load(), 0) << "tagged e0 + 1: not safe before epoch e0 + 3";
  int calls = 2;
  while (freed.load() < 200 && calls < 10) {
    h.quiescent_state();
    ++calls;
  }
  EXPECT_EQ(freed.load(), 200);
  EXPECT_LE(calls, 4);
}

TEST(Qsbr, OnlineThreadWithoutQuiescentStatesBlocksReclamation) {
  smr::qsbr domain({.quiescent_every = 1});
  std::atomic<long> freed{0};
  constexpr long per_thread = 1000;
  std::optional<smr::qsbr::handle> idle;
  idle.emplace(domain);  // online, holds no guard, but never passes a quiescent state
  const std::uint64_t e = domain.epoch();
  run_retirers(domain, 2, per_thread, freed);
  EXPECT_EQ(freed.load(), 0) << "freed while an online thread had not passed a quiescent state";
  EXPECT_LE(domain.epoch(), e + 1);
  EXPECT_EQ(domain.stats().retired, 2u * per_thread);

  idle.reset();  // offline: no longer part of any grace period
  auto h = domain.attach();
  EXPECT_LT(ops_until_freed<smr::qsbr>(h, freed, 2 * per_thread), 10000);
  EXPECT_EQ(freed.load(), 2 * per_thread);
}

TEST(Qsbr, OfflineThreadDoesNotBlock) {
  smr::qsbr domain({.quiescent_every = 1});
  std::atomic<long> freed{0};
  std::thread([&] { auto h = domain.attach(); }).join();  // its slot stays, offline
  const std::uint64_t e = domain.epoch();
  run_retirers(domain, 2, 1000, freed);
  // Blocked, nothing would be freed and the epoch would stay within 2 of its start. How much
  // more than that the retirers get done themselves depends on how they interleave (999 of
  // 2,000 freed and 46 epochs under a loaded CI run), so the decisive check is the drain below:
  // one thread alone must free everything (the retirers' bags are orphans now) while the
  // offline slot is still there; blocked, it never would (ops_until_freed gives up at 10,000).
  EXPECT_GT(freed.load(), 0) << "an offline thread held back reclamation";
  EXPECT_GT(domain.epoch(), e + 2) << "the epoch stalled";
  auto h = domain.attach();
  EXPECT_LT(ops_until_freed<smr::qsbr>(h, freed, 2000), 10000) << "an offline thread held back reclamation";
}

// ---------------------------------------------------------------------------------------------
// DEBRA

TEST(Debra, AdvancesOnlyAfterCheckingEveryThread) {
  for (unsigned threads : {1u, 3u, 6u}) {
    for (unsigned k : {1u, 3u}) {
      SCOPED_TRACE(testing::Message() << threads << " threads, check_every " << k);
      smr::debra domain({.check_every = k});
      std::vector<std::unique_ptr<smr::debra::handle>> hs;
      for (unsigned t = 0; t < threads; ++t)
        hs.push_back(std::make_unique<smr::debra::handle>(domain));  // quiescent, never operate
      const std::uint64_t e0 = domain.epoch();
      const unsigned round = threads * k;  // one check per k operations, one thread per check
      for (unsigned epochs = 1; epochs <= 2; ++epochs) {
        for (unsigned i = 1; i < round; ++i) {
          empty_op<smr::debra>(*hs[0]);
          ASSERT_EQ(domain.epoch(), e0 + epochs - 1) << "advanced after " << i << " operations";
        }
        empty_op<smr::debra>(*hs[0]);
        ASSERT_EQ(domain.epoch(), e0 + epochs) << "round complete but no advance";
      }
    }
  }
}

TEST(Debra, ThreadInsideOperationStopsTheRound) {
  smr::debra domain({.check_every = 1});
  std::atomic<long> freed{0};
  auto blocker = domain.attach();
  auto worker = domain.attach();
  std::optional<smr::debra::guard> op;
  op.emplace(blocker);  // announces e and stays inside its operation
  const std::uint64_t e = domain.epoch();
  for (int i = 0; i < 500; ++i) retire_one<smr::debra>(worker, freed);
  EXPECT_EQ(domain.epoch(), e + 1) << "the round for e passes (it announced e), e + 1 must not";
  EXPECT_EQ(freed.load(), 0);
  op.reset();
  EXPECT_LT(ops_until_freed<smr::debra>(worker, freed, 500), 10000);
  EXPECT_EQ(freed.load(), 500);
}

TEST(Debra, ThreadInsideOperationBlocksConcurrentWorkers) {
  smr::debra domain({.check_every = 1});
  std::atomic<long> freed{0};
  constexpr long per_thread = 1000;
  std::optional<smr::debra::handle> blocker;
  blocker.emplace(domain);
  {
    auto op = blocker->begin_op();
    const std::uint64_t e = domain.epoch();
    run_retirers(domain, 2, per_thread, freed);
    EXPECT_EQ(freed.load(), 0) << "freed while a thread was inside an operation";
    EXPECT_LE(domain.epoch(), e + 1);
  }
  EXPECT_LT(ops_until_freed<smr::debra>(*blocker, freed, 2 * per_thread), 10000);
  EXPECT_EQ(freed.load(), 2 * per_thread);
}

// A round counts checks for one epoch. A barrier (reclaim_now) moves the thread to a new epoch
// outside an operation; the round it had begun must not carry over, or the checks it made in the
// old epoch let it advance past a thread still inside an operation of that old epoch (found as
// a use-after-free by the concurrent barrier stress under TSan).
TEST(Debra, BarrierDoesNotCarryARoundIntoTheNextEpoch) {
  smr::debra domain({.check_every = 1});
  std::atomic<long> freed{0};
  // Slots 0..3 in attach order: the worker's round checks them in that order.
  auto idle_first = domain.attach();
  auto worker = domain.attach();
  auto reader = domain.attach();
  auto idle_last = domain.attach();
  const std::uint64_t e = domain.epoch();
  // Three checks in epoch e (idle_first, the worker itself, the reader while quiescent): the
  // round stops one short of idle_last.
  for (int i = 0; i < 3; ++i) retire_one<smr::debra>(worker, freed);
  ASSERT_EQ(domain.epoch(), e);
  {
    auto op = reader.begin_op();  // announces e and stays inside its operation
    // The barrier's scan advances to e + 1 (the reader announced e), then waits: e + 2 needs the
    // reader, and it times out.
    EXPECT_FALSE(worker.reclaim_now(std::chrono::milliseconds(1)));
    EXPECT_EQ(domain.epoch(), e + 1);
    for (int i = 0; i < 20; ++i) empty_op<smr::debra>(worker);
    EXPECT_EQ(domain.epoch(), e + 1) << "advanced past a thread inside an operation of epoch e";
    EXPECT_EQ(freed.load(), 0);
  }
  EXPECT_TRUE(worker.reclaim_now());
  EXPECT_EQ(freed.load(), 3);
  (void)idle_first;
  (void)idle_last;
}

TEST(Debra, IdleThreadBetweenOperationsDoesNotBlock) {
  // Unlike qsbr, an attached thread outside any operation is quiescent.
  smr::debra domain({.check_every = 1});
  std::atomic<long> freed{0};
  auto idle = domain.attach();
  empty_op<smr::debra>(idle);  // has operated once, now between operations
  const std::uint64_t e = domain.epoch();
  run_retirers(domain, 2, 1000, freed);
  // As Qsbr.OfflineThreadDoesNotBlock: how much the retirers free themselves depends on how
  // they interleave; the drain by one thread, with `idle` still attached, decides.
  EXPECT_GT(freed.load(), 0) << "a quiescent thread held back reclamation";
  EXPECT_GT(domain.epoch(), e + 10);
  auto h = domain.attach();
  EXPECT_LT(ops_until_freed<smr::debra>(h, freed, 2000), 10000) << "a quiescent thread held back reclamation";
}

// ---------------------------------------------------------------------------------------------
// NEBR

TEST(Nebr, ImplicitRegionAnnouncesOncePerRegionOps) {
  smr::nebr domain({.advance_every = 1u << 30, .region_ops = 4});
  auto h = domain.attach();
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 4; ++i) {
      empty_op<smr::nebr>(h);
      EXPECT_EQ(h.in_region(), i < 3) << "operation " << i << " of the region";
    }
  }
  h.enter_region();
  for (int i = 0; i < 10; ++i) empty_op<smr::nebr>(h);
  EXPECT_TRUE(h.in_region()) << "an explicit region ended by itself";
  h.leave_region();
  EXPECT_FALSE(h.in_region());
}

TEST(Nebr, LooksAtTheEpochEveryAdvanceEveryOperationsAcrossRegions) {
  // The two duties share one countdown (nebr.hpp): with region_ops 3 and advance_every 2 they
  // fall due at different operations, and neither may be skipped or doubled. One thread: each
  // look advances the epoch by one.
  smr::nebr domain({.advance_every = 2, .region_ops = 3});
  auto h = domain.attach();
  const std::uint64_t e0 = domain.epoch();
  for (int i = 0; i < 60; ++i) {
    empty_op<smr::nebr>(h);
    EXPECT_EQ(h.in_region(), i % 3 != 2) << "operation " << i;
  }
  EXPECT_EQ(domain.epoch() - e0, 30u);
  // An implicit region made explicit half-way keeps the look where it was due and stops ending.
  empty_op<smr::nebr>(h);  // operation 61: 1 of a new region, the look due after the next one
  h.enter_region();
  empty_op<smr::nebr>(h);
  EXPECT_EQ(domain.epoch() - e0, 31u);
  for (int i = 0; i < 9; ++i) empty_op<smr::nebr>(h);
  EXPECT_TRUE(h.in_region());
  EXPECT_EQ(domain.epoch() - e0, 35u);
  h.leave_region();
}

TEST(Nebr, OperatingThreadInARegionLetsTheEpochMove) {
  smr::nebr domain({.advance_every = 1, .region_ops = 0});
  std::atomic<long> freed{0};
  auto reader = domain.attach();
  reader.enter_region();  // for the whole test
  auto writer = domain.attach();
  const std::uint64_t e0 = domain.epoch();
  for (int i = 0; i < 100; ++i) {
    retire_one<smr::nebr>(writer, freed);
    empty_op<smr::nebr>(reader);  // re-announces when it sees the epoch moved (advance_every 1)
  }
  EXPECT_GT(domain.epoch(), e0 + 10) << "a region held the epoch back while its thread operated";
  EXPECT_GT(freed.load(), 50);
  reader.leave_region();
}

TEST(Nebr, IdleThreadInsideARegionHoldsTheEpoch) {
  // The application contract (nebr.hpp): a thread that idles inside a region blocks advances.
  smr::nebr domain({.advance_every = 1, .region_ops = 0});
  std::atomic<long> freed{0};
  auto idle = domain.attach();
  idle.enter_region();
  empty_op<smr::nebr>(idle);
  const std::uint64_t e = domain.epoch();
  {
    auto writer = domain.attach();
    for (int i = 0; i < 1000; ++i) retire_one<smr::nebr>(writer, freed);
    EXPECT_LE(domain.epoch(), e + 1);
    EXPECT_EQ(freed.load(), 0) << "freed while a thread idled inside its region";
    idle.leave_region();
    EXPECT_LT(ops_until_freed<smr::nebr>(writer, freed, 1000), 10000);
  }
  EXPECT_EQ(freed.load(), 1000);
}

TEST(NebrDeathTest, RegionCallsInsideAnOperationAreRefused) {
  smr::nebr domain;
  EXPECT_DEATH(
      {
        auto h = domain.attach();
        auto g = h.begin_op();
        h.enter_region();
      },
      "enter_region\\(\\) inside an operation");
  EXPECT_DEATH(
      {
        auto h = domain.attach();
        auto g = h.begin_op();
        h.leave_region();
      },
      "leave_region\\(\\) inside an operation");
}

}  // namespace
