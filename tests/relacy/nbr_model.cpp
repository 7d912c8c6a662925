// Relacy model of NBR's neutralization handshake (include/smr/reclaimers/nbr.hpp), with
// simulated asynchronous signal delivery.
//
// nbr.hpp itself cannot run under Relacy (POSIX signals, sigsetjmp/siglongjmp, a thread-local
// signal context), so this file restates its protocol step for step on core::atomic, with the
// same memory orders, and runs it on a Treiber stack whose nodes carry an rl::atomic link and
// an rl::var payload (freed-memory and data-race detection as in stack_model.hpp):
//   phase word      +1 entering a read phase (acq_rel RMW, odd = restartable), +1 in reserve()
//                   (release RMW, even), +2 by the handler (acq_rel RMW), which restarts the
//                   read phase iff the value it replaced was odd;
//   reservations    stored relaxed before reserve()'s RMW, cleared with release stores;
//   a round         seq_cst fence; an acq_rel fetch_add(0) snapshot of every other thread's
//                   phase; a signal to each odd one; a wait (acquire loads) until each odd
//                   word has changed; an acquire scan of the reservations; the unreserved
//                   nodes of the bag are freed.
// Signals. pthread_kill only marks a signal pending; the model keeps a `pending` flag per
// thread. The target polls it at every step of its read phase, of its write phase and of any
// wait, and Relacy chooses at each poll whether the kernel delivers now or later (late delivery,
// including after the read phase has ended or in a later read phase, where it must cause only
// a harmless restart or an acknowledgement). Signals to one thread coalesce, as they do for a
// standard signal. The `gone`/`senders` exit protocol (never signal a dead thread) is not
// modelled: it guards pthread_kill, not memory.
//
// Threads: thread 0 pops twice; thread 1 pops, pushes and pops. Every retirement starts a round
// (bag threshold 1), so each thread both reclaims and gets neutralized.
//
// Planted bug (SMR_MODEL_PLANTED): the reclaimer frees without waiting for the signalled
// threads' phase words to change (nbr_config::unsafe_skip_ack_wait): a reader still inside its
// read phase, holding a node it has not reserved, reads it after the free.
//
// Explored: 200,000 random schedules and the exhaustive context-bound search with one
// preemption, 2,171,680 schedules (about 16 s here); in about half of them a read phase is
// neutralized and in a third a signal is handled late (outside the read phase it interrupted).
// The planted bug is found by the context-bound search at schedule 17,218.
#include <optional>

#include "nbr_protocol.hpp"

namespace {

using namespace smr::core;
using smr::model::nbr::nbr_protocol;
using smr::model::nbr::max_value;

struct nbr_model : nbr_protocol<nbr_model, 2> {
  // The plant: free without waiting for the signalled threads' acknowledgements.
  static constexpr bool skip_ack_wait = smr::model::planted;
  static constexpr bool numbered_rounds = false;  // NBR alone: nbr_plus_model.cpp has them

  void retire(unsigned t, smr::model::nbr::node* n) {
    bags[t].push(n);
    neutralize(t);  // bag threshold 1: a round per retirement
    free_unreserved(t, bags[t]);
  }

  void thread(unsigned t) {
    if (t == 0) {
      record(0, pop(0));
      record(0, pop(0));
      return;
    }
    record(1, pop(1));
    push(1, max_value);
    record(1, pop(1));
  }

};

}  // namespace

int main(int argc, char** argv) {
  using namespace smr::model;
  return run<nbr_model>("nbr handshake / treiber_stack, 2 threads, asynchronous signals",
                        {random_search(200000), bounded_search(1)}, argc, argv);
}
