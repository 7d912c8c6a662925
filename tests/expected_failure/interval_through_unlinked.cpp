// PLANTED BUG, must be detected (ctest WILL_FAIL): the lazy list over ibr_2ge made to claim
// that it protects searches through unlinked nodes (claims_unlinked_traversal). The list's
// links are frozen once a node is marked, yet a reader standing on an unlinked node can read
// from it a node born after its reserved interval and already retired and freed: the re-read
// that validates a live link cannot notice on a frozen one (reclaimers/ibr_2ge.hpp, "When not
// to use it"). This is why interval schemes are refused on lazy_list and nm_tree although the
// IBR paper runs them on the Natarajan-Mittal tree.
#include "planted.hpp"
#include "smr/ds/lazy_list.hpp"
#include "smr/reclaimers/ibr_2ge.hpp"
#include "support/set_stress.hpp"

TEST(Planted, IntervalThroughUnlinkedLazyList) {
  using namespace smr::test;
  using R = claims_unlinked_traversal<smr::ibr_2ge>;
  planted::arm();
  planted::until_detected(std::chrono::seconds(30), [] {
    run_set_stress<smr::lazy_list<std::uint64_t, R>, R>(
        {.threads = 8, .key_range = 16, .ops_per_thread = 4000});
  });
}
