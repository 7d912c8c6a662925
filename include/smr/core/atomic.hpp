// The thin, injectable layer through which every reclaimer and data structure touches shared
// memory: `core::atomic<T>`, `core::fence`, `core::spin_pause`.
//
// Three back ends, chosen at compile time:
//  - default: std::atomic and std::atomic_thread_fence;
//  - SMR_RELACY: Relacy's model-checked atomics (tests/relacy), so the same reclaimer source is
//    explored under the C++ memory model rather than only on x86;
//  - ThreadSanitizer: TSan does not model standalone fences, so a fence becomes an RMW on one
//    global atomic. Every fence then takes part in one total order of RMWs on that location,
//    which gives TSan the happens-before edges the real fences give the hardware.
#pragma once

#include <atomic>
#include <cstdint>

#if defined(SMR_RELACY)
#include <relacy/relacy.hpp>
#endif

#if defined(__SANITIZE_THREAD__)
#define SMR_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SMR_TSAN 1
#endif
#endif

namespace smr::core {

#if defined(SMR_RELACY)

using memory_order = rl::memory_order;
inline constexpr memory_order mo_relaxed = rl::mo_relaxed;
inline constexpr memory_order mo_acquire = rl::mo_acquire;
inline constexpr memory_order mo_release = rl::mo_release;
inline constexpr memory_order mo_acq_rel = rl::mo_acq_rel;
inline constexpr memory_order mo_seq_cst = rl::mo_seq_cst;

// Relacy wants a debug-info argument on every access; this adaptor supplies it so reclaimer
// code reads the same under both back ends.
template <class T>
class atomic {
 public:
  atomic() { impl_($).store(T{}, rl::mo_relaxed); }
  explicit atomic(T v) { impl_($).store(v, rl::mo_relaxed); }
  atomic(const atomic&) = delete;
  atomic& operator=(const atomic&) = delete;

  T load(memory_order mo = mo_seq_cst) const { return impl_($).load(mo); }
  void store(T v, memory_order mo = mo_seq_cst) { impl_($).store(v, mo); }
  T exchange(T v, memory_order mo = mo_seq_cst) { return impl_($).exchange(v, mo); }
  bool compare_exchange_strong(T& expected, T desired, memory_order mo = mo_seq_cst) {
    return impl_($).compare_exchange_strong(expected, desired, mo);
  }
  bool compare_exchange_weak(T& expected, T desired, memory_order mo = mo_seq_cst) {
    return impl_($).compare_exchange_weak(expected, desired, mo);
  }
  T fetch_add(T v, memory_order mo = mo_seq_cst) { return impl_($).fetch_add(v, mo); }
  T fetch_sub(T v, memory_order mo = mo_seq_cst) { return impl_($).fetch_sub(v, mo); }

 private:
  mutable rl::atomic<T> impl_;
};

inline void fence(memory_order mo) { rl::atomic_thread_fence(mo, $); }
inline void spin_pause() { rl::yield(1, $); }

#else

using memory_order = std::memory_order;
inline constexpr memory_order mo_relaxed = std::memory_order_relaxed;
inline constexpr memory_order mo_acquire = std::memory_order_acquire;
inline constexpr memory_order mo_release = std::memory_order_release;
inline constexpr memory_order mo_acq_rel = std::memory_order_acq_rel;
inline constexpr memory_order mo_seq_cst = std::memory_order_seq_cst;

template <class T>
using atomic = std::atomic<T>;

#if defined(SMR_TSAN)
inline std::atomic<std::uint64_t>& tsan_fence_word() {
  static std::atomic<std::uint64_t> word{0};
  return word;
}
// The RMW is also a full barrier on the hardware, so the real fence is not needed as well
// (and GCC warns that TSan ignores it).
inline void fence(memory_order mo) {
  tsan_fence_word().fetch_add(0, mo == mo_seq_cst ? mo_seq_cst : mo_acq_rel);
}
#else
inline void fence(memory_order mo) { std::atomic_thread_fence(mo); }
#endif

inline void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

#endif

// Owner-written counter that other threads read: the owner does load+store (no RMW, no lock
// prefix), readers take a relaxed snapshot. Only the owning thread may call add().
class owned_counter {
 public:
  void add(std::uint64_t n = 1) { v_.store(v_.load(mo_relaxed) + n, mo_relaxed); }
  std::uint64_t read() const { return v_.load(mo_relaxed); }

 private:
  atomic<std::uint64_t> v_{0};
};

}  // namespace smr::core
