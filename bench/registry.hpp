// The registry of data structures, reclaimers and their pairs.
//
// Reclaimers come from the type list in reclaimer_list.hpp. Each data structure registers
// itself from its own translation unit (bench/ds/<name>.cpp, see register_ds.hpp), pairing
// itself with every reclaimer: a compatible pair gets its instantiated trial function, an
// incompatible one the reason from smr::incompatibility (NBR Table 1), which smrbench prints
// when refusing it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ds_ops.hpp"
#include "smr/core/traits.hpp"
#include "trial.hpp"
#include "tunables.hpp"

namespace smrbench {

using trial_fn = trial_result (*)(const trial_spec&);
using preflight_fn = std::string (*)(const options&);

struct reclaimer_entry {
  std::string name;
  std::string summary;  // one line: what it is, after which paper
  smr::reclaimer_traits traits;
  std::vector<std::string> tunable_names;
  std::vector<std::string> tunable_help;  // "name (default D): what it does"
  std::function<std::string(const param_list&)> check_params;  // "" or the reason
  bool external = false;  // a baseline backed by another library (external/external_rules.hpp)
};

struct ds_entry {
  std::string name;
  ds_kind kind;
};

struct pair_entry {
  std::string ds;
  std::string reclaimer;
  trial_fn run = nullptr;  // null: incompatible
  preflight_fn preflight = nullptr;
  std::string refusal;
};

class registry {
 public:
  static registry& instance();

  void add_data_structure(ds_entry e);
  void add_pair(pair_entry e);

  const std::vector<reclaimer_entry>& reclaimers() const { return reclaimers_; }
  // Sorted by name.
  std::vector<ds_entry> data_structures() const;
  std::vector<pair_entry> pairs() const;

  // Lookups that throw usage_error naming the accepted values.
  const ds_entry& data_structure(const std::string& name) const;
  const reclaimer_entry& reclaimer(const std::string& name) const;
  const pair_entry& pair(const std::string& ds, const std::string& reclaimer) const;

 private:
  registry();
  std::vector<reclaimer_entry> reclaimers_;
  std::vector<ds_entry> data_structures_;
  std::vector<pair_entry> pairs_;
};

}  // namespace smrbench
