#include "register_ds.hpp"
#include "smr/ds/ms_queue.hpp"

SMRBENCH_DATA_STRUCTURE(smr::ms_queue);
