// Relacy model of NEBR (include/smr/reclaimers/nebr.hpp, on core/epoch_clock.hpp) running the
// Treiber stack model of stack_model.hpp.
//
// Configuration: advance_every = 1, region_ops = 2, churn = 3. Both threads run in implicit
// regions of two operations: the reclaimer's regions end and begin again during its churn, and
// the reader's single pop opens a region (the announcement and its fence) that stays open after
// the pop returns until the reader detaches; every operation tries to advance the epoch.
//
// Planted bug (relacy_nebr_planted): nebr_leaves_early (tests/support/broken_reclaimers.hpp),
// whose operations clear the announcement right after making it: the region is left while the
// operation runs, scans find the reader quiescent, and its node is freed under it.
#include <type_traits>

#include "smr/reclaimers/nebr.hpp"
#include "stack_model.hpp"
#include "support/broken_reclaimers.hpp"

namespace {

struct nebr_setup {
  using reclaimer = std::conditional_t<smr::model::planted, smr::test::nebr_leaves_early, smr::nebr>;
  static reclaimer::config config() { return {.advance_every = 1, .region_ops = 2}; }
  static constexpr int churn = 3;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace smr::model;
  return run<stack_model<nebr_setup>>("nebr / treiber_stack, 2 threads",
                                      {random_search(200000), bounded_search(1)}, argc, argv);
}
