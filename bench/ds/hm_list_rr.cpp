#include "register_ds.hpp"
#include "smr/ds/hm_list.hpp"

SMRBENCH_DATA_STRUCTURE(smr::hm_list_rr);
