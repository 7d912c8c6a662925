// A result file (--json, --timeline) that is never seen half-written and never destroys what is
// not a file.
//
// What the path names decides how it is written (symbolic links are followed, so a link is kept
// and its target is written):
//  - a regular file or nothing yet: replaced atomically. The content goes to a temporary file
//    next to the target (".NAME.smrbench-PID-N.tmp"), renamed over it by commit(); until then
//    the old content (or no file) stays, and a failure removes the temporary;
//  - a character device (/dev/null, a terminal) or a FIFO, also behind a /proc link such as
//    /dev/stdout: written through as it comes, by its own name, never replaced;
//  - "-": standard output, written through;
//  - a directory, a block device or a socket: refused.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace smrbench {

// A result file could not be opened or written (exit status 3).
struct output_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class output_file {
 public:
  // Checks without changing anything that `path` can be written as above (a temporary file is
  // created and removed to prove the directory writable); throws usage_error naming `what` (the
  // option, e.g. "--json") if not.
  static void check(const std::string& path, const std::string& what);

  // The file `path` would write: the name its symbolic links lead to (a dangling link's
  // target too), or `path` itself for standard output, a device, a FIFO, or a path that cannot
  // be written.
  static std::string written_name(const std::string& path);

  // Opens for writing (a FIFO waits for its reader here); throws output_error.
  output_file(const std::string& path, std::string what);
  ~output_file();  // uncommitted: the temporary is removed and the target left as it was
  output_file(const output_file&) = delete;
  output_file& operator=(const output_file&) = delete;

  // Throw output_error; after a failure the temporary is already gone.
  void write(std::string_view data);
  // Closes the file, all written; a replacement's temporary stays until commit() renames it
  // (or the destructor removes it): results that must appear together are committed together.
  void finish();
  void commit();  // finish() first if not done

  const std::string& path() const { return path_; }
  bool atomic() const { return !temp_.empty(); }

 private:
  void fail(const std::string& reason);
  void discard();

  std::string path_;  // as given, for messages
  std::string what_;
  std::string target_;  // after following symbolic links
  std::string temp_;    // atomic replacement only
  int fd_ = -1;
  int temp_slot_ = -1;  // in the interrupt handler's table
};

}  // namespace smrbench
