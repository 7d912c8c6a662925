// Relacy model of WFE's parent pin (include/smr/reclaimers/wfe.hpp, step 3): a helper publishes
// the asker's span [lo, hi] before it checks the asker's tag, so that the node holding the link
// it is about to read stays pinned after the asker has finished on its own and let go of it.
// wfe_model.cpp's reader protects with one slot (the link is the stack's top, in no node), so
// it never needs the pin.
//
// Two threads; a root link to node A, whose `next` links node B. slots = 2,
// fast_path_attempts = 0 (a slot that publishes nothing asks for help at once), an era advance
// at every allocation, a scan at every retirement.
//   asker:  an operation that protects A from the root (slot 0), then A->next (slot 1): the
//           request names a link inside A, and [lo, hi] is slot 0's era; it reads B's payload.
//           Then an operation that swaps a fresh node A' into the root and retires A (and,
//           through A, nothing else: B stays linked from A' too). Its scan frees A unless a
//           reservation covers A's lifetime.
//   helper: a reclaim step: its era advance first answers the open request.
// The schedule the pin exists for: the helper has read the request and checked the asker's tag
// (unchanged), and is preempted before it reads the link; the asker closes its own request,
// ends its operation, retires A and scans. The helper's words must still pin A then: it reads
// the link inside A next. That takes two preemptions (the asker inside its slow path, the
// helper between its tag check and its read), so the model runs a context-bound search of 2.
//
// Planted bug (relacy_wfe_parent_planted): wfe_no_parent_pin (tests/support/broken_reclaimers.hpp),
// whose helper does not publish [lo, hi]: A is freed and the helper's read of A->next is an
// access to freed memory.
#include <chrono>
#include <optional>
#include <type_traits>

#include "model.hpp"
#include "smr/reclaimers/wfe.hpp"
#include "support/broken_reclaimers.hpp"

namespace {

using smr::model::payload;
using R = std::conditional_t<smr::model::planted, smr::test::wfe_no_parent_pin, smr::wfe>;

struct pnode : R::node_base {
  explicit pnode(int v) : value(v) {}
  payload value;
  R::atomic_ptr<pnode> next;
};

struct chain {
  explicit chain(R&) {}
  // Single-threaded teardown: the root's node and the one it links.
  ~chain() {
    pnode* a = root.load(smr::core::mo_relaxed).get();
    if (a == nullptr) return;
    delete a->next.load(smr::core::mo_relaxed).get();
    delete a;
  }
  R::atomic_ptr<pnode> root;
};

struct wfe_parent_model : rl::test_suite<wfe_parent_model, 2>, smr::model::structure_fixture<R, chain, 2> {
  static constexpr unsigned asker = 0, helper = 1;
  static inline unsigned long long helped_iterations = 0;

  void before() {
    build({.slots = 2, .fast_path_attempts = 0, .epoch_frequency = 1, .scale_epoch_frequency = false,
           .empty_frequency = 1});
    auto g = handle(asker).begin_op();
    pnode* b = g.template create<pnode>(2);
    pnode* a = g.template create<pnode>(1);
    a->next.store(smr::core::marked_ptr<pnode>(b), smr::core::mo_relaxed);
    // release: publishes A and B (teardown and the threads read them through the root).
    ds->root.store(smr::core::marked_ptr<pnode>(a), smr::core::mo_release);
  }

  void thread(unsigned t) {
    if (t == helper) {
      (void)handle(helper).reclaim_now(std::chrono::nanoseconds(0));  // answers, then advances and scans
      return;
    }
    auto& h = handle(asker);
    {
      auto g = h.begin_op();
      auto s = g.template slots<2>();
      auto a = s[0], b = s[1];
      pnode* na = a.protect(ds->root).get();
      pnode* nb = b.protect(na->next).get();
      RL_ASSERT(nb->value.get() == 2);
    }
    auto g = h.begin_op();
    pnode* fresh = g.template create<pnode>(3);
    auto s = g.template slots<1>();
    pnode* old = s[0].protect(ds->root).get();
    // relaxed: B is published already; A' is published by the exchange's release.
    fresh->next.store(old->next.load(smr::core::mo_relaxed), smr::core::mo_relaxed);
    s[0].reset();
    // acq_rel: publishes A' and takes A's contents with it. Only the asker writes the root.
    g.retire(ds->root.exchange(smr::core::marked_ptr<pnode>(fresh), smr::core::mo_acq_rel).get());
  }

  void after() {
    if (domain->helped() > 0) ++helped_iterations;
    tear_down();
  }

  static void report() {
    std::printf("                   a helper answered in %llu of %llu iterations\n", helped_iterations, iterations);
    helped_iterations = 0;
  }
};

}  // namespace

int main(int argc, char** argv) {
  using namespace smr::model;
  return run<wfe_parent_model>("wfe parent pin / a root and two nodes, 2 threads",
                               {random_search(100000), bounded_search(2)}, argc, argv);
}
