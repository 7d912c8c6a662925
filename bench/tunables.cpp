// The messages of --param's refusals (tunables.hpp).
#include "tunables.hpp"

namespace smrbench::detail {

std::string duplicate_param(const std::string& name) { return "--param " + name + " is given more than once"; }

std::string bad_param_value(const std::string& name, const std::string& value, const char* expected) {
  return "bad --param " + name + "=" + value + ": expected " + expected;
}

std::string unknown_param(const std::string& name, std::string_view reclaimer,
                          const std::vector<std::string>& accepted) {
  if (accepted.empty()) return "unknown --param '" + name + "': " + std::string(reclaimer) + " has no tunables";
  std::string list;
  for (const auto& n : accepted) list += (list.empty() ? "" : ", ") + n;
  return "unknown --param '" + name + "' for " + std::string(reclaimer) + "; accepted: " + list;
}

}  // namespace smrbench::detail
