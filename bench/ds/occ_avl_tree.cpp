#include "register_ds.hpp"
#include "smr/ds/occ_avl_tree.hpp"

SMRBENCH_DATA_STRUCTURE(smr::occ_avl_tree);
