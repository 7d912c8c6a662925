// The reclaimers under test and their shrunk, test-only configurations: small batches and
// frequent epoch advances make reclamation happen constantly, which is what exposes bugs.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <type_traits>

#include "smr/smr.hpp"

namespace smr::test {

// Each reclaimer's shrunk configuration is its rule's eager_config() (small batches, frequent
// epoch advances), so a new reclaimer needs no entry here.
template <class R>
struct stress_config {
  static typename R::config make() { return R::rule::eager_config(); }
};

template <class List>
struct as_gtest_types;
template <class... T>
struct as_gtest_types<smr::type_list<T...>> {
  using type = ::testing::Types<T...>;
};

// The rules of a rule_list with batch free, as a type_list (`list`) and as gtest types (`type`).
template <class List>
struct batch_reclaimers_of;
template <class... Rules>
struct batch_reclaimers_of<smr::rule_list<Rules...>> {
  using list = smr::type_list<smr::basic_domain<Rules>...>;
  using type = typename as_gtest_types<list>::type;
};

// Every reclaimer of smr::all_rules, with batch free.
using all_reclaimers = batch_reclaimers_of<smr::all_rules>::type;

// The reclaimers each structure's stress suite runs: every one, or (SMR_TEST_SPANNING, from the
// CMake option SMR_TEST_RECLAIMERS=spanning: the tsan and release presets) a spanning set. The
// asan preset runs every pair: a node freed under a reader depends on the pair, and ASan sees any
// such access. A race does not: it lives in a structure's code (any reclaimer that frees shows
// it), in a reclaimer's (any structure shows it: hm_list_stress, thread_churn_test and
// amortized_free_stress keep every reclaimer), or in what a reclaimer adds to the structure's
// nodes and links. So the spanning set is one reclaimer per such addition: nothing (ebr: critical
// regions only), hazard slots validated against the link (hp), birth eras in the node (he),
// intervals (ibr_2ge), pair links written by one double-width CAS (tag_ibr_wcas), reservations
// and neutralization (nbr_plus), reference counts in the node (lfrc), and poibr for the
// persistent structure it alone serves. The optimised build's poison mode runs the same set, and
// smrbench's tests run every pair there in poison mode for a short trial; `make torture` runs
// every pair's stress suite in poison mode (docs/verification.md, "Running everything").
#if SMR_TEST_SPANNING
using structure_reclaimers = ::testing::Types<smr::ebr, smr::hp, smr::he, smr::ibr_2ge, smr::tag_ibr_wcas,
                                              smr::nbr_plus, smr::lfrc, smr::poibr>;
#else
using structure_reclaimers = all_reclaimers;
#endif

template <class List>
struct with_both_free_policies;
template <class... Rules>
struct with_both_free_policies<smr::rule_list<Rules...>> {
  using type = typename as_gtest_types<decltype((smr::type_list<>{} + ... + smr::free_policy_variants<Rules>()))>::type;
};
// Every reclaimer, with batch and (where it applies) with amortized free. Under SMR_TEST_SPANNING,
// every reclaimer with batch free and the amortized variant of one rule per place a rule hands
// safe nodes to the free policy (the policy itself is one piece of the skeleton, and
// amortized_free_stress runs every _af variant in every build): the epoch family (qsbr_af, whose
// idle threads block a grace period, and debra_af), rcu_af, the three token orders (the hand-off
// is before, after or around the pass), hp_af (hp_asym's too), the era family (he_af, and
// ibr_2ge_af for intervals) and nbr_plus_af (nbr's too).
#if SMR_TEST_SPANNING
using every_variant = as_gtest_types<decltype(batch_reclaimers_of<smr::all_rules>::list{} +
                                              smr::type_list<smr::qsbr_af, smr::debra_af, smr::rcu_af, smr::token_naive_af,
                                                             smr::token_pass_first_af, smr::token_af, smr::hp_af, smr::he_af,
                                                             smr::ibr_2ge_af, smr::nbr_plus_af>{})>::type;
#else
using every_variant = with_both_free_policies<smr::all_rules>::type;
#endif

// The rules that free in batches, each with free policy `Policy` (amortized_free<> gives the
// <name>_af variants).
template <class Policy, class Rule>
auto with_policy_if_batched() {
  if constexpr (Rule::traits.frees && Rule::traits.batched_frees) {
    return smr::type_list<smr::basic_domain<Rule, Policy>>{};
  } else {
    return smr::type_list<>{};
  }
}
template <class Policy, class List>
struct batched_reclaimers_with;
template <class Policy, class... Rules>
struct batched_reclaimers_with<Policy, smr::rule_list<Rules...>> {
  using type = typename as_gtest_types<decltype((smr::type_list<>{} + ... + with_policy_if_batched<Policy, Rules>()))>::type;
};

// The set a test that runs every reclaimer on one structure uses: the restart-from-root
// Harris-Michael list (every reclaimer but poibr accepts it), or the Bonsai tree for the
// reclaimers that protect persistent structures only.
template <class R>
using set_for = std::conditional_t<R::traits.requires_persistent, smr::bonsai_tree<std::uint64_t, R>,
                                   smr::hm_list_rr<std::uint64_t, R>>;

// gtest prints the reclaimer's name instead of a type index.
struct reclaimer_name {
  template <class R>
  static std::string GetName(int) {
    return std::string(R::name);
  }
};

}  // namespace smr::test
