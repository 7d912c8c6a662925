// Thread placement (--pin), following the papers' practice.
//
//  compact: fill one socket first: one thread per physical core, then the cores' hyperthread
//           siblings, then the next socket the same way (Epochs §3, IBR §5).
//  scatter: spread over sockets first: round-robin across sockets, physical cores before
//           hyperthread siblings.
// Only CPUs in the process's affinity mask are used; more threads than CPUs wrap around. The
// topology and the binding come from hwloc when smrbench is built with it, else from /sys and
// sched_setaffinity (topology.hpp).
#pragma once

#include <string>
#include <vector>

#include "options.hpp"

namespace smrbench {

// The CPU for each of `threads` workers, or an empty vector for pin_policy::none.
std::vector<int> cpu_assignment(pin_policy policy, unsigned threads);

// Pins the calling thread; returns an error message or "".
std::string pin_current_thread(int cpu);

}  // namespace smrbench
