// hp_asym where membarrier is unavailable: SMR_NO_MEMBARRIER=1 is set before the first hp_asym
// domain of this process exists (the decision is made once, by that domain), which takes the
// same path as a kernel without MEMBARRIER_CMD_PRIVATE_EXPEDITED. Checked:
//  - the domain reports the symmetric fallback (a seq_cst fence on both sides, as smr::hp);
//  - the warning is printed once per process, naming the reason, and not again for later domains;
//  - the fallback is a working HP: a set stress passes;
//  - token, rcu and nbr, which share the pair, fall back with it and work too (nbr: a seq_cst
//    fence on entering each read phase and at each round, where membarrier was).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "smr/smr.hpp"
#include "support/set_stress.hpp"

namespace {

// Before main() and before any domain: the decision reads the environment once.
const bool forced = [] {
  ::setenv("SMR_NO_MEMBARRIER", "1", 1);
  return true;
}();

TEST(HpAsymFallback, WarnsOnceAndUsesSymmetricFences) {
  ASSERT_TRUE(forced);
  ::testing::internal::CaptureStderr();
  {
    smr::hp_asym first;
    EXPECT_FALSE(first.fence_policy().asymmetric());
    smr::hp_asym_af second;
    EXPECT_FALSE(second.fence_policy().asymmetric());
  }
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("smr: membarrier unavailable (SMR_NO_MEMBARRIER=1 is set); falling back to symmetric fences"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find("membarrier unavailable"), err.rfind("membarrier unavailable")) << "warned more than once: " << err;
}

// token, rcu and nbr use the same pair (detail/asymmetric_fence.hpp) and the same decision.
TEST(HpAsymFallback, TokenRcuAndNbrFallBackAndWork) {
  ASSERT_TRUE(forced);
  EXPECT_FALSE(smr::token{}.fence_policy().asymmetric());
  EXPECT_FALSE(smr::rcu{}.fence_policy().asymmetric());
  EXPECT_FALSE(smr::nbr{}.fence_policy().asymmetric());
  smr::test::run_set_stress<smr::hm_list_rr<std::uint64_t, smr::nbr>, smr::nbr>(
      {.threads = 4, .key_range = 16, .ops_per_thread = 4000});
  smr::test::run_set_stress<smr::hm_list<std::uint64_t, smr::token>, smr::token>(
      {.threads = 4, .key_range = 16, .ops_per_thread = 4000});
  smr::test::run_set_stress<smr::hm_list<std::uint64_t, smr::rcu>, smr::rcu>(
      {.threads = 4, .key_range = 16, .ops_per_thread = 4000});
}

TEST(HpAsymFallback, StressPasses) {
  using R = smr::hp_asym;
  smr::test::run_set_stress<smr::hm_list<std::uint64_t, R>, R>(
      {.threads = 4, .key_range = 16, .ops_per_thread = 4000});
}

}  // namespace
