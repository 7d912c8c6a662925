// What a domain may be asked to record besides its statistics: a timeline of events
// (timeline.hpp) and a profile of free calls (free_profile.hpp). Both are optional, owned by the
// caller and must outlive the domain; a domain without them pays one null check where it would
// record.
#pragma once

#include "smr/core/free_profile.hpp"
#include "smr/core/timeline.hpp"

namespace smr::core {

struct instruments {
  // Implicit from a timeline alone: `domain d(cfg, &timeline)`.
  instruments(timeline* events = nullptr, free_profile* frees = nullptr) : events(events), frees(frees) {}  // NOLINT

  timeline* events;
  free_profile* frees;
};

}  // namespace smr::core
