// The free policies: batch_free hands a safe batch to the allocator at once; amortized_free
// parks it and frees PerOperation nodes at the start of each operation (plus as many as the
// thread retired since its previous one), and everything at exit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

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

}  // namespace
