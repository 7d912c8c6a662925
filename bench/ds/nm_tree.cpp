#include "register_ds.hpp"
#include "smr/ds/nm_tree.hpp"

SMRBENCH_DATA_STRUCTURE(smr::nm_tree);
