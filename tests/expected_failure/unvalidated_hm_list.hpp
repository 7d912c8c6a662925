// The run of the unvalidated-protect planted bugs (hp, he): a Harris-Michael list over a
// reclaimer whose protect() publishes what it read but never re-reads the link. A scan that
// runs between a reader's read of a link and its publication frees the node under the reader.
// The window is a few instructions wide, so the run relies on SMR_CHAOS delays and on the
// eager configurations' frequent scans (hp: every eighth retirement, he: every fourth).
#pragma once

#include "planted.hpp"
#include "smr/ds/hm_list.hpp"
#include "support/set_stress.hpp"

namespace smr::test::planted {

template <class R>
void unvalidated_hm_list() {
  arm();
  until_detected(std::chrono::seconds(30), [] {
    run_set_stress<smr::hm_list<std::uint64_t, R>, R>({.threads = 8, .key_range = 16, .ops_per_thread = 4000});
  });
}

}  // namespace smr::test::planted
