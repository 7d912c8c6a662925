// Relacy model of hazard pointers with asymmetric fences (include/smr/reclaimers/hp_asym.hpp)
// running the Treiber stack model of stack_model.hpp, in the configuration of hp_model.cpp (one
// hazard slot per thread, a scan at every retirement, churn = 1).
//
// The membarrier. Under SMR_RELACY, hp_asym's process-wide barrier is rl::systemwide_fence,
// Relacy's model of FlushProcessWriteBuffers (Windows' counterpart of membarrier): at the point
// the scanner calls it, every thread's view of memory joins every other thread's, as if each
// thread executed a seq_cst fence where it stands, between two seq_cst fences of the caller.
// That is membarrier's guarantee (the kernel runs a full barrier on every running thread of the
// process between barriers in the caller; a thread that is not running passes one when it is
// scheduled). The reader's side is a compiler barrier, which has no effect in the model: its
// protect() is a release store and an acquire load with nothing between them, and Relacy may
// let the load see a stale link and the scanner's load miss the hazard unless the barrier
// intervened. So the model explores exactly what the hardware may do without X, and the only
// thing that saves the reader is the scanner's barrier.
//
// Planted bugs.
//  relacy_hp_asym_planted (SMR_MODEL_PLANTED): hp_asym_no_membarrier
//    (tests/support/broken_reclaimers.hpp), whose scanner issues a compiler barrier instead of
//    the membarrier: no fence on either side, and the reader's node is freed under it.
//  relacy_hp_asym_planted_fence_y (+ SMR_RELACY_PLANT_FENCE_Y_ONLY): the scanner keeps a
//    seq_cst fence (fence Y of hp) but no process-wide barrier. Also caught: a fence in the
//    scanner alone orders nothing in the reader; what makes hp_asym safe is the barrier the
//    membarrier puts into the reader's thread.
#include <atomic>
#include <string_view>
#include <type_traits>

#include "smr/reclaimers/hp_asym.hpp"
#include "stack_model.hpp"
#include "support/broken_reclaimers.hpp"

namespace {

#if defined(SMR_RELACY_PLANT_FENCE_Y_ONLY)
// PLANTED BUG: a compiler barrier in the reader, a seq_cst fence but no membarrier in the scanner.
struct fence_y_only {
  static constexpr std::string_view name = "hp_asym_fence_y_only", summary = "PLANTED BUG: no process-wide barrier";
  static void reader() { std::atomic_signal_fence(std::memory_order_seq_cst); }
  static void scanner() { smr::core::fence(smr::core::mo_seq_cst); }
};
using planted_reclaimer = smr::basic_domain<smr::hp_rule_with<fence_y_only>>;
#else
using planted_reclaimer = smr::test::hp_asym_no_membarrier;
#endif

struct hp_asym_setup {
  using reclaimer = std::conditional_t<smr::model::planted, planted_reclaimer, smr::hp_asym>;
  static reclaimer::config config() { return {.slots = 1, .scan_threshold = 1}; }
  static constexpr int churn = 1;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace smr::model;
  return run<stack_model<hp_asym_setup>>("hp_asym / treiber_stack, 2 threads",
                                         {random_search(200000), bounded_search(1)}, argc, argv);
}
