// Concurrent stress of the lazy list with every reclaimer; reclaimers that cannot protect
// traversals through unlinked nodes (hp, ibr_2ge: NBR paper, Table 1) are skipped with the reason.
#include <cstdint>

#include "support/reclaimers.hpp"
#include "support/set_stress.hpp"

namespace {

template <class R>
class LazyListStress : public ::testing::Test {};
TYPED_TEST_SUITE(LazyListStress, smr::test::structure_reclaimers, smr::test::reclaimer_name);

TYPED_TEST(LazyListStress, Mixed) {
  using R = TypeParam;
  using DS = smr::lazy_list<std::uint64_t, R>;
  if constexpr (smr::compatible_v<DS, R>) {
    smr::test::set_stress_suite<DS, R>("lazy_list", 12000, 1200);
  } else {
    GTEST_SKIP() << smr::incompatibility(R::traits, DS::requirements);
  }
}

}  // namespace
