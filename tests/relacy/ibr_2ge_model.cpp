// Relacy model of 2GE-IBR (include/smr/reclaimers/ibr_2ge.hpp) running the Treiber stack model
// of stack_model.hpp.
//
// Configuration: the era advances at every allocation (epoch_frequency = 1, not scaled) and
// every retirement scans (empty_frequency = 1), so nodes pushed during the reader's operation
// are born after its reserved lower era and are freed as soon as they are retired unless the
// reader's reservation covers them; churn = 1.
//
// Planted bugs.
//  relacy_ibr_2ge_planted (SMR_MODEL_PLANTED): the stack runs on unvalidated_protect<ibr_2ge>
//    (tests/support/broken_reclaimers.hpp), whose protect() reads the link without raising the
//    reserved upper era (hold() is a no-op for IBR). A node born after the reader's begin_op is
//    then outside its interval [lower, upper], and the scan frees it under the reader. (The
//    off-by-one in the conflict test itself cannot be planted from outside ibr_2ge.hpp.)
//  relacy_ibr_2ge_planted_fence (relacy_ibr_2ge --weak-fence, core/atomic.hpp): the real ibr_2ge with fences
//    X (reservation), Y (scan) and Z (retire era) weakened to acq_rel.
//
// Explored (2 threads): 200,000 random schedules and the exhaustive context-bound search with one
// preemption, 3,174,336 schedules (about 43 s here, the longest model). Both plants are found
// by the context-bound search (schedules 190,594 and 319,714).
#include <type_traits>

#include "smr/reclaimers/ibr_2ge.hpp"
#include "stack_model.hpp"
#include "support/broken_reclaimers.hpp"

namespace {

struct ibr_setup {
  // The planted program runs on the adaptor; the fence plant is a switch of the real one.
  using reclaimer =
      std::conditional_t<smr::model::planted, smr::test::unvalidated_protect<smr::ibr_2ge>, smr::ibr_2ge>;
  static smr::ibr_2ge::config config() {
    return {.epoch_frequency = 1, .scale_epoch_frequency = false, .empty_frequency = 1};
  }
  static constexpr int churn = 1;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace smr::model;
  return run<stack_model<ibr_setup>>("ibr_2ge / treiber_stack, 2 threads",
                                     {random_search(200000), bounded_search(1)}, argc, argv,
                                    {weak_fence_switch()});
}
