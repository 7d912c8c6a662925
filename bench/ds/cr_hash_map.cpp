#include "register_ds.hpp"
#include "smr/ds/cr_hash_map.hpp"

SMRBENCH_DATA_STRUCTURE(smr::cr_hash_map);
