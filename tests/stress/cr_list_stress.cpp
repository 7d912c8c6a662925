// Concurrent stress of the concurrently readable list and hash table (lock-protected updates,
// lockless reads) with every reclaimer; TagIBR is refused (the remover links the predecessor to
// a successor it read under the lock, unprotected) and skipped with the reason. Both read paths
// run: the plain walk (epoch schemes, NBR) and the validating one (HP, HE, IBR intervals).
// Budgets are below the lock-free lists': every update holds the (one, or per-bucket) lock for a
// whole walk, and with 8 threads on 2 cores a preempted holder stalls the rest.
#include <cstddef>
#include <cstdint>

#include "support/reclaimers.hpp"
#include "support/set_stress.hpp"

namespace {

template <class R>
class CrListStress : public ::testing::Test {};
TYPED_TEST_SUITE(CrListStress, smr::test::structure_reclaimers, smr::test::reclaimer_name);

TYPED_TEST(CrListStress, List) {
  using R = TypeParam;
  using DS = smr::cr_list<std::uint64_t, R>;
  if constexpr (smr::compatible_v<DS, R>) {
    smr::test::set_stress_suite<DS, R>("cr_list", 4000, 300);
  } else {
    GTEST_SKIP() << smr::incompatibility(R::traits, DS::requirements);
  }
}

// 5 buckets: several keys per bucket on the tiny range, so each bucket's lock is contended.
TYPED_TEST(CrListStress, HashMap) {
  using R = TypeParam;
  using DS = smr::cr_hash_map<std::uint64_t, R>;
  if constexpr (smr::compatible_v<DS, R>) {
    smr::test::set_stress_suite<DS, R>("cr_hash_map, 5 buckets", 2000, 500, std::size_t{5});
  } else {
    GTEST_SKIP() << smr::incompatibility(R::traits, DS::requirements);
  }
}

}  // namespace
