// Relacy model of Token-EBR (include/smr/reclaimers/token.hpp) with a thread that detaches while
// the other passes the token: the pass may read the detaching thread's slot as still taking part
// and store the token there after that thread looked for it in its slot for the last time.
//
// Two threads on one shared cell (cell.hpp). Forwarding is off (forward_after at its maximum,
// forward_after_us 0), so a token left in a slot nobody owns stays there for good:
//   retirer: attached in before() (id 0, it creates the token; its look in before() passes it to
//            the reader). An operation that swaps node 2 into the cell and retires node 1, then
//            empty operations until the reader has detached (each takes the token if it is here
//            and passes it on), then at most `free_attempts` more until node 1 is freed.
//   reader:  attached in before() (id 1). An operation that loads the cell and reads the node's
//            payload; then it detaches (sets `leaving`, the barrier, passes the token on if it is
//            in its slot, gives id 1 back) and says so (`gone`, release).
// Obligations: safety, the reader's node is not freed under it ((c) of token.hpp: a pass that
// skips a detaching thread, or takes the token back from its slot, follows its operations); and
// progress, once the reader is gone the token comes back to the retirer, which then frees node 1
// within a few operations (asserted: the retirer is the only thread left, so every look of its
// finds the token unless a pass left it in id 1).
//
// Planted bug (tests/support/broken_reclaimers.hpp): relacy_token_leave_planted runs
// token_no_take_back, whose pass does not check `leaving` after its store: the retirer reads id 1
// as taking part, the reader sets `leaving`, finds its slot empty and goes, and the retirer's
// store leaves the token in id 1. Node 1 is never freed and the progress assertion fails.
//
// Searches: random, and context-bound with two preemptions (complete in about a second; the plant
// is caught by each; three preemptions took 13 s, 670,320 schedules, and passed).
//
// Not caught here (tried: 100,000 random schedules and the search above passed): the acquire of
// `leaving` made relaxed. The reader's read of node 1 comes before its store of the flag, so no
// schedule puts the read after the free, and Relacy reports a read after a free, not a free left
// unordered after an earlier read. The acquire is what the C++ model needs: the detaching
// thread's barrier comes after its store, so it orders nothing for a pass that read the flag
// before it.
#include <limits>
#include <type_traits>

#include "cell.hpp"
#include "model.hpp"
#include "smr/reclaimers/token.hpp"
#include "support/broken_reclaimers.hpp"

namespace {

using namespace smr::model;

using R = std::conditional_t<planted, smr::test::token_no_take_back, smr::token>;
using cell = smr::model::cell<R>;

struct token_leave_model : rl::test_suite<token_leave_model, 2>, structure_fixture<R, cell, 2> {
  static constexpr unsigned retirer = 0, reader = 1;
  static constexpr int free_attempts = 3;  // the retirer's receipts: close the bag, free it

  smr::core::atomic<bool> gone{false};

  void before() {
    build({.forward_after = std::numeric_limits<unsigned>::max(), .forward_after_us = 0, .pass_check_every = 1});
    auto g = handle(retirer).begin_op();  // its look takes the token and passes it to id 1
    ds->publish(g, 1);
  }

  void thread(unsigned t) {
    using smr::core::mo_acquire;
    using smr::core::mo_release;
    if (t == reader) {
      {
        auto g = handle(reader).begin_op();
        RL_ASSERT(ds->load()->value.get() >= 1);  // an access to freed memory if node 1 was freed
      }
      handles[reader].reset();
      // release: the retirer's later passes see the slot given back (and `leaving` before that).
      gone.store(true, mo_release);
      return;
    }
    R::handle& h = handle(retirer);
    {
      auto g = h.begin_op();
      ds->replace(g, 2);
    }
    while (!gone.load(mo_acquire)) {
      auto g = h.begin_op();
      smr::core::spin_pause();
    }
    operate_until_freed(h, free_attempts);
    RL_ASSERT(h.unreclaimed() == 0);  // progress: the token came back to the only thread left
  }

  void after() { tear_down(); }
};

}  // namespace

int main(int argc, char** argv) {
  return run<token_leave_model>("token / one cell, 2 threads (a reader detaching while the token is passed)",
                                {random_search(100000), bounded_search(2)}, argc, argv);
}
