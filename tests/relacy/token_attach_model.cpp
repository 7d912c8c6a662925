// Relacy model of Token-EBR (include/smr/reclaimers/token.hpp) with a thread that attaches while
// the token is on a lap, and one that detaches during it. The other token models attach every
// thread before it starts, so a pass always finds the ring complete; here the passer's read of
// the high-water mark, of slot ownership and of `leaving` (next_visit) races with a registration,
// and with the reuse of an id whose previous owner is giving it back (token_leave_model.cpp
// checks that detach on its own, with forwarding off).
//
// Three threads on one shared cell (cell.hpp), forward_after = 1:
//   retirer:     attached in before() (id 0, it creates the token; its look in before() passes
//                it to the old reader). An operation that swaps node 2 into the cell and
//                retires node 1; then operations until node 1 is freed, at most
//                `free_attempts` (each takes the token if it is here, else forwards it past an
//                idle thread, or past a thread seen twice in the same operation, with a debt);
//                then `done`.
//   old reader:  attached in before() (id 1). An operation that loads the cell and reads the
//                node's payload; then it detaches: it sets `leaving`, passes the token if it is
//                in its slot and gives id 1 back.
//   new reader:  attaches in its thread: id 1 if the old reader gave it back already (the slot's
//                operation word goes on to the new owner, which clears `leaving`), else id 2,
//                past the high-water mark a passer may have read. An operation that loads the
//                cell, waits for `done`, and reads the node's payload; then it detaches.
// Proof obligation ((c) of token.hpp): a passer that read the new reader's id as unowned or
// beyond the high-water mark skips it, and the lap may end without it; the new reader ran the
// barrier after its registration, so its load, after that pass, reads node 2. A reader seen
// inside its operation is forwarded past with a debt ((b)), which holds node 1 until `done`.
// Node 1 is freed in some schedules, and in some of those while the new reader is inside its
// operation (the report).
//
// Planted bugs (tests/support/broken_reclaimers.hpp): relacy_token_attach_planted runs
// token_no_heavy_fence, the asymmetric pair without its barrier; relacy_token_attach_planted_
// attach_barrier (SMR_MODEL_PLANT_ATTACH_BARRIER) runs token_no_attach_barrier, which drops only
// the barrier a thread runs when it attaches (forwards keep theirs). Either way the passer's skip
// no longer orders the new reader's load after the unlink, the reader may load node 1 while the
// lap goes on without it, and node 1 is freed under it.
//
// With --reuse (relacy_token_attach_reuse and its plant) the new reader begins to attach
// only once the old reader has given id 1 back (a relaxed wait: it adds no happens-before). It
// then takes id 1 unless its claim reads the slot's owned flag stale; without the wait, a random
// schedule rarely lets the old reader finish first.
//
// Random search only: the new reader waits inside its operation, so the retirer's forwards and
// the reader's spin make the schedules with two preemptions too many to run in CI time.
#include <type_traits>

#include "cell.hpp"
#include "model.hpp"
#include "smr/reclaimers/token.hpp"
#include "support/broken_reclaimers.hpp"

namespace {

using namespace smr::model;

#if defined(SMR_MODEL_PLANT_ATTACH_BARRIER)
using planted_token = smr::test::token_no_attach_barrier;
#else
using planted_token = smr::test::token_no_heavy_fence;
#endif
using R = std::conditional_t<planted, planted_token, smr::token>;
using cell = smr::model::cell<R>;

bool reuse = false;  // --reuse (see the header comment)

// Handles are built for the retirer and the old reader only; the new reader attaches itself.
struct token_attach_model : rl::test_suite<token_attach_model, 3>, structure_fixture<R, cell, 2> {
  static constexpr unsigned retirer = 0, old_reader = 1, new_reader = 2;
  static constexpr int free_attempts = 6;  // operations of the retirer after its retirement

  smr::core::atomic<bool> done{false};
  smr::core::atomic<bool> old_detached{false};
  smr::core::atomic<bool> new_inside{false};

  // Evidence of coverage (report()): schedules in which the new reader took id 1 (the old
  // reader's, given back), and in which node 1 was freed while the new reader was inside its
  // operation (the lap went on without it: (c) of the proof).
  static inline unsigned long long reused_id = 0;
  static inline unsigned long long freed_around_reader = 0;
  static inline unsigned long long token_left = 0;  // the token already in the reused slot

  void before() {
    if (iterations == 0) reused_id = freed_around_reader = token_left = 0;  // a new search
    build({.forward_after = 1, .pass_check_every = 1});
    auto g = handle(retirer).begin_op();  // its look takes the token and passes it to id 1
    ds->publish(g, 1);
  }

  void thread(unsigned t) {
    using smr::core::mo_acquire;
    using smr::core::mo_relaxed;
    using smr::core::mo_release;
    if (t == retirer) {
      R::handle& h = handle(retirer);
      {
        auto g = h.begin_op();
        ds->replace(g, 2);
      }
      operate_until_freed(h, free_attempts);
      // relaxed: a count only.
      if (h.unreclaimed() == 0 && new_inside.load(mo_relaxed)) ++freed_around_reader;
      // release: the retirer's frees happen before the new reader's read of its node, so a free
      // of that node is reported as an access to freed memory, not as a race.
      done.store(true, mo_release);
      return;
    }
    if (t == old_reader) {
      {
        auto g = handle(old_reader).begin_op();
        RL_ASSERT(ds->load()->value.get() >= 1);
      }
      handles[old_reader].reset();  // passes the token if it is here; id 1 goes back
      // relaxed: only counted (the registry's own release/acquire orders the reuse).
      old_detached.store(true, mo_relaxed);
      return;
    }
    // relaxed: adds no happens-before; the registry's own release/acquire orders the reuse.
    if (reuse)
      while (!old_detached.load(mo_relaxed)) smr::core::spin_pause();
    holder<R> mine(*domain);
    if (mine.h.thread_id() == old_reader) {
      ++reused_id;
      // relaxed: a count only. A token here was passed to the new owner (or stored by a pass that
      // read the old owner's `leaving` unset and, checking again, the new owner's).
      if (domain->registry().slot_at(old_reader).token.load(mo_relaxed) != 0) ++token_left;
    }
    {
      auto g = mine.h.begin_op();
      cell::node* n = ds->load();
      new_inside.store(true, mo_relaxed);  // relaxed: a count only
      while (!done.load(mo_acquire)) smr::core::spin_pause();
      RL_ASSERT(n->value.get() >= 1);  // an access to freed memory if node 1 was freed
    }
  }

  void after() { tear_down(); }

  static void report() {
    std::printf("                   the new reader reused id 1 in %llu, and node 1 was freed while it was inside its operation in %llu, of %llu iterations\n",
                reused_id, freed_around_reader, iterations);
    std::printf("                   the token already in the reused slot right after the new reader attached in %llu iterations\n", token_left);
  }
};

}  // namespace

int main(int argc, char** argv) {
  return run<token_attach_model>("token / one cell, 3 threads (a reader attaching during a lap, another detaching)",
                                 {random_search(100000)}, argc, argv, {variant_switch("reuse", reuse)});
}
