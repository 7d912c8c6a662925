// Concurrent stress of the Michael-Scott queue with every reclaimer: oversubscribed threads
// enqueue unique values (producer id, sequence number) and dequeue. Afterwards every value
// enqueued was dequeued exactly once or is still inside, each consumer saw each producer's
// values in increasing order, and no value of a producer is left inside behind one that was
// dequeued (FIFO per producer).
#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "support/reclaimers.hpp"
#include "support/stress.hpp"

namespace {

template <class R>
class MsQueueStress : public ::testing::Test {};
TYPED_TEST_SUITE(MsQueueStress, smr::test::structure_reclaimers, smr::test::reclaimer_name);

constexpr unsigned seq_bits = 40;
std::uint64_t producer_of(std::uint64_t v) { return v >> seq_bits; }
std::uint64_t seq_of(std::uint64_t v) { return v & ((std::uint64_t{1} << seq_bits) - 1); }

// enqueue_pct: share of operations that enqueue (the rest dequeue).
template <class R>
void run_queue(unsigned threads, std::uint64_t ops_per_thread, unsigned enqueue_pct) {
  using DS = smr::ms_queue<std::uint64_t, R>;
  if constexpr (!smr::compatible_v<DS, R>) {
    GTEST_SKIP() << smr::incompatibility(R::traits, DS::requirements);
  } else {
    R domain(smr::test::stress_config<R>::make());
    std::vector<std::uint64_t> enqueued, dequeued, remaining;
    std::uint64_t order_violations = 0;
    std::mutex merge;
    {
      DS queue(domain);
      smr::test::run_threads(threads, [&](unsigned t) {
        auto h = domain.attach();
        smr::test::rng rng(t + 1);
        std::vector<std::uint64_t> mine_in, mine_out;
        std::uint64_t seq = 0;
        for (std::uint64_t i = 0; i < ops_per_thread; ++i) {
          if (rng.below(100) < enqueue_pct) {
            const std::uint64_t v = (std::uint64_t{t} << seq_bits) | seq++;
            queue.enqueue(h, v);
            mine_in.push_back(v);
          } else if (auto v = queue.dequeue(h)) {
            mine_out.push_back(*v);
          }
        }
        // This consumer's view: each producer's values in increasing sequence order.
        std::map<std::uint64_t, std::uint64_t> last_seq;
        std::uint64_t violations = 0;
        for (std::uint64_t v : mine_out) {
          auto [it, fresh] = last_seq.try_emplace(producer_of(v), seq_of(v));
          if (!fresh) {
            if (seq_of(v) <= it->second) ++violations;
            it->second = seq_of(v);
          }
        }
        std::lock_guard<std::mutex> g(merge);
        order_violations += violations;
        enqueued.insert(enqueued.end(), mine_in.begin(), mine_in.end());
        dequeued.insert(dequeued.end(), mine_out.begin(), mine_out.end());
      });
      queue.for_each_unsafe([&](std::uint64_t v) { remaining.push_back(v); });
      EXPECT_EQ(queue.check_invariants_unsafe(), "");
      EXPECT_EQ(queue.size_unsafe(), remaining.size());
      const auto s = domain.stats();
      EXPECT_LE(s.freed, s.retired);
    }
    EXPECT_EQ(order_violations, 0u) << "a consumer saw a producer's values out of order";

    // What is left inside is in FIFO order per producer, and all of it comes after everything
    // of that producer that was dequeued.
    std::map<std::uint64_t, std::uint64_t> max_dequeued, last_remaining;
    for (std::uint64_t v : dequeued) {
      auto& m = max_dequeued[producer_of(v)];
      m = std::max(m, seq_of(v) + 1);  // +1: 0 means "none"
    }
    std::uint64_t fifo_violations = 0;
    for (std::uint64_t v : remaining) {
      const std::uint64_t p = producer_of(v);
      auto it = max_dequeued.find(p);
      if (it != max_dequeued.end() && seq_of(v) + 1 <= it->second) ++fifo_violations;
      auto [last, fresh] = last_remaining.try_emplace(p, seq_of(v));
      if (!fresh) {
        if (seq_of(v) <= last->second) ++fifo_violations;
        last->second = seq_of(v);
      }
    }
    EXPECT_EQ(fifo_violations, 0u) << "values overtook an earlier value of the same producer";

    std::vector<std::uint64_t> out = dequeued;
    out.insert(out.end(), remaining.begin(), remaining.end());
    std::sort(enqueued.begin(), enqueued.end());
    std::sort(out.begin(), out.end());
    EXPECT_EQ(enqueued, out) << "values lost or duplicated";
  }
}

TYPED_TEST(MsQueueStress, OversubscribedMixed) {
  run_queue<TypeParam>(8, smr::test::scaled_ops(12000), 50);
}

// More dequeues than enqueues: the queue is often empty, so the sentinel and a lagging tail
// are contended (dequeue must help tail before moving head).
TYPED_TEST(MsQueueStress, OversubscribedMostlyEmpty) {
  run_queue<TypeParam>(8, smr::test::scaled_ops(12000), 35);
}

TYPED_TEST(MsQueueStress, TwoThreadsHeavy) {
  run_queue<TypeParam>(2, smr::test::scaled_ops(40000), 50);
}

}  // namespace
