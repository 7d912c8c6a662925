// CONTROL for the short_grace_ebr planted-bug tests (a normal test: must pass). The same
// harness, detector and budgets with short_grace_ebr<0>, the correct grace period: what the
// planted runs detect is the early free, not an artefact of the harness or of the minimal EBR.
#include "planted.hpp"
#include "smr/ds/hm_list.hpp"
#include "support/set_stress.hpp"

TEST(Control, ShortGraceEbrCorrectTreiberStack) {
  using namespace smr::test;
  planted::arm();
  for (int round = 0; round < 6 && !HasFailure(); ++round)
    planted::stack_round<short_grace_ebr<0>>(8, std::chrono::milliseconds(500));
}

TEST(Control, ShortGraceEbrCorrectHmList) {
  using namespace smr::test;
  using R = short_grace_ebr<0>;
  planted::arm();
  // The parameters of short_grace_ebr_hm_list, which detects the early free in a few rounds
  // (under a second with ASan): 50 rounds is many times that.
  for (int round = 0; round < 50 && !HasFailure(); ++round)
    run_set_stress<smr::hm_list<std::uint64_t, R>, R>(
        {.threads = 4, .key_range = 16, .ops_per_thread = 20000});
}
