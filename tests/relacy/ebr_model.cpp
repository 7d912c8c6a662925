// Relacy model of EBR (include/smr/reclaimers/ebr.hpp, on core/epoch_clock.hpp) running the
// Treiber stack model of stack_model.hpp.
//
// Configuration: advance_every = 2, churn = 3. The reader's single operation then never tries
// to advance the epoch itself (an advance by the reader would publish its announcement to the
// reclaimer through the epoch's release CAS), and the reclaimer's seven operations try three
// advances, exactly what freeing the first popped node takes (tag = announced epoch + 1, freed
// once the epoch reaches tag + 2), so the interesting race needs a single preemption.
//
// Planted bug (relacy_ebr_planted: --weak-fence, core/atomic.hpp): the seq_cst fences of the
// announcement (epoch_clock::announce) become acq_rel. The store-load order between "I am in
// epoch e" and "read `top`" is gone: the reclaimer's scans may read the reader's slot as still
// quiescent and advance twice past it, and the node the reader holds is freed.
//
// Explored (2 threads, handles attached before the threads start): 200,000 random schedules and
// the exhaustive context-bound search with one preemption, 510,912 schedules (about 9 s here).
// The planted bug is found by the context-bound search at schedule 68,226; the random search
// does not find it in its budget.
#include "smr/reclaimers/ebr.hpp"
#include "stack_model.hpp"

namespace {

struct ebr_setup {
  using reclaimer = smr::ebr;
  static smr::ebr::config config() { return {.advance_every = 2}; }
  static constexpr int churn = 3;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace smr::model;
  return run<stack_model<ebr_setup>>("ebr / treiber_stack, 2 threads",
                                     {random_search(200000), bounded_search(1)}, argc, argv,
                                     {weak_fence_switch()});
}
