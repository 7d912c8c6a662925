// Relacy model of TagIBR (include/smr/reclaimers/tag_ibr.hpp) running the list model of
// list_model.hpp (TagIBR refuses the Treiber stack of the other models). Built for tag_ibr
// and, with SMR_MODEL_WCAS, for tag_ibr_wcas (the pair link: one model atomic, so Relacy
// checks that protect() takes the pointer and its tag from one snapshot), and with
// SMR_MODEL_TPA for tag_ibr_tpa (the birth read from the node: a freed node's destructor has
// run in its pool block, so a read of it is reported as an access to a destroyed model atomic).
//
// Configuration: the era advances at every allocation (epoch_frequency = 1, not scaled) and
// every retirement scans (empty_frequency = 1), so a removed node is freed as soon as it is
// retired unless the reader's interval covers it; churn = 0 (the two removes already retire
// and scan; churn 1 took the exhaustive search from seconds to two minutes).
//
// Planted bug.
//  relacy_tag_ibr_planted (SMR_MODEL_PLANTED): the scan reads each reservation with its lower
//    end one era too high (interval_off_by_one, tests/support/broken_reclaimers.hpp): a node
//    retired in the era the reader's operation began is not seen as reserved and is freed
//    under the reader.
#include <type_traits>

#include "list_model.hpp"
#include "smr/reclaimers/tag_ibr.hpp"
#include "support/broken_reclaimers.hpp"

namespace {

#if defined(SMR_MODEL_WCAS)
using variant = smr::tag_ibr_wcas;
constexpr const char* model_name = "tag_ibr_wcas / hm_list, 2 threads";
#elif defined(SMR_MODEL_TPA)
using variant = smr::tag_ibr_tpa;
constexpr const char* model_name = "tag_ibr_tpa / hm_list, 2 threads";
#else
using variant = smr::tag_ibr;
constexpr const char* model_name = "tag_ibr / hm_list, 2 threads";
#endif

struct tag_ibr_setup {
  using reclaimer =
      std::conditional_t<smr::model::planted, smr::test::interval_off_by_one<variant>, variant>;
  static typename variant::config config() {
    return {.epoch_frequency = 1, .scale_epoch_frequency = false, .empty_frequency = 1};
  }
  static constexpr int churn = 0;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace smr::model;
  return run<list_model<tag_ibr_setup>>(model_name,
                                        {random_search(100000), bounded_search(1)}, argc, argv);
}
