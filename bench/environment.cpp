#include "environment.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <sched.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "build_commit.hpp"
#include "build_config.hpp"
#include "topology.hpp"

namespace smrbench {

namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown";
}

std::string compiler() {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "g++ " __VERSION__;
#else
  return "unknown";
#endif
}

// The cpufreq governors of the online CPUs, distinct, comma-separated ("performance"), or null
// when the kernel has no cpufreq driver (as in most virtual machines).
nlohmann::json governors() {
  std::set<std::string> seen;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/sys/devices/system/cpu", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 4 || name.compare(0, 3, "cpu") != 0 || name.find_first_not_of("0123456789", 3) != std::string::npos)
      continue;
    std::ifstream in(entry.path() / "cpufreq" / "scaling_governor");
    if (std::string g; in >> g) seen.insert(g);
  }
  std::string joined;
  for (const std::string& g : seen) joined += (joined.empty() ? "" : ",") + g;
  return joined.empty() ? nlohmann::json(nullptr) : nlohmann::json(joined);
}

nlohmann::json machine() {
  const machine_topology& m = topology();
  nlohmann::json caches = nlohmann::json::array();
  for (const cache_level& c : m.caches)
    caches.push_back({{"level", c.level}, {"type", c.type}, {"size_bytes", c.size_bytes}, {"line_bytes", c.line_bytes},
                      {"instances", c.instances}, {"cpus_sharing", c.cpus_sharing}});
  cpu_set_t mask;
  CPU_ZERO(&mask);
  const int usable = ::sched_getaffinity(0, sizeof mask, &mask) == 0 ? CPU_COUNT(&mask) : 0;
  const unsigned per_core = m.cores == 0 ? 1 : (m.cpus + m.cores - 1) / m.cores;
  return {
      {"topology_source", m.source},
      {"cpu_model", m.cpu_model},
      {"sockets", m.sockets},
      {"cores", m.cores},
      {"cpus", m.cpus},
      {"threads_per_core", per_core},
      {"smt", per_core > 1},
      {"numa_nodes", m.numa_nodes},
      {"caches", caches},
      {"affinity_cpus", usable},
      {"governor", governors()},
  };
}

}  // namespace

nlohmann::json environment(const std::string& allocator_version) {
  utsname u{};
  const bool have_uname = ::uname(&u) == 0;
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return {
      {"cpu", cpu_model()},
      {"cores", std::thread::hardware_concurrency()},
      {"kernel", have_uname ? std::string(u.sysname) + " " + u.release + " " + u.version : "unknown"},
      {"hostname", std::string(host)},
      {"compiler", compiler()},
      {"build_type", SMRBENCH_BUILD_TYPE},
      {"flags", SMRBENCH_FLAGS},
      {"commit", SMRBENCH_COMMIT},
      {"allocator_version", allocator_version},
      {"machine", machine()},
  };
}

}  // namespace smrbench
