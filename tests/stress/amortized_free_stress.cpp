// Concurrent stress of every amortized-free variant (<name>_af) with safe batches large enough
// to be parked in address order (core/free_policy.hpp, detail/address_sort.hpp). The other
// suites run the batch-free variants with tiny batches: the rules are the same code either way,
// but parking, the frees a few per operation, and the sort run with many threads only here.
//
// Each rule's batch knob is set above amortized_free's sort_from; the rest of its configuration
// is the eager one. Counted once at SMR_STRESS_SCALE=4 (the CI scale of ASan and release), every
// variant parked sorted batches: 5-8 for qsbr_af and debra_af, 8 for nbr_plus_af (whose
// piggybacked frees are smaller), 16-20 for each Token-EBR variant and for ebr_af and nebr_af,
// 34 or more for the others.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "support/reclaimers.hpp"
#include "support/set_stress.hpp"

namespace smr::test {

template <class Rule, unsigned PerOperation>
struct stress_config<smr::basic_domain<Rule, smr::core::amortized_free<PerOperation>>> {
  using domain = smr::basic_domain<Rule, smr::core::amortized_free<PerOperation>>;
  static typename domain::config make() {
    typename domain::config c = Rule::eager_config();
    // Above the threshold by more than the nodes a scan may keep (8 threads' reservations).
    constexpr unsigned large = smr::core::amortized_free<PerOperation>::sort_from + 256;
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

template <class R>
class AmortizedFreeStress : public ::testing::Test {};
TYPED_TEST_SUITE(AmortizedFreeStress, smr::test::amortized_reclaimers, smr::test::reclaimer_name);

constexpr std::size_t buckets = 256;

TYPED_TEST(AmortizedFreeStress, LargeParkedBatches) {
  using R = TypeParam;
  // The restart-from-root hash map takes every reclaimer but poibr, which takes persistent
  // structures only.
  using DS = std::conditional_t<R::traits.requires_persistent, smr::bonsai_tree<std::uint64_t, R>,
                                smr::hash_map_rr<std::uint64_t, R>>;
  static_assert(smr::compatible_v<DS, R>);
  const smr::test::set_stress_params p{.threads = 8, .key_range = 2048, .ops_per_thread = smr::test::scaled_ops(8000)};
  if constexpr (R::traits.requires_persistent) {
    smr::test::run_set_stress<DS, R>(p);
  } else {
    smr::test::run_set_stress<DS, R>(p, buckets);
  }
}

}  // namespace
