// Concurrent stress of Brown's (a,b)-tree (LLX/SCX) with every reclaimer it admits: the epoch
// and quiescence schemes and NBR; hp, he and the interval schemes are skipped with the reason
// (NBR paper, Table 1). The set suite checks key sums and counts, per-thread private keys, and
// the tree's invariants after the run: a strict (a,b)-tree (every violation an update left was
// repaired by it), leaves at one depth, keys in range, no node finalized or frozen; with degrees
// 2..4 also at quiescent points every 16 operations (shape_stress).
#include <cstdint>

#include "support/reclaimers.hpp"
#include "support/set_stress.hpp"

namespace {

template <class R>
class AbTreeStress : public ::testing::Test {};
TYPED_TEST_SUITE(AbTreeStress, smr::test::structure_reclaimers, smr::test::reclaimer_name);

TYPED_TEST(AbTreeStress, Mixed) {
  using R = TypeParam;
  using DS = smr::ab_tree<std::uint64_t, R>;
  if constexpr (smr::compatible_v<DS, R>) {
    smr::test::set_stress_suite<DS, R>("ab_tree", 2000, 1500);
  } else {
    GTEST_SKIP() << smr::incompatibility(R::traits, DS::requirements);
  }
}

// Degrees 2..4: a split, merge or redistribution every few updates, and tagged nodes stacked
// several levels deep, which Brown's degrees reach only on key ranges far larger than a test's.
TYPED_TEST(AbTreeStress, MixedSmallDegree) {
  using R = TypeParam;
  using DS = smr::basic_ab_tree<std::uint64_t, R, 4, 2>;
  if constexpr (smr::compatible_v<DS, R>) {
    smr::test::set_stress_suite<DS, R>("ab_tree 2..4", 2000, 1000);
    smr::test::shape_stress<DS, R>("ab_tree 2..4", 2000);
  } else {
    GTEST_SKIP() << smr::incompatibility(R::traits, DS::requirements);
  }
}

}  // namespace
