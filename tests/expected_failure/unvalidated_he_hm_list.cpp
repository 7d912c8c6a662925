// PLANTED BUG, must be detected (ctest WILL_FAIL): Harris-Michael list over
// unvalidated_protect<he>, hazard eras whose protect() publishes the era of the node it read
// but never re-reads the link to validate it (the run: unvalidated_hm_list.hpp).
#include "unvalidated_hm_list.hpp"

TEST(Planted, UnvalidatedHazardErasHmList) {
  smr::test::planted::unvalidated_hm_list<smr::test::unvalidated_protect<smr::he>>();
}
