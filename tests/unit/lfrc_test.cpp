// lfrc: what the generic stress cannot see. Counted links count (a node lives exactly as long as
// some link or holder references it, and its destruction releases its own links), memory is
// type-stable (a freed block is the next one allocated), a reference a link write drops lasts
// until the operation ends, a long chain of removed nodes held by one reader is freed without
// recursion when the reader lets go, the barrier and the statistics are the domain's, and misuse
// is refused.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <thread>
#include <vector>

#include "support/probe.hpp"
#include "support/stress.hpp"
#include "smr/reclaimers/lfrc.hpp"

// Allocation failure on demand, for this binary: the n-th allocation of the thread from now
// throws std::bad_alloc (0: never). The array forms and the sized delete use these. Not under
// TSan, whose static runtime defines operator new itself (the ASan build runs the test).
#if defined(__SANITIZE_THREAD__)
#define SMR_TEST_OWN_OPERATOR_NEW 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SMR_TEST_OWN_OPERATOR_NEW 0
#endif
#endif
#if !defined(SMR_TEST_OWN_OPERATOR_NEW)
#define SMR_TEST_OWN_OPERATOR_NEW 1
#endif

thread_local int fail_allocation_in = 0;

#if SMR_TEST_OWN_OPERATOR_NEW
void* operator new(std::size_t n) {
  if (fail_allocation_in > 0 && --fail_allocation_in == 0) throw std::bad_alloc();
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
// GCC 12 inlines these into gtest's new-expressions and then warns that free() gets memory from
// operator new (-Wmismatched-new-delete): a false positive, since the operator new above is
// malloc.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

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

// A node whose constructor throws on request.
struct fragile_node : smr::lfrc::node_base {
  fragile_node(std::uint64_t v, bool fail) : value(v) {
    if (fail) throw std::runtime_error("fragile_node");
  }
  ~fragile_node() { destroyed.fetch_add(1, std::memory_order_relaxed); }
  std::uint64_t value;
};

// A node whose constructor threw leaves its block without a destructor call, and the block is
// the next one allocated.
TEST(Lfrc, ABlockWhoseNodeFailedToBuildIsReusedWithoutADestructor) {
  destroyed = 0;
  smr::lfrc domain;
  auto h = domain.attach();
  auto g = h.begin_op();
  fragile_node* first = g.create<fragile_node>(1, false);
  g.dispose(first);  // its block heads the free list
  ASSERT_EQ(destroyed.load(), 1);
  EXPECT_THROW(g.create<fragile_node>(2, true), std::runtime_error);
  EXPECT_EQ(destroyed.load(), 1) << "the node that was never built was destroyed";
  fragile_node* again = g.create<fragile_node>(3, false);
  EXPECT_EQ(again, first) << "the block of the failed node did not go back to the free list";
  EXPECT_EQ(again->value, 3u);
  g.dispose(again);
  EXPECT_EQ(domain.stats().unreclaimed, 0);
}

// Constructors that throw while other threads take blocks from the same free list. A failed
// block that went straight back to the list could meet a take() still holding a stale view of
// it, whose CAS then handed out a block another thread owned: two live nodes in one block,
// seen here as a node whose value changed under its creator. The window is a few instructions
// wide and this run rarely meets it (the old code passed it three times in three); the Relacy
// model tests/relacy/lfrc_pool_model.cpp catches that bug. This is the path's smoke test under
// the sanitizers. (Throwing is slow here: the unwinder serializes threads.)
TEST(Lfrc, FailedConstructionsAmongConcurrentTakesKeepOneNodePerBlock) {
  smr::lfrc domain;
  constexpr unsigned threads = 4;
  const auto rounds = static_cast<int>(smr::test::scaled_ops(2000));
  std::atomic<bool> shared{false};
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      auto h = domain.attach();
      for (int r = 0; r < rounds && !shared.load(std::memory_order_relaxed); ++r) {
        auto g = h.begin_op();
        const std::uint64_t id = (std::uint64_t{t} << 32) | static_cast<std::uint32_t>(r);
        fragile_node* a = g.create<fragile_node>(id, false);
        try {
          g.dispose(g.create<fragile_node>(id, (r & 1) == 0));
        } catch (const std::runtime_error&) {
        }
        fragile_node* b = g.create<fragile_node>(~id, false);
        std::this_thread::yield();
        if (a == b || a->value != id || b->value != ~id) shared.store(true, std::memory_order_relaxed);
        g.dispose(a);
        g.dispose(b);
      }
    });
  }
  for (auto& w : workers) w.join();
  EXPECT_FALSE(shared.load()) << "two live nodes shared a block";
  EXPECT_EQ(domain.stats().unreclaimed, 0);
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

TEST(Lfrc, ManyReferencesDroppedInOneOperationAreAllGivenBackAtItsEnd) {
  // More than the context's inline room: the rest go to its vector, whose room is made before
  // each write (a write that took effect never throws).
  destroyed = 0;
  smr::lfrc domain;
  link root;
  {
    auto h = domain.attach();
    auto g = h.begin_op();
    for (int i = 0; i < 100; ++i) root.exchange(g.create<cell_node>(i), smr::core::mo_acq_rel);
    EXPECT_EQ(destroyed.load(), 0) << "a reference dropped inside the operation was given back early";
  }
  EXPECT_EQ(destroyed.load(), 99);
  root.release_chain_unsafe();
  EXPECT_EQ(destroyed.load(), 100);
  EXPECT_EQ(domain.stats().unreclaimed, 0);
}

TEST(Lfrc, AWriteWhoseDroppedReferenceCannotBeKeptThrowsBeforeItTakesEffect) {
  // The room for the reference a write drops is made before the write: an allocation failure
  // there leaves the link as it was (after the write, the reference was lost and the structure
  // told that its successful CAS had failed).
  if (!SMR_TEST_OWN_OPERATOR_NEW) GTEST_SKIP() << "no failure injection under TSan (its runtime owns operator new)";
  destroyed = 0;
  smr::lfrc domain;
  link root;
  // A thread of its own: its lfrc context (thread_local) has no room left over from other tests.
  std::thread([&] {
    auto h = domain.attach();
    auto g = h.begin_op();
    // 16 dropped references fill the inline room; the next write needs the vector.
    for (int i = 0; i < 17; ++i) root.exchange(g.create<cell_node>(i), smr::core::mo_acq_rel);
    cell_node* next = g.create<cell_node>(100);
    cell_node* before = root.load(smr::core::mo_acquire).get();
    EXPECT_THROW((fail_allocation_in = 1, root.exchange(next, smr::core::mo_acq_rel)), std::bad_alloc);
    fail_allocation_in = 0;
    EXPECT_EQ(root.load(smr::core::mo_acquire).get(), before) << "the write took effect, then threw";
  }).join();
  EXPECT_EQ(destroyed.load(), 17) << "the 16 overwritten nodes and the unlinked one";
  root.release_chain_unsafe();
  EXPECT_EQ(destroyed.load(), 18) << "a reference was lost: the last linked node leaked";
  EXPECT_EQ(domain.stats().unreclaimed, 0);
}

TEST(LfrcDeathTest, RetireIntoAnotherDomainIsRefused) {
  // It would be counted in one domain and freed in the other: both barriers would wait forever.
  smr::lfrc one;
  smr::lfrc other;
  link root;
  publish(other, root, 1);
  EXPECT_DEATH(
      {
        auto h = one.attach();
        auto g = h.begin_op();
        g.retire(root.load(smr::core::mo_acquire).get());
      },
      "lfrc: retire\\(\\) of a node created by another lfrc domain");
  root.release_chain_unsafe();
}

TEST(LfrcDeathTest, BarrierInsideAnotherHandlesOperationIsRefused) {
  // The references the outer operation's writes dropped come back only when it ends: the
  // barrier of any lfrc handle of this thread would wait for them forever.
  smr::lfrc one;
  smr::lfrc other;
  EXPECT_DEATH(
      {
        auto h1 = one.attach();
        auto h2 = other.attach();
        auto g = h1.begin_op();
        h2.reclaim_now();
      },
      "lfrc: reclaim_now\\(\\) while an operation of another lfrc handle");
}

TEST(LfrcDeathTest, ALinkGivenANodeLfrcDidNotCreateIsRefusedInCheckedMode) {
  // Its count would be found by offset, in bytes that are not a count.
  EXPECT_DEATH(
      {
        smr::core::set_poison_on_free(true);  // checked mode in every build
        smr::lfrc domain;
        auto* foreign = new cell_node(1);
        link root;
        auto h = domain.attach();
        auto g = h.begin_op();
        root.store(foreign, smr::core::mo_release);
      },
      "lfrc: a link was given a node lfrc did not create");
}

}  // namespace
