// The judgement of a validation walk (ds_ops.hpp): the same for every structure and reclaimer,
// so it is compiled once rather than in each of the registered pairs.
#include "ds_ops.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace smrbench {

validation judge(structure_walk& walk, std::uint64_t expected_count, std::uint64_t expected_sum) {
  std::vector<std::string> failures;
  std::vector<std::string> checked;
  if (walk.count != expected_count)
    failures.push_back("element count " + std::to_string(walk.count) + " != expected " +
                       std::to_string(expected_count) + " (prefill + inserted - removed)");
  if (walk.sum != expected_sum)
    failures.push_back("key checksum " + std::to_string(walk.sum) + " != expected " + std::to_string(expected_sum));
  checked.push_back("checksum and count (" + std::to_string(walk.count) + " elements)");
  if (walk.out_of_range != 0) failures.push_back(std::to_string(walk.out_of_range) + " keys outside [0, key_range)");
  checked.push_back("key range");

  if (walk.is_set) {
    std::sort(walk.keys.begin(), walk.keys.end());
    const auto dups = static_cast<std::uint64_t>(walk.keys.end() - std::unique(walk.keys.begin(), walk.keys.end()));
    if (dups != 0) failures.push_back(std::to_string(dups) + " duplicate keys in a set");
    checked.push_back("distinct keys");
  }
  if (walk.search_probes != 0) {
    if (walk.search_mismatches != 0)
      failures.push_back(std::to_string(walk.search_mismatches) + " of " + std::to_string(walk.search_probes) +
                         " searches disagree with the walk");
    checked.push_back("searches (" + std::to_string(walk.search_probes) + " keys)");
  }
  if (walk.size) {
    if (*walk.size != walk.count)
      failures.push_back("size_unsafe() " + std::to_string(*walk.size) + " != " + std::to_string(walk.count) +
                         " elements visited");
    checked.push_back("size_unsafe");
  }
  if (walk.broken) {
    if (!walk.broken->empty()) failures.push_back("invariants: " + *walk.broken);
    checked.push_back("invariants");
  }

  validation v;
  v.ok = failures.empty();
  if (v.ok) {
    v.detail = "checked ";
    for (std::size_t i = 0; i < checked.size(); ++i) v.detail += (i ? ", " : "") + checked[i];
  } else {
    for (std::size_t i = 0; i < failures.size(); ++i) v.detail += (i ? "; " : "") + failures[i];
  }
  return v;
}

}  // namespace smrbench
