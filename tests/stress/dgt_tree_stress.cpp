// Concurrent stress of the DGT tree (BST-TK) with every reclaimer; reclaimers that cannot
// protect its walks through unlinked nodes (hp, he, the IBR schemes: NBR paper, Table 1) are
// skipped with the reason. The set suite checks key sums and counts, per-thread private keys,
// and the tree's invariants (routing order, no reachable node left locked).
#include <cstdint>

#include "support/reclaimers.hpp"
#include "support/set_stress.hpp"

namespace {

template <class R>
class DgtTreeStress : public ::testing::Test {};
TYPED_TEST_SUITE(DgtTreeStress, smr::test::structure_reclaimers, smr::test::reclaimer_name);

TYPED_TEST(DgtTreeStress, Mixed) {
  using R = TypeParam;
  using DS = smr::dgt_tree<std::uint64_t, R>;
  if constexpr (smr::compatible_v<DS, R>) {
    smr::test::set_stress_suite<DS, R>("dgt_tree", 12000, 6000);
  } else {
    GTEST_SKIP() << smr::incompatibility(R::traits, DS::requirements);
  }
}

}  // namespace
