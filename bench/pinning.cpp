#include "pinning.hpp"

#include <algorithm>
#include <tuple>

#include "topology.hpp"

namespace smrbench {

std::vector<int> cpu_assignment(pin_policy policy, unsigned threads) {
  if (policy == pin_policy::none) return {};
  std::vector<cpu_place> cpus = allowed_cpu_places();
  if (cpus.empty()) return {};
  if (policy == pin_policy::compact) {
    std::stable_sort(cpus.begin(), cpus.end(), [](const cpu_place& a, const cpu_place& b) {
      return std::tie(a.package, a.sibling, a.core) < std::tie(b.package, b.sibling, b.core);
    });
  } else {
    std::stable_sort(cpus.begin(), cpus.end(), [](const cpu_place& a, const cpu_place& b) {
      return std::tie(a.sibling, a.core, a.package) < std::tie(b.sibling, b.core, b.package);
    });
  }
  std::vector<int> out(threads);
  for (unsigned i = 0; i < threads; ++i) out[i] = cpus[i % cpus.size()].cpu;
  return out;
}

std::string pin_current_thread(int cpu) { return bind_current_thread(cpu); }

}  // namespace smrbench
