// Registration of one data structure with every reclaimer, from its own translation unit:
//
//   // bench/ds/ms_queue.cpp
//   #include "register_ds.hpp"
//   #include "smr/ds/ms_queue.hpp"
//   SMRBENCH_DATA_STRUCTURE(smr::ms_queue);
//
// Compatibility is decided from the structure's requirements, read from its instantiation with
// smr::none (which supports everything, so the compile-time refusal inside the structure cannot
// fire); the requirements do not depend on the reclaimer.
#pragma once

#include <string>
#include <string_view>

#include "driver.hpp"
#include "reclaimer_list.hpp"
#include "registry.hpp"

namespace smrbench {

template <template <class, class> class DS, class R>
void register_pair() {
  using probe = DS<key_type, smr::none>;
  constexpr std::string_view why = smr::incompatibility(R::traits, probe::requirements);
  pair_entry e{std::string(probe::name), reclaimer_name<R>(), nullptr, nullptr, std::string(why)};
  if constexpr (why.empty()) {
    e.run = &run_trial<DS, R>;
    e.preflight = &preflight<DS, R>;
  }
  registry::instance().add_pair(std::move(e));
}

template <template <class, class> class DS, class... Rs>
void register_pairs(type_list<Rs...>) {
  (register_pair<DS, Rs>(), ...);
}

template <template <class, class> class DS>
bool register_data_structure() {
  using probe = DS<key_type, smr::none>;
  registry::instance().add_data_structure({std::string(probe::name), kind_of<probe>()});
  register_pairs<DS>(reclaimers{});
  return true;
}

}  // namespace smrbench

// The alias gives every structure exactly the two parameters register_data_structure takes:
// a template with more (defaulted) ones matches `template <class, class> class` only under
// P0522's relaxed matching, which Clang leaves off.
#define SMRBENCH_DATA_STRUCTURE(TEMPLATE)                                \
  namespace {                                                           \
  template <class K, class R>                                           \
  using smrbench_data_structure_ = TEMPLATE<K, R>;                      \
  }                                                                     \
  [[maybe_unused]] static const bool smrbench_registered_ =             \
      ::smrbench::register_data_structure<smrbench_data_structure_>()
