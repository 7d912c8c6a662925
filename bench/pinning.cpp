#include "pinning.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <tuple>

namespace smrbench {

namespace {

int read_topology(int cpu, const char* what) {
  std::ifstream in("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/" + what);
  int v = 0;
  return (in >> v) ? v : 0;
}

struct cpu_place {
  int cpu;
  int package;
  int core;     // dense index of the physical core within its package
  int sibling;  // 0 for the first hyperthread of a core, 1 for the second, ...
};

std::vector<cpu_place> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<cpu_place> out;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return out;
  std::map<std::pair<int, int>, int> siblings_seen;  // (package, core_id) -> hyperthreads so far
  std::map<int, std::map<int, int>> core_index;      // package -> core_id -> dense index
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    const int package = read_topology(cpu, "physical_package_id");
    const int core_id = read_topology(cpu, "core_id");
    auto& cores = core_index[package];
    const int dense = cores.emplace(core_id, static_cast<int>(cores.size())).first->second;
    const int sibling = siblings_seen[{package, core_id}]++;
    out.push_back({cpu, package, dense, sibling});
  }
  return out;
}

}  // namespace

std::vector<int> cpu_assignment(pin_policy policy, unsigned threads) {
  if (policy == pin_policy::none) return {};
  std::vector<cpu_place> cpus = allowed_cpus();
  if (cpus.empty()) return {};
  if (policy == pin_policy::compact) {
    std::sort(cpus.begin(), cpus.end(), [](const cpu_place& a, const cpu_place& b) {
      return std::tie(a.package, a.sibling, a.core) < std::tie(b.package, b.sibling, b.core);
    });
  } else {
    std::sort(cpus.begin(), cpus.end(), [](const cpu_place& a, const cpu_place& b) {
      return std::tie(a.sibling, a.core, a.package) < std::tie(b.sibling, b.core, b.package);
    });
  }
  std::vector<int> out(threads);
  for (unsigned i = 0; i < threads; ++i) out[i] = cpus[i % cpus.size()].cpu;
  return out;
}

std::string pin_current_thread(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  const int rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  return rc == 0 ? std::string() : "cannot pin to CPU " + std::to_string(cpu) + ": " + std::strerror(rc);
}

}  // namespace smrbench
