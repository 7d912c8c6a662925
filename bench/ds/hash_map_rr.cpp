#include "register_ds.hpp"
#include "smr/ds/hash_map.hpp"

SMRBENCH_DATA_STRUCTURE(smr::hash_map_rr);
