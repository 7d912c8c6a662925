// The reclaimers smrbench runs: every rule of smr::all_rules (include/smr/smr.hpp), each with
// batch free and, when it frees in batches, amortized free (Epochs §3.3, named <name>_af), then the
// external baselines built into this binary (external/external_rules.hpp), batch free only: the
// libraries decide when their nodes are freed. Adding a
// reclaimer to the library adds it here; every data structure translation unit (bench/ds/*.cpp)
// then instantiates it with each compatible structure and registers the incompatible pairs with
// their refusal reason. Its tunables (the rule's `tunables`) become settable with --param.
#pragma once

#include <string>

#include "external/external_rules.hpp"
#include "smr/smr.hpp"

namespace smrbench {

using smr::type_list;

template <class Rule>
auto variants_of() {
  if constexpr (smr::external::is_external<Rule>) {
    return type_list<smr::basic_domain<Rule>>{};
  } else {
    return smr::free_policy_variants<Rule>();
  }
}

template <class... Rules>
auto all_variants(smr::rule_list<Rules...>) -> decltype((type_list<>{} + ... + variants_of<Rules>()));

using reclaimers = decltype(all_variants(smr::all_rules{}) + all_variants(smr::external::rules{}));

template <class R>
std::string reclaimer_name() {
  return std::string(R::name);
}

}  // namespace smrbench
