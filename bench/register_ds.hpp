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

// A structure is registered as a family: a class whose member template `of<K, R>` is the
// structure over reclaimer R. Not a template template parameter: a structure with extra
// defaulted parameters (hash_map's) matches `template <class, class> class` only under P0522,
// which Clang leaves off, and the alias template that would adapt it gets external linkage from
// GCC even in an unnamed namespace, so the linker merged every translation unit's registration
// into one. A class in an unnamed namespace keeps each translation unit's own.
template <class Family, class R>
void register_pair() {
  using probe = typename Family::template of<key_type, smr::none>;
  constexpr std::string_view why = smr::incompatibility(R::traits, probe::requirements);
  pair_entry e{std::string(probe::name), reclaimer_name<R>(), nullptr, nullptr, std::string(why)};
  if constexpr (why.empty()) {
    using ds = typename Family::template of<key_type, R>;
    e.run = &run_trial<ds, R>;
    e.preflight = &preflight<ds, R>;
  }
  registry::instance().add_pair(std::move(e));
}

template <class Family, class... Rs>
void register_pairs(type_list<Rs...>) {
  (register_pair<Family, Rs>(), ...);
}

template <class Family>
bool register_data_structure() {
  using probe = typename Family::template of<key_type, smr::none>;
  registry::instance().add_data_structure({std::string(probe::name), kind_of<probe>()});
  register_pairs<Family>(reclaimers{});
  return true;
}

}  // namespace smrbench

#define SMRBENCH_DATA_STRUCTURE(TEMPLATE)                    \
  namespace {                                               \
  struct smrbench_data_structure_ {                         \
    template <class K, class R>                             \
    using of = TEMPLATE<K, R>;                              \
  };                                                        \
  }                                                         \
  [[maybe_unused]] static const bool smrbench_registered_ = \
      ::smrbench::register_data_structure<smrbench_data_structure_>()
