// Relacy model of Token-EBR's forward by a thread that retired nothing (include/smr/reclaimers/
// token.hpp, forward_held_token): in token_model.cpp and token_chain_model.cpp the forwarder is
// always the thread that unlinked the node, so the unlink comes before its barrier in its own
// program order. Here the unlink reaches the forwarder only through the token: the passer's
// release store, the forwarder's acquire read of the lap, then its barrier.
//
// Three threads on one shared cell (a pointer to a node with an rl::var payload), attached in
// ring order: the retirer (id 0, it creates the token), the reader (id 1), the forwarder (id 2).
// The token starts in the reader's slot (the retirer's look in before() passes it on).
//   retirer:   an operation that swaps node 2 into the cell and retires node 1 (the unlink W;
//              its look first forwards the token past the two idle threads back to itself);
//              an operation whose receipt closes the bag holding node 1 and passes the token to
//              the reader's slot (release); then `passed`. Once the forwarder has passed the
//              token back, operations until node 1 is freed (at most `free_attempts`); then
//              `done`.
//   forwarder: after `passed`, an operation whose look finds the token in the idle reader's
//              slot and forwards it past the reader to itself, without a debt; `forwarded`;
//              once the reader holds its node, the operation ends and the next one takes the
//              token and passes it to the retirer (release, then `forwarder_passed`).
//   reader:    after `forwarded`, an operation that loads the cell's node, `holding`, waits for
//              `done`, then reads the node's payload.
// The flags from the retirer to the forwarder and from the forwarder to the reader are relaxed
// on purpose: they add no happens-before, so the only path from W to the reader's load is the
// one the proof gives ((b) of token.hpp): the forwarder's acquire read of the lap, its barrier,
// its read of the reader's even operation word, and the reader's light fence before its load.
//
// Planted bug (tests/support/broken_reclaimers.hpp): relacy_token_forward_planted runs
// token_no_heavy_fence, whose forwarder skips the barrier: its read of the reader's word as even
// no longer orders the reader's later load after W, the reader may load node 1, which the
// retirer's next receipt frees, and its read of the payload is an access to freed memory.
//
// Where the lap wraps (--wrap, relacy_token_forward_wrap): the same roles on ids
// forwarder 0, retirer 1, reader 2. Ring order is then forwarder, retirer, reader, so the
// forwarder's forward past the reader wraps: it goes from id 2 back to 0 (itself), and the lap it
// takes is one more than the lap it read in the reader's slot. Its receipt passes to the retirer
// without a wrap, and the retirer's later forward past the reader (held inside its operation,
// with a debt) wraps again. The plain model wraps in the retirer's forwards only. The token
// starts in slot 0; before() passes it to the retirer, and the retirer passes it to the reader.
//
// What the model cannot check: that the read of the lap must be acquire. A plant that reads it
// relaxed is not caught, with the barrier (Relacy's systemwide_fence joins every thread's view
// at one instant, so W, executed before it, reaches the reader whatever the forwarder read) or
// with the fallback's seq_cst fences (the retirer runs one after W, at its next operation's
// start, and Relacy orders seq_cst fences by when they execute, so W's fence precedes the
// forwarder's, which the C++ model does not require of a fence the forwarder is not
// synchronized with). The acquire rests on the proof ((b) of token.hpp).
// No context-bound search: the flags force the order that matters, and random schedules cover
// the reads of stale values that make the difference.
#include <type_traits>

#include "cell.hpp"
#include "model.hpp"
#include "smr/reclaimers/token.hpp"
#include "support/broken_reclaimers.hpp"

namespace {

using namespace smr::model;

using R = std::conditional_t<planted, smr::test::token_no_heavy_fence, smr::token>;

using cell_node = smr::model::cell_node<R>;
using cell = smr::model::cell<R>;

bool wrap = false;  // --wrap (see the header comment)

struct token_forward_model : rl::test_suite<token_forward_model, 3>, structure_fixture<R, cell, 3> {
  // Handles attach in id order; the first creates the token.
  // The roles' ids (chosen by --wrap before the searches).
  static unsigned retirer() { return wrap ? 1 : 0; }
  static unsigned reader() { return wrap ? 2 : 1; }
  static unsigned forwarder() { return wrap ? 0 : 2; }
  static constexpr int free_attempts = 4;  // operations (looks) of the retirer after the pass back
  smr::core::atomic<bool> passed{false};
  smr::core::atomic<bool> forwarded{false};
  smr::core::atomic<bool> holding{false};
  smr::core::atomic<bool> forwarder_passed{false};
  smr::core::atomic<bool> done{false};

  void before() {
    build({.forward_after = 1, .pass_check_every = 1});
    // The token starts with id 0. Wrapped: the forwarder's look passes it to the retirer.
    if (wrap) {
      auto g = handle(forwarder()).begin_op();
    }
    auto g = handle(retirer()).begin_op();  // its look takes the token and passes it to the reader
    ds->publish(g, 1);
  }

  void thread(unsigned t) {
    using smr::core::mo_acquire;
    using smr::core::mo_relaxed;
    using smr::core::mo_release;
    if (t == retirer()) {
      {
        auto g = handle(retirer()).begin_op();
        ds->replace(g, 2);
      }
      { auto g = handle(retirer()).begin_op(); }  // the receipt: node 1's bag closed, token passed
      passed.store(true, mo_relaxed);           // relaxed: see the header comment
      // acquire: the forwarder's pass back happens before our next look (no schedule is spent
      // reading a stale empty slot).
      while (!forwarder_passed.load(mo_acquire)) smr::core::spin_pause();
      // Bounded: where the reader's own look took the token or read its slot stale, the reader's
      // operation is covered by a debt that keeps node 1 until after `done`.
      operate_until_freed(handle(retirer()), free_attempts);
      done.store(true, mo_release);
      return;
    }
    if (t == forwarder()) {
      while (!passed.load(mo_relaxed)) smr::core::spin_pause();
      {
        auto g = handle(forwarder()).begin_op();  // the forward past the idle reader
        forwarded.store(true, mo_relaxed);       // relaxed: see the header comment
        while (!holding.load(mo_acquire)) smr::core::spin_pause();
      }
      { auto g = handle(forwarder()).begin_op(); }  // the receipt: passes to the retirer
      forwarder_passed.store(true, mo_release);
      return;
    }
    while (!forwarded.load(mo_relaxed)) smr::core::spin_pause();
    auto g = handle(reader()).begin_op();
    cell_node* n = ds->load();  // node 1 or node 2: which one is what the model checks
    holding.store(true, mo_release);
    while (!done.load(mo_acquire)) smr::core::spin_pause();
    RL_ASSERT(n->value.get() >= 1);  // an access to freed memory if node 1 was freed
  }

  void after() { tear_down(); }
};

}  // namespace

int main(int argc, char** argv) {
  return run<token_forward_model>("token / one cell, 3 threads (a forward by a thread that retired nothing)",
                                  {random_search(100000)}, argc, argv, {variant_switch("wrap", wrap)});
}
