#include "atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <stdexcept>

#include "options.hpp"

namespace smrbench {

namespace {

// Temporary files to remove if a signal ends the run. Fixed storage: the handler may only make
// async-signal-safe calls, so it reads plain arrays guarded by atomic flags.
constexpr int max_pending = 16;
struct pending_slot {
  std::atomic<bool> used{false};
  char path[PATH_MAX];
};
pending_slot pending[max_pending];

extern "C" void remove_pending_and_die(int sig) {
  for (auto& s : pending)
    if (s.used.load(std::memory_order_acquire)) ::unlink(s.path);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

int remember(const std::string& path) {
  static std::atomic<bool> installed{false};
  if (!installed.exchange(true)) {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::signal(sig, remove_pending_and_die);
  }
  if (path.size() >= PATH_MAX) return -1;
  for (int i = 0; i < max_pending; ++i) {
    if (pending[i].used.load(std::memory_order_relaxed)) continue;
    std::memcpy(pending[i].path, path.c_str(), path.size() + 1);
    pending[i].used.store(true, std::memory_order_release);  // path complete before it is used
    return i;
  }
  return -1;
}

void forget(int slot) {
  if (slot >= 0) pending[slot].used.store(false, std::memory_order_release);
}

}  // namespace

atomic_file::atomic_file(std::string path, std::string what) : path_(std::move(path)), what_(std::move(what)) {
  struct stat st{};
  if (::stat(path_.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw usage_error("cannot write " + what_ + " output '" + path_ + "': it is a directory");
  const auto slash = path_.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path_.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path_ : path_.substr(slash + 1);
  static std::atomic<unsigned> counter{0};
  temp_ = (slash == std::string::npos ? "" : dir) + "." + base + ".smrbench-" + std::to_string(::getpid()) + "-" +
          std::to_string(counter.fetch_add(1)) + ".tmp";
  const int fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw usage_error("cannot write " + what_ + " output '" + path_ + "': " + std::strerror(errno));
  slot_ = remember(temp_);
  file_ = ::fdopen(fd, "w");
  if (file_ == nullptr) {
    ::close(fd);
    discard();
    throw usage_error("cannot write " + what_ + " output '" + path_ + "': " + std::strerror(errno));
  }
}

atomic_file::~atomic_file() { discard(); }

void atomic_file::discard() {
  if (file_ != nullptr) {
    std::fclose(file_);
    file_ = nullptr;
  }
  if (!temp_.empty()) {
    ::unlink(temp_.c_str());
    temp_.clear();
  }
  forget(slot_);
  slot_ = -1;
}

void atomic_file::write(std::string_view data) {
  if (file_ == nullptr) throw std::runtime_error("write to a closed result file " + path_);
  if (std::fwrite(data.data(), 1, data.size(), file_) != data.size())
    throw std::runtime_error("writing " + path_ + ": " + std::strerror(errno));
}

void atomic_file::commit() {
  if (file_ == nullptr) throw std::runtime_error("commit of a closed result file " + path_);
  const bool flushed = std::fflush(file_) == 0 && ::fsync(::fileno(file_)) == 0;
  const int err = errno;
  std::fclose(file_);
  file_ = nullptr;
  if (!flushed || ::rename(temp_.c_str(), path_.c_str()) != 0) {
    const std::string reason = std::strerror(flushed ? errno : err);
    discard();
    throw std::runtime_error("writing " + path_ + ": " + reason);
  }
  temp_.clear();
  forget(slot_);
  slot_ = -1;
}

}  // namespace smrbench
