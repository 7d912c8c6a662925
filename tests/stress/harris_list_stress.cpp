// Concurrent stress of Harris's original list with every reclaimer; reclaimers that cannot
// protect its walks through unlinked nodes (hp, he, ibr_2ge: NBR paper, Table 1) are skipped
// with the reason.
#include <cstdint>

#include "support/reclaimers.hpp"
#include "support/set_stress.hpp"

namespace {

template <class R>
class HarrisListStress : public ::testing::Test {};
TYPED_TEST_SUITE(HarrisListStress, smr::test::structure_reclaimers, smr::test::reclaimer_name);

TYPED_TEST(HarrisListStress, Mixed) {
  using R = TypeParam;
  using DS = smr::harris_list<std::uint64_t, R>;
  if constexpr (smr::compatible_v<DS, R>) {
    smr::test::set_stress_suite<DS, R>("harris_list", 12000, 1200);
  } else {
    GTEST_SKIP() << smr::incompatibility(R::traits, DS::requirements);
  }
}

}  // namespace
