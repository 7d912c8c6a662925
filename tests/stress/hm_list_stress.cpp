// Concurrent stress of the Harris-Michael list, both forms (continue after an unlink, restart
// from the root), with every reclaimer; pairs the compatibility rules refuse are skipped with
// the reason (NBR accepts only hm_list_rr).
#include <cstdint>

#include "support/reclaimers.hpp"
#include "support/set_stress.hpp"

namespace {

template <class R>
class HmListStress : public ::testing::Test {};
TYPED_TEST_SUITE(HmListStress, smr::test::all_reclaimers, smr::test::reclaimer_name);

TYPED_TEST(HmListStress, ContinueFromPred) {
  using R = TypeParam;
  using DS = smr::hm_list<std::uint64_t, R>;
  if constexpr (smr::compatible_v<DS, R>) {
    smr::test::set_stress_suite<DS, R>("hm_list", 6000, 600);
  } else {
    GTEST_SKIP() << smr::incompatibility(R::traits, DS::requirements);
  }
}

TYPED_TEST(HmListStress, RestartFromRoot) {
  using R = TypeParam;
  using DS = smr::hm_list_rr<std::uint64_t, R>;
  if constexpr (smr::compatible_v<DS, R>) {
    smr::test::set_stress_suite<DS, R>("hm_list_rr", 6000, 600);
  } else {
    GTEST_SKIP() << smr::incompatibility(R::traits, DS::requirements);
  }
}

}  // namespace
