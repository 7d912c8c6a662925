// Relacy model of Token-EBR (include/smr/reclaimers/token.hpp, the periodic order) running the
// Treiber stack model of stack_model.hpp.
//
// Configuration: forward_after = 1 and pass_check_every = 1, churn = 2. Thread 0 (the reader)
// attaches first and so creates the token; a thread without the token forwards it at every
// operation if its holder looks idle, so the token moves through both of the proof's paths,
// passes at operation starts ((a) of token.hpp) and forwards past a thread between operations
// ((b)), and the reclaimer's churn gives it the two receipts that free its popped node.
//
// Under SMR_RELACY the process-wide barrier is rl::systemwide_fence (see hp_asym_model.cpp) and
// the reader's light fence a compiler barrier, which the model ignores: the reader's operation-word
// store and its read of `top` may be reordered, and only the forwarder's barrier restores (b).
//
// Planted bug (relacy_token_planted): token_no_heavy_fence (tests/support/broken_reclaimers.hpp),
// whose forwarder skips the barrier: it reads the reader's operation word as even while the reader
// already read `top`, forwards the token past it, and the reader's node is freed two receipts
// later.
#include <type_traits>

#include "smr/reclaimers/token.hpp"
#include "stack_model.hpp"
#include "support/broken_reclaimers.hpp"

namespace {

struct token_setup {
  using reclaimer = std::conditional_t<smr::model::planted, smr::test::token_no_heavy_fence, smr::token>;
  static reclaimer::config config() { return {.forward_after = 1, .pass_check_every = 1}; }
  static constexpr int churn = 2;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace smr::model;
  return run<stack_model<token_setup>>("token / treiber_stack, 2 threads",
                                       {random_search(200000), bounded_search(1)}, argc, argv);
}
