// The reclaim-now barrier (handle::reclaim_now, basic_domain::reclaim_now), for every reclaimer
// and both free policies:
//  - it frees everything the calling thread retired once nothing protects it;
//  - it never frees a node another thread still protects: it waits, and gives up (false) at
//    its timeout with the node intact, then frees it once the protection is released, also
//    while the barrier is already waiting;
//  - an idle attached thread blocks only qsbr (an online thread that declares no quiescent
//    state), which the timeout reports;
//  - the domain's barrier frees what exited threads left behind;
//  - concurrent barriers during churn free nothing a reader holds (ASan/TSan, poison mode);
//  - it is refused inside an operation.
// Built a second time as external_reclaim_now_test (SMR_TEST_EXTERNAL) for the external
// baselines of bench/external, whose barrier waits for the libraries' own callbacks.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

#include "smr/smr.hpp"
#if SMR_TEST_EXTERNAL
#include "external/external_rules.hpp"
#include "support/reclaimers.hpp"
#endif
#include "support/barrier_stress.hpp"
#include "support/probe.hpp"
#include "support/stress.hpp"

namespace {

using namespace std::chrono_literals;
using smr::test::probe;
using smr::test::wait_until;

#if SMR_TEST_EXTERNAL
using tested_reclaimers = smr::test::batch_reclaimers_of<smr::external::rules>::type;
#else
using tested_reclaimers = smr::test::every_variant;
#endif

// The reclaimers an idle attached thread blocks: an online thread that declares no quiescent
// state holds every QSBR grace period.
template <class R>
constexpr bool blocked_by_idle_threads = R::base_name == std::string_view("qsbr") || R::base_name == std::string_view("urcu_qsbr");

template <class R>
class ReclaimNow : public ::testing::Test {};
TYPED_TEST_SUITE(ReclaimNow, tested_reclaimers, smr::test::variant_name);

template <class R>
void retire_fresh(typename R::handle& h, std::atomic<int>& freed, int n) {
  for (int i = 0; i < n; ++i) {
    auto g = h.begin_op();
    g.retire(g.template create<probe<R>>(&freed));
  }
}

TYPED_TEST(ReclaimNow, FreesEverythingThisThreadRetired) {
  using R = TypeParam;
  smr::test::watchdog dog(std::chrono::seconds(60), "reclaim_now, one thread");
  std::atomic<int> freed{0};
  R domain(R::rule::eager_config());
  auto h = domain.attach();
  EXPECT_TRUE(h.reclaim_now(1s)) << "nothing retired: nothing to wait for";
  retire_fresh<R>(h, freed, 1000);
  if constexpr (R::traits.frees) {
    EXPECT_TRUE(h.reclaim_now());
    EXPECT_EQ(freed.load(), 1000);
    EXPECT_EQ(h.unreclaimed(), 0u);
  } else {
    EXPECT_FALSE(h.reclaim_now(10ms)) << "none never frees, and must say so";
    EXPECT_EQ(freed.load(), 0);
  }
}

// A reader holds X in an operation; the barrier must not free it, and must free it once the
// reader lets go, whether the barrier starts before or after that.
TYPED_TEST(ReclaimNow, WaitsWhileProtectedThenFrees) {
  using R = TypeParam;
  if constexpr (R::traits.frees) {
    smr::test::watchdog dog(std::chrono::seconds(60), "reclaim_now with a protected node");
    std::atomic<int> freed{0};
    R domain(R::rule::eager_config());
    typename R::template atomic_ptr<probe<R>> link;
    auto h = domain.attach();
    {
      auto g = h.begin_op();
      link.store(g.template create<probe<R>>(&freed), smr::core::mo_release);
    }
    std::atomic<int> step{0};
    std::thread reader([&] {
      auto rh = domain.attach();
      {
        auto g = rh.begin_op();
        auto s = g.slot();
        probe<R>* x = smr::test::protect_in_operation(g, s, link);
        ASSERT_NE(x, nullptr);
        step.store(1, std::memory_order_release);
        wait_until(step, 2);
        EXPECT_EQ(x->magic, smr::test::probe_magic) << R::name << ": the barrier freed a protected node";
        step.store(3, std::memory_order_release);
        std::this_thread::sleep_for(20ms);  // the second barrier is waiting by now, usually
      }
    });
    wait_until(step, 1);
    {
      auto g = h.begin_op();
      g.retire(link.exchange(nullptr, smr::core::mo_acq_rel).get());
    }
    retire_fresh<R>(h, freed, 50);
    EXPECT_FALSE(h.reclaim_now(50ms)) << R::name << ": reported everything freed while a node was protected";
    EXPECT_LE(freed.load(), 50);
    EXPECT_GE(h.unreclaimed(), 1u);
    step.store(2, std::memory_order_release);
    wait_until(step, 3);
    EXPECT_TRUE(h.reclaim_now()) << R::name;  // returns once the reader's operation ended
    EXPECT_EQ(freed.load(), 51);
    reader.join();
  }
}

TYPED_TEST(ReclaimNow, IdleAttachedThreadBlocksOnlyQsbr) {
  using R = TypeParam;
  if constexpr (R::traits.frees) {
    smr::test::watchdog dog(std::chrono::seconds(60), "reclaim_now with an idle thread");
    std::atomic<int> freed{0};
    R domain(R::rule::eager_config());
    std::atomic<int> step{0};
    std::thread idle([&] {
      auto ih = domain.attach();  // attached, outside any operation
      step.store(1, std::memory_order_release);
      wait_until(step, 2);
    });
    wait_until(step, 1);
    auto h = domain.attach();
    retire_fresh<R>(h, freed, 100);
    EXPECT_EQ(h.reclaim_now(100ms), !blocked_by_idle_threads<R>) << R::name;
    step.store(2, std::memory_order_release);
    idle.join();  // detached: qsbr's barrier can finish now
    EXPECT_TRUE(h.reclaim_now()) << R::name;
    EXPECT_EQ(freed.load(), 100);
  }
}

TYPED_TEST(ReclaimNow, DomainBarrierFreesWhatExitedThreadsLeft) {
  using R = TypeParam;
  smr::test::watchdog dog(std::chrono::seconds(60), "domain reclaim_now");
  std::atomic<int> freed{0};
  R domain(R::rule::eager_config());
  constexpr int threads = 3, each = 400;
  constexpr bool epoch_rule = std::is_base_of_v<smr::detail::epoch_rule_base, typename R::rule>;
  auto run_workers = [&] {
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&] {
        auto h = domain.attach();
        retire_fresh<R>(h, freed, each);
      });
    }
    for (auto& w : workers) w.join();
    return freed.load();
  };
  int before = 0;
  if constexpr (epoch_rule) {
    // Held inside an operation while the workers exit, so that their exit steps cannot free
    // their last nodes and must leave them to the domain. (Not for the others: an external
    // baseline's retire may wait for a grace period, which this operation would block.)
    auto holder = domain.attach();
    auto g = holder.begin_op();
    before = run_workers();
  } else {
    before = run_workers();
  }
  if constexpr (R::traits.frees) {
    if constexpr (epoch_rule) {
      // The last nodes of each exiting thread could not be made safe while `holder` was in its
      // operation: the control that shows the barrier had work to do.
      EXPECT_LT(before, threads * each) << R::name << ": nothing was left to the domain";
    }
    EXPECT_TRUE(domain.reclaim_now());
    EXPECT_EQ(freed.load(), threads * each) << R::name << " (" << before << " before the barrier)";
  } else {
    EXPECT_FALSE(domain.reclaim_now(10ms));
    EXPECT_EQ(freed.load(), 0);
  }
}

// A handle that has announced before and retired nothing itself must still free what exited
// threads left (its rule adopts orphans only on a new epoch, for the epoch schemes). Default
// configurations: 50 retirements do not move qsbr's epoch, nor can the leaver's exit step while
// this handle is online, so the orphans appear while the epoch stands where this handle last
// announced it (ebr's exit step advances it).
TYPED_TEST(ReclaimNow, HandleBarrierFreesOrphansWithAnEmptyLimbo) {
  using R = TypeParam;
  smr::test::watchdog dog(std::chrono::seconds(60), "handle reclaim_now and orphans");
  std::atomic<int> freed{0};
  R domain;
  auto h = domain.attach();
  {
    auto g = h.begin_op();  // announces (epoch schemes) before the orphans exist
  }
  std::thread leaver([&] {
    auto lh = domain.attach();
    retire_fresh<R>(lh, freed, 50);
  });
  leaver.join();
  EXPECT_EQ(h.unreclaimed(), 0u);
  if constexpr (R::traits.frees) {
    EXPECT_TRUE(h.reclaim_now()) << R::name;
    EXPECT_EQ(freed.load(), 50) << R::name;
  } else {
    EXPECT_FALSE(h.reclaim_now(10ms)) << "none: the orphans are never freed";
  }
}

// Barriers between the writers' operations never free what readers hold
// (support/barrier_stress.hpp; tests/expected_failure/barrier_skips_readers.cpp is the control).
TYPED_TEST(ReclaimNow, ConcurrentBarriersFreeNothingHeld) {
  using R = TypeParam;
  smr::test::watchdog dog(std::chrono::seconds(120), "concurrent reclaim_now");
  const auto r = smr::test::run_barrier_stress<R>(400, 2ms);
  EXPECT_EQ(r.bad_reads, 0) << R::name;
  EXPECT_GE(r.reads, 3);
}

#if !SMR_TEST_EXTERNAL
TEST(ReclaimNowDeathTest, RefusedInsideAnOperation) {
  EXPECT_DEATH(
      {
        smr::ebr domain;
        auto h = domain.attach();
        auto g = h.begin_op();
        (void)h.reclaim_now();
      },
      "smr: misuse: reclaim_now\\(\\) inside an operation");
}

#endif

}  // namespace
