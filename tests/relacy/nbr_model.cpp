// Relacy model of NBR's neutralization handshake (include/smr/reclaimers/nbr.hpp), with
// simulated asynchronous signal delivery.
//
// nbr.hpp itself cannot run under Relacy (POSIX signals, sigsetjmp/siglongjmp, a thread-local
// signal context), so this file restates its protocol step for step on core::atomic, with the
// same memory orders, and runs it on a Treiber stack whose nodes carry an rl::atomic link and
// an rl::var payload (freed-memory and data-race detection as in stack_model.hpp):
//   phase word      stored only by its owner, release: the next odd value entering a read phase
//                   (odd = restartable), the next even one in reserve(), a larger odd one when
//                   a neutralized read phase starts over; the handler writes nothing and
//                   restarts the read phase iff the word is odd;
//   reservations    stored (release) before reserve()'s store, cleared with release stores;
//   a round         the process-wide barrier (rl::systemwide_fence, membarrier's model); an
//                   acquire snapshot of every other thread's phase word; a signal to each odd
//                   one; the round stays pending, and each later
//                   look (acquire loads) checks whether every odd word has changed; once so,
//                   an acquire scan of the reservations and the unreserved nodes of the
//                   round's batch are freed, the reserved ones go back to the bag. With
//                   max_pending_rounds pending, a new round first waits for the oldest; at
//                   exit a thread waits for all of its rounds.
// Signals. pthread_kill only marks a signal pending; the model keeps a `pending` flag per
// thread. The target polls it at every step of its read phase, of its write phase and of any
// wait, and Relacy chooses at each poll whether the kernel delivers now or later (late delivery,
// including after the read phase has ended or in a later read phase, where it must cause only
// a harmless restart or an acknowledgement). Signals to one thread coalesce, as they do for a
// standard signal. The `gone`/`senders` exit protocol (never signal a dead thread) is not
// modelled: it guards pthread_kill, not memory.
//
// Threads: thread 0 pops twice; thread 1 pops, pushes and pops. Every retirement begins a round
// (bag threshold 1) and at most one round may be pending (max_pending_rounds 1), so a thread's
// second retirement waits at the cap when its first round is still pending; each thread both
// reclaims and gets neutralized, and completes its last round on its way out.
//
// Planted bugs:
//  relacy_nbr_planted (--skip-ack-wait): a round frees its batch without waiting for the
//    signalled threads' phase words to change (tests' planted_nbr): a reader still inside its
//    read phase, holding a node it has not reserved, reads it after the free.
//  relacy_nbr_planted_barrier (--no-barrier): the round's process-wide barrier
//    becomes a seq_cst fence on the reclaimer's side only: a reader's odd phase store, still in
//    its store buffer, is missed by the snapshot while its loads already read the node.
//
// Explored: see docs/verification.md.
#include <optional>

#include "nbr_protocol.hpp"

namespace {

using namespace smr::core;
using smr::model::nbr::nbr_protocol;
using smr::model::nbr::max_value;

struct nbr_model : nbr_protocol<nbr_model, 2> {
  // The plants (switches of main): free without waiting for the signalled threads to move on;
  // replace the round's barrier by a fence of the reclaimer's.
  static inline bool skip_ack_wait = false;
  static inline bool drop_barrier = false;
  static constexpr bool numbered_rounds = false;  // NBR alone: nbr_plus_model.cpp has them
  static constexpr bool symmetric_fences = false;  // membarrier: nbr_plus_model.cpp has the fallback

  static constexpr unsigned max_pending_rounds = 1;

  void retire(unsigned t, smr::model::nbr::node* n) {
    bags[t].push(n);
    begin_round(t);  // bag threshold 1: a round per retirement
  }

  void thread(unsigned t) {
    if (t == 0) {
      record(0, pop(0));
      record(0, pop(0));
    } else {
      record(1, pop(1));
      push(1, max_value);
      record(1, pop(1));
    }
    finish_rounds(t);
  }

};

}  // namespace

int main(int argc, char** argv) {
  using namespace smr::model;
  return run<nbr_model>("nbr handshake / treiber_stack, 2 threads, asynchronous signals",
                        {random_search(200000), bounded_search(1)}, argc, argv,
                        {plant_switch("skip-ack-wait", nbr_model::skip_ack_wait),
                         plant_switch("no-barrier", nbr_model::drop_barrier)});
}
