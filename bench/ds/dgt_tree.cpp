#include "register_ds.hpp"
#include "smr/ds/dgt_tree.hpp"

SMRBENCH_DATA_STRUCTURE(smr::dgt_tree);
