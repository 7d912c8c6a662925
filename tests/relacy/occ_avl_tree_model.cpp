// Relacy model of the OCC AVL tree (include/smr/ds/occ_avl_tree.hpp, the library's own code):
// optimistic hand-over-hand validation against a rotation, and an unlink, under EBR advancing at
// every operation.
//
//   before():  a fresh domain and tree holding 2, 1, 3, 4 (2 at the root, 4 below 3).
//   thread 0:  remove(1): 2 is left with only its right subtree, two levels high, so the repair
//              rotates 3 above 2 (2 shrinks: its version is marked while its links change);
//              then two lookups, which advance the epoch and free 1 once thread 1 is out.
//   thread 1:  contains(4), which may run into the rotation at any step (its key moves from 2's
//              subtree to 3's), then remove(3) (3 has one child before the rotation: an unlink;
//              two after: it becomes a routing node), and contains(2).
//   after():   the tree holds exactly 2 and 4 and is a strict AVL tree; Relacy's leak check
//              proves every node freed exactly once.
// Keys are rl::vars: a key read after its node was freed, or not ordered after its construction,
// is reported. Links, versions, heights and flags are rl::atomics.
//
// Planted bug (relacy_occ_avl_tree_planted: --no-shrink-mark, ds/occ_avl_tree.hpp): rotations do not mark the
// node they move down as shrinking. A search that reads 2's new link during the rotation then
// validates it against 2's unchanged version and goes down the wrong subtree: contains(4) says
// no while 4 was never removed (a failed value check).
#include "model.hpp"
#include "smr/ds/occ_avl_tree.hpp"
#include "smr/reclaimers/ebr.hpp"

namespace {

using namespace smr::model;
using reclaimer = smr::ebr;

// A key the model checker watches: reading it races with nothing but its construction.
class model_key {
 public:
  model_key() : v_(0) {}
  model_key(int v) : v_(v) {}  // NOLINT: implicit, so the tree is called with ints
  model_key(const model_key& o) : v_(o.get()) {}
  model_key& operator=(const model_key&) = delete;
  bool operator<(const model_key& o) const { return get() < o.get(); }
  int get() const { return v_($).load(); }

 private:
  rl::var<int> v_;
};

using tree_t = smr::occ_avl_tree<model_key, reclaimer>;

struct occ_avl_model : rl::test_suite<occ_avl_model, 2>, structure_fixture<reclaimer, tree_t, 2> {
  void before() {
    build(reclaimer::config{.advance_every = 1});
    for (int k : {2, 1, 3, 4}) RL_ASSERT(ds->insert(handle(0), k));
  }

  void thread(unsigned t) {
    auto& h = handle(t);
    if (t == 0) {
      RL_ASSERT(ds->remove(h, 1));
      for (int i = 0; i < 2; ++i) RL_ASSERT(!ds->contains(h, 9));
      return;
    }
    RL_ASSERT(ds->contains(h, 4));
    RL_ASSERT(ds->remove(h, 3));
    RL_ASSERT(ds->contains(h, 2));
  }

  void after() {
    int sum = 0;
    ds->for_each_unsafe([&](const model_key& k) { sum += k.get(); });
    RL_ASSERT(ds->size_unsafe() == 2 && sum == 6);
    RL_ASSERT(ds->check_invariants_unsafe().empty());
    tear_down();
  }
};

}  // namespace

int main(int argc, char** argv) {
  return run<occ_avl_model>("occ_avl_tree / ebr, 2 threads", {random_search(200000), bounded_search(1)}, argc,
                            argv, {plant_switch("no-shrink-mark", smr::core::relacy_plant::no_shrink_mark)});
}
