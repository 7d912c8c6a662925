// Relacy model of POIBR (include/smr/reclaimers/poibr.hpp) on the Bonsai tree
// (include/smr/ds/bonsai_tree.hpp, the library's own code): what POIBR adds to the interval
// schemes is that a node reached from the root through immutable links needs no reservation of
// its own, and the Treiber stack never dereferences such a node, so the model is a tree.
//
//   before():  a fresh domain and tree holding the keys 1 and 2; the reader begins an operation
//              (an outer guard, so POIBR reserves the era e current then); then the writer
//              inserts 3, so node 3 and the root above it are born after e.
//   thread 0:  the reader. contains(4), a nested operation: reads the root through
//              protect_root() (which must raise the reservation to cover the new root), then the
//              root's right link and node 3's right link with plain loads (POIBR's protect);
//              ends its operation, and detaches once thread 1 has.
//   thread 1:  the writer. remove(3): copies the path and retires the old root and node 3; the
//              era advances at every allocation and every retirement scans, so a replaced node
//              is freed as soon as no reservation covers it.
//   after():   the tree holds 1 and 2 and its invariants hold; Relacy's leak check proves every
//              node freed exactly once.
// A freed node's links are rl::atomics: the reader's load of one reports an access to freed
// memory.
//
// Planted bug (SMR_MODEL_PLANTED): unvalidated_protect<poibr> (tests/support/broken_reclaimers.hpp)
// reads the root without raising the reservation: the reader keeps the interval [e, e] of its
// begin_op, so node 3, born after e, read through the new root and then removed, looks
// unreserved and is freed under the reader (one preemption: the reader's, between its root read
// and its load of node 3's link).
#include <optional>

#include "model.hpp"
#include "smr/ds/bonsai_tree.hpp"
#include "smr/reclaimers/poibr.hpp"
#include "support/broken_reclaimers.hpp"

namespace {

using namespace smr::model;
using reclaimer = std::conditional_t<planted, smr::test::unvalidated_protect<smr::poibr>, smr::poibr>;
using tree_t = smr::bonsai_tree<int, reclaimer>;

struct poibr_tree_model : rl::test_suite<poibr_tree_model, 2>, structure_fixture<reclaimer, tree_t, 2> {
  std::optional<reclaimer::guard> reader_op;  // the reader's outer operation, begun in before()
  smr::core::atomic<bool> writer_detached{false};

  void before() {
    build(reclaimer::config{.epoch_frequency = 1, .scale_epoch_frequency = false, .empty_frequency = 1});
    for (int k : {2, 1}) RL_ASSERT(ds->insert(handle(1), k));
    reader_op.emplace(handle(0));
    RL_ASSERT(ds->insert(handle(1), 3));
  }

  void thread(unsigned t) {
    if (t == 0) {
      RL_ASSERT(!ds->contains(handle(0), 4));
      reader_op.reset();
      while (!writer_detached.load(smr::core::mo_acquire)) smr::core::spin_pause();
      handles[0].reset();
      return;
    }
    RL_ASSERT(ds->remove(handle(1), 3));
    handles[1].reset();  // frees what is safe while the reader may still be inside contains()
    // release: pairs with the reader's acquire spin; the donation is complete.
    writer_detached.store(true, smr::core::mo_release);
  }

  void after() {
    RL_ASSERT(ds->size_unsafe() == 2);
    RL_ASSERT(ds->check_invariants_unsafe().empty());
    tear_down();
  }
};

}  // namespace

int main(int argc, char** argv) {
  return run<poibr_tree_model>("poibr / bonsai_tree, 2 threads", {random_search(100000), bounded_search(1)}, argc, argv);
}
