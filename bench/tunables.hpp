// --param NAME=VALUE: each reclaimer's tunable fields, by name.
//
// The tunables are the reclaimer's own metadata (its rule's `tunables`: name, member, meaning;
// the default is the config's), declared once in its header; this file only parses and
// describes them. A rule with no tunables accepts no --param.
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

// The names of a reclaimer's tunables.
template <class R>
std::vector<std::string> tunable_names() {
  std::vector<std::string> names;
  std::apply([&](const auto&... f) { (names.emplace_back(f.name), ...); }, R::rule::tunables);
  return names;
}

namespace detail {

// The messages of apply_params, out of line (tunables.cpp): one copy, not one per reclaimer.
std::string duplicate_param(const std::string& name);
std::string bad_param_value(const std::string& name, const std::string& value, const char* expected);
std::string unknown_param(const std::string& name, std::string_view reclaimer,
                          const std::vector<std::string>& accepted);

// Keyed on the rule, so that a reclaimer and its _af variant share one instantiation.
template <class Rule>
std::string apply_rule_params(typename Rule::config& cfg, const param_list& params, std::string_view reclaimer) {
  std::set<std::string> seen;
  for (const auto& param : params) {
    // Not a structured binding: the lambdas below use both, and Clang before 16 cannot capture one.
    const std::string& name = param.first;
    const std::string& value = param.second;
    if (!seen.insert(name).second) return duplicate_param(name);
    bool matched = false;
    std::string error;
    std::apply(
        [&](const auto&... f) {
          (
              [&] {
                if (matched || f.name != name) return;
                matched = true;
                using T = std::remove_reference_t<decltype(cfg.*(f.member))>;
                if (!parse_value<T>(value, cfg.*(f.member))) error = bad_param_value(name, value, type_name<T>());
              }(),
              ...);
        },
        Rule::tunables);
    if (!error.empty()) return error;
    if (!matched) {
      std::vector<std::string> accepted;
      std::apply([&](const auto&... f) { (accepted.emplace_back(f.name), ...); }, Rule::tunables);
      return unknown_param(name, reclaimer, accepted);
    }
  }
  return {};
}

template <class Rule>
nlohmann::json describe_rule_params(const typename Rule::config& cfg) {
  nlohmann::json out = nlohmann::json::object();
  std::apply([&](const auto&... f) { ((out[std::string(f.name)] = plain(cfg.*(f.member))), ...); }, Rule::tunables);
  return out;
}

}  // namespace detail

// Applies `params` to `cfg`. Returns an empty string, or the one-line reason they are invalid.
template <class R>
std::string apply_params(typename R::config& cfg, const param_list& params) {
  return detail::apply_rule_params<typename R::rule>(cfg, params, R::name);
}

// The effective value of every tunable (defaults included), for the record's config.params.
template <class R>
nlohmann::json describe_params(const typename R::config& cfg) {
  return detail::describe_rule_params<typename R::rule>(cfg);
}

// One line per tunable for --list: "name (default D): help".
template <class R>
std::vector<std::string> describe_tunables() {
  std::vector<std::string> lines;
  const typename R::config defaults{};
  std::apply(
      [&](const auto&... f) {
        ((lines.push_back(std::string(f.name) + " (default " +
                          nlohmann::json(detail::plain(defaults.*(f.member))).dump() + "): " + std::string(f.help))),
         ...);
      },
      R::rule::tunables);
  return lines;
}

}  // namespace smrbench
