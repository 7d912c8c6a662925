// lfrc: what the generic stress cannot see. Counted links count (a node lives exactly as long as
// some link or holder references it, and its destruction releases its own links), memory is
// type-stable (a freed block is the next one allocated), a reference a link write drops lasts
// until the operation ends, a long chain of removed nodes held by one reader is freed without
// recursion when the reader lets go, the barrier and the statistics are the domain's, and misuse
// is refused.
#include <atomic>
#include <cstdint>
#include <thread>

#include "support/probe.hpp"
#include "smr/reclaimers/lfrc.hpp"

namespace {

std::atomic<int> destroyed{0};

// A node with one counted link, counting its destructions.
struct cell_node : smr::lfrc::node_base {
  explicit cell_node(int v) : value(v) {}
  ~cell_node() { destroyed.fetch_add(1, std::memory_order_relaxed); }
  int value;
  smr::lfrc::atomic_ptr<cell_node> next;
};
using link = smr::lfrc::atomic_ptr<cell_node>;

// Links a new node into `root`, in an operation of its own (the link's reference keeps it).
void publish(smr::lfrc& domain, link& root, int value) {
  auto h = domain.attach();
  auto g = h.begin_op();
  root.store(g.create<cell_node>(value), smr::core::mo_release);
}

TEST(Lfrc, ANodeLivesWhileALinkReferencesItAndItsDestructionReleasesItsLinks) {
  destroyed = 0;
  smr::lfrc domain;
  link root;
  {
    auto h = domain.attach();
    auto g = h.begin_op();
    cell_node* a = g.create<cell_node>(1);
    cell_node* b = g.create<cell_node>(2);
    cell_node* c = g.create<cell_node>(3);
    b->next.store(c, smr::core::mo_relaxed);
    a->next.store(b, smr::core::mo_relaxed);
    root.store(a, smr::core::mo_release);
  }
  EXPECT_EQ(destroyed.load(), 0) << "the operation's end freed linked nodes";
  root.release_chain_unsafe();  // a -> b -> c: each one's destruction releases the next
  EXPECT_EQ(destroyed.load(), 3);
}

TEST(Lfrc, FreedBlocksAreReusedTypeStable) {
  smr::lfrc domain;
  auto h = domain.attach();
  cell_node* first;
  {
    auto g = h.begin_op();
    first = g.create<cell_node>(1);
    g.dispose(first);  // freed at once: its block goes back to the free list
  }
  auto g = h.begin_op();
  cell_node* second = g.create<cell_node>(2);
  EXPECT_EQ(second, first) << "a freed block went elsewhere than the type's free list";
  EXPECT_EQ(second->value, 2);
  g.dispose(second);
}

TEST(Lfrc, AReferenceALinkWriteDropsLastsUntilTheOperationEnds) {
  destroyed = 0;
  smr::lfrc domain;
  link root;
  publish(domain, root, 7);
  auto h = domain.attach();
  {
    auto g = h.begin_op();
    cell_node* old = root.exchange(nullptr, smr::core::mo_acq_rel).get();
    EXPECT_EQ(destroyed.load(), 0) << "the exchange's old value was freed inside the operation";
    EXPECT_EQ(old->value, 7);
    g.retire(old);
    EXPECT_EQ(h.unreclaimed(), 1u);
    EXPECT_EQ(domain.stats().unreclaimed, 1) << "the gauge lags the retirement";
  }
  EXPECT_EQ(domain.stats().unreclaimed, 0);
  EXPECT_EQ(domain.stats().peak_unreclaimed, 1);
  EXPECT_EQ(destroyed.load(), 1) << "the dropped reference was not given back at the operation's end";
  EXPECT_EQ(domain.stats().freed, 1u);
  EXPECT_EQ(h.unreclaimed(), 0u);
}

TEST(Lfrc, BarrierWaitsForAReaderAnywhereInTheDomain) {
  destroyed = 0;
  smr::lfrc domain;
  link root;
  publish(domain, root, 1);
  std::atomic<int> step{0};
  std::thread reader([&] {
    auto h = domain.attach();
    auto g = h.begin_op();
    auto p = g.protect(root);
    step.store(1, std::memory_order_release);
    smr::test::wait_until(step, 2);
    EXPECT_EQ(p->value, 1) << "a held node was freed";
  });
  smr::test::wait_until(step, 1);
  auto h = domain.attach();
  {
    auto g = h.begin_op();
    g.retire(root.exchange(nullptr, smr::core::mo_acq_rel).get());
  }
  EXPECT_FALSE(h.reclaim_now(std::chrono::milliseconds(20))) << "the barrier passed a held node";
  EXPECT_EQ(h.unreclaimed(), 1u);
  step.store(2, std::memory_order_release);
  reader.join();
  EXPECT_TRUE(h.reclaim_now());
  EXPECT_EQ(destroyed.load(), 1);
}

// A reader holds the first of n retired nodes; each one's link keeps the next alive, so letting
// go frees the whole chain in one release: deep enough that recursion through the links'
// destructors would overflow the stack.
TEST(Lfrc, ALongChainOfRetiredNodesIsFreedWhenItsLastHolderLetsGo) {
  constexpr int n = 200000;
  destroyed = 0;
  smr::lfrc domain;
  link root;
  {
    auto h = domain.attach();
    auto g = h.begin_op();
    for (int i = n - 1; i >= 0; --i) {  // push at the front: root -> 0 -> 1 -> ... -> n-1
      cell_node* fresh = g.create<cell_node>(i);
      fresh->next.store(root.load(smr::core::mo_relaxed), smr::core::mo_relaxed);
      root.store(fresh, smr::core::mo_release);
    }
  }
  std::atomic<int> step{0};
  std::thread reader([&] {
    auto h = domain.attach();
    auto g = h.begin_op();
    auto p = g.protect(root);  // holds node 0, which holds the rest
    step.store(1, std::memory_order_release);
    smr::test::wait_until(step, 2);
    EXPECT_EQ(p->value, 0);
  });
  smr::test::wait_until(step, 1);
  {
    auto h = domain.attach();
    auto g = h.begin_op();
    for (cell_node* c = root.load(smr::core::mo_acquire).get(); c != nullptr; c = c->next.load(smr::core::mo_acquire).get())
      g.retire(c);
    (void)root.exchange(nullptr, smr::core::mo_acq_rel);
  }
  EXPECT_EQ(domain.stats().unreclaimed, n) << "retired nodes freed under the reader";
  EXPECT_EQ(destroyed.load(), 0);
  step.store(2, std::memory_order_release);
  reader.join();
  EXPECT_EQ(destroyed.load(), n);
  EXPECT_EQ(domain.stats().unreclaimed, 0);
  EXPECT_EQ(domain.stats().freed, static_cast<std::uint64_t>(n));
}

TEST(LfrcDeathTest, DisposeOfANodeTheOperationDidNotCreateIsRefused) {
  smr::lfrc domain;
  link root;
  publish(domain, root, 1);
  EXPECT_DEATH(
      {
        auto h = domain.attach();
        auto g = h.begin_op();
        g.dispose(root.load(smr::core::mo_acquire).get());
      },
      "lfrc: dispose\\(\\) of a node this operation did not create");
  root.release_chain_unsafe();
}

TEST(LfrcDeathTest, ANodeFreedDirectlyIsRefused) {
  smr::lfrc domain;
  EXPECT_DEATH(
      {
        auto h = domain.attach();
        auto g = h.begin_op();
        smr::core::free_node(g.create<cell_node>(1));
      },
      "lfrc: a node was freed directly");
}

}  // namespace
