// The umbrella header: every reclaimer and every data structure.
#pragma once

#include "smr/reclaimers/ebr.hpp"
#include "smr/reclaimers/none.hpp"

#include "smr/ds/treiber_stack.hpp"
