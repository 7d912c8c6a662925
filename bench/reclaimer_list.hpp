// The reclaimers smrbench runs. Adding a reclaimer is one line in `reclaimers` below; every data
// structure translation unit (bench/ds/*.cpp) then instantiates it with each compatible
// structure, and registers the incompatible pairs with their refusal reason. Its tunables become
// settable with --param once its config has an entry in tunables.hpp.
#pragma once

#include <string>
#include <string_view>

#include "smr/smr.hpp"

namespace smrbench {

template <class... T>
struct type_list {};

template <template <class> class Reclaimer>
using amortized = Reclaimer<smr::core::amortized_free<>>;  // Epochs §3.3: name gets "_af"

using reclaimers = type_list<
    smr::none,
    smr::qsbr,
    smr::ebr,
    smr::debra,
    smr::hp,
    smr::ibr_2ge,
    smr::nbr,
    amortized<smr::basic_qsbr>,
    amortized<smr::basic_ebr>,
    amortized<smr::basic_debra>,
    amortized<smr::basic_hp>,
    amortized<smr::basic_ibr_2ge>,
    amortized<smr::basic_nbr>>;

// A reclaimer's name: R::name if it declares one, else its base_name plus the suffix of its free
// policy (basic_ebr<amortized_free> -> "ebr_af"), so variants need no hand-written name.
template <class R>
struct free_policy_suffix {
  static constexpr std::string_view value{};
};
template <template <class> class Base, class Policy>
  requires requires { Policy::suffix; }
struct free_policy_suffix<Base<Policy>> {
  static constexpr std::string_view value = Policy::suffix;
};

template <class R>
std::string reclaimer_name() {
  if constexpr (requires { R::name; }) {
    return std::string(R::name);
  } else {
    return std::string(R::base_name) + std::string(free_policy_suffix<R>::value);
  }
}

}  // namespace smrbench
