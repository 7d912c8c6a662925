// --param NAME=VALUE: each reclaimer config's tunable fields, by name.
//
// C++ has no reflection, so every config type lists its tunables once here (one specialization
// per config type; variants sharing a config share the entry). A config without an entry accepts
// no --param. The `timeline` field is not a tunable: smrbench sets it from --timeline.
#pragma once

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "smr/smr.hpp"

namespace smrbench {

using param_list = std::vector<std::pair<std::string, std::string>>;

template <class Config, class T>
struct field {
  std::string_view name;
  T Config::*member;
  std::string_view help;
};

template <class Config>
struct tunables {
  static constexpr std::tuple<> fields{};
};

template <>
struct tunables<smr::qsbr_config> {
  static constexpr std::tuple fields{
      field{"quiescent_every", &smr::qsbr_config::quiescent_every,
            "operations per quiescent state (also --quiescent-every)"},
  };
};

template <>
struct tunables<smr::ebr_config> {
  static constexpr std::tuple fields{
      field{"advance_every", &smr::ebr_config::advance_every,
            "critical-region entries between attempts to advance the epoch"},
  };
};

template <>
struct tunables<smr::debra_config> {
  static constexpr std::tuple fields{
      field{"check_every", &smr::debra_config::check_every, "operations between checks of one thread's epoch"},
  };
};

template <>
struct tunables<smr::hp_config> {
  static constexpr std::tuple fields{
      field{"slots", &smr::hp_config::slots, "hazard pointers per thread (K)"},
      field{"scan_threshold", &smr::hp_config::scan_threshold,
            "retired nodes that trigger a scan (R); 0 = 2H + 100 with H = K x threads"},
  };
};

template <>
struct tunables<smr::ibr_2ge_config> {
  static constexpr std::tuple fields{
      field{"epoch_frequency", &smr::ibr_2ge_config::epoch_frequency, "allocations between era advances (k)"},
      field{"scale_epoch_frequency", &smr::ibr_2ge_config::scale_epoch_frequency,
            "multiply epoch_frequency by the registered threads (IBR §5)"},
      field{"empty_frequency", &smr::ibr_2ge_config::empty_frequency, "retirements between scans"},
  };
};

template <>
struct tunables<smr::nbr_config> {
  static constexpr std::tuple fields{
      field{"bag_threshold", &smr::nbr_config::bag_threshold, "retirements per reclamation round"},
      field{"ack_timeout_ms", &smr::nbr_config::ack_timeout,
            "milliseconds a round waits for signalled threads"},
      field{"signal_every_thread", &smr::nbr_config::signal_every_thread,
            "signal every registered thread each round, as Algorithm 1 does"},
  };
};

namespace detail {

template <class T>
struct is_duration : std::false_type {};
template <class Rep, class Period>
struct is_duration<std::chrono::duration<Rep, Period>> : std::true_type {};

// Plain value of a field for JSON (durations as their count, in the unit the name states).
template <class T>
auto plain(const T& v) {
  if constexpr (is_duration<T>::value) return v.count();
  else return v;
}

// Parses `text` into a T; returns false if it is not a valid T.
template <class T>
bool parse_value(const std::string& text, T& out) {
  if constexpr (std::is_same_v<T, bool>) {
    if (text == "true" || text == "1") return out = true, true;
    if (text == "false" || text == "0") return out = false, true;
    return false;
  } else if constexpr (std::is_integral_v<T>) {
    T v{};
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || p != text.data() + text.size() || text.empty()) return false;
    out = v;
    return true;
  } else if constexpr (is_duration<T>::value) {
    typename T::rep count{};
    if (!parse_value(text, count)) return false;
    out = T(count);
    return true;
  } else if constexpr (std::is_floating_point_v<T>) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v)) return false;
    out = static_cast<T>(v);
    return true;
  } else {
    static_assert(sizeof(T) == 0, "tunable fields must be bool, integral or floating point");
  }
}

template <class T>
const char* type_name() {
  if constexpr (is_duration<T>::value) return type_name<typename T::rep>();
  else if constexpr (std::is_same_v<T, bool>) return "true|false";
  else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) return "a non-negative integer";
  else if constexpr (std::is_integral_v<T>) return "an integer";
  else return "a number";
}

}  // namespace detail

template <class Config>
std::vector<std::string> tunable_names() {
  std::vector<std::string> names;
  std::apply([&](const auto&... f) { (names.emplace_back(f.name), ...); }, tunables<Config>::fields);
  return names;
}

// Applies `params` to `cfg`. Returns an empty string, or the one-line reason they are invalid.
template <class Config>
std::string apply_params(Config& cfg, const param_list& params, const std::string& reclaimer) {
  std::set<std::string> seen;
  for (const auto& [name, value] : params) {
    if (!seen.insert(name).second) return "--param " + name + " is given more than once";
    bool matched = false;
    std::string error;
    std::apply(
        [&](const auto&... f) {
          (
              [&] {
                if (matched || f.name != name) return;
                matched = true;
                using T = std::remove_reference_t<decltype(cfg.*(f.member))>;
                if (!detail::parse_value<T>(value, cfg.*(f.member)))
                  error = "bad --param " + name + "=" + value + ": expected " + detail::type_name<T>();
              }(),
              ...);
        },
        tunables<Config>::fields);
    if (!error.empty()) return error;
    if (!matched) {
      const auto names = tunable_names<Config>();
      if (names.empty()) return "unknown --param '" + name + "': " + reclaimer + " has no tunables";
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      return "unknown --param '" + name + "' for " + reclaimer + "; accepted: " + list;
    }
  }
  return {};
}

// The effective value of every tunable (defaults included), for the record's config.params.
template <class Config>
nlohmann::json describe_params(const Config& cfg) {
  nlohmann::json out = nlohmann::json::object();
  std::apply([&](const auto&... f) { ((out[std::string(f.name)] = detail::plain(cfg.*(f.member))), ...); },
             tunables<Config>::fields);
  return out;
}

// One line per tunable for --list: "name (default D): help".
template <class Config>
std::vector<std::string> describe_tunables() {
  std::vector<std::string> lines;
  const Config defaults{};
  std::apply(
      [&](const auto&... f) {
        ((lines.push_back(std::string(f.name) + " (default " +
                          nlohmann::json(detail::plain(defaults.*(f.member))).dump() + "): " + std::string(f.help))),
         ...);
      },
      tunables<Config>::fields);
  return lines;
}

}  // namespace smrbench
