// What every external adapter's rule shares: its metadata comes from the library policy it is
// instantiated with (a liburcu flavour, a libcds GC), and it says that it is external, which
// keeps it out of the `_af` variants and marks it in smrbench's --list.
#pragma once

#include <string_view>

#include "smr/core/domain.hpp"

namespace smr::external {

template <class Policy>
struct rule_base : rule_defaults {
  static constexpr std::string_view name = Policy::name, summary = Policy::summary;
  static constexpr bool external = true;
  using config = typename Policy::config;
  static constexpr auto tunables = Policy::tunables;
  static config eager_config() { return Policy::eager_config(); }
};

}  // namespace smr::external
