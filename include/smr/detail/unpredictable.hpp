// unpredictable(v): returns v after making the compiler treat it as an opaque register value.
//
// Why: a search's result ("found") is a data-dependent comparison, and the guard that closes
// after it has branches of its own (nesting depth, qsbr's every-k-th quiescent state, a bag to
// scan). GCC then threads the guard's exit through the comparison: it branches on the compare
// and runs a copy of the exit in each arm, instead of one setcc. A caller that only counts the
// result (smrbench) pays a mispredicted branch per search that it never asked for; a caller that
// branches on the result pays it once, as it would without this. Measured on the one-element
// read-only hm_list (keys 0..1, one thread): qsbr 72 Mops/s against none's 106, 102 when the
// result is materialised first; the same for ebr (62 to 77).
//
// The empty asm only pins the value into a register at this point; it emits no instruction and
// orders no memory (it is not a fence). Without GCC-style inline asm it is the identity.
#pragma once

#include <type_traits>

namespace smr::detail {

template <class T>
  requires std::is_scalar_v<T>
[[gnu::always_inline]] inline T unpredictable(T v) noexcept {
#if defined(__GNUC__)
  asm("" : "+r"(v));
#endif
  return v;
}

}  // namespace smr::detail
