// The reclaimers under test and their shrunk, test-only configurations: small batches and
// frequent epoch advances make reclamation happen constantly, which is what exposes bugs.
#pragma once

#include <gtest/gtest.h>

#include "smr/smr.hpp"

namespace smr::test {

template <class R>
struct stress_config;

template <>
struct stress_config<smr::none> {
  static smr::none::config make() { return {}; }
};

template <class FP>
struct stress_config<smr::basic_ebr<FP>> {
  static smr::ebr_config make() { return {.advance_every = 2}; }
};

using all_reclaimers = ::testing::Types<smr::none, smr::ebr>;

// gtest prints the reclaimer's name instead of a type index.
struct reclaimer_name {
  template <class R>
  static std::string GetName(int) {
    return std::string(R::base_name);
  }
};

}  // namespace smr::test
