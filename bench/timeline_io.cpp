#include "timeline_io.hpp"

#include <sys/stat.h>

#include <charconv>

namespace smrbench {

namespace {

void append_number(std::string& out, std::uint64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
}

}  // namespace

timeline_target timeline_target_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return timeline_target::file;
  if (S_ISCHR(st.st_mode)) return timeline_target::device;
  if (S_ISFIFO(st.st_mode)) return timeline_target::fifo;
  return timeline_target::file;
}

timeline_counts count_events(const smr::core::timeline& tl) {
  timeline_counts c;
  tl.for_each_buffer([&](std::size_t, const smr::core::timeline_buffer& b) {
    c.events += b.events().size();
    c.dropped += b.dropped();
  });
  return c;
}

std::string format_timeline(const smr::core::timeline& tl, const nlohmann::json& config) {
  std::string out = "# smrbench-timeline 1 " + config.dump() + "\n";
  out += "thread,kind,start_ns,end_ns,value\n";
  out.reserve(out.size() + count_events(tl).events * 40);
  tl.for_each_buffer([&](std::size_t thread, const smr::core::timeline_buffer& b) {
    for (const auto& e : b.events()) {
      append_number(out, thread);
      out += ',';
      out += smr::core::event_kind_name(e.kind);
      out += ',';
      append_number(out, e.start_ns);
      out += ',';
      append_number(out, e.end_ns);
      out += ',';
      append_number(out, e.value);
      out += '\n';
    }
  });
  return out;
}

std::string timeline_path_for(const std::string& path, unsigned trial, unsigned trials) {
  // A character device (/dev/null) takes every trial's timeline in turn: a numbered name beside
  // it would be a regular file in /dev.
  if (trials <= 1 || timeline_target_of(path) == timeline_target::device) return path;
  const auto slash = path.rfind('/');
  const auto dot = path.rfind('.');
  const bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash + 1);
  if (!has_ext) return path + "." + std::to_string(trial);
  return path.substr(0, dot) + "." + std::to_string(trial) + path.substr(dot);
}

}  // namespace smrbench
