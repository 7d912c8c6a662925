// PLANTED BUG, must be detected (ctest WILL_FAIL): Harris-Michael list over
// unvalidated_protect<hp>, hazard pointers whose protect() publishes the pointer it read but
// never re-reads the link to validate it. A scan that runs between a reader's read of a link
// and its publication frees the node under the reader. The window is a few instructions wide,
// so the run relies on SMR_CHAOS delays and a scan at every eighth retirement.
#include "planted.hpp"
#include "smr/ds/hm_list.hpp"
#include "support/set_stress.hpp"

TEST(Planted, UnvalidatedHazardPointersHmList) {
  using namespace smr::test;
  using R = unvalidated_protect<smr::hp>;
  planted::arm();
  planted::until_detected(std::chrono::seconds(30), [] {
    run_set_stress<smr::hm_list<std::uint64_t, R>, R>(
        {.threads = 8, .key_range = 16, .ops_per_thread = 4000});
  });
}
