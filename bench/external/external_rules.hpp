// The external baselines smrbench can run: reclaimers of other libraries behind smr's concept
// (docs/smrbench.md, "External baselines"). Each library's adapters are compiled in when CMake
// found the library (SMR_EXTERNAL_URCU, SMR_EXTERNAL_CK, SMR_EXTERNAL_CDS); external/catalogue.hpp
// names every adapter, built or not.
#pragma once

#include <string_view>

#include "external/catalogue.hpp"
#include "smr/smr.hpp"  // rule_list

#if SMR_EXTERNAL_URCU
#include "external/urcu.hpp"
#endif
#if SMR_EXTERNAL_CK
#include "external/ck_epoch.hpp"
#endif
#if SMR_EXTERNAL_CDS
#include "external/cds.hpp"
#endif

namespace smr::external {

template <class... A, class... B>
rule_list<A..., B...> operator+(rule_list<A...>, rule_list<B...>);

#if SMR_EXTERNAL_URCU
using urcu_rules = rule_list<urcu_qsbr_rule, urcu_memb_rule>;
#else
using urcu_rules = rule_list<>;
#endif
#if SMR_EXTERNAL_CK
using ck_rules = rule_list<ck_epoch_rule>;
#else
using ck_rules = rule_list<>;
#endif
#if SMR_EXTERNAL_CDS
using cds_rules = rule_list<cds_hp_rule, cds_dhp_rule>;
#else
using cds_rules = rule_list<>;
#endif

// The external rules built into this binary.
using rules = decltype(urcu_rules{} + ck_rules{} + cds_rules{});

// Whether a rule is an external baseline (it says so) rather than one of smr's algorithms.
template <class Rule>
inline constexpr bool is_external = requires { Rule::external; };

}  // namespace smr::external
