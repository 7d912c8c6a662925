// CONTROL for hp_asym_no_membarrier (a normal test: must pass). The same store-buffer stress,
// detector and round length on the real hp_asym, for longer than the planted run's budget:
// what the planted run detects is the missing membarrier, not an artefact of the harness.
#include "hp_asym_harness.hpp"

TEST(Control, HpAsymStoreBuffer) {
  using namespace smr::test;
  planted::arm();
  for (int round = 0; round < 64 && !HasFailure(); ++round)
    planted::store_buffer_round<smr::hp_asym>(std::chrono::milliseconds(500));
}
