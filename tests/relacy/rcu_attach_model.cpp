// Relacy model of RCU (include/smr/reclaimers/rcu.hpp) with a thread that attaches while a grace
// period may be under way, and one that detaches during it. rcu_model.cpp attaches both of its
// threads before they start (stack_model.hpp), so a grace period's snapshot always sees every
// reader's registry entry; here the snapshot's read of the high-water mark and of the slots
// races with a registration, and with the reuse of a slot its previous owner is giving back.
//
// Three threads on one shared cell (cell.hpp), grace_every = 1:
//   retirer:     attached in before() (id 0). An operation that swaps node 2 into the cell and
//                retires node 1; then operations until node 1 is freed (each may start or end
//                the grace period), at most `free_attempts`; then `done`.
//   old reader:  attached in before() (id 1). An operation that loads the cell and reads the
//                node's payload; then it detaches, giving id 1 back (it retired nothing, so it
//                donates nothing and takes no lock).
//   new reader:  attaches in its thread: id 1 if the old reader gave it back already (the count
//                of the slot's operation word goes on from the old owner's), else id 2, past
//                the high-water mark the snapshot may have read. An operation that loads the
//                cell, waits for `done`, and reads the node's payload; then it detaches.
// Proof obligation: a reader whose registration the snapshot missed, or whose operation word it
// read as even, began its load after the grace period's barrier, so it loads node 2. Node 1 is
// freed in most schedules (the report).
//
// Planted bug (relacy_rcu_attach_planted): rcu_no_heavy_fence (tests/support/broken_reclaimers.hpp),
// as in rcu_model.cpp: without the barrier, the snapshot can read the new reader's word as even
// (or miss its entry) while the reader already loaded node 1, and node 1 is freed under it.
//
// Second plant (relacy_rcu_attach_planted_order, SMR_MODEL_PLANT_IDS_BEFORE_BARRIER):
// rcu_ids_before_barrier, whose grace period reads the high-water mark before its barrier. The
// new reader registers in between and loads node 1 before the barrier; the snapshot's bound
// leaves it out. rcu_model.cpp, whose threads all register first, cannot see this one.
//
// The mutex the domain guards its orphans with is invisible to Relacy (stack_model.hpp): no
// thread here donates (the retirer stays attached until after()), so none takes it.
#include <optional>
#include <type_traits>

#include "cell.hpp"
#include "model.hpp"
#include "smr/reclaimers/rcu.hpp"
#include "support/broken_reclaimers.hpp"

namespace {

using namespace smr::model;

#if defined(SMR_MODEL_PLANT_IDS_BEFORE_BARRIER)
using planted_rcu = smr::test::rcu_ids_before_barrier;
#else
using planted_rcu = smr::test::rcu_no_heavy_fence;
#endif
using R = std::conditional_t<planted, planted_rcu, smr::rcu>;
using cell_node = smr::model::cell_node<R>;
using cell = smr::model::cell<R>;

// Handles are built for the retirer and the old reader only; the new reader attaches itself.
struct rcu_attach_model : rl::test_suite<rcu_attach_model, 3>, structure_fixture<R, cell, 2> {
  static constexpr unsigned retirer = 0, old_reader = 1, new_reader = 2;
  static constexpr int free_attempts = 3;  // operations of the retirer after its retirement

  smr::core::atomic<bool> done{false};

  // Schedules in which the new reader began to attach after the old reader had given id 1 back
  // (it then takes id 1: the registry claims the lowest free id).
  static inline unsigned long long attached_after_detach = 0;
  smr::core::atomic<bool> old_detached{false};

  void before() {
    if (iterations == 0) attached_after_detach = 0;  // a new search
    build({.grace_every = 1});
    auto g = handle(retirer).begin_op();
    ds->publish(g, 1);
  }

  void thread(unsigned t) {
    if (t == retirer) {
      R::handle& h = handle(retirer);
      {
        auto g = h.begin_op();
        ds->replace(g, 2);
      }
      operate_until_freed(h, free_attempts);
      // release: the retirer's frees happen before the new reader's read of its node, so a free
      // of that node is reported as an access to freed memory, not as a race.
      done.store(true, smr::core::mo_release);
      return;
    }
    if (t == old_reader) {
      {
        auto g = handle(old_reader).begin_op();
        RL_ASSERT(ds->load()->value.get() >= 1);
      }
      handles[old_reader].reset();  // id 1 goes back to the registry
      // relaxed: only counted (the registry's own release/acquire orders the reuse).
      old_detached.store(true, smr::core::mo_relaxed);
      return;
    }
    if (old_detached.load(smr::core::mo_relaxed)) ++attached_after_detach;
    holder<R> mine(*domain);
    {
      auto g = mine.h.begin_op();
      cell_node* n = ds->load();
      while (!done.load(smr::core::mo_acquire)) smr::core::spin_pause();
      RL_ASSERT(n->value.get() >= 1);  // an access to freed memory if node 1 was freed
    }
  }

  void after() { tear_down(); }

  static void report() {
    std::printf("                   the new reader attached after the old one detached in %llu of %llu iterations\n",
                attached_after_detach, iterations);
  }
};

}  // namespace

int main(int argc, char** argv) {
  return run<rcu_attach_model>("rcu / one cell, 3 threads (a reader attaching during the grace period)",
                               {random_search(200000), bounded_search(2)}, argc, argv);
}
