#include "topology.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#if SMRBENCH_HAVE_HWLOC
#include <hwloc.h>
#endif

namespace smrbench {

namespace {

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

int read_int(const std::string& path, int fallback) {
  std::ifstream in(path);
  int v = 0;
  return (in >> v) ? v : fallback;
}

// "0-3,8,10-11" (the kernel's CPU and node lists) -> {0,1,2,3,8,10,11}.
std::vector<int> parse_list(const std::string& text) {
  std::vector<int> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    const std::string part = text.substr(pos, end - pos);
    int lo = 0, hi = 0;
    char dash = 0;
    if (std::sscanf(part.c_str(), "%d%c%d", &lo, &dash, &hi) == 3 && dash == '-') {
      for (int i = lo; i <= hi; ++i) out.push_back(i);
    } else if (std::sscanf(part.c_str(), "%d", &lo) == 1) {
      out.push_back(lo);
    }
    pos = end + 1;
  }
  return out;
}

// "48K", "2048K", "32M" (the kernel's cache sizes) -> bytes.
std::uint64_t parse_size(const std::string& text) {
  unsigned long long v = 0;
  char unit = 0;
  const int n = std::sscanf(text.c_str(), "%llu%c", &v, &unit);
  if (n < 1) return 0;
  const std::uint64_t scale = unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : unit == 'G' ? 1024ull * 1024 * 1024 : 1;
  return static_cast<std::uint64_t>(v) * scale;
}

std::string cpu_model_from_proc() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    // x86 says "model name"; some Arm and POWER kernels say "cpu model" or "cpu".
    for (const char* key : {"model name", "cpu model", "cpu\t"}) {
      if (line.rfind(key, 0) != 0) continue;
      const auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      const auto start = line.find_first_not_of(" \t", colon + 1);
      if (start != std::string::npos) return line.substr(start);
    }
  }
  return "unknown";
}

bool in_affinity_mask(int cpu, const cpu_set_t& mask) { return cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &mask); }

cpu_set_t affinity_mask() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (::sched_getaffinity(0, sizeof mask, &mask) != 0) CPU_ZERO(&mask);
  return mask;
}

// Orders caches as a reader expects them: L1d, L1i, L2, L3.
int type_rank(const std::string& type) { return type == "data" ? 0 : type == "instruction" ? 1 : 2; }

void sort_caches(std::vector<cache_level>& caches) {
  std::sort(caches.begin(), caches.end(), [](const cache_level& a, const cache_level& b) {
    return std::make_tuple(a.level, type_rank(a.type)) < std::make_tuple(b.level, type_rank(b.type));
  });
}

// --- /proc and /sys ------------------------------------------------------------------------

constexpr const char* sys_cpu = "/sys/devices/system/cpu/";

std::vector<int> online_cpus() {
  std::vector<int> cpus = parse_list(first_line(std::string(sys_cpu) + "online"));
  if (cpus.empty()) cpus.push_back(0);
  return cpus;
}

int sys_topology(int cpu, const char* what) {
  return read_int(std::string(sys_cpu) + "cpu" + std::to_string(cpu) + "/topology/" + what, 0);
}

machine_topology topology_from_sys(std::string why) {
  machine_topology m;
  m.source = "/proc and /sys (" + why + ")";
  m.cpu_model = cpu_model_from_proc();
  std::set<int> packages;
  std::set<std::pair<int, int>> cores;
  struct cache_key_info {
    std::uint64_t size = 0;
    unsigned line = 0;
    unsigned sharing = 0;
    std::set<std::string> instances;  // distinct shared_cpu_list values
  };
  std::map<std::pair<unsigned, std::string>, cache_key_info> caches;
  const std::vector<int> cpus = online_cpus();
  for (int cpu : cpus) {
    const int package = sys_topology(cpu, "physical_package_id");
    packages.insert(package);
    cores.insert({package, sys_topology(cpu, "core_id")});
    for (int index = 0;; ++index) {
      const std::string dir = std::string(sys_cpu) + "cpu" + std::to_string(cpu) + "/cache/index" + std::to_string(index) + "/";
      const int level = read_int(dir + "level", -1);
      if (level < 0) break;
      std::string type = first_line(dir + "type");
      std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return std::tolower(c); });
      cache_key_info& info = caches[{static_cast<unsigned>(level), type}];
      info.size = parse_size(first_line(dir + "size"));
      info.line = static_cast<unsigned>(std::max(0, read_int(dir + "coherency_line_size", 0)));
      const std::string shared = first_line(dir + "shared_cpu_list");
      info.sharing = static_cast<unsigned>(std::max<std::size_t>(1, parse_list(shared).size()));
      info.instances.insert(shared);
    }
  }
  m.sockets = static_cast<unsigned>(packages.size());
  m.cores = static_cast<unsigned>(cores.size());
  m.cpus = static_cast<unsigned>(cpus.size());
  m.numa_nodes = static_cast<unsigned>(std::max<std::size_t>(1, parse_list(first_line("/sys/devices/system/node/online")).size()));
  for (const auto& [key, info] : caches)
    m.caches.push_back({key.first, key.second, info.size, info.line, static_cast<unsigned>(info.instances.size()), info.sharing});
  sort_caches(m.caches);
  return m;
}

std::vector<cpu_place> places_from_sys() {
  const cpu_set_t mask = affinity_mask();
  std::vector<cpu_place> out;
  std::map<std::pair<int, int>, int> siblings_seen;  // (package, core_id) -> hardware threads so far
  std::map<int, std::map<int, int>> core_index;      // package -> core_id -> dense index
  std::map<int, int> package_index;                  // physical_package_id -> dense index
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!in_affinity_mask(cpu, mask)) continue;
    const int package_id = sys_topology(cpu, "physical_package_id");
    const int core_id = sys_topology(cpu, "core_id");
    const int package = package_index.emplace(package_id, static_cast<int>(package_index.size())).first->second;
    auto& cores = core_index[package];
    const int core = cores.emplace(core_id, static_cast<int>(cores.size())).first->second;
    out.push_back({cpu, package, core, siblings_seen[{package, core_id}]++});
  }
  return out;
}

std::string bind_with_sched(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  const int rc = ::pthread_setaffinity_np(::pthread_self(), sizeof set, &set);
  return rc == 0 ? std::string() : "cannot pin to CPU " + std::to_string(cpu) + ": " + std::strerror(rc);
}

#if SMRBENCH_HAVE_HWLOC

// --- hwloc -----------------------------------------------------------------------------------

// The topology, loaded once and then only read: hwloc's queries and binding calls on a loaded
// topology may run in several threads at once (every worker binds itself).
struct hwloc_state {
  hwloc_topology_t topo = nullptr;
  std::string error;  // why hwloc could not be used, or ""

  hwloc_state() {
    if (::hwloc_topology_init(&topo) != 0) {
      error = std::string("hwloc_topology_init: ") + std::strerror(errno);
      topo = nullptr;
      return;
    }
    // Instruction caches are filtered out by default; the record lists them too.
    ::hwloc_topology_set_icache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL);
    if (::hwloc_topology_load(topo) != 0) {
      error = std::string("hwloc_topology_load: ") + std::strerror(errno);
      ::hwloc_topology_destroy(topo);
      topo = nullptr;
    }
  }
  ~hwloc_state() {
    if (topo != nullptr) ::hwloc_topology_destroy(topo);
  }
  hwloc_state(const hwloc_state&) = delete;
  hwloc_state& operator=(const hwloc_state&) = delete;
};

const hwloc_state& hwloc() {
  static const hwloc_state state;  // thread-safe initialisation
  return state;
}

unsigned count(hwloc_topology_t topo, hwloc_obj_type_t type) {
  const int n = ::hwloc_get_nbobjs_by_type(topo, type);
  return n > 0 ? static_cast<unsigned>(n) : 0;
}

machine_topology topology_from_hwloc(hwloc_topology_t topo) {
  machine_topology m;
  m.source = "hwloc " SMRBENCH_HWLOC_VERSION;
  m.cpus = count(topo, HWLOC_OBJ_PU);
  m.cores = count(topo, HWLOC_OBJ_CORE);
  if (m.cores == 0) m.cores = m.cpus;  // a platform without a core level: each PU is one
  m.sockets = std::max(1u, count(topo, HWLOC_OBJ_PACKAGE));
  m.numa_nodes = std::max(1u, count(topo, HWLOC_OBJ_NUMANODE));
  const char* model = nullptr;
  if (hwloc_obj_t package = ::hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0); package != nullptr)
    model = ::hwloc_obj_get_info_by_name(package, "CPUModel");
  if (model == nullptr) model = ::hwloc_obj_get_info_by_name(::hwloc_get_root_obj(topo), "CPUModel");
  m.cpu_model = model != nullptr ? model : cpu_model_from_proc();
  for (hwloc_obj_type_t type : {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L4CACHE,
                                HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L1ICACHE, HWLOC_OBJ_L2ICACHE, HWLOC_OBJ_L3ICACHE}) {
    const hwloc_obj_t c = ::hwloc_get_obj_by_type(topo, type, 0);
    if (c == nullptr || c->attr == nullptr) continue;
    const auto& a = c->attr->cache;
    const char* kind = a.type == HWLOC_OBJ_CACHE_DATA ? "data" : a.type == HWLOC_OBJ_CACHE_INSTRUCTION ? "instruction" : "unified";
    const int sharing = c->cpuset != nullptr ? ::hwloc_bitmap_weight(c->cpuset) : 0;
    m.caches.push_back({a.depth, kind, a.size, a.linesize, count(topo, type), static_cast<unsigned>(std::max(sharing, 0))});
  }
  sort_caches(m.caches);
  return m;
}

std::vector<cpu_place> places_from_hwloc(hwloc_topology_t topo) {
  const cpu_set_t mask = affinity_mask();
  std::vector<cpu_place> out;
  std::map<hwloc_obj_t, int> siblings_seen;        // core -> hardware threads so far
  std::map<int, std::map<hwloc_obj_t, int>> core_index;  // package -> core -> dense index
  std::map<hwloc_obj_t, int> package_index;
  // PUs in hwloc's logical order, which follows the hierarchy (package, NUMA node, cache, core).
  for (hwloc_obj_t pu = nullptr; (pu = ::hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, pu)) != nullptr;) {
    const int cpu = static_cast<int>(pu->os_index);
    if (!in_affinity_mask(cpu, mask)) continue;
    const hwloc_obj_t package_obj = ::hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu);
    hwloc_obj_t core_obj = ::hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
    if (core_obj == nullptr) core_obj = pu;
    const int package = package_index.emplace(package_obj, static_cast<int>(package_index.size())).first->second;
    auto& cores = core_index[package];
    const int core = cores.emplace(core_obj, static_cast<int>(cores.size())).first->second;
    out.push_back({cpu, package, core, siblings_seen[core_obj]++});
  }
  return out;
}

std::string bind_with_hwloc(hwloc_topology_t topo, int cpu) {
  const hwloc_obj_t pu = ::hwloc_get_pu_obj_by_os_index(topo, static_cast<unsigned>(cpu));
  if (pu == nullptr || pu->cpuset == nullptr) return "cannot pin to CPU " + std::to_string(cpu) + ": hwloc does not know it";
  if (::hwloc_set_cpubind(topo, pu->cpuset, HWLOC_CPUBIND_THREAD) != 0)
    return "cannot pin to CPU " + std::to_string(cpu) + ": " + std::strerror(errno);
  return {};
}

#endif  // SMRBENCH_HAVE_HWLOC

}  // namespace

const machine_topology& topology() {
  static const machine_topology m = [] {
#if SMRBENCH_HAVE_HWLOC
    if (hwloc().topo != nullptr) return topology_from_hwloc(hwloc().topo);
    return topology_from_sys("hwloc could not read the topology: " + hwloc().error);
#else
    return topology_from_sys("smrbench was built without hwloc");
#endif
  }();
  return m;
}

std::vector<cpu_place> allowed_cpu_places() {
#if SMRBENCH_HAVE_HWLOC
  if (hwloc().topo != nullptr) return places_from_hwloc(hwloc().topo);
#endif
  return places_from_sys();
}

std::string bind_current_thread(int cpu) {
#if SMRBENCH_HAVE_HWLOC
  if (hwloc().topo != nullptr) return bind_with_hwloc(hwloc().topo, cpu);
#endif
  return bind_with_sched(cpu);
}

}  // namespace smrbench
