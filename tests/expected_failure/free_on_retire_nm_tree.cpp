// PLANTED BUG, must be detected (ctest WILL_FAIL): Natarajan-Mittal tree over free_on_retire,
// which frees the nodes a cleanup removed at once while concurrent seeks may still stand on
// them. ASan builds: heap-use-after-free report. Other builds: poisoned keys or edges (wrong
// results on private keys, checksum, invariants) or a poisoned edge followed (SIGSEGV).
#include "planted.hpp"
#include "smr/ds/nm_tree.hpp"
#include "support/set_stress.hpp"

TEST(Planted, FreeOnRetireNmTree) {
  using namespace smr::test;
  using R = free_on_retire;
  planted::arm();
  planted::until_detected(std::chrono::seconds(20), [] {
    run_set_stress<smr::nm_tree<std::uint64_t, R>, R>(
        {.threads = 8, .key_range = 16, .ops_per_thread = 4000});
  });
}
