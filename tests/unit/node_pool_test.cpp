// smrbench's bounded node pool (bench/node_pool.hpp) and the library hook it plugs into
// (smr::core::set_node_memory_resource): in the timed phase an empty pool fails the allocation
// (pool_exhausted) instead of waiting inside the operation, the structures leak nothing when an
// allocation throws, a pool-backed queue whose threads retry outside their operations gets every
// block back, and nodes from before the pool was installed still go back to operator delete
// (ASan checks the matching delete).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <new>
#include <stdexcept>
#include <thread>
#include <vector>

#include "node_pool.hpp"
#include "smr/ds/ms_queue.hpp"
#include "smr/reclaimers/ebr.hpp"
#include "smr/reclaimers/hp.hpp"
#include "support/reclaimers.hpp"
#include "support/stress.hpp"

namespace {

using smrbench::node_pool;
using smrbench::pool_wait;

// Installs a pool for the scope of a test, and removes it before the pool dies.
struct installed {
  explicit installed(node_pool& p) { smr::core::set_node_memory_resource(&p); }
  ~installed() { smr::core::set_node_memory_resource(nullptr); }
};

class NodePoolWait : public ::testing::TestWithParam<pool_wait> {};
INSTANTIATE_TEST_SUITE_P(Modes, NodePoolWait, ::testing::Values(pool_wait::busy, pool_wait::yield),
                         [](const auto& info) { return std::string(smrbench::pool_wait_name(info.param)); });

TEST(NodePool, InThePrefillAnEmptyPoolServesOperatorNewAndCountsIt) {
  node_pool pool(1, pool_wait::busy);
  void* a = pool.allocate(64, 8);
  void* b = pool.allocate(64, 8);  // prefill phase: operator new
  EXPECT_TRUE(pool.owns(a));
  EXPECT_FALSE(pool.owns(b));
  ::operator delete(b);
  pool.deallocate(a);
  const node_pool::counters c = pool.finish();
  EXPECT_EQ(c.prefill_overflows, 1u);
  EXPECT_EQ(c.exhaustions, 0u);
  EXPECT_EQ(c.lost, 0u);
}

TEST(NodePool, InTheTimedPhaseAnEmptyPoolFailsTheAllocationUntilABlockIsFreed) {
  node_pool pool(2, pool_wait::yield);
  pool.begin_timed();
  void* a = pool.allocate(32, 8);
  void* b = pool.allocate(32, 8);
  EXPECT_THROW(pool.allocate(32, 8), smrbench::pool_exhausted);
  EXPECT_THROW(pool.allocate(32, 8), std::bad_alloc);  // what a caller that knows no pool catches
  pool.deallocate(a);
  void* c = pool.allocate(32, 8);
  EXPECT_EQ(c, a);  // LIFO: the block just freed
  pool.deallocate(b);
  pool.deallocate(c);
  pool.note_wait(1000, false);
  pool.note_wait(500, true);
  const node_pool::counters n = pool.finish();
  EXPECT_EQ(n.exhaustions, 2u);
  EXPECT_EQ(n.abandoned, 1u);
  EXPECT_DOUBLE_EQ(n.wait_s, 1.5e-6);
  EXPECT_EQ(n.prefill_overflows, 0u);
  EXPECT_EQ(n.lost, 0u);
}

TEST(NodePool, RefusesANodeLargerThanABlock) {
  node_pool pool(4, pool_wait::yield);
  EXPECT_THROW(pool.allocate(node_pool::block_size + 1, 8), std::length_error);
  EXPECT_EQ(pool.finish().lost, 0u);
}

// The ASan build leaves out UBSan's alignment check (CMakeLists.txt): this is where it would
// have mattered, a node memory resource serving over-aligned nodes.
TEST(NodePool, BlocksAreAlignedForAnyNodeThatFits) {
  node_pool pool(4, pool_wait::yield);
  std::vector<void*> blocks;
  for (int i = 0; i < 4; ++i) blocks.push_back(pool.allocate(node_pool::block_size, node_pool::block_size));
  for (void* p : blocks) {
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % node_pool::block_size, 0u);
    pool.deallocate(p);
  }
  EXPECT_EQ(pool.finish().lost, 0u);
}

TEST(NodePool, CountsABlockThatNeverCameBackAsLost) {
  node_pool pool(3, pool_wait::yield);
  void* a = pool.allocate(16, 8);
  EXPECT_EQ(pool.finish().lost, 1u);
  pool.deallocate(a);
  EXPECT_EQ(pool.finish().lost, 0u);
}

// Blocks handed between threads: each thread takes and frees blocks of a pool smaller than the
// thread count, writing its id into each one it holds; a block held by two threads at once, or a
// write lost across a hand-over, shows as a wrong id (TSan checks the hand-overs' ordering).
TEST_P(NodePoolWait, BlocksChangeHandsWithoutSharing) {
  constexpr unsigned threads = 4;
  const std::uint64_t rounds = smr::test::scaled_ops(20000);
  node_pool pool(3, GetParam());
  pool.begin_timed();
  std::atomic<std::uint64_t> clashes{0};
  smr::test::run_threads(threads, [&](unsigned t) {
    for (std::uint64_t i = 0; i < rounds; ++i) {
      void* p = nullptr;
      while (p == nullptr) {
        try {
          p = pool.allocate(sizeof(unsigned), alignof(unsigned));
        } catch (const smrbench::pool_exhausted&) {
          pool.pause();
        }
      }
      auto* id = static_cast<unsigned*>(p);
      *id = t;
      if ((i & 7) == 0) std::this_thread::yield();
      if (*id != t) clashes.fetch_add(1);
      pool.deallocate(p);
    }
  });
  EXPECT_EQ(clashes.load(), 0u);
  EXPECT_EQ(pool.finish().lost, 0u);
}

// A queue on a pool of a few dozen blocks, threads oversubscribed, each operation that finds the
// pool empty retried outside the operation, as smrbench does: blocks and the nodes in them change
// hands through the pool; every value survives, every block comes back. When every thread waits
// for garbage that will not be freed (HP frees only when a thread retires), the watchdog plays the
// trial's stop and the waiting operations are abandoned.
template <class R>
void queue_on_a_small_pool(pool_wait mode) {
  constexpr unsigned threads = 4;
  const std::uint64_t ops = smr::test::scaled_ops(4000);
  node_pool pool(64, mode);
  std::atomic<std::uint64_t> in_sum{0}, out_sum{0};
  std::uint64_t left_sum = 0;
  {
    installed guard(pool);
    R domain(smr::test::stress_config<R>::make());
    {
      smr::ms_queue<std::uint64_t, R> queue(domain);
      pool.begin_timed();
      std::atomic<bool> done{false}, stop{false};
      std::thread watchdog([&] {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (!done.load() && std::chrono::steady_clock::now() < deadline)
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
        stop.store(true);
      });
      smr::test::run_threads(threads, [&](unsigned t) {
        auto h = domain.attach();
        std::uint64_t mine_in = 0, mine_out = 0;
        for (std::uint64_t i = 0; i < ops && !stop.load(); ++i) {
          if ((i & 1) == 0) {
            const std::uint64_t v = (std::uint64_t{t} << 32) | i;
            bool added = false;
            while (!added && !stop.load()) {
              try {
                queue.enqueue(h, v);
                added = true;
              } catch (const smrbench::pool_exhausted&) {
                pool.pause();
              }
            }
            if (added) mine_in += v;
          } else if (auto v = queue.dequeue(h)) {
            mine_out += *v;
          }
        }
        in_sum.fetch_add(mine_in);
        out_sum.fetch_add(mine_out);
      });
      done.store(true);
      watchdog.join();
      auto h = domain.attach();
      while (auto v = queue.dequeue(h)) left_sum += *v;
    }
  }  // the queue, then the domain (every retired node freed), then the pool uninstalled
  EXPECT_EQ(in_sum.load(), out_sum.load() + left_sum);
  const node_pool::counters c = pool.finish();
  EXPECT_EQ(c.lost, 0u);
  EXPECT_EQ(c.prefill_overflows, 0u);
}

TEST_P(NodePoolWait, QueueUnderEbrGetsEveryBlockBack) { queue_on_a_small_pool<smr::ebr>(GetParam()); }
TEST_P(NodePoolWait, QueueUnderHpGetsEveryBlockBack) { queue_on_a_small_pool<smr::hp>(GetParam()); }

// Nodes allocated before the pool was installed, and freed while it is, go to operator delete
// (under ASan a pool block given to operator delete, or the reverse, is reported).
TEST(NodePool, NodesFromBeforeThePoolStillGoBackToOperatorDelete) {
  smr::ebr domain;
  node_pool pool(16, pool_wait::yield);
  auto queue = std::make_unique<smr::ms_queue<std::uint64_t, smr::ebr>>(domain);  // sentinel: operator new
  {
    auto h = domain.attach();
    queue->enqueue(h, 1);  // operator new
  }
  smr::core::set_node_memory_resource(&pool);
  {
    auto h = domain.attach();
    queue->enqueue(h, 2);  // from the pool
    EXPECT_EQ(pool.finish().lost, 1u);
    EXPECT_EQ(*queue->dequeue(h), 1u);  // retires the first sentinel (operator new)
    EXPECT_EQ(*queue->dequeue(h), 2u);  // retires value 1's node (operator new)
  }
  queue.reset();                        // frees the pool node, now the sentinel
  EXPECT_TRUE(domain.reclaim_now());    // frees the two operator-new nodes, pool installed
  smr::core::set_node_memory_resource(nullptr);
  EXPECT_EQ(pool.finish().lost, 0u);
}

}  // namespace
