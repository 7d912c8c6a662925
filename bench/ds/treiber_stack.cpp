#include "register_ds.hpp"
#include "smr/ds/treiber_stack.hpp"

SMRBENCH_DATA_STRUCTURE(smr::treiber_stack);
