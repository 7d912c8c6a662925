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
struct batch_reclaimers_of;
template <class... Rules>
struct batch_reclaimers_of<smr::rule_list<Rules...>> {
  using type = ::testing::Types<smr::basic_domain<Rules>...>;
};

// Every reclaimer of smr::all_rules, with batch free.
using all_reclaimers = batch_reclaimers_of<smr::all_rules>::type;

// The reclaimers each structure's stress suite runs. ASan and the release build (poison mode) run
// the whole matrix: a node freed under a reader depends on the pair. TSan reports races, and a
// race lives in a structure's code (any reclaimer that frees shows it), in a reclaimer's (any
// structure shows it: hm_list_stress, thread_churn_test and amortized_free_stress keep every
// reclaimer under TSan too), or in what a reclaimer adds to the structure's nodes and links. So
// under TSan the other structures run one reclaimer per such addition: nothing (ebr: critical regions
// only), hazard slots validated against the link (hp), birth eras in the node (he), intervals
// (ibr_2ge), pair links written by one double-width CAS (tag_ibr_wcas), reservations and
// neutralization (nbr_plus), reference counts in the node (lfrc), and poibr for the persistent
// structure it alone serves. That cuts the TSan stress build and run by about 40% (docs/verification.md, section 3).
#if defined(SMR_TSAN)
using structure_reclaimers = ::testing::Types<smr::ebr, smr::hp, smr::he, smr::ibr_2ge, smr::tag_ibr_wcas,
                                              smr::nbr_plus, smr::lfrc, smr::poibr>;
#else
using structure_reclaimers = all_reclaimers;
#endif

template <class List>
struct as_gtest_types;
template <class... T>
struct as_gtest_types<smr::type_list<T...>> {
  using type = ::testing::Types<T...>;
};

template <class List>
struct with_both_free_policies;
template <class... Rules>
struct with_both_free_policies<smr::rule_list<Rules...>> {
  using type = typename as_gtest_types<decltype((smr::type_list<>{} + ... + smr::free_policy_variants<Rules>()))>::type;
};
// Every reclaimer, with batch and (where it applies) with amortized free.
using every_variant = with_both_free_policies<smr::all_rules>::type;

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
