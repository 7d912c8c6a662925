// Concurrent stress of the Natarajan-Mittal tree with every reclaimer; reclaimers that cannot
// protect its walks through unlinked nodes (hp, he: NBR paper, Table 1) are skipped with the
// reason. Operations are logarithmic, so the larger key range gets more of them than a list's.
#include <cstdint>

#include "support/reclaimers.hpp"
#include "support/set_stress.hpp"

namespace {

template <class R>
class NmTreeStress : public ::testing::Test {};
TYPED_TEST_SUITE(NmTreeStress, smr::test::structure_reclaimers, smr::test::reclaimer_name);

TYPED_TEST(NmTreeStress, Mixed) {
  using R = TypeParam;
  using DS = smr::nm_tree<std::uint64_t, R>;
  if constexpr (smr::compatible_v<DS, R>) {
    smr::test::set_stress_suite<DS, R>("nm_tree", 12000, 6000);
  } else {
    GTEST_SKIP() << smr::incompatibility(R::traits, DS::requirements);
  }
}

}  // namespace
