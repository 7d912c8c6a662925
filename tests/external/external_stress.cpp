// Concurrent stress of the external baselines (bench/external: liburcu, Concurrency Kit, libcds
// behind smr's concept) on smr's own sets, with the checks of every other pair: key checksums,
// private keys, each structure's invariants, and use-after-free detection (ASan, poison mode).
// Refused pairs (libcds's hazard pointers on structures whose searches pass through unlinked
// nodes) are skipped with the reason. Not under TSan: the libraries are not instrumented.
#include <cstddef>
#include <cstdint>

#include "external/external_rules.hpp"
#include "support/reclaimers.hpp"
#include "support/set_stress.hpp"

namespace {

template <class R>
class ExternalStress : public ::testing::Test {};
using external_reclaimers = smr::test::batch_reclaimers_of<smr::external::rules>::type;
TYPED_TEST_SUITE(ExternalStress, external_reclaimers, smr::test::reclaimer_name);

template <class DS, class R, class... Args>
void stress(const char* which, Args... args) {
  if constexpr (smr::compatible_v<DS, R>) {
    smr::test::set_stress_suite<DS, R>(which, 3000, 800, args...);
  } else {
    GTEST_SKIP() << smr::incompatibility(R::traits, DS::requirements);
  }
}

TYPED_TEST(ExternalStress, HarrisMichaelList) { stress<smr::hm_list<std::uint64_t, TypeParam>, TypeParam>("hm_list"); }
TYPED_TEST(ExternalStress, HashMap) { stress<smr::hash_map<std::uint64_t, TypeParam>, TypeParam>("hash_map, 5 buckets", std::size_t{5}); }
TYPED_TEST(ExternalStress, LazyList) { stress<smr::lazy_list<std::uint64_t, TypeParam>, TypeParam>("lazy_list"); }

}  // namespace
