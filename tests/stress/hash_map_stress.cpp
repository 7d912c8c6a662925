// Concurrent stress of Michael's hash map, both forms (hash_map, hash_map_rr), with every
// reclaimer; refused pairs are skipped with the reason. Few buckets on the tiny key range keep
// several keys per bucket, so the bucket lists themselves are contended.
#include <cstddef>
#include <cstdint>

#include "support/reclaimers.hpp"
#include "support/set_stress.hpp"

namespace {

template <class R>
class HashMapStress : public ::testing::Test {};
TYPED_TEST_SUITE(HashMapStress, smr::test::structure_reclaimers, smr::test::reclaimer_name);

// 5 buckets: ~3 shared keys per bucket on the tiny range, ~400 on the larger one.
constexpr std::size_t few_buckets = 5;
// 256 buckets: short chains, the hash map's usual regime, on the larger range.
constexpr std::size_t many_buckets = 256;

TYPED_TEST(HashMapStress, ContinueFromPred) {
  using R = TypeParam;
  using DS = smr::hash_map<std::uint64_t, R>;
  if constexpr (smr::compatible_v<DS, R>) {
    smr::test::set_stress_suite<DS, R>("hash_map, 5 buckets", 6000, 1500, few_buckets);
    SCOPED_TRACE("hash_map, 256 buckets, 8 threads, 2048 keys");
    smr::test::run_set_stress<DS, R>(
        {.threads = 8, .key_range = 2048, .ops_per_thread = smr::test::scaled_ops(6000)},
        many_buckets);
  } else {
    GTEST_SKIP() << smr::incompatibility(R::traits, DS::requirements);
  }
}

TYPED_TEST(HashMapStress, RestartFromRoot) {
  using R = TypeParam;
  using DS = smr::hash_map_rr<std::uint64_t, R>;
  if constexpr (smr::compatible_v<DS, R>) {
    smr::test::set_stress_suite<DS, R>("hash_map_rr, 5 buckets", 6000, 1500, few_buckets);
    SCOPED_TRACE("hash_map_rr, 256 buckets, 8 threads, 2048 keys");
    smr::test::run_set_stress<DS, R>(
        {.threads = 8, .key_range = 2048, .ops_per_thread = smr::test::scaled_ops(6000)},
        many_buckets);
  } else {
    GTEST_SKIP() << smr::incompatibility(R::traits, DS::requirements);
  }
}

}  // namespace
