#include "allocator.hpp"

#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <unistd.h>

#include <climits>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "options.hpp"

namespace smrbench {

namespace {

constexpr const char* reexec_marker = "SMRBENCH_ALLOCATOR_ACTIVE";

const allocator_info& lookup(const std::string& name) {
  for (const auto& a : known_allocators())
    if (a.name == name) return a;
  std::string names;
  for (const auto& a : known_allocators()) names += (names.empty() ? "" : ", ") + a.name;
  throw usage_error("unknown allocator '" + name + "'; accepted: " + names);
}

std::string basename_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

// The library file that defines the `malloc` this process calls.
std::string malloc_provider() {
  void* sym = dlsym(RTLD_DEFAULT, "malloc");
  Dl_info info{};
  if (sym == nullptr || dladdr(sym, &info) == 0 || info.dli_fname == nullptr) return "unknown";
  return info.dli_fname;
}

bool mapped(const std::string& path) {
  // maps shows the resolved file (libmimalloc.so.2 is a symlink to libmimalloc.so.2.0).
  char resolved[PATH_MAX];
  const std::string file = basename_of(::realpath(path.c_str(), resolved) != nullptr ? resolved : path);
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (basename_of(line) == file) return true;
  return false;
}

std::string library_version(const std::string& name) {
  if (name == "jemalloc") {
    using mallctl_fn = int (*)(const char*, void*, std::size_t*, void*, std::size_t);
    if (auto f = reinterpret_cast<mallctl_fn>(dlsym(RTLD_DEFAULT, "mallctl"))) {
      const char* v = nullptr;
      std::size_t len = sizeof v;
      if (f("version", &v, &len, nullptr, 0) == 0 && v != nullptr) return v;
    }
  } else if (name == "tcmalloc") {
    using tc_version_fn = const char* (*)(int*, int*, const char**);
    if (auto f = reinterpret_cast<tc_version_fn>(dlsym(RTLD_DEFAULT, "tc_version"))) {
      int major = 0, minor = 0;
      const char* patch = nullptr;
      if (const char* v = f(&major, &minor, &patch)) return v;
    }
  } else if (name == "mimalloc") {
    using mi_version_fn = int (*)();
    if (auto f = reinterpret_cast<mi_version_fn>(dlsym(RTLD_DEFAULT, "mi_version"))) {
      const int v = f();  // e.g. 209 for 2.0.9
      return std::to_string(v / 100) + "." + std::to_string((v / 10) % 10) + "." + std::to_string(v % 10);
    }
  }
  return "version unknown";
}

}  // namespace

const std::vector<allocator_info>& known_allocators() {
  static const std::vector<allocator_info> all = {
      {"system", {}, "libc6"},
      {"jemalloc", {"libjemalloc.so.2"}, "libjemalloc2"},
      {"tcmalloc", {"libtcmalloc_minimal.so.4", "libtcmalloc.so.4"}, "libtcmalloc-minimal4"},
      {"mimalloc", {"libmimalloc.so.2"}, "libmimalloc2.0"},
  };
  return all;
}

std::vector<std::string> allocator_search_dirs() {
  if (const char* env = std::getenv("SMRBENCH_ALLOCATOR_PATH")) {
    std::vector<std::string> dirs;
    std::stringstream ss(env);
    std::string d;
    while (std::getline(ss, d, ':'))
      if (!d.empty()) dirs.push_back(d);
    return dirs;
  }
#if defined(__x86_64__)
  const std::string triple = "x86_64-linux-gnu";
#elif defined(__aarch64__)
  const std::string triple = "aarch64-linux-gnu";
#else
  const std::string triple = "";
#endif
  std::vector<std::string> dirs;
  if (!triple.empty()) {
    dirs.push_back("/usr/lib/" + triple);
    dirs.push_back("/lib/" + triple);
  }
  for (const char* d : {"/usr/local/lib", "/usr/lib", "/lib"}) dirs.emplace_back(d);
  return dirs;
}

std::string find_allocator_library(const allocator_info& a) {
  for (const auto& file : a.files)
    for (const auto& dir : allocator_search_dirs()) {
      const std::string path = dir + "/" + file;
      if (::access(path.c_str(), R_OK) == 0) return path;
    }
  return {};
}

std::string check_allocator(const std::string& name) {
  const allocator_info& a = lookup(name);
  if (a.files.empty()) return {};  // system
  std::string path = find_allocator_library(a);
  if (path.empty())
    throw usage_error("allocator " + name + ": " + join(a.files, " or ") + " not found in " +
                      join(allocator_search_dirs(), ":") + "; install the Debian package " + a.package);
  return path;
}

void select_allocator(const std::string& name, char** argv) {
  const std::string path = check_allocator(name);
  if (path.empty()) return;  // system
  if (const char* active = std::getenv(reexec_marker); active != nullptr && name == active) return;

  std::string preload = path;
  if (const char* old = std::getenv("LD_PRELOAD"); old != nullptr && *old != '\0') {
    preload += ':';
    preload += old;
  }
  ::setenv("LD_PRELOAD", preload.c_str(), 1);
  ::setenv(reexec_marker, name.c_str(), 1);
  ::execv("/proc/self/exe", argv);
  throw usage_error("allocator " + name + ": cannot re-execute smrbench under LD_PRELOAD: " + std::strerror(errno));
}

std::string verify_allocator(const std::string& name) {
  const allocator_info& a = lookup(name);
  const std::string provider = malloc_provider();
  if (a.files.empty()) {
    std::string v = std::string("glibc ") + gnu_get_libc_version();
    if (basename_of(provider).rfind("libc.so", 0) != 0) v += " (malloc interposed by " + basename_of(provider) + ")";
    return v;
  }
  const std::string path = find_allocator_library(a);
  if (path.empty() || !mapped(path))
    throw usage_error("allocator " + name + ": " + (path.empty() ? join(a.files, " or ") : path) +
                      " is not mapped into the process after re-executing under LD_PRELOAD");
  // libtcmalloc_minimal.so.4 -> "libtcmalloc": the provider must be this allocator's library.
  const std::string stem = a.files.front().substr(0, a.files.front().find_first_of("_."));
  if (basename_of(provider).rfind(stem, 0) != 0)
    throw usage_error("allocator " + name + ": the library is loaded but malloc resolves to " + provider +
                      " (a sanitizer or another LD_PRELOAD interposes it)");
  return name + " " + library_version(name) + " (" + basename_of(provider) + ")";
}

}  // namespace smrbench
