// PLANTED BUG, must be detected (ctest WILL_FAIL): hp_asym_no_membarrier, hp_asym whose scanner
// issues a compiler barrier instead of membarrier (tests/support/broken_reclaimers.hpp). The
// same harness on the real hp_asym is the control (control_hp_asym.cpp), which must pass.
#include "hp_asym_harness.hpp"

TEST(Planted, HpAsymWithoutMembarrier) {
  using namespace smr::test;
  planted::arm();
  planted::until_detected(std::chrono::seconds(30), [] {
    planted::store_buffer_round<hp_asym_no_membarrier>(std::chrono::milliseconds(500));
  });
}
