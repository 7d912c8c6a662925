// The umbrella header: every reclaimer, every data structure, and the list of reclaimers.
#pragma once

#include "smr/detail/require_cpp20.hpp"

#include "smr/core/concepts.hpp"
#include "smr/core/domain.hpp"
#include "smr/reclaimers/debra.hpp"
#include "smr/reclaimers/ebr.hpp"
#include "smr/reclaimers/he.hpp"
#include "smr/reclaimers/hp.hpp"
#include "smr/reclaimers/hp_asym.hpp"
#include "smr/reclaimers/ibr_2ge.hpp"
#include "smr/reclaimers/ibr_epoch.hpp"
#include "smr/reclaimers/lfrc.hpp"
#include "smr/reclaimers/nbr.hpp"
#include "smr/reclaimers/nebr.hpp"
#include "smr/reclaimers/none.hpp"
#include "smr/reclaimers/poibr.hpp"
#include "smr/reclaimers/qsbr.hpp"
#include "smr/reclaimers/rcu.hpp"
#include "smr/reclaimers/tag_ibr.hpp"
#include "smr/reclaimers/token.hpp"
#include "smr/reclaimers/wfe.hpp"

#include "smr/ds/ab_tree.hpp"
#include "smr/ds/bonsai_tree.hpp"
#include "smr/ds/cr_hash_map.hpp"
#include "smr/ds/cr_list.hpp"
#include "smr/ds/dgt_tree.hpp"
#include "smr/ds/hash_map.hpp"
#include "smr/ds/harris_list.hpp"
#include "smr/ds/hm_list.hpp"
#include "smr/ds/lazy_list.hpp"
#include "smr/ds/ms_queue.hpp"
#include "smr/ds/nm_tree.hpp"
#include "smr/ds/occ_avl_tree.hpp"
#include "smr/ds/treiber_stack.hpp"

namespace smr {

template <class... Rules>
struct rule_list {};

// A list of types, and its concatenation (type_list<A...>{} + type_list<B...>{}, unevaluated).
template <class... T>
struct type_list {};
template <class... A, class... B>
type_list<A..., B...> operator+(type_list<A...>, type_list<B...>);

// The reclaimers a rule gives: basic_domain<Rule> (batch free) and, when the rule frees in
// batches, its amortized-free variant basic_domain<Rule, core::amortized_free<>> (<name>_af).
template <class Rule>
auto free_policy_variants() {
  if constexpr (Rule::traits.frees && Rule::traits.batched_frees) {
    return type_list<basic_domain<Rule>, basic_domain<Rule, core::amortized_free<>>>{};
  } else {
    return type_list<basic_domain<Rule>>{};
  }
}

// Every reclamation rule of the library: the one line a new reclaimer adds here. smrbench, the
// test suites and the docs' tables enumerate it, each rule with its free_policy_variants().
using all_rules = rule_list<none_rule, qsbr_rule, ebr_rule, nebr_rule, debra_rule, rcu_rule, token_naive_rule, token_pass_first_rule, token_rule, hp_rule, hp_asym_rule, he_rule, wfe_rule, ibr_epoch_rule, poibr_rule, ibr_2ge_rule, tag_ibr_rule, tag_ibr_faa_rule, tag_ibr_wcas_rule, tag_ibr_tpa_rule, nbr_rule, nbr_plus_rule, lfrc_rule>;

}  // namespace smr
