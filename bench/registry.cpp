#include "registry.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "reclaimer_list.hpp"

namespace smrbench {

namespace {

template <class R>
reclaimer_entry make_reclaimer_entry() {
  using config = typename R::config;
  reclaimer_entry e;
  e.name = reclaimer_name<R>();
  e.traits = R::traits;
  e.summary = std::string(R::summary);
  e.external = smr::external::is_external<typename R::rule>;
  e.tunable_names = tunable_names<R>();
  e.tunable_help = describe_tunables<R>();
  e.check_params = [](const param_list& params) {
    config cfg{};
    return apply_params<R>(cfg, params);
  };
  return e;
}

template <class... Rs>
std::vector<reclaimer_entry> make_reclaimer_entries(type_list<Rs...>) {
  return {make_reclaimer_entry<Rs>()...};
}

template <class Entries, class Name>
std::string names_of(const Entries& entries, Name name) {
  std::string out;
  for (const auto& e : entries) out += (out.empty() ? "" : ", ") + name(e);
  return out;
}

}  // namespace

registry::registry() : reclaimers_(make_reclaimer_entries(smrbench::reclaimers{})) {}

registry& registry::instance() {
  // Function-local: data structure translation units register during static initialization.
  static registry r;
  return r;
}

// Called from each structure's static initializer. A name registered twice is a build defect
// (the linker once merged four translation units' registrations into one), and with it
// smrbench would offer one structure under several names: stop before main.
void registry::add_data_structure(ds_entry e) {
  for (const ds_entry& d : data_structures_) {
    if (d.name == e.name) {
      std::fprintf(stderr, "smrbench: data structure '%s' registered twice (a build defect)\n", e.name.c_str());
      std::abort();
    }
  }
  data_structures_.push_back(std::move(e));
}
void registry::add_pair(pair_entry e) { pairs_.push_back(std::move(e)); }

std::vector<ds_entry> registry::data_structures() const {
  std::vector<ds_entry> v = data_structures_;
  std::sort(v.begin(), v.end(), [](const ds_entry& a, const ds_entry& b) { return a.name < b.name; });
  return v;
}

std::vector<pair_entry> registry::pairs() const {
  std::vector<pair_entry> v = pairs_;
  std::sort(v.begin(), v.end(), [](const pair_entry& a, const pair_entry& b) {
    return std::tie(a.ds, a.reclaimer) < std::tie(b.ds, b.reclaimer);
  });
  return v;
}

const ds_entry& registry::data_structure(const std::string& name) const {
  for (const auto& e : data_structures_)
    if (e.name == name) return e;
  throw usage_error("unknown data structure '" + name + "'; accepted: " +
                    names_of(data_structures(), [](const ds_entry& e) { return e.name; }));
}

const reclaimer_entry& registry::reclaimer(const std::string& name) const {
  for (const auto& e : reclaimers_)
    if (e.name == name) return e;
  for (const auto& a : smr::external::catalogue)
    if (a.reclaimer == name && !a.built)
      throw usage_error("reclaimer '" + name + "' is an external baseline this smrbench was built without: install " +
                        std::string(a.package) + " (scripts/setup.sh does) and rebuild");
  throw usage_error("unknown reclaimer '" + name + "'; accepted: " +
                    names_of(reclaimers_, [](const reclaimer_entry& e) { return e.name; }));
}

const pair_entry& registry::pair(const std::string& ds, const std::string& reclaimer) const {
  data_structure(ds);
  this->reclaimer(reclaimer);
  for (const auto& p : pairs_) {
    if (p.ds != ds || p.reclaimer != reclaimer) continue;
    if (p.run == nullptr) throw usage_error("incompatible pair " + ds + " + " + reclaimer + ": " + p.refusal);
    return p;
  }
  throw usage_error("no registration for " + ds + " + " + reclaimer);
}

}  // namespace smrbench
