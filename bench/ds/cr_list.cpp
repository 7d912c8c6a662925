#include "register_ds.hpp"
#include "smr/ds/cr_list.hpp"

SMRBENCH_DATA_STRUCTURE(smr::cr_list);
