// Relacy model of IBR's simple epoch scheme (include/smr/reclaimers/ibr_epoch.hpp), running
// the Treiber stack model of stack_model.hpp.
//
// Configuration: the era advances at every allocation (epoch_frequency = 1, not scaled) and
// every retirement scans (empty_frequency = 1), so a node retired by thread 1 is freed at once
// unless thread 0's reservation is at or before its retire era; churn = 1.
//
// Planted bug (relacy_ibr_epoch_planted: --weak-fence, core/atomic.hpp): the fences X
// (reservation), Y (scan) and Z (retire era) weakened to acq_rel, so the reservation can become
// visible after the reader's first read and a scan in between misses it.
#include "smr/reclaimers/ibr_epoch.hpp"
#include "stack_model.hpp"

namespace {

struct ibr_epoch_setup {
  using reclaimer = smr::ibr_epoch;
  static smr::ibr_epoch::config config() {
    return {.epoch_frequency = 1, .scale_epoch_frequency = false, .empty_frequency = 1};
  }
  static constexpr int churn = 1;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace smr::model;
  return run<stack_model<ibr_epoch_setup>>("ibr_epoch / treiber_stack, 2 threads",
                                           {random_search(200000), bounded_search(1)}, argc, argv,
                                           {weak_fence_switch()});
}
