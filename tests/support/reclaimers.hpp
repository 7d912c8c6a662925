// The reclaimers under test and their shrunk, test-only configurations: small batches and
// frequent epoch advances make reclamation happen constantly, which is what exposes bugs.
#pragma once

#include <gtest/gtest.h>

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

// gtest prints the reclaimer's name instead of a type index.
struct reclaimer_name {
  template <class R>
  static std::string GetName(int) {
    return std::string(R::name);
  }
};

}  // namespace smr::test
