// Concurrent stress of treiber_stack with every reclaimer: oversubscribed threads push unique
// values and pop; afterwards every pushed value was popped exactly once or is still inside.
#include <algorithm>
#include <cstdint>
#include <mutex>
#include <vector>

#include "support/reclaimers.hpp"
#include "support/stress.hpp"

namespace {

template <class R>
class TreiberStackStress : public ::testing::Test {};
TYPED_TEST_SUITE(TreiberStackStress, smr::test::structure_reclaimers, smr::test::reclaimer_name);

template <class R>
void run_compatible_stack(unsigned threads, std::uint64_t ops_per_thread);

template <class R>
void run_stack(unsigned threads, std::uint64_t ops_per_thread) {
  using DS = smr::treiber_stack<std::uint64_t, R>;
  if constexpr (!smr::compatible_v<DS, R>) {
    GTEST_SKIP() << smr::incompatibility(R::traits, DS::requirements);
  } else {
    run_compatible_stack<R>(threads, ops_per_thread);
  }
}

template <class R>
void run_compatible_stack(unsigned threads, std::uint64_t ops_per_thread) {
  R domain(smr::test::stress_config<R>::make());
  std::vector<std::uint64_t> pushed, popped;
  std::mutex merge;
  {
    smr::treiber_stack<std::uint64_t, R> stack(domain);
    smr::test::run_threads(threads, [&](unsigned t) {
      auto h = domain.attach();
      smr::test::rng rng(t + 1);
      std::vector<std::uint64_t> my_pushed, my_popped;
      for (std::uint64_t i = 0; i < ops_per_thread; ++i) {
        if (rng.below(2) == 0) {
          const std::uint64_t v = (std::uint64_t{t} << 40) | i;
          stack.push(h, v);
          my_pushed.push_back(v);
        } else if (auto v = stack.pop(h)) {
          my_popped.push_back(*v);
        }
      }
      std::lock_guard<std::mutex> g(merge);
      pushed.insert(pushed.end(), my_pushed.begin(), my_pushed.end());
      popped.insert(popped.end(), my_popped.begin(), my_popped.end());
    });
    stack.for_each_unsafe([&](std::uint64_t v) { popped.push_back(v); });
    const auto s = domain.stats();
    EXPECT_LE(s.freed, s.retired);
  }
  std::sort(pushed.begin(), pushed.end());
  std::sort(popped.begin(), popped.end());
  EXPECT_EQ(pushed, popped) << "values lost or duplicated";
}

TYPED_TEST(TreiberStackStress, OversubscribedMixed) {
  run_stack<TypeParam>(8, smr::test::scaled_ops(20000));
}

TYPED_TEST(TreiberStackStress, TwoThreadsHeavy) {
  run_stack<TypeParam>(2, smr::test::scaled_ops(50000));
}

}  // namespace
