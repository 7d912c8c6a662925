// PLANTED BUG, must be detected (ctest WILL_FAIL): Harris-Michael list over
// short_grace_ebr<1>, an EBR that frees one epoch too early. The same run with
// short_grace_ebr<0> is control_short_grace_ebr, which must pass. Four threads with long rounds
// detect it fastest here (a few seconds; more threads advance the epoch less often).
#include "planted.hpp"
#include "smr/ds/hm_list.hpp"
#include "support/set_stress.hpp"

TEST(Planted, ShortGraceEbrHmList) {
  using namespace smr::test;
  using R = short_grace_ebr<1>;
  planted::arm();
  planted::until_detected(std::chrono::seconds(60), [] {
    run_set_stress<smr::hm_list<std::uint64_t, R>, R>(
        {.threads = 4, .key_range = 16, .ops_per_thread = 20000});
  });
}
