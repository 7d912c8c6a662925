// hp_asym (reclaimers/hp_asym.hpp) beyond what every reclaimer gets from the stress, churn,
// skeleton and reclaim-now suites (which run it through smr::all_rules):
//  - it uses membarrier exactly when the kernel offers MEMBARRIER_CMD_PRIVATE_EXPEDITED (asked
//    here independently of the library), and every domain and handle agrees;
//  - it is the HP rule with another fence pair: same tunables, traits and bounds as hp;
//  - a protected node survives scans that run while its reader holds it (the guarantee the
//    membarrier provides), across many handles and domains.
// The fallback (no membarrier) is hp_asym_fallback_test.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "smr/smr.hpp"
#include "support/probe.hpp"
#include "support/set_stress.hpp"

#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace {

bool kernel_offers_private_expedited() {
#if defined(__linux__)
  const long commands = ::syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0u, 0);
  return commands > 0 && (commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0;
#else
  return false;
#endif
}

TEST(HpAsym, UsesMembarrierWhereTheKernelOffersIt) {
  smr::hp_asym a;
  smr::hp_asym_af b;
  EXPECT_EQ(a.fence_policy().asymmetric(), kernel_offers_private_expedited());
  EXPECT_EQ(b.fence_policy().asymmetric(), a.fence_policy().asymmetric());
}

TEST(HpAsym, IsTheHpRuleWithAnotherFencePair) {
  static_assert(std::is_same_v<smr::hp_asym_rule, smr::hp_rule_with<smr::hp_asymmetric_fences>>);
  static_assert(smr::hp_asym::traits.bounded_garbage == smr::hp::traits.bounded_garbage);
  static_assert(smr::hp_asym::traits.slot_based_protection && !smr::hp_asym::traits.protects_unlinked_traversal);
  static_assert(std::tuple_size_v<decltype(smr::hp_asym_rule::tunables)> == std::tuple_size_v<decltype(smr::hp_rule::tunables)>);
  EXPECT_EQ(smr::hp_asym::name, "hp_asym");
  EXPECT_EQ(smr::hp_asym_af::name, "hp_asym_af");
  EXPECT_EQ(smr::hp::name, "hp");
  EXPECT_THROW(smr::hp_asym({.slots = 0}), std::invalid_argument);
}

// A reader holds a node while another thread retires it and scans (R = 1) many times: the node
// must stay allocated until the reader lets go, then the next scan frees it.
TEST(HpAsym, HeldNodeSurvivesScans) {
  using R = smr::hp_asym;
  using smr::test::probe;
  R domain({.slots = 1, .scan_threshold = 1});
  R::atomic_ptr<probe<R>> link;
  std::atomic<int> freed{0}, step{0};
  auto h = domain.attach();
  {  // published before the reader starts, so that it protects the node and not null
    auto g = h.begin_op();
    link.store(g.template create<probe<R>>(&freed), smr::core::mo_release);
  }
  std::thread reader([&] {
    auto rh = domain.attach();
    {
      auto g = rh.begin_op();
      auto p = g.protect(link);
      ASSERT_TRUE(p);
      step.store(1, std::memory_order_release);
      smr::test::wait_until(step, 2);
      EXPECT_EQ(p->magic, smr::test::probe_magic);
    }
    step.store(3, std::memory_order_release);
  });
  smr::test::wait_until(step, 1);
  {
    auto g = h.begin_op();
    g.retire(link.exchange(nullptr, smr::core::mo_acq_rel).get());
  }
  for (int i = 0; i < 50; ++i) {  // each retirement scans; the held node stays
    auto g = h.begin_op();
    g.retire(g.template create<probe<R>>(nullptr));
  }
  EXPECT_EQ(freed.load(), 0);
  step.store(2, std::memory_order_release);
  smr::test::wait_until(step, 3);
  reader.join();
  EXPECT_TRUE(h.reclaim_now());
  EXPECT_EQ(freed.load(), 1);
}

// Many domains and threads attaching and detaching: each domain construction reuses the one
// registration, and every scan's membarrier succeeds (a failure aborts).
TEST(HpAsym, ManyDomainsAndThreads) {
  for (int d = 0; d < 20; ++d) {
    using R = smr::hp_asym;
    smr::test::run_set_stress<smr::hm_list<std::uint64_t, R>, R>(
        {.threads = 4, .key_range = 16, .ops_per_thread = 500});
    if (HasFailure()) return;
  }
}

}  // namespace
