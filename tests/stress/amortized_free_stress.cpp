// Concurrent stress of every amortized-free variant (<name>_af) with safe batches large enough
// to be parked in address order (core/free_policy.hpp, detail/address_sort.hpp). The other
// suites run the batch-free variants with tiny batches: the rules are the same code either way,
// but parking, the frees a few per operation, and the sort run with many threads only here.
//
// Each rule's batch knob is set above amortized_free's sort_from (the rest of its configuration
// is the eager one), and each run must have parked at least one batch that large: the policy is
// amortized_free<> itself, with a count of those batches (recorded as the test property
// sorted_batches). Counted once: at scale 1 (TSan) 13-56 per scheme, poibr_af about 1,090; at
// scale 4 (ASan) 27-237, poibr_af 4,256.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "support/reclaimers.hpp"
#include "support/set_stress.hpp"

namespace smr::test {

inline std::atomic<std::uint64_t> sorted_batches{0};

// amortized_free<>, the policy of every <name>_af, counting the safe batches it sorts.
struct counting_amortized_free : smr::core::amortized_free<> {
  void release(smr::detail::limbo_bag&& safe, smr::detail::thread_core& tc) {
    if (safe.size() >= sort_from) sorted_batches.fetch_add(1, std::memory_order_relaxed);
    amortized_free::release(std::move(safe), tc);
  }
};

template <class Rule>
struct stress_config<smr::basic_domain<Rule, counting_amortized_free>> {
  static typename Rule::config make() {
    typename Rule::config c = Rule::eager_config();
    // Above the threshold by more than the nodes a scan may keep (8 threads' reservations).
    constexpr unsigned large = counting_amortized_free::sort_from + 256;
    if constexpr (requires { c.grace_every; }) c.grace_every = large;
    if constexpr (requires { c.bag_threshold; }) c.bag_threshold = large;
    if constexpr (requires { c.scan_threshold; }) c.scan_threshold = large;
    if constexpr (requires { c.empty_frequency; }) c.empty_frequency = large;
    // An epoch scheme's batch is what a thread retires in an epoch: about one retirement in
    // five operations here.
    if constexpr (requires { c.quiescent_every; }) c.quiescent_every = 8 * large;
    if constexpr (requires { c.advance_every; }) c.advance_every = 8 * large;
    if constexpr (requires { c.check_every; }) c.check_every = large;
    // Token-EBR's batch is what a thread retired in a lap, and a lap is short when threads
    // look for the token at every operation (eager: every other one): here a holder keeps it
    // for up to `large` operations, and forwarding waits for 8 times that.
    if constexpr (requires { c.look_every; }) {
      c.look_every = large;
      c.forward_after = 8 * large;
      c.forward_after_us = 0;
    }
    return c;
  }
};

}  // namespace smr::test

namespace {

using amortized_variants = smr::test::batched_reclaimers_with<smr::test::counting_amortized_free, smr::all_rules>::type;

template <class R>
class AmortizedFreeStress : public ::testing::Test {};
TYPED_TEST_SUITE(AmortizedFreeStress, amortized_variants, smr::test::reclaimer_name);

constexpr std::size_t buckets = 256;

TYPED_TEST(AmortizedFreeStress, LargeParkedBatches) {
  using R = TypeParam;
  // The restart-from-root hash map takes every reclaimer but poibr, which takes persistent
  // structures only.
  using DS = std::conditional_t<R::traits.requires_persistent, smr::bonsai_tree<std::uint64_t, R>,
                                smr::hash_map_rr<std::uint64_t, R>>;
  static_assert(smr::compatible_v<DS, R>);
  // At scale 1 (TSan) still several epochs of 8 x large operations per thread.
  const smr::test::set_stress_params p{.threads = 8, .key_range = 2048, .ops_per_thread = smr::test::scaled_ops(48000)};
  const std::uint64_t before = smr::test::sorted_batches.load();
  if constexpr (R::traits.requires_persistent) {
    smr::test::run_set_stress<DS, R>(p);
  } else {
    smr::test::run_set_stress<DS, R>(p, buckets);
  }
  const std::uint64_t sorted = smr::test::sorted_batches.load() - before;
  EXPECT_GT(sorted, 0u) << "no safe batch reached sort_from: raise this scheme's batch knob or the operations";
  this->RecordProperty("sorted_batches", static_cast<int>(sorted));
}

}  // namespace
