#include "register_ds.hpp"
#include "smr/ds/harris_list.hpp"

SMRBENCH_DATA_STRUCTURE(smr::harris_list);
