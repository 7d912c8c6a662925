// PLANTED BUG, must be detected (ctest WILL_FAIL): Treiber stack over free_on_retire, which
// frees a popped node at once while other poppers may still read its `next`.
// ASan builds: heap-use-after-free report. Other builds: poisoned values or links.
#include "planted.hpp"

TEST(Planted, FreeOnRetireTreiberStack) {
  using namespace smr::test;
  planted::arm();
  planted::until_detected(std::chrono::seconds(20), [] {
    planted::stack_round<free_on_retire>(8, std::chrono::milliseconds(500));
  });
}
