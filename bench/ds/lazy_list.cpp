#include "register_ds.hpp"
#include "smr/ds/lazy_list.hpp"

SMRBENCH_DATA_STRUCTURE(smr::lazy_list);
