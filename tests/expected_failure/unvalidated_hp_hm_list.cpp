// PLANTED BUG, must be detected (ctest WILL_FAIL): Harris-Michael list over
// unvalidated_protect<hp>, hazard pointers whose protect() publishes the pointer it read but
// never re-reads the link to validate it (the run: unvalidated_hm_list.hpp).
#include "unvalidated_hm_list.hpp"

TEST(Planted, UnvalidatedHazardPointersHmList) {
  smr::test::planted::unvalidated_hm_list<smr::test::unvalidated_protect<smr::hp>>();
}
