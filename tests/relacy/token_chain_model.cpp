// Relacy model of Token-EBR's forward past several stalled threads (include/smr/reclaimers/
// token.hpp, forward_from), which token_model.cpp's two threads cannot reach.
//
// Three threads on one shared cell (a pointer to a node with an rl::var payload), attached in
// ring order: reader 0 (it creates the token), reader 1, the reclaimer. The readers stall inside
// an operation on purpose, as descheduled threads would, so that every schedule reaches the
// chain rather than one in 10^18:
//   reader 0:  an operation that stays open until the reclaimer lets it go (`release_first`);
//   reader 1:  an operation that loads the cell's node, stays open until the reclaimer is done
//              (`release_second`), then reads the node's payload;
//   reclaimer: once both are inside, `ops` operations that each swap a new node into the cell
//              and retire the old one (the first retires reader 1's node), with a look for the
//              token at each (forward_after = 1); then it lets reader 0 go and runs `ops` more;
//              then reader 1, and `ops` more, which free what the debts held back (a model
//              that never frees would prove nothing).
// In the first stage the token reaches reader 0, stalled, and the reclaimer forwards it past
// reader 0 and, in the same forward, past reader 1 (still inside the operation of its previous
// look), with a debt each. Once reader 0 has left, only reader 1's debt holds its node back.
//
// Planted bug (tests/support/broken_reclaimers.hpp): relacy_token_chain_planted runs
// token_one_debt_per_lap, whose ledger keeps only the first debt recorded in a lap: reader 1's
// debt is lost, the second stage frees its node, and its read is an access to freed memory.
// relacy_token_latest_lap_planted (SMR_MODEL_PLANT_LATEST_LAP) runs token_latest_lap, whose
// debt for reader 1's operation moves to the lap of each forward past it: reader 1 stays inside
// for laps, the debt stops covering the bag that holds its node, and the same read fails.
// The context-bound search is not run: over three threads and 18 operations it takes minutes;
// the forced stalls make every random schedule reach the chain.
#include <type_traits>

#include "cell.hpp"
#include "model.hpp"
#include "smr/reclaimers/token.hpp"
#include "support/broken_reclaimers.hpp"

namespace {

using namespace smr::model;
#if defined(SMR_MODEL_PLANT_LATEST_LAP)
using planted_token = smr::test::token_latest_lap;
#else
using planted_token = smr::test::token_one_debt_per_lap;
#endif
using R = std::conditional_t<planted, planted_token, smr::token>;

using cell_node = smr::model::cell_node<R>;
using cell = smr::model::cell<R>;

struct token_chain_model : rl::test_suite<token_chain_model, 3>, structure_fixture<R, cell, 3> {
  static constexpr int ops = 6;  // per stage: enough looks for two forwards and two receipts
  smr::core::atomic<int> inside{0};  // readers inside their operations (reader 1: node loaded)
  smr::core::atomic<bool> release_first{false};
  smr::core::atomic<bool> release_second{false};

  void before() {
    build({.forward_after = 1, .pass_check_every = 1});
    auto g = handle(2).begin_op();
    ds->publish(g, 1);
  }

  void swap_one(int v) {
    auto g = handle(2).begin_op();
    ds->replace(g, v);
  }

  void thread(unsigned t) {
    using smr::core::mo_acquire;
    using smr::core::mo_release;
    if (t == 0) {
      auto g = handle(0).begin_op();
      // release: with reader 1's RMW, one release sequence that the reclaimer's acquire load of
      // 2 reads from, so both operations have begun before its first swap.
      inside.fetch_add(1, mo_release);
      while (!release_first.load(mo_acquire)) smr::core::spin_pause();
      return;
    }
    if (t == 1) {
      auto g = handle(1).begin_op();
      // Node 1, always: the RMW below happens before the reclaimer's first swap.
      cell_node* n = ds->load();
      inside.fetch_add(1, mo_release);
      while (!release_second.load(mo_acquire)) smr::core::spin_pause();
      RL_ASSERT(n->value.get() >= 1);  // an access to freed memory if the node was freed
      return;
    }
    while (inside.load(mo_acquire) != 2) smr::core::spin_pause();
    for (int i = 0; i < ops; ++i) swap_one(2 + i);
    release_first.store(true, mo_release);
    for (int i = 0; i < ops; ++i) swap_one(2 + ops + i);
    release_second.store(true, mo_release);
    for (int i = 0; i < ops; ++i) swap_one(2 + 2 * ops + i);
  }

  void after() { tear_down(); }
};

}  // namespace

int main(int argc, char** argv) {
  return run<token_chain_model>("token / one cell, 3 threads (a forward past two stalled readers)",
                                {random_search(100000)}, argc, argv);
}
