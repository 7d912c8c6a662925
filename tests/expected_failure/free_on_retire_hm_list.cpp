// PLANTED BUG, must be detected (ctest WILL_FAIL): Harris-Michael list over free_on_retire,
// which frees an unlinked node at once while concurrent traversals may still stand on it.
// ASan builds: heap-use-after-free report. Other builds: poisoned keys (wrong results on
// private keys, checksum) or a poisoned link followed (SIGSEGV).
#include "planted.hpp"
#include "smr/ds/hm_list.hpp"
#include "support/set_stress.hpp"

TEST(Planted, FreeOnRetireHmList) {
  using namespace smr::test;
  using R = free_on_retire;
  planted::arm();
  planted::until_detected(std::chrono::seconds(20), [] {
    run_set_stress<smr::hm_list<std::uint64_t, R>, R>(
        {.threads = 8, .key_range = 16, .ops_per_thread = 4000});
  });
}
