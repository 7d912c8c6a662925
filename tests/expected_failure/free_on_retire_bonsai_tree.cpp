// PLANTED BUG, must be detected (ctest WILL_FAIL): Bonsai tree over free_on_retire, which frees
// the nodes an update replaced the moment its root CAS succeeds, while concurrent readers may
// still walk the version that held them. ASan builds: heap-use-after-free report. Other builds:
// poisoned keys, sizes or links (wrong results on private keys, checksum, invariants) or a
// poisoned link followed (SIGSEGV).
#include "planted.hpp"
#include "smr/ds/bonsai_tree.hpp"
#include "support/set_stress.hpp"

TEST(Planted, FreeOnRetireBonsaiTree) {
  using namespace smr::test;
  using R = free_on_retire;
  planted::arm();
  planted::until_detected(std::chrono::seconds(20), [] {
    run_set_stress<smr::bonsai_tree<std::uint64_t, R>, R>(
        {.threads = 8, .key_range = 64, .ops_per_thread = 4000});
  });
}
