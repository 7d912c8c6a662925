// Relacy model of hazard pointers (include/smr/reclaimers/hp.hpp) running the Treiber stack
// model of stack_model.hpp.
//
// Configuration: one hazard slot per thread, scan_threshold = 1 (every retirement scans), so
// every popped node is freed at once unless a hazard pointer names it; churn = 1.
//
// Planted bugs.
//  relacy_hp_planted (SMR_MODEL_PLANTED): the stack runs on unvalidated_protect<hp>
//    (tests/support/broken_reclaimers.hpp), whose protect() reads `top` and publishes it with
//    hold() but neither fences nor re-reads: the reclaimer can pop, scan and free the node
//    between the reader's read and its publication.
//  relacy_hp_planted_fence (relacy_hp --weak-fence, core/atomic.hpp): the real hp, with fences X
//    (protect) and Y (scan) weakened to acq_rel: the validation re-read may miss the unlink
//    while the scan misses the hazard.
//
// Explored (2 threads): 200,000 random schedules and the exhaustive context-bound search with one
// preemption, 549,120 schedules (about 10 s here). Both plants are found by the context-bound
// search (schedules 179,394 and 126,178).
#include <type_traits>

#include "smr/reclaimers/hp.hpp"
#include "stack_model.hpp"
#include "support/broken_reclaimers.hpp"

namespace {

struct hp_setup {
  // The planted program runs on the adaptor; the fence plant is a switch of the real one.
  using reclaimer =
      std::conditional_t<smr::model::planted, smr::test::unvalidated_protect<smr::hp>, smr::hp>;
  static smr::hp::config config() { return {.slots = 1, .scan_threshold = 1}; }
  static constexpr int churn = 1;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace smr::model;
  return run<stack_model<hp_setup>>("hp / treiber_stack, 2 threads",
                                    {random_search(200000), bounded_search(1)}, argc, argv,
                                    {weak_fence_switch()});
}
