#include "output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>

#include "interrupt.hpp"
#include "options.hpp"

namespace smrbench {

namespace {

enum class write_mode { replace, write_through, standard_output };

struct target {
  std::string path;  // symbolic links followed
  write_mode mode = write_mode::replace;
  bool exists = false;
  mode_t permissions = 0;  // of an existing regular file, kept by its replacement
};

constexpr const char* accepted =
    "; expected a regular file (replaced atomically), a new file, a FIFO or a character device";
constexpr int max_links = 40;  // as the kernel's path walk (ELOOP)

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

// The path that symbolic links in `path` lead to (by name, one link after another), for a
// target that is created or replaced: the link itself is kept. Returns "" or why not.
std::string follow_links(const std::string& path, std::string& out) {
  std::string p = path;
  for (int links = 0;; ++links) {
    struct stat st{};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) {
      out = p;
      return {};
    }
    if (links == max_links) return "too many levels of symbolic links";
    char dest[PATH_MAX];
    const ssize_t n = ::readlink(p.c_str(), dest, sizeof dest);
    if (n <= 0 || n == static_cast<ssize_t>(sizeof dest)) return n < 0 ? std::strerror(errno) : "unusable link target";
    const std::string next(dest, static_cast<std::size_t>(n));
    p = next.front() == '/' ? next : directory_of(p) + next;
  }
}

// Classifies what `path` names (after every symbolic link). Returns "" or why it cannot be
// written.
std::string resolve(const std::string& path, target& out) {
  if (path == "-") {
    out = {path, write_mode::standard_output, true, 0};
    return {};
  }
  // stat() follows links the way open() will, including /proc's links to pipes and terminals
  // (/dev/stdout, /proc/self/fd/N) that have no name to follow.
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) return std::strerror(errno);
    // A new file, or a dangling link whose target is created; its directory is checked when
    // the temporary file is created there.
    out = {{}, write_mode::replace, false, 0};
    return follow_links(path, out.path);
  }
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
    out = {path, write_mode::write_through, true, 0};  // opened by its own name: no rename
    return {};
  }
  if (S_ISDIR(st.st_mode)) return std::string("it is a directory") + accepted;
  if (!S_ISREG(st.st_mode))
    return std::string("it is a ") + (S_ISBLK(st.st_mode) ? "block device" : "socket") + accepted;
  out = {{}, write_mode::replace, true, st.st_mode & 07777};
  if (std::string why = follow_links(path, out.path); !why.empty()) return why;
  // The name reached must be the file stat() saw (not so for a /proc link to a deleted file).
  struct stat end{};
  if (::lstat(out.path.c_str(), &end) != 0 || end.st_dev != st.st_dev || end.st_ino != st.st_ino)
    return "its symbolic links do not lead to a file name that can be replaced";
  return {};
}

std::string temporary_name(const std::string& target_path) {
  static std::atomic<unsigned> counter{0};  // only uniqueness matters: relaxed
  const std::string dir = directory_of(target_path);
  return dir + "." + target_path.substr(dir.size()) + ".smrbench-" + std::to_string(::getpid()) + "-" +
         std::to_string(counter.fetch_add(1, std::memory_order_relaxed)) + ".tmp";
}

int create_temporary(const std::string& name, const target& t) {
  const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd >= 0 && t.exists) ::fchmod(fd, t.permissions);  // the replacement keeps the file's mode
  return fd;
}

// Why a target that exists cannot be written, or "". Effective IDs, as open() would use.
std::string write_permission(const target& t) {
  if (!t.exists || t.mode == write_mode::standard_output) return {};
  if (::faccessat(AT_FDCWD, t.path.c_str(), W_OK, AT_EACCESS) != 0) return std::strerror(errno);
  return {};
}

}  // namespace

void output_file::check(const std::string& path, const std::string& what) {
  const auto refuse = [&](const std::string& why) {
    return usage_error("cannot write " + what + " output '" + path + "': " + why);
  };
  target t;
  if (std::string why = resolve(path, t); !why.empty()) throw refuse(why);
  if (std::string why = write_permission(t); !why.empty()) throw refuse(why);
  if (t.mode != write_mode::replace) return;
  // Creating the temporary proves that the directory takes new files (rename needs that).
  const std::string temp = temporary_name(t.path);
  const int fd = create_temporary(temp, t);
  if (fd < 0) throw refuse(std::strerror(errno));
  ::close(fd);
  ::unlink(temp.c_str());
}

std::string output_file::written_name(const std::string& path) {
  target t;
  if (resolve(path, t).empty() && t.mode == write_mode::replace) return t.path;
  return path;
}

output_file::output_file(const std::string& path, std::string what) : path_(path), what_(std::move(what)) {
  target t;
  std::string why = resolve(path_, t);
  if (why.empty()) {
    target_ = t.path;
    switch (t.mode) {
      case write_mode::standard_output:
        fd_ = STDOUT_FILENO;
        break;
      case write_mode::write_through:
        do fd_ = ::open(target_.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);  // a FIFO blocks for its reader
        while (fd_ < 0 && errno == EINTR);
        if (fd_ < 0) why = std::strerror(errno);
        break;
      case write_mode::replace:
        temp_ = temporary_name(target_);
        fd_ = create_temporary(temp_, t);
        if (fd_ < 0) {
          why = std::strerror(errno);
          temp_.clear();
        } else {
          temp_slot_ = remember_temporary(temp_);
        }
        break;
    }
  }
  if (!why.empty()) throw output_error("cannot write " + what_ + " output '" + path_ + "': " + why);
}

output_file::~output_file() { discard(); }

void output_file::discard() {
  if (fd_ >= 0 && fd_ != STDOUT_FILENO) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) {
    ::unlink(temp_.c_str());
    temp_.clear();
  }
  forget_temporary(temp_slot_);
  temp_slot_ = -1;
}

void output_file::fail(const std::string& reason) {
  discard();
  throw output_error("writing " + what_ + " output '" + path_ + "': " + reason);
}

void output_file::write(std::string_view data) {
  if (fd_ < 0) throw output_error("writing " + what_ + " output '" + path_ + "': already closed");
  while (!data.empty()) {
    const ssize_t n = ::write(fd_, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(n < 0 ? std::strerror(errno) : "the device took no data");
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

void output_file::finish() {
  if (fd_ < 0) throw output_error("writing " + what_ + " output '" + path_ + "': already closed");
  const int fd = fd_;
  fd_ = -1;
  if (fd == STDOUT_FILENO) return;
  // fsync before the rename in commit(): after a crash the name points to the whole content.
  if (!temp_.empty() && ::fsync(fd) != 0) {
    ::close(fd);
    fail(std::strerror(errno));
  }
  if (::close(fd) != 0) fail(std::strerror(errno));
}

void output_file::commit() {
  if (fd_ >= 0) finish();
  if (temp_.empty()) return;  // written through, or already committed
  if (::rename(temp_.c_str(), target_.c_str()) != 0) fail(std::strerror(errno));
  temp_.clear();
  forget_temporary(temp_slot_);
  temp_slot_ = -1;
}

}  // namespace smrbench
