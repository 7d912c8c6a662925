// Concurrent stress of the Bonsai tree with every reclaimer it admits: the epoch and quiescence
// schemes, NBR, and the interval schemes (POIBR only here and on the Treiber stack, the
// persistent structures); hp, he and wfe are skipped with the reason. Every update copies a
// path and CASes the root, so the shared key range is small enough for the root to be contended
// and large enough for rotations on every update.
#include <cstdint>

#include "support/reclaimers.hpp"
#include "support/set_stress.hpp"

namespace {

template <class R>
class BonsaiTreeStress : public ::testing::Test {};
TYPED_TEST_SUITE(BonsaiTreeStress, smr::test::structure_reclaimers, smr::test::reclaimer_name);

TYPED_TEST(BonsaiTreeStress, Mixed) {
  using R = TypeParam;
  using DS = smr::bonsai_tree<std::uint64_t, R>;
  if constexpr (smr::compatible_v<DS, R>) {
    smr::test::set_stress_suite<DS, R>("bonsai_tree", 8000, 1000);
  } else {
    GTEST_SKIP() << smr::incompatibility(R::traits, DS::requirements);
  }
}

}  // namespace
