// The umbrella header: every reclaimer and every data structure.
#pragma once

#include "smr/reclaimers/debra.hpp"
#include "smr/reclaimers/ebr.hpp"
#include "smr/reclaimers/hp.hpp"
#include "smr/reclaimers/ibr_2ge.hpp"
#include "smr/reclaimers/nbr.hpp"
#include "smr/reclaimers/none.hpp"
#include "smr/reclaimers/qsbr.hpp"

#include "smr/ds/hash_map.hpp"
#include "smr/ds/hm_list.hpp"
#include "smr/ds/lazy_list.hpp"
#include "smr/ds/ms_queue.hpp"
#include "smr/ds/treiber_stack.hpp"
