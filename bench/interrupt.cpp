#include "interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstring>

namespace smrbench {

namespace {

// The handler may only make async-signal-safe calls and touch lock-free atomics (a lock-based
// atomic could deadlock against the thread it interrupted), so it reads fixed arrays guarded by
// lock-free flags and never allocates.
constexpr int max_temporaries = max_pending_outputs;
struct temporary_slot {
  std::atomic<bool> used{false};
  char path[PATH_MAX];
};
temporary_slot temporaries[max_temporaries];
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler reads these flags");

// The first signal received. Relaxed: it carries no data; pollers only need to see it eventually.
std::atomic<int> requested{0};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs a lock-free flag");

extern "C" void on_stop_signal(int sig) {
  int none = 0;
  if (requested.compare_exchange_strong(none, sig, std::memory_order_relaxed)) return;
  // A second signal: the user does not want to wait for the records to be written.
  for (auto& t : temporaries)
    if (t.used.load(std::memory_order_acquire)) ::unlink(t.path);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

void install_interrupt_handlers() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction current{};
    if (::sigaction(sig, nullptr, &current) == 0 && current.sa_handler == SIG_IGN) continue;  // nohup
    struct sigaction stop{};
    stop.sa_handler = on_stop_signal;
    sigemptyset(&stop.sa_mask);
    stop.sa_flags = SA_RESTART;  // writes and waits carry on; the run polls interrupt_signal()
    ::sigaction(sig, &stop, nullptr);
  }
  ::signal(SIGPIPE, SIG_IGN);
}

int interrupt_signal() { return requested.load(std::memory_order_relaxed); }

std::string signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
  }
  return "signal " + std::to_string(sig);
}

int remember_temporary(const std::string& path) {
  if (path.size() >= PATH_MAX) return -1;
  for (int i = 0; i < max_temporaries; ++i) {
    // Only the main thread registers, so a free slot stays free while its path is written.
    if (temporaries[i].used.load(std::memory_order_relaxed)) continue;
    std::memcpy(temporaries[i].path, path.c_str(), path.size() + 1);
    temporaries[i].used.store(true, std::memory_order_release);  // the path is complete before the handler reads it
    return i;
  }
  return -1;
}

void forget_temporary(int slot) {
  if (slot >= 0) temporaries[slot].used.store(false, std::memory_order_release);
}

}  // namespace smrbench
