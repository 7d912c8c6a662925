#include "register_ds.hpp"
#include "smr/ds/ab_tree.hpp"

SMRBENCH_DATA_STRUCTURE(smr::ab_tree);
