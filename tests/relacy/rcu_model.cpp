// Relacy model of RCU (include/smr/reclaimers/rcu.hpp) running the Treiber stack model of
// stack_model.hpp.
//
// Configuration: grace_every = 1, churn = 2: the reclaimer starts a grace period for its
// popped node at its next operation and frees it at a later one once the reader's counter has
// moved on (or was even in the snapshot).
//
// Under SMR_RELACY the process-wide barrier is rl::systemwide_fence (see hp_asym_model.cpp) and
// the reader's light fence a compiler barrier, which the model ignores: the reader's odd-counter
// store and its read of `top` may be reordered, and only the grace period's barrier keeps the
// snapshot from missing a reader that already read `top`.
//
// Planted bug (relacy_rcu_planted): rcu_no_heavy_fence (tests/support/broken_reclaimers.hpp),
// whose grace period skips the barrier: the snapshot reads the reader's counter as even while
// the reader already holds the popped node, and the node is freed under it.
#include <type_traits>

#include "smr/reclaimers/rcu.hpp"
#include "stack_model.hpp"
#include "support/broken_reclaimers.hpp"

namespace {

struct rcu_setup {
  using reclaimer = std::conditional_t<smr::model::planted, smr::test::rcu_no_heavy_fence, smr::rcu>;
  static reclaimer::config config() { return {.grace_every = 1}; }
  static constexpr int churn = 2;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace smr::model;
  return run<stack_model<rcu_setup>>("rcu / treiber_stack, 2 threads",
                                     {random_search(200000), bounded_search(1)}, argc, argv);
}
