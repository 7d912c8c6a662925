// --allocator: run the trial under glibc malloc, jemalloc, tcmalloc or mimalloc.
//
// A replacement malloc must be in place before the first allocation, so smrbench re-executes
// itself (/proc/self/exe, same arguments) with the library in LD_PRELOAD. The re-executed
// process then verifies that the library is really mapped (/proc/self/maps) and that `malloc`
// resolves into it (dladdr), and asks the library for its version. Libraries are looked up in
// the multiarch and standard library directories, or in SMRBENCH_ALLOCATOR_PATH (colon-separated
// directories) when set.
#pragma once

#include <string>
#include <vector>

namespace smrbench {

struct allocator_info {
  std::string name;                // as given to --allocator
  std::vector<std::string> files;  // library file names, preferred first
  std::string package;             // the Debian package providing it
};

const std::vector<allocator_info>& known_allocators();

// Full path of the allocator's library, or "" (system: always "").
std::string find_allocator_library(const allocator_info& a);

// Directories searched, for messages and --list.
std::vector<std::string> allocator_search_dirs();

// The library of allocator `name` ("" for system); usage_error on an unknown name or a missing
// library. Changes nothing.
std::string check_allocator(const std::string& name);

// Checks the request (usage_error on an unknown name or missing library). If the process is not
// yet running under the allocator, re-executes itself and does not return.
void select_allocator(const std::string& name, char** argv);

// The allocator really serving malloc, with its version ("jemalloc 5.3.0-0-g..."); throws
// usage_error if it is not the one requested.
std::string verify_allocator(const std::string& name);

}  // namespace smrbench
