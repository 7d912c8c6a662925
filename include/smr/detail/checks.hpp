// Misuse detection: what the library refuses at run time, and when it checks.
//
//  - always (every build, costs nothing measurable): a node retired twice, a node retired that
//    was not allocated through create() and has no deleter, a domain destroyed while handles
//    are attached, a handle destroyed inside an operation or by a thread other than the one that
//    attached it, protection slots exhausted (thrown);
//  - in checked mode (debug builds, i.e. NDEBUG undefined, or SMR_CHECKED defined, or poison
//    mode switched on at run time): a handle used by a thread other than the one that attached
//    it, protect() outside an operation, a guard or slot that outlives its operation, a node
//    retired by two threads at once.
// A failed check prints one line "smr: misuse: ..." saying what was wrong and aborts: the
// alternative is a silent use-after-free.
#pragma once

#include <cstdio>
#include <cstdlib>

#include "smr/core/node.hpp"

namespace smr::detail {

#if !defined(NDEBUG) || defined(SMR_CHECKED)
inline constexpr bool checked_build = true;
#else
inline constexpr bool checked_build = false;
#endif

// Whether the checked-mode checks run: a constant in checked builds, one relaxed load otherwise.
inline bool checks_on() { return checked_build || core::poison_on_free(); }

[[noreturn]] inline void misuse(const char* what) {
  std::fprintf(stderr, "smr: misuse: %s\n", what);
  std::fflush(stderr);
  std::abort();
}

}  // namespace smr::detail
