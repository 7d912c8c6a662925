// The process-wide memory barrier (membarrier(2), MEMBARRIER_CMD_PRIVATE_EXPEDITED) and the
// asymmetric fence pair built on it, shared by every reclaimer that moves a per-operation
// store-load fence to its rare side: hp_asym (the hazard store vs. the scan), token (a
// thread's "in an operation" word vs. a token forwarded past an idle thread), rcu (the
// read-side counter vs. the grace period's scan) and nbr (the read-phase word vs. a round's
// snapshot).
//
// Fallback. Where membarrier is unavailable (not Linux, a kernel without the command, a seccomp
// filter, the query or the registration failing) or the environment variable
// SMR_NO_MEMBARRIER=1 is set (tests, or processes that must not be interrupted), every pair
// falls back to a seq_cst fence on both sides, after one warning on stderr per process. The
// decision is made once, when the first domain that uses the pair is constructed
// (MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, required before the command can be used, is
// issued then). Should the command fail with EPERM later (not registered: a child of fork() on
// a kernel that does not carry the registration over), the caller registers and retries; any
// other failure after a successful registration aborts with a message.
#pragma once

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <utility>

#include "smr/core/atomic.hpp"

#if defined(__linux__) && !defined(SMR_RELACY)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#define SMR_HAS_MEMBARRIER 1
#endif

namespace smr {

namespace detail {

// The process-wide barrier: membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), registered once per
// process. Under Relacy it is Relacy's process-wide barrier (rl::systemwide_fence, its model of
// FlushProcessWriteBuffers, the Windows counterpart of membarrier): every thread's view joins
// every other's at that point.
class process_barrier {
 public:
  // Whether the barrier can be used; the first call decides (thread-safe) and warns once if not.
  static bool available() {
    static const bool ok = decide();
    return ok;
  }

  // Only after available() returned true.
  static void issue() {
#if defined(SMR_RELACY)
    rl::systemwide_fence(rl::debug_info(__func__, __FILE__, __LINE__));
#elif defined(SMR_HAS_MEMBARRIER)
    if (call(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) return;
    // EPERM: not registered (a forked child on a kernel that does not inherit the
    // registration). Register and retry; anything else is a kernel that withdrew the command
    // after we registered, and readers without fences cannot be made safe any more.
    if (errno == EPERM && call(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0 &&
        call(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0)
      return;
    std::fprintf(stderr, "smr: membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) failed after registration: %s\n",
                 std::strerror(errno));
    std::abort();
#else
    std::abort();  // unreachable: available() is false
#endif
  }

 private:
#if defined(SMR_HAS_MEMBARRIER)
  static int call(int cmd) { return static_cast<int>(::syscall(__NR_membarrier, cmd, 0u, 0)); }
#endif

  static bool decide() {
#if defined(SMR_RELACY)
    return true;
#else
    const char* why = nullptr;
    char buf[160];
    if (const char* e = std::getenv("SMR_NO_MEMBARRIER"); e != nullptr && std::strcmp(e, "1") == 0) {
      why = "SMR_NO_MEMBARRIER=1 is set";
    } else {
#if defined(SMR_HAS_MEMBARRIER)
      const int commands = call(MEMBARRIER_CMD_QUERY);
      if (commands < 0) {
        std::snprintf(buf, sizeof buf, "MEMBARRIER_CMD_QUERY failed: %s", std::strerror(errno));
        why = buf;
      } else if ((commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) {
        why = "the kernel does not offer MEMBARRIER_CMD_PRIVATE_EXPEDITED";
      } else if (call(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) != 0) {
        std::snprintf(buf, sizeof buf, "MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED failed: %s", std::strerror(errno));
        why = buf;
      }
#else
      why = "membarrier is Linux-only";
#endif
    }
    if (why == nullptr) return true;
    std::fprintf(stderr,
                 "smr: membarrier unavailable (%s); falling back to symmetric fences "
                 "(a seq_cst fence where hp_asym, token, rcu and nbr readers issue a compiler barrier)\n",
                 why);
    return false;
#endif
  }
};


// The asymmetric store-load fence pair (Dice, Huang, Yang's "asymmetric Dekker"; folly's
// asymmetric_thread_fence_light/_heavy; liburcu-memb): where a frequent side (a reader
// publishing "I am here" before reading shared links) and a rare side (a reclaimer that
// published an unlink and now reads the readers' words) each need a seq_cst fence between a
// store and a load, the frequent side issues only a compiler barrier (light()) and the rare
// side the process-wide barrier (heavy()). Whichever of the two the barrier the kernel puts
// into the light side's thread falls on, one side sees the other's store: the case analysis is
// in reclaimers/hp_asym.hpp. Built once per domain, after the process-wide decision; every
// handle copies the flag, so both halves of a pair always match. Without membarrier both
// halves are seq_cst fences.
class asymmetric_fence_pair {
 public:
  asymmetric_fence_pair() : heavy_(process_barrier::available()) {}

  // Whether the asymmetric pair is in use (false: the symmetric fallback).
  bool asymmetric() const { return heavy_; }

  // The frequent side: only the compiler may not move the store below the following load; the
  // processor may, and heavy() covers exactly that.
  void light() const {
    if (heavy_) [[likely]]
      std::atomic_signal_fence(std::memory_order_seq_cst);
    else
      core::fence(core::mo_seq_cst);
  }

  // The rare side: membarrier, which includes a full barrier in the calling thread on entry and
  // on return, so no separate fence is needed.
  void heavy() const {
    if (heavy_) [[likely]]
      process_barrier::issue();
    else
      core::fence(core::mo_seq_cst);
  }

 private:
  bool heavy_;
};

// A rule's domain state that owns the pair (token, rcu): made once per domain, read by every
// handle. Base is the domain core (core/domain.hpp); Pair is another pair only in the tests'
// planted bugs (tests/support/broken_reclaimers.hpp).
template <class Base, class Pair = asymmetric_fence_pair>
class asymmetric_fence_domain : public Base {
 public:
  using Base::Base;
  const Pair& fence_policy() const { return fences_; }

 private:
  Pair fences_;
};

// The pair type a domain state holds, for the handles that keep a reference to it.
template <class Domain>
using fence_pair_of = std::remove_cvref_t<decltype(std::declval<const Domain&>().fence_policy())>;

// The word that token, rcu and nbr publish with the pair: odd while its thread is inside an
// operation, even outside; it only grows, across the owners of the slot, so a reader that saw
// one value and later sees another knows the thread has moved on (rcu's grace periods) and a
// reader that sees an even value knows it holds nothing (token's forwarding).
struct operation_word_slot {
  core::atomic<std::uint64_t> operations{0};
  static constexpr bool inside(std::uint64_t word) { return (word & 1) != 0; }
};

// The thread side of that word, for a rule whose slot derives from operation_word_slot and
// whose domain state holds the pair. Base is the rule's thread base (core/domain.hpp).
template <class Base>
class operation_word_thread : public Base {
 protected:
  explicit operation_word_thread(typename Base::domain_type& d)
      : Base(d),
        fences_(d.fence_policy()),
        // relaxed: the slot is ours now; continuing its count keeps a reader from taking a new
        // owner's first operation for the old owner's.
        word_(this->slot().operations.load(core::mo_relaxed)) {}

  // The light side of the pair: the odd value is published before any read of the operation.
  // The fence orders it against those reads. release: a reader that reads this value (acquire)
  // must also know that the previous operation has ended (rcu's grace period, token's debts),
  // and since C++20 a release sequence no longer runs through plain stores, so this store
  // carries publish_leave's release on (free on x86; stlr instead of str on Arm).
  void publish_enter() {
    this->slot().operations.store(++word_, core::mo_release);
    fences_.light();
  }
  // release: the operation's accesses happen before any reader that reads this value or a
  // later one (acquire).
  void publish_leave() { this->slot().operations.store(++word_, core::mo_release); }
  // The operation starts over without having left (NBR's neutralized read phase): a larger odd
  // value, published as publish_enter does, tells a reader that saw the previous one that the
  // thread has moved on. word_ | 1: the value stays odd and never falls below what is published
  // even when a signal handler jumped out of an earlier publish_* between its update of word_
  // and its store.
  void publish_reenter() {
    word_ = (word_ | 1) + 1;
    publish_enter();
  }

  const fence_pair_of<typename Base::domain_type>& fences() const { return fences_; }

 private:
  const fence_pair_of<typename Base::domain_type>& fences_;
  std::uint64_t word_;
};

}  // namespace detail

}  // namespace smr
