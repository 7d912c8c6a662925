// Relacy model of LFRC (include/smr/reclaimers/lfrc.hpp) running the list model of
// list_model.hpp (LFRC refuses the Treiber stack of the other models: its pop writes a `next` it
// never took a reference to).
//
// What it exercises: the reader's SafeReads (add, re-read, give back on a moved link) against
// the remover's unlinks, whose counted CAS gives back the link's reference, so a node's last
// reference may go on either thread; the claim CAS that decides who reclaims; the recursive
// release of a reclaimed node's link; and allocation from the type-stable free list (churn = 1
// inserts key 3 into a block the removes just freed, while the reader may still add to its count;
// random search only, see lfrc_setup).
// A reclaimed node's destructor runs, so any later access to its links is reported as an access
// to freed memory; the block itself stays (type-stable), and the domain frees it at the end.
//
// Planted bug.
//  relacy_lfrc_planted (SMR_MODEL_PLANTED): lfrc_early_release (tests/support/
//    broken_reclaimers.hpp), whose SafeRead decrements the count before it validates the link and
//    keeps no reference: the remover's unlink reclaims node 1 or 2 while the reader is on it.
#include <type_traits>

#include "list_model.hpp"
#include "smr/reclaimers/lfrc.hpp"
#include "support/broken_reclaimers.hpp"

namespace {

// churn 0 for the exhaustive search (a second insert/remove pair takes it from 6 s to 33 s),
// churn 1 for a longer random search, which then also runs allocation from the free list.
template <int Churn>
struct lfrc_setup {
  using reclaimer = std::conditional_t<smr::model::planted, smr::test::lfrc_early_release, smr::lfrc>;
  static smr::lfrc::config config() { return {.slots = 3}; }
  static constexpr int churn = Churn;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace smr::model;
  const int exhaustive = run<list_model<lfrc_setup<0>>>("lfrc / hm_list, 2 threads", {random_search(50000), bounded_search(1)}, argc, argv);
  const int reuse = run<list_model<lfrc_setup<1>>>("lfrc / hm_list with block reuse, 2 threads", {random_search(300000)}, argc, argv);
  // Each run returns 0 for its expected outcome: every search passed, or the plant was caught.
  if constexpr (planted) return exhaustive == 0 || reuse == 0 ? 0 : 1;
  return exhaustive != 0 ? exhaustive : reuse;
}
