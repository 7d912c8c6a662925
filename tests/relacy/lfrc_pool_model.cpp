// Relacy model of LFRC's block pool (include/smr/reclaimers/lfrc.hpp): Valois' free list of
// claimed blocks, whose take() guards its read of the head's `next` with a transient reference,
// and give_back(), which takes back the block of a node whose constructor threw.
//
// A free list of three blocks a -> b -> c, and three threads:
//   thread 0 takes a block, gives it back (its node's constructor "threw"), takes another and
//     builds a node in it;
//   threads 1 and 2 each take a block and build a node in it.
// Each thread marks the block it took as held (an assertion that nobody else holds it), builds
// its node (an rl::var), reads it back and releases it. The schedule to catch: thread 1's
// take() reads head a and its next b and is preempted; thread 0 takes a, thread 2 takes b,
// thread 0 gives a back; thread 1's CAS (a -> b) then must fail. If a went straight back on the
// list, it succeeds and leaves b, which thread 2 holds, at the head, and thread 0's second take
// gets b too; or, if thread 2 let b go first, the list loops on b and loses c, which the final
// check (three takes give the three blocks) sees.
//
// Searches: a random one and the context-bound one with 1 preemption (1.25M schedules, 5 s).
//
// Planted bug.
//  relacy_lfrc_pool_planted (--give-back-at-once, reclaimers/lfrc.hpp): give_back()
//    pushes the block at once, as it did before the fix.
#include <optional>

#include "model.hpp"
#include "smr/reclaimers/lfrc.hpp"

namespace {

using smr::detail::lfrc_cell;
using smr::detail::lfrc_pool;

struct block_node : smr::lfrc_node_base {
  explicit block_node(int v) : value(v) {}
  smr::model::payload value;
};
using pool_type = smr::detail::lfrc_type_pool<block_node>;

struct pool_model : rl::test_suite<pool_model, 3> {
  std::optional<smr::core::unreclaimed_gauge> gauge;
  std::optional<smr::core::atomic<std::uint64_t>> freed;
  std::optional<pool_type> pool;
  char domain = 0;  // stands for the owning domain: the pool only compares its address
  lfrc_cell* blocks[3] = {};
  std::optional<smr::core::atomic<int>> held[3];  // 1 while a thread holds the block

  smr::core::atomic<int>& held_flag(lfrc_cell* c) {
    for (int i = 0; i < 3; ++i)
      if (blocks[i] == c) return *held[i];
    RL_ASSERT(!"take() returned a block that was never on the free list");
    return *held[0];
  }
  lfrc_cell* take() {
    lfrc_cell* c = pool->take();
    RL_ASSERT(held_flag(c).exchange(1, smr::core::mo_relaxed) == 0);  // two holders of one block
    return c;
  }
  void let_go(lfrc_cell* c) { held_flag(c).store(0, smr::core::mo_relaxed); }

  // Builds a node in a taken block, checks it, and lets the block go.
  void use(lfrc_cell* c, int v) {
    auto* n = ::new (pool->object(c)) block_node(v);
    lfrc_pool::ready(c);
    RL_ASSERT(n->value.get() == v);
    let_go(c);
    lfrc_pool::release(c);  // the only reference: the block is recycled onto the free list
  }

  void before() {
    smr::detail::lfrc_reset_model_contexts();
    gauge.emplace();
    freed.emplace(0);
    pool.emplace(&domain, *gauge, *freed);
    for (int i = 0; i < 3; ++i) {
      held[i].emplace(0);
      blocks[i] = pool->take();  // a fresh block
      ::new (pool->object(blocks[i])) block_node(0);
      lfrc_pool::ready(blocks[i]);
    }
    for (auto* c : blocks) lfrc_pool::release(c);  // onto the free list
  }

  void thread(unsigned t) {
    if (t == 0) {
      lfrc_cell* failed = take();
      let_go(failed);
      pool->give_back(failed);
      use(take(), 10);
    } else {
      use(take(), static_cast<int>(t));
    }
  }

  void after() {
    // Every block is back on the free list, once: three takes give the three blocks. (A block
    // pushed while a stale take() could still pop past it loses blocks and loops the list.)
    lfrc_cell* taken[3];
    for (int i = 0; i < 3; ++i) {
      taken[i] = pool->take();
      held_flag(taken[i]);  // one of the three, not a fresh block
      for (int j = 0; j < i; ++j) RL_ASSERT(taken[j] != taken[i]);
    }
    for (auto& h : held) h.reset();
    pool.reset();
    freed.reset();
    gauge.reset();
  }
};

}  // namespace

int main(int argc, char** argv) {
  using namespace smr::model;
  return run<pool_model>("lfrc pool: take, give_back, 3 threads", {random_search(200000), bounded_search(1)}, argc, argv,
                         {plant_switch("give-back-at-once", smr::core::relacy_plant::lfrc_give_back_at_once)});
}
