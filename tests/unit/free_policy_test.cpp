// The free policies: batch_free hands a safe batch to the allocator at once; amortized_free
// parks it and frees PerOperation nodes at the start of each operation (plus as many as the
// thread retired since its previous one, and more for a large backlog), and everything at
// exit. And the free profile both feed (smr/core/free_profile.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "smr/smr.hpp"

namespace {

using ebr_af = smr::basic_ebr<smr::core::amortized_free<2>>;

struct counted : smr::core::retired_node {};

// Retires `n` nodes inside one operation.
template <class Handle>
void retire_batch(Handle& h, int n) {
  auto g = h.begin_op();
  for (int i = 0; i < n; ++i) g.retire(g.template create<counted>());
}

TEST(AmortizedFree, FreesAFewNodesPerOperationOnceSafe) {
  ebr_af domain({.advance_every = 1});
  auto h = domain.attach();
  retire_batch(h, 100);
  // Operations advance the epoch until the batch is safe; from then on it is parked and
  // trickles out, so the first operation that frees anything frees at most two nodes.
  std::uint64_t freed = 0;
  for (int op = 0; op < 20 && freed == 0; ++op) {
    { auto g = h.begin_op(); }
    freed = domain.stats().freed;
  }
  ASSERT_GT(freed, 0u) << "the batch never became safe";
  EXPECT_LE(freed, 2u) << "a 100-node batch must not be freed in one go";
  EXPECT_EQ(domain.stats().retired, 100u);
  // Each further operation frees at most two nodes.
  for (int op = 0; op < 10; ++op) {
    const auto s0 = domain.stats().freed;
    { auto g = h.begin_op(); }
    const auto s1 = domain.stats().freed;
    EXPECT_LE(s1 - s0, 2u);
  }
  // Enough operations drain everything.
  for (int op = 0; op < 200; ++op) { auto g = h.begin_op(); }
  EXPECT_EQ(domain.stats().freed, 100u);
  EXPECT_EQ(domain.stats().unreclaimed, 0);
}

// An update that retires many nodes (a persistent tree's copied path) must not outrun the
// policy: the backlog stays at what the epoch holds back instead of growing with every
// operation.
TEST(AmortizedFree, KeepsPaceWithManyRetirementsPerOperation) {
  ebr_af domain({.advance_every = 1});
  auto h = domain.attach();
  std::int64_t worst = 0;
  for (int op = 0; op < 2000; ++op) {
    retire_batch(h, 20);
    if (op >= 100) worst = std::max<std::int64_t>(worst, domain.stats().unreclaimed);
  }
  EXPECT_EQ(domain.stats().retired, 40000u);
  // A fixed two frees per operation would leave about 18 x 1,900 nodes behind by now.
  EXPECT_LT(worst, 400) << "the amortized backlog grew with the number of operations";
}

// A large safe batch drains within drain_within operations, spread evenly over them
// (free_policy.hpp says why), instead of at two frees per operation.
TEST(AmortizedFree, DrainsALargeBacklogWithinDrainWithin) {
  ebr_af domain({.advance_every = 1});
  constexpr std::size_t within = ebr_af::free_policy::drain_within;
  constexpr std::size_t n = 10 * within + 7;
  constexpr std::uint64_t per_operation = (n + within - 1) / within;  // 11
  auto h = domain.attach();
  retire_batch(h, static_cast<int>(n));
  std::uint64_t freed = 0;
  for (int op = 0; op < 20 && freed == 0; ++op) {
    { auto g = h.begin_op(); }
    freed = domain.stats().freed;
  }
  ASSERT_GT(freed, 0u) << "the batch never became safe";
  std::size_t operations = 1;
  std::uint64_t most = freed;
  while (freed < n && operations < 2 * within) {
    { auto g = h.begin_op(); }
    const std::uint64_t now = domain.stats().freed;
    most = std::max(most, now - freed);
    freed = now;
    ++operations;
  }
  EXPECT_EQ(freed, n);
  EXPECT_LE(operations, within) << "the backlog took longer than drain_within operations";
  EXPECT_EQ(most, per_operation) << "frees were not spread evenly over the operations";
}

TEST(AmortizedFree, ThreadExitFreesParkedNodes) {
  ebr_af domain({.advance_every = 1});
  {
    auto h = domain.attach();
    retire_batch(h, 50);
    for (int op = 0; op < 5; ++op) { auto g = h.begin_op(); }
  }
  // Whatever was safe was flushed at exit; the rest went to the domain's orphans.
  const auto s = domain.stats();
  EXPECT_EQ(s.retired, 50u);
  EXPECT_EQ(static_cast<std::int64_t>(s.retired - s.freed), s.unreclaimed);
}

// The addresses of the nodes a deleter freed, in order (as numbers: the nodes are gone).
std::vector<std::uintptr_t>& free_order() {
  static std::vector<std::uintptr_t> order;
  return order;
}
struct record_free {
  void operator()(counted* n) const {
    free_order().push_back(reinterpret_cast<std::uintptr_t>(n));
    delete n;
  }
};

// Retires `n` nodes, allocated by new in one go and retired in a shuffled order, in one
// operation, then runs operations until all are freed; returns the retirement order.
std::vector<std::uintptr_t> retire_shuffled_and_drain(ebr_af& domain, std::size_t n) {
  free_order().clear();
  std::vector<counted*> nodes;
  for (std::size_t i = 0; i < n; ++i) nodes.push_back(new counted);
  std::shuffle(nodes.begin(), nodes.end(), std::mt19937_64{n});
  std::vector<std::uintptr_t> retired;
  auto h = domain.attach();
  {
    auto g = h.begin_op();
    for (counted* c : nodes) {
      retired.push_back(reinterpret_cast<std::uintptr_t>(c));
      g.retire(c, record_free{});
    }
  }
  for (int op = 0; op < 100'000 && free_order().size() < n; ++op) { auto g = h.begin_op(); }
  return retired;
}

// Small batches parked behind a large one do not slow its drain: the rate only rises while a
// backlog remains. Here every operation retires a node, so a small batch arrives nearly every
// operation; recomputing the rate from what is left let the large batch decay instead (1,658
// operations here).
TEST(AmortizedFree, SmallBatchesBehindALargeOneDoNotSlowItsDrain) {
  ebr_af domain({.advance_every = 1});
  constexpr std::size_t within = ebr_af::free_policy::drain_within;
  constexpr std::size_t n = 10 * within + 7;
  free_order().clear();
  auto h = domain.attach();
  {
    auto g = h.begin_op();
    for (std::size_t i = 0; i < n; ++i) g.retire(g.template create<counted>(), record_free{});
  }
  std::size_t operations = 0;
  while (free_order().size() < n && operations < 4 * within) {
    retire_batch(h, 1);  // a plain node: not recorded
    if (!free_order().empty()) ++operations;  // counting from the first free of the large batch
  }
  EXPECT_EQ(free_order().size(), n);
  EXPECT_LE(operations, within) << "later small batches stretched the large batch's drain";
}

// A safe batch of sort_from nodes (the threshold itself) is parked in address order
// (free_policy.hpp says why); the nodes are freed in that order, each once.
TEST(AmortizedFree, ParksALargeSafeBatchInAddressOrder) {
  ebr_af domain({.advance_every = 1});
  constexpr std::size_t n = ebr_af::free_policy::sort_from;
  std::vector<std::uintptr_t> retired = retire_shuffled_and_drain(domain, n);
  ASSERT_EQ(free_order().size(), n);
  EXPECT_TRUE(std::is_sorted(free_order().begin(), free_order().end()));
  std::sort(retired.begin(), retired.end());
  EXPECT_EQ(free_order(), retired);
}

// One node fewer keeps its retirement order: sorting a few nodes costs more than their order
// saves.
TEST(AmortizedFree, KeepsASmallSafeBatchInRetirementOrder) {
  ebr_af domain({.advance_every = 1});
  const std::vector<std::uintptr_t> retired = retire_shuffled_and_drain(domain, ebr_af::free_policy::sort_from - 1);
  EXPECT_EQ(free_order(), retired);
}

TEST(BatchFree, FreesTheWholeSafeBatchAtOnce) {
  smr::ebr domain({.advance_every = 1});
  auto h = domain.attach();
  retire_batch(h, 100);
  std::uint64_t freed = 0;
  for (int op = 0; op < 10 && freed == 0; ++op) {
    { auto g = h.begin_op(); }
    freed = domain.stats().freed;
  }
  EXPECT_EQ(freed, 100u);
}

// ---------------------------------------------------------------------------------------------
// The free profile

// Retires `total` nodes in operations of `per_op`, then lets the thread exit (which frees or
// donates the rest).
template <class R>
void churn(R& domain, int total, int per_op) {
  auto h = domain.attach();
  for (int done = 0; done < total; done += per_op) retire_batch(h, per_op);
  for (int op = 0; op < 100; ++op) { auto g = h.begin_op(); }
}

// About one free call in free_profile::sample_every is timed, whichever path frees it.
void expect_sampled_share(std::uint64_t samples, std::uint64_t freed) {
  const double per_sample = static_cast<double>(freed) / static_cast<double>(samples);
  EXPECT_GT(per_sample, smr::core::free_profile::sample_every * 0.8) << samples << " samples of " << freed;
  EXPECT_LT(per_sample, smr::core::free_profile::sample_every * 1.25) << samples << " samples of " << freed;
}

TEST(FreeProfile, BatchFreesRecordEveryLargeBatchAndSampledCalls) {
  smr::core::free_profile profile;
  smr::ebr domain({.advance_every = 1}, {nullptr, &profile});
  churn(domain, 200'000, 100);  // batches of 100 nodes or more: each one timed
  const auto s = domain.stats();
  const smr::core::free_profile_buffer p = profile.merged();
  ASSERT_GT(s.free_batches, 100u);
  EXPECT_EQ(p.batches.samples(), s.free_batches) << "one batch sample per batch free";
  expect_sampled_share(p.calls.samples(), s.freed);
  // A batch contains its calls: the longest batch outlasts the longest sampled call.
  EXPECT_GE(p.batches.max(), p.calls.max());
}

// Batches of 4 nodes: about one in small_batch_sample_every is timed, weighted so that the
// histogram still counts (about) every batch; and the time in free is still accounted.
TEST(FreeProfile, SmallBatchesAreSampledAndWeighted) {
  smr::core::free_profile profile;
  smr::ebr domain({.advance_every = 1}, {nullptr, &profile});
  churn(domain, 200'000, 4);
  const auto s = domain.stats();
  const smr::core::free_profile_buffer p = profile.merged();
  ASSERT_GT(s.free_batches, 10'000u);
  const double estimate = static_cast<double>(p.batches.samples()) / static_cast<double>(s.free_batches);
  EXPECT_GT(estimate, 0.9);
  EXPECT_LT(estimate, 1.1);
  EXPECT_EQ(p.batches.samples() % smr::core::free_profile::small_batch_sample_every, 0u)
      << "every small batch timed counts for small_batch_sample_every";
  EXPECT_GT(s.free_time_ns, 0u);
}

// A timeline draws every batch, so with one every batch is timed, however small.
TEST(FreeProfile, WithATimelineEverySmallBatchIsTimed) {
  smr::core::timeline events;
  smr::core::free_profile profile;
  smr::ebr domain({.advance_every = 1}, {&events, &profile});
  churn(domain, 20'000, 4);
  const auto s = domain.stats();
  ASSERT_GT(s.free_batches, 1'000u);
  EXPECT_EQ(profile.merged().batches.samples(), s.free_batches);
}

TEST(FreeProfile, AmortizedFreesAreSampledAlike) {
  smr::core::free_profile profile;
  ebr_af domain({.advance_every = 1}, {nullptr, &profile});
  churn(domain, 200'000, 1);
  const auto s = domain.stats();
  const smr::core::free_profile_buffer p = profile.merged();
  expect_sampled_share(p.calls.samples(), s.freed);
  // Only the exit flush frees a batch.
  EXPECT_LE(p.batches.samples(), 1u);
}

// What a free policy does on the way to the allocator (amortized free's sort of a large batch)
// is timed each and counted as time in free.
TEST(FreeProfile, WorkBeforeFreeingCountsAsTimeInFree) {
  smr::core::thread_stats stats;
  smr::core::unreclaimed_gauge gauge;
  smr::detail::thread_core tc(stats, gauge, nullptr);
  tc.free_work([] { std::this_thread::sleep_for(std::chrono::milliseconds(2)); });
  // At least the sleep, less the clock's own cost that net_interval_ns takes off.
  EXPECT_GE(stats.free_time_ns.read(), 1'900'000u);
  EXPECT_EQ(stats.freed.read(), 0u) << "free_work frees nothing itself";
}

TEST(FreeProfile, RestartClearsAndADomainWithoutOneRecordsNothing) {
  smr::core::free_profile profile;
  {
    smr::ebr domain({.advance_every = 1}, {nullptr, &profile});
    churn(domain, 10'000, 10);
  }
  ASSERT_GT(profile.merged().calls.samples(), 0u);
  profile.restart();
  EXPECT_EQ(profile.merged().calls.samples(), 0u);
  EXPECT_EQ(profile.merged().batches.samples(), 0u);
  smr::ebr other({.advance_every = 1});  // no instruments
  churn(other, 10'000, 10);
  EXPECT_EQ(profile.merged().calls.samples(), 0u);
}

}  // namespace
