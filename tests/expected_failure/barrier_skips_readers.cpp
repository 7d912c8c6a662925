// PLANTED BUG, must be detected (ctest WILL_FAIL): a reclaim-now barrier that advances the
// epoch without waiting for readers (support/broken_reclaimers.hpp). The barrier stress of the
// reclaim-now tests must see a reader's node freed under it; with the real ebr the same stress
// passes (reclaim_now_test).
#include "planted.hpp"
#include "support/barrier_stress.hpp"

TEST(Planted, BarrierThatSkipsReaders) {
  using namespace smr::test;
  planted::arm();
  planted::until_detected(std::chrono::seconds(30), [] {
    const auto r = run_barrier_stress<barrier_skips_readers>(400, std::chrono::milliseconds(2));
    EXPECT_EQ(r.bad_reads, 0) << "a barrier freed nodes that readers held";
  });
}
