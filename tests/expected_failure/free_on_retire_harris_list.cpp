// PLANTED BUG, must be detected (ctest WILL_FAIL): Harris list over free_on_retire,
// which frees the chain a search unlinked at once while concurrent walks may still stand on
// it. ASan builds: heap-use-after-free report. Other builds: poisoned keys or links (wrong
// results on private keys, checksum, invariants) or a poisoned link followed (SIGSEGV).
#include "planted.hpp"
#include "smr/ds/harris_list.hpp"
#include "support/set_stress.hpp"

TEST(Planted, FreeOnRetireHarrisList) {
  using namespace smr::test;
  using R = free_on_retire;
  planted::arm();
  planted::until_detected(std::chrono::seconds(20), [] {
    run_set_stress<smr::harris_list<std::uint64_t, R>, R>(
        {.threads = 8, .key_range = 16, .ops_per_thread = 4000});
  });
}
