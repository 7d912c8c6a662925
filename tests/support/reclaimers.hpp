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

template <class FP>
struct stress_config<smr::basic_qsbr<FP>> {
  static smr::qsbr_config make() { return {.quiescent_every = 2}; }
};

template <class FP>
struct stress_config<smr::basic_debra<FP>> {
  static smr::debra_config make() { return {.check_every = 1}; }
};

// HP: a small R so that scans (and the version-checked slot reads) run constantly.
template <class FP>
struct stress_config<smr::basic_hp<FP>> {
  static smr::hp_config make() { return {.slots = 4, .scan_threshold = 8}; }
};

// IBR-2GE: the era advances every other allocation and every thread scans every 4 retirements.
template <class FP>
struct stress_config<smr::basic_ibr_2ge<FP>> {
  static smr::ibr_2ge_config make() {
    return {.epoch_frequency = 2, .scale_epoch_frequency = false, .empty_frequency = 4};
  }
};

// NBR: a round every 16 retirements, so neutralization signals fly constantly.
template <class FP>
struct stress_config<smr::basic_nbr<FP>> {
  static smr::nbr_config make() { return {.bag_threshold = 16}; }
};

using all_reclaimers =
    ::testing::Types<smr::none, smr::ebr, smr::qsbr, smr::debra, smr::hp, smr::ibr_2ge, smr::nbr>;

// gtest prints the reclaimer's name instead of a type index.
struct reclaimer_name {
  template <class R>
  static std::string GetName(int) {
    return std::string(R::base_name);
  }
};

}  // namespace smr::test
