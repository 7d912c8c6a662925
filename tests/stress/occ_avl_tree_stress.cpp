// Concurrent stress of the OCC AVL tree (Bronson et al.) with every reclaimer it admits: the
// epoch and quiescence schemes. hp, he, the interval schemes and lfrc (unlinked nodes on the
// search path) and NBR (the repair climbs parent links after a write, holding locks) are
// skipped with the reason. The set suite checks key sums and counts, per-thread private keys,
// and the tree's invariants after the run: a strict AVL tree (exact heights, balance within one,
// no routing node short of a child), BST order, parent links, no node left locked or shrinking;
// and the same at quiescent points every 16 operations (shape_stress).
#include <cstdint>

#include "support/reclaimers.hpp"
#include "support/set_stress.hpp"

namespace {

template <class R>
class OccAvlTreeStress : public ::testing::Test {};
TYPED_TEST_SUITE(OccAvlTreeStress, smr::test::structure_reclaimers, smr::test::reclaimer_name);

TYPED_TEST(OccAvlTreeStress, Mixed) {
  using R = TypeParam;
  using DS = smr::occ_avl_tree<std::uint64_t, R>;
  if constexpr (smr::compatible_v<DS, R>) {
    smr::test::set_stress_suite<DS, R>("occ_avl_tree", 8000, 4000);
    smr::test::shape_stress<DS, R>("occ_avl_tree", 8000);
  } else {
    GTEST_SKIP() << smr::incompatibility(R::traits, DS::requirements);
  }
}

}  // namespace
