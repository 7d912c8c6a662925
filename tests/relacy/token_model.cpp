// Relacy model of Token-EBR (include/smr/reclaimers/token.hpp, the periodic order) running the
// Treiber stack model of stack_model.hpp.
//
// Configuration: forward_after = 1 and pass_check_every = 1, churn = 2. Thread 0 (the reader)
// attaches first and so creates the token; a thread without the token forwards it at every
// operation if its holder is idle, or at its second look if the holder is still inside the same
// operation (with a debt), so the token moves through all of the proof's paths: passes at
// operation starts ((a) of token.hpp), forwards past a thread between operations and past one
// inside its operation ((b)); the reclaimer's churn gives it the receipts that free its node.
//
// Under SMR_RELACY the process-wide barrier is rl::systemwide_fence (see hp_asym_model.cpp) and
// the reader's light fence a compiler barrier, which the model ignores: the reader's operation-word
// store and its read of `top` may be reordered, and only the forwarder's barrier restores (b).
//
// Planted bugs (tests/support/broken_reclaimers.hpp):
//  - relacy_token_planted: token_no_heavy_fence, whose forwarder skips the barrier: it reads the
//    reader's operation word as even while the reader already read `top`, forwards the token
//    past it, and the reader's node is freed two receipts later;
//  - relacy_token_debts_planted (SMR_MODEL_PLANT_FORGET_DEBTS): token_forgets_debts, whose
//    ledger records nothing: the token is forwarded past the reader inside pop(), and the
//    reclaimer frees its popped node while the reader may still hold it.
#include <type_traits>

#include "smr/reclaimers/token.hpp"
#include "stack_model.hpp"
#include "support/broken_reclaimers.hpp"

namespace {

#if defined(SMR_MODEL_PLANT_FORGET_DEBTS)
using planted_token = smr::test::token_forgets_debts;
#else
using planted_token = smr::test::token_no_heavy_fence;
#endif

struct token_setup {
  using reclaimer = std::conditional_t<smr::model::planted, planted_token, smr::token>;
  static reclaimer::config config() { return {.forward_after = 1, .pass_check_every = 1}; }
  static constexpr int churn = 2;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace smr::model;
  return run<stack_model<token_setup>>("token / treiber_stack, 2 threads",
                                       {random_search(200000), bounded_search(1)}, argc, argv);
}
