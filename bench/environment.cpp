#include "environment.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "build_commit.hpp"
#include "build_config.hpp"

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
  };
}

}  // namespace smrbench
