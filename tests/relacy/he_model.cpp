// Relacy model of HE, hazard eras (include/smr/reclaimers/he.hpp), running the Treiber stack
// model of stack_model.hpp.
//
// Configuration: one published era per thread, the era advancing at every allocation
// (epoch_frequency = 1, not scaled) and a scan at every retirement (empty_frequency = 1), so a
// node popped and retired by thread 1 is freed at once unless thread 0's published era lies in
// its lifetime; churn = 1.
//
// Planted bugs.
//  relacy_he_planted (SMR_MODEL_PLANTED): the stack runs on unvalidated_protect<he>
//    (tests/support/broken_reclaimers.hpp), whose protect() reads the link once and publishes
//    the node's birth era without re-reading the link: a scan between the read and the
//    publication frees the node under the reader.
//  relacy_he_planted_fence (relacy_he --weak-fence, core/atomic.hpp): the real he with fences X
//    (publication), Y (scan) and Z (retire era) weakened to acq_rel.
#include <type_traits>

#include "smr/reclaimers/he.hpp"
#include "stack_model.hpp"
#include "support/broken_reclaimers.hpp"

namespace {

struct he_setup {
  // The planted program runs on the adaptor; the fence plant is a switch of the real one.
  using reclaimer = std::conditional_t<smr::model::planted, smr::test::unvalidated_protect<smr::he>, smr::he>;
  static smr::he::config config() {
    return {.slots = 1, .epoch_frequency = 1, .scale_epoch_frequency = false, .empty_frequency = 1};
  }
  static constexpr int churn = 1;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace smr::model;
  return run<stack_model<he_setup>>("he / treiber_stack, 2 threads",
                                    {random_search(200000), bounded_search(1)}, argc, argv,
                                    {weak_fence_switch()});
}
