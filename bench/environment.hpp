// The machine and build a result comes from (the record's "env"): enough to tell two results
// apart and to reproduce one.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace smrbench {

// cpu, cores, kernel, hostname, compiler, build_type, flags, commit, allocator_version, and
// machine: the topology (topology.hpp), the CPUs the process may use and the cpufreq governor.
nlohmann::json environment(const std::string& allocator_version);

}  // namespace smrbench
