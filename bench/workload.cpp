#include "workload.hpp"

#include <charconv>

namespace smrbench {

std::string workload_mix::label() const {
  std::string s = std::to_string(insert) + "i-" + std::to_string(remove) + "d";
  if (search != 0) {
    s += '-';
    s += std::to_string(search);
    s += 's';
  }
  return s;
}

std::optional<workload_mix> parse_workload(const std::string& text, std::string& error, const std::string& flag) {
  if (text == "50i-50d") return workload_mix{50, 50, 0};
  if (text == "25i-25d-50s") return workload_mix{25, 25, 50};
  if (text == "5i-5d-90s") return workload_mix{5, 5, 90};

  unsigned parts[3];
  const char* p = text.data();
  const char* end = text.data() + text.size();
  for (int i = 0; i < 3; ++i) {
    auto [next, ec] = std::from_chars(p, end, parts[i]);
    const char expected_sep = i < 2 ? ',' : '\0';
    const bool sep_ok = i < 2 ? (next != end && *next == expected_sep) : next == end;
    if (ec != std::errc() || !sep_ok) {
      error = "bad " + flag + " '" + text +
              "': expected a preset (50i-50d, 25i-25d-50s, 5i-5d-90s) or three percentages "
              "I,D,S (insert, delete, search)";
      return std::nullopt;
    }
    p = next + (i < 2 ? 1 : 0);
  }
  if (static_cast<unsigned long>(parts[0]) + parts[1] + parts[2] != 100) {
    error = "bad " + flag + " '" + text + "': the percentages sum to " +
            std::to_string(static_cast<unsigned long>(parts[0]) + parts[1] + parts[2]) +
            ", not 100";
    return std::nullopt;
  }
  return workload_mix{parts[0], parts[1], parts[2]};
}

}  // namespace smrbench
