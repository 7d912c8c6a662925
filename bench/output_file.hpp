// Result files appear whole or not at all: content goes to a temporary file next to the target
// and is renamed over it on commit(). Creating the temporary up front proves the directory is
// writable before any trial runs. The temporary is removed if the object dies uncommitted, and
// by a SIGINT/SIGTERM/SIGHUP handler if the run is interrupted.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace smrbench {

class atomic_file {
 public:
  // `what` names the option for messages ("--json"). Throws usage_error if the target cannot be
  // written.
  atomic_file(std::string path, std::string what);
  ~atomic_file();
  atomic_file(const atomic_file&) = delete;
  atomic_file& operator=(const atomic_file&) = delete;

  // Throw std::runtime_error on I/O failure.
  void write(std::string_view data);
  void commit();

  const std::string& path() const { return path_; }

 private:
  void discard();

  std::string path_;
  std::string what_;
  std::string temp_;
  std::FILE* file_ = nullptr;
  int slot_ = -1;  // in the signal handler's table
};

}  // namespace smrbench
