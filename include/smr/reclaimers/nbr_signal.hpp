// The process-wide half of NBR (reclaimers/nbr.hpp): the neutralization signal handler, its
// one-time installation per signal number, and the per-thread signal context it works on.
//
// One handler serves every NBR domain and every signal number. It cannot know which domain
// sent a signal (standard signals coalesce: two sends may produce one delivery), so it treats
// every NBR handle of the interrupted thread alike: if one of them is in a read phase (odd
// phase word) it jumps back to that read phase's checkpoint, whose restart publishes a larger
// odd value, the acknowledgement a waiting reclaimer looks for. A handle that is not in a read
// phase has already moved on from any odd value a reclaimer saw. The handler writes no phase
// word (only the owner's code does, so no update is ever lost between the two), which makes
// answering every domain at once always correct.
//
// Everything the handler touches is async-signal-safe: lock-free std::atomic objects (the
// thread-local state below is shared only between a thread and its own handler, which is why it
// uses std::atomic and std::atomic_signal_fence rather than core::atomic), a sigset_t copy,
// errno, and siglongjmp.
#pragma once

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <ucontext.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>

#include "smr/core/atomic.hpp"

namespace smr::nbr_detail {

// One per NBR handle, linked into its thread's list for as long as the handle lives.
struct signal_context {
  const core::atomic<std::uint64_t>* phase = nullptr;  // the handle's phase word (odd: read phase)
  std::atomic<sigjmp_buf*> checkpoint{nullptr};  // the running read phase's restart point
  std::atomic<signal_context*> next{nullptr};
};

struct thread_signal_state {
  std::atomic<signal_context*> head{nullptr};
  // Set by the outermost handler that may jump: `saved_mask` then holds the signal mask of the
  // interrupted code, which the restart path reinstates (sigsetjmp(env, 0) does not save it,
  // and after siglongjmp out of a handler the delivered signal would otherwise stay blocked).
  std::atomic<bool> mask_saved{false};
  sigset_t saved_mask{};
};

// Constant-initialized and trivially destructible: reading it in a handler needs no TLS
// initialization call.
inline constinit thread_local thread_signal_state tls_signals{};

inline void neutralize_handler(int, siginfo_t*, void* ucontext) {
  const int saved_errno = errno;
  thread_signal_state& t = tls_signals;
  const bool outermost = !t.mask_saved.load(std::memory_order_relaxed);
  if (outermost) {
    t.saved_mask = static_cast<ucontext_t*>(ucontext)->uc_sigmask;
    std::atomic_signal_fence(std::memory_order_release);  // mask copied before the flag is set
    t.mask_saved.store(true, std::memory_order_relaxed);
  }
  sigjmp_buf* restart = nullptr;
  for (signal_context* c = t.head.load(std::memory_order_relaxed); c != nullptr;
       c = c->next.load(std::memory_order_relaxed)) {
    // The decision: this thread's own latest phase value. acquire: pairs with the release
    // store that made it odd, which the checkpoint's store precedes.
    if ((c->phase->load(core::mo_acquire) & 1) != 0) restart = c->checkpoint.load(std::memory_order_relaxed);
  }
  errno = saved_errno;
  // mask_saved stays set on this path: the restart path restores the mask, then clears it.
  if (restart != nullptr) siglongjmp(*restart, 1);
  if (outermost) t.mask_saved.store(false, std::memory_order_relaxed);
}

// Called first thing after a neutralized read phase lands back at its checkpoint.
inline void restore_mask_after_restart() {
  thread_signal_state& t = tls_signals;
  pthread_sigmask(SIG_SETMASK, &t.saved_mask, nullptr);
  // A handler running between these two lines sees mask_saved set and leaves saved_mask alone.
  std::atomic_signal_fence(std::memory_order_seq_cst);
  t.mask_saved.store(false, std::memory_order_relaxed);
}

inline void link_context(signal_context& c) {
  thread_signal_state& t = tls_signals;
  c.next.store(t.head.load(std::memory_order_relaxed), std::memory_order_relaxed);
  std::atomic_signal_fence(std::memory_order_release);  // the handler never sees a half-built node
  t.head.store(&c, std::memory_order_relaxed);
}

inline void unlink_context(signal_context& c) {
  thread_signal_state& t = tls_signals;
  std::atomic<signal_context*>* link = &t.head;
  while (link->load(std::memory_order_relaxed) != &c)
    link = &link->load(std::memory_order_relaxed)->next;
  link->store(c.next.load(std::memory_order_relaxed), std::memory_order_relaxed);
  std::atomic_signal_fence(std::memory_order_seq_cst);  // unlinked before `c` can be destroyed
}

// Debug check: is any NBR handle of this thread in a read phase? (Only the owner changes the
// parity, so a relaxed read of its own words is exact.)
inline bool thread_in_read_phase() {
  for (signal_context* c = tls_signals.head.load(std::memory_order_relaxed); c != nullptr;
       c = c->next.load(std::memory_order_relaxed))
    if ((c->phase->load(core::mo_relaxed) & 1) != 0) return true;
  return false;
}

// Signal numbers whose handler this process has installed (bit n for signal n).
inline std::atomic<std::uint64_t>& installed_signals() {
  static std::atomic<std::uint64_t> bits{0};
  return bits;
}

// Installs the handler for `signo` once per process; every NBR domain calls it. Refuses a
// signal that already has a handler of someone else's: NBR needs a signal of its own.
inline void install_handler(int signo) {
  if (signo <= 0 || signo >= 64 || signo == SIGKILL || signo == SIGSTOP)
    throw std::invalid_argument("nbr: signal " + std::to_string(signo) + " cannot be used");
  const std::uint64_t bit = std::uint64_t{1} << signo;
  // acquire: pairs with the release below; the handler is in place once the bit is seen.
  if ((installed_signals().load(std::memory_order_acquire) & bit) != 0) return;
  static std::mutex lock;
  std::lock_guard<std::mutex> g(lock);
  if ((installed_signals().load(std::memory_order_relaxed) & bit) != 0) return;

  struct sigaction old {};
  if (sigaction(signo, nullptr, &old) != 0)
    throw std::system_error(errno, std::generic_category(), "nbr: sigaction");
  const bool ours = (old.sa_flags & SA_SIGINFO) != 0 && old.sa_sigaction == &neutralize_handler;
  const bool unused = (old.sa_flags & SA_SIGINFO) == 0 &&
                    (old.sa_handler == SIG_DFL || old.sa_handler == SIG_IGN);
  if (!ours && !unused)
    throw std::runtime_error("nbr: signal " + std::to_string(signo) +
                             " already has a handler; give the NBR domain a signal of its own");

  // Every NBR signal blocks every other while the handler runs, so the handler never nests in
  // itself: a nested one could take itself for the outermost while the outer one is between
  // its test of mask_saved and its copy of the mask, save a mask with the outer signal
  // blocked, and leave that signal blocked on the thread after the restart. So each earlier
  // signal's handler is installed again with the new signal added to its mask.
  // SA_RESTART: a thread interrupted in a system call (outside any read phase) resumes it.
  // No SA_NODEFER: the handler never nests on its own signal (and SA_NODEFER hangs TSan).
  const std::uint64_t all = installed_signals().load(std::memory_order_relaxed) | bit;
  struct sigaction sa {};
  sa.sa_sigaction = &neutralize_handler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (int s = 1; s < 64; ++s)
    if ((all & (std::uint64_t{1} << s)) != 0) sigaddset(&sa.sa_mask, s);
  for (int s = 1; s < 64; ++s) {
    if ((all & (std::uint64_t{1} << s)) == 0) continue;
    if (sigaction(s, &sa, nullptr) != 0)
      throw std::system_error(errno, std::generic_category(), "nbr: sigaction");
  }
  installed_signals().fetch_or(bit, std::memory_order_release);
}

}  // namespace smr::nbr_detail
