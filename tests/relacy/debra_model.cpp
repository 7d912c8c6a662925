// Relacy model of DEBRA (include/smr/reclaimers/debra.hpp) running the Treiber stack model of
// stack_model.hpp.
//
// Configuration: check_every = 1 (each operation checks one thread of the round), churn = 3.
// With two registered slots an advance takes two of the reclaimer's operations, so its seven
// operations can advance the epoch three times and free the first popped node while the reader
// may still hold it.
//
// Planted bug (relacy_debra_planted: --weak-fence, core/atomic.hpp): the seq_cst fence after the
// announcement (leaving the quiescent state) becomes acq_rel, so a check may read the reader as
// still quiescent although it already read `top`.
//
// Explored (2 threads): 200,000 random schedules and the exhaustive context-bound search with one
// preemption, 817,920 schedules (about 12 s here). The planted bug is found by the
// context-bound search at schedule 110,882.
#include "smr/reclaimers/debra.hpp"
#include "stack_model.hpp"

namespace {

struct debra_setup {
  using reclaimer = smr::debra;
  static smr::debra::config config() { return {.check_every = 1}; }
  static constexpr int churn = 3;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace smr::model;
  return run<stack_model<debra_setup>>("debra / treiber_stack, 2 threads",
                                       {random_search(200000), bounded_search(1)}, argc, argv,
                                       {weak_fence_switch()});
}
