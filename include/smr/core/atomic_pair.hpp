// A pair of 64-bit words with a double-width compare-and-swap (WCAS) on both at once and
// single-word loads and stores of either half: what WFE's reservations ({era, tag}) and
// answers ({pointer, era}) need, and TagIBR-WCAS's {pointer, tag} links after it.
//
// Mixed-size access is outside the C++ object model (an object is accessed as one atomic of
// 16 bytes and as two of 8), as in every published WFE and WCAS implementation: it relies on
// the hardware, where an aligned 8-byte access is single-copy atomic and takes part in the
// same coherence order as the locked 16-byte CAS that covers it (x86-64 cmpxchg16b; AArch64
// CASP or LDXP/STXP). A 16-byte CAS built from a lock (libatomic's fallback, TSan's runtime)
// would not exclude the 8-byte stores, so neither is used. Back ends:
//  - x86-64: `lock cmpxchg16b` (a full barrier, so every order the callers ask for holds);
//    `double_width_cas_supported()` reads the CPU's flag, and a user refuses to run without it
//    (require_double_width_cas). A snapshot of both halves is one VEX-encoded 16-byte load
//    (vmovdqa) on CPUs with AVX, which Intel (SDM vol. 3A, 9.1.1) and AMD (APM vol. 1, 3.9.1)
//    guarantee to be atomic for aligned operands; without AVX it is a cmpxchg16b that writes
//    back what it read, which dirties the line (TagIBR-WCAS reads every link that way).
//    Under ThreadSanitizer the same instructions, which it cannot see, with release/acquire
//    annotations on the pair's address, so that it still sees the happens-before edges;
//  - AArch64: the 16-byte __atomic builtin (lock-free there; may need -latomic);
//  - elsewhere: not supported (a user refuses to run);
//  - Relacy: one model atomic holding the pair; a half load is a load of the pair, and a half
//    store is a CAS loop on the pair (an RMW, slightly stronger than the hardware's store).
#pragma once

#include <cstdint>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "smr/core/atomic.hpp"

#if !defined(SMR_RELACY) && defined(__x86_64__)
#include <cpuid.h>
#endif
#if defined(SMR_TSAN)
#include <sanitizer/tsan_interface.h>
#endif

namespace smr::core {

struct word_pair {
  std::uint64_t first = 0, second = 0;
  friend bool operator==(const word_pair&, const word_pair&) = default;
  friend std::ostream& operator<<(std::ostream& os, const word_pair& p) {
    return os << '{' << p.first << ", " << p.second << '}';
  }
};

// Whether this CPU has the double-width CAS the std back end uses.
inline bool double_width_cas_supported() {
#if defined(SMR_RELACY) || defined(__aarch64__)
  return true;
#elif defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (ecx & bit_CMPXCHG16B) != 0;
#else
  return false;
#endif
}

// Refuses to build a domain of `who` on a CPU without the double-width CAS.
inline void require_double_width_cas(std::string_view who) {
  if (!double_width_cas_supported())
    throw std::runtime_error(std::string(who) +
                             ": this CPU has no lock-free double-width CAS (x86-64 cmpxchg16b, AArch64), which this reclaimer needs");
}

#if defined(SMR_RELACY)

class atomic_pair {
 public:
  word_pair load(memory_order mo) const { return pair_.load(mo); }
  std::uint64_t load_first(memory_order mo) const { return pair_.load(mo).first; }
  std::uint64_t load_second(memory_order mo) const { return pair_.load(mo).second; }
  void store(word_pair v, memory_order mo) { pair_.store(v, mo); }
  void store_first(std::uint64_t v, memory_order mo) {
    word_pair old = pair_.load(mo_relaxed);
    while (!pair_.compare_exchange_strong(old, word_pair{v, old.second}, mo, mo_relaxed)) {}
  }
  void store_second(std::uint64_t v, memory_order mo) {
    word_pair old = pair_.load(mo_relaxed);
    while (!pair_.compare_exchange_strong(old, word_pair{old.first, v}, mo, mo_relaxed)) {}
  }
  bool compare_exchange(word_pair& expected, word_pair desired, memory_order mo) {
    return pair_.compare_exchange_strong(expected, desired, mo);
  }

 private:
  atomic<word_pair> pair_;
};

#else

class alignas(16) atomic_pair {
 public:
  // A snapshot of both halves (see the header for the two ways).
  word_pair load(memory_order mo) const {
#if defined(__x86_64__)
    if (avx_loads()) {
      word_pair v;
      // One 16-byte load, then both halves to registers (no round trip through memory, whose
      // 16-byte store would not forward to the 8-byte reads). The "memory" clobber keeps
      // later accesses after the load (x86 loads are acquire).
      __asm__ __volatile__("vmovdqa %2, %%xmm15\n\tvmovq %%xmm15, %0\n\tvpextrq $1, %%xmm15, %1"
                           : "=r"(v.first), "=r"(v.second)
                           : "m"(half_)
                           : "xmm15", "memory");
      tsan_acquire();
      return v;
    }
#endif
    word_pair v{};
    const_cast<atomic_pair*>(this)->compare_exchange(v, v, mo);
    return v;
  }
  std::uint64_t load_first(memory_order mo) const { return half_[0].load(mo); }
  std::uint64_t load_second(memory_order mo) const { return half_[1].load(mo); }
  void store(word_pair v, memory_order mo) {
    word_pair old = load(mo_relaxed);
    while (!compare_exchange(old, v, mo)) {}
  }
  void store_first(std::uint64_t v, memory_order mo) { half_[0].store(v, mo); }
  void store_second(std::uint64_t v, memory_order mo) { half_[1].store(v, mo); }

  // Compares both halves with `expected` and, if both match, writes `desired`; otherwise
  // loads the current pair into `expected`.
  bool compare_exchange(word_pair& expected, word_pair desired, memory_order mo) {
#if defined(__x86_64__)
    (void)mo;  // a locked instruction: a full barrier whatever the order asked
    tsan_release();
    bool ok;
    __asm__ __volatile__("lock cmpxchg16b %1"
                         : "=@ccz"(ok), "+m"(half_), "+a"(expected.first), "+d"(expected.second)
                         : "b"(desired.first), "c"(desired.second)
                         : "memory");
    tsan_acquire();
    return ok;
#else
    unsigned __int128 e = pack(expected);
    const int fail = mo == mo_acq_rel ? __ATOMIC_ACQUIRE : mo == mo_release ? __ATOMIC_RELAXED : order(mo);
    const bool ok = __atomic_compare_exchange_n(reinterpret_cast<unsigned __int128*>(&half_[0]), &e, pack(desired),
                                                false, order(mo), fail);
    if (!ok) expected = word_pair{static_cast<std::uint64_t>(e), static_cast<std::uint64_t>(e >> 64)};
    return ok;
#endif
  }

 private:
  // ThreadSanitizer does not see the instructions above: the pair's address stands for them as
  // a synchronization object (every access is treated as acq_rel, which can only hide races).
  void tsan_release() const {
#if defined(SMR_TSAN)
    __tsan_release(const_cast<void*>(static_cast<const void*>(&half_)));
#endif
  }
  void tsan_acquire() const {
#if defined(SMR_TSAN)
    __tsan_acquire(const_cast<void*>(static_cast<const void*>(&half_)));
#endif
  }
#if !defined(__x86_64__)
  static unsigned __int128 pack(word_pair p) { return (static_cast<unsigned __int128>(p.second) << 64) | p.first; }
  static int order(memory_order mo) {
    switch (mo) {
      case mo_relaxed: return __ATOMIC_RELAXED;
      case mo_acquire: return __ATOMIC_ACQUIRE;
      case mo_release: return __ATOMIC_RELEASE;
      case mo_acq_rel: return __ATOMIC_ACQ_REL;
      default: return __ATOMIC_SEQ_CST;
    }
  }
#endif
#if defined(__x86_64__)
  static bool avx_loads() {
    static const bool avx = __builtin_cpu_supports("avx");  // checks that the OS saves the state too
    return avx;
  }
#endif
  static_assert(sizeof(atomic<std::uint64_t>) == 8, "a half must be a plain 8-byte word");
  atomic<std::uint64_t> half_[2]{};
};

#endif

}  // namespace smr::core
