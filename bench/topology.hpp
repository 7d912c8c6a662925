// The machine's processors and caches: described in every record (env.machine) and used by
// --pin. Read with hwloc when smrbench was built with it (SMRBENCH_HAVE_HWLOC), which knows every
// platform's topology; otherwise from /proc and /sys (Linux), which suffices for packages, cores,
// hyperthreads, caches and NUMA nodes on the usual x86 and Arm servers. The source used is
// recorded (machine_topology::source), so a record says how far its description can be trusted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace smrbench {

struct cache_level {
  unsigned level = 0;          // 1, 2, 3, ...
  std::string type;            // "data", "instruction" or "unified"
  std::uint64_t size_bytes = 0;  // of one instance
  unsigned line_bytes = 0;     // 0 when unknown
  unsigned instances = 0;      // in the machine
  unsigned cpus_sharing = 0;   // hardware threads that share one instance
};

struct machine_topology {
  std::string source;     // "hwloc 2.9.0" or "/proc and /sys (...why...)"
  std::string cpu_model;  // "unknown" when neither source names it
  unsigned sockets = 0;   // processor packages
  unsigned cores = 0;     // physical cores
  unsigned cpus = 0;      // hardware threads (processing units)
  unsigned numa_nodes = 0;
  std::vector<cache_level> caches;  // by level, then data, instruction, unified
};

// Read once, on first use (not thread-safe before that: call it from the main thread first).
const machine_topology& topology();

// Where a CPU the process may run on (its affinity mask) sits, for --pin's orderings.
struct cpu_place {
  int cpu;      // the operating system's number (as in taskset, /sys/devices/system/cpu/cpuN)
  int package;  // dense index of its package
  int core;     // dense index of its physical core within the package
  int sibling;  // 0 for the first hardware thread of a core, 1 for the second, ...
};
std::vector<cpu_place> allowed_cpu_places();

// Binds the calling thread to one CPU (its operating-system number); returns "" or the error.
std::string bind_current_thread(int cpu);

}  // namespace smrbench
