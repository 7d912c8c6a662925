#include "register_ds.hpp"
#include "smr/ds/bonsai_tree.hpp"

SMRBENCH_DATA_STRUCTURE(smr::bonsai_tree);
