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
