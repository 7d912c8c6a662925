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
#include <cstddef>
#include <cstdint>

#if defined(SMR_RELACY)
// Relacy's umbrella header <relacy/relacy.hpp> ends with macros that rename new, delete,
// malloc, free, assert, errno, memory_order_* and the whole pthread API in every header that
// follows it, which breaks the standard library and our own headers. We include the parts the
// umbrella is made of, without those macros. Allocation stays visible to Relacy: its
// context.hpp replaces the global operator new/delete (build with -fno-sized-deallocation so
// that every delete reaches the replacement), and core/node.hpp calls rl_malloc/rl_free.
#include <source_location>

#include <relacy/base.hpp>
#include <relacy/context.hpp>
#include <relacy/context_base_impl.hpp>
#include <relacy/backoff.hpp>
#include <relacy/atomic_fence.hpp>
#include <relacy/atomic.hpp>
#include <relacy/var.hpp>
#include <relacy/thread_local.hpp>
#include <relacy/test_suite.hpp>
#include <relacy/dyn_thread.hpp>
#include <relacy/stdlib/mutex.hpp>
#include <relacy/stdlib/condition_variable.hpp>
#include <relacy/stdlib/semaphore.hpp>
#include <relacy/stdlib/event.hpp>
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

// Relacy wants a debug-info argument on every access; this adaptor supplies the caller's
// source location, so a failing history names the line of reclaimer code that made the access.
// Every member mirrors the std::atomic member of the same name (no implicit seq_cst operators).
inline rl::debug_info rl_info(const std::source_location& loc) {
  return rl::debug_info(loc.function_name(), loc.file_name(), loc.line());
}

// Relacy's history printer cannot hold pointers to const: such atomics store the pointer
// without its const and give it back with it.
template <class T>
struct rl_repr {
  using type = T;
  static type in(T v) { return v; }
  static T out(type v) { return v; }
};
template <class U>
struct rl_repr<const U*> {
  using type = U*;
  static type in(const U* v) { return const_cast<U*>(v); }
  static const U* out(type v) { return v; }
};

template <class T>
class atomic {
  using where = std::source_location;
  using repr = rl_repr<T>;
  using S = typename repr::type;

 public:
  // Value-initialized like C++20 std::atomic. The initial value is a relaxed store, not
  // Relacy's "strong init": Relacy treats a strong-init value as seen by every thread, so a
  // load could never return it once another value was stored, and the stale reads that break
  // a missing store-load fence (a scanner reading an announcement slot's initial "nothing")
  // would never be explored.
  atomic() : atomic(T{}) {}
  explicit atomic(T v) { impl_.store(repr::in(v), rl::mo_relaxed, rl_info(where::current())); }
  atomic(const atomic&) = delete;
  atomic& operator=(const atomic&) = delete;

  T load(memory_order mo = mo_seq_cst, where w = where::current()) const {
    return repr::out(impl_.load(mo, rl_info(w)));
  }
  void store(T v, memory_order mo = mo_seq_cst, where w = where::current()) {
    impl_.store(repr::in(v), mo, rl_info(w));
  }
  T exchange(T v, memory_order mo = mo_seq_cst, where w = where::current()) {
    return repr::out(impl_.exchange(repr::in(v), mo, rl_info(w)));
  }
  bool compare_exchange_strong(T& expected, T desired, memory_order mo = mo_seq_cst,
                               where w = where::current()) {
    return cas<false>(expected, desired, mo, fail_order(mo), w);
  }
  bool compare_exchange_strong(T& expected, T desired, memory_order mo, memory_order fail,
                               where w = where::current()) {
    return cas<false>(expected, desired, mo, fail, w);
  }
  // Relacy also explores the spurious failures a weak CAS may have.
  bool compare_exchange_weak(T& expected, T desired, memory_order mo = mo_seq_cst,
                             where w = where::current()) {
    return cas<true>(expected, desired, mo, fail_order(mo), w);
  }
  bool compare_exchange_weak(T& expected, T desired, memory_order mo, memory_order fail,
                             where w = where::current()) {
    return cas<true>(expected, desired, mo, fail, w);
  }
  T fetch_add(T v, memory_order mo = mo_seq_cst, where w = where::current()) {
    return impl_.fetch_add(v, mo, rl_info(w));
  }
  T fetch_sub(T v, memory_order mo = mo_seq_cst, where w = where::current()) {
    return impl_.fetch_sub(v, mo, rl_info(w));
  }
  T fetch_and(T v, memory_order mo = mo_seq_cst, where w = where::current()) {
    return impl_.fetch_and(v, mo, rl_info(w));
  }
  T fetch_or(T v, memory_order mo = mo_seq_cst, where w = where::current()) {
    return impl_.fetch_or(v, mo, rl_info(w));
  }
  T fetch_xor(T v, memory_order mo = mo_seq_cst, where w = where::current()) {
    return impl_.fetch_xor(v, mo, rl_info(w));
  }
  static constexpr bool is_always_lock_free = true;

 private:
  // The failure order std::atomic derives from a single order.
  static memory_order fail_order(memory_order mo) {
    if (mo == mo_acq_rel) return mo_acquire;
    if (mo == mo_release) return mo_relaxed;
    return mo;
  }

  template <bool Weak>
  bool cas(T& expected, T desired, memory_order mo, memory_order fail, where w) {
    S e = repr::in(expected);
    const bool ok =
        impl_.compare_exchange(rl::bool_t<Weak>(), e, repr::in(desired), mo, fail, rl_info(w));
    expected = repr::out(e);
    return ok;
  }

  mutable rl::generic_atomic<S, false> impl_;
};

// Bugs the model tests (tests/relacy) plant in the library, each switched on by a model's
// command-line option before its searches (tests/relacy/model.hpp), so that a model's real and
// planted runs are one program. Only Relacy builds have them.
namespace relacy_plant {
// Every seq_cst fence becomes an acq_rel one: the store-load (Dekker) ordering between an
// announcement and the following re-read is gone, and Relacy must find a use-after-free in every
// announcement-based reclaimer.
inline bool weak_fence = false;
// detail/llx_scx.hpp: the freeze CAS is relaxed (tests/relacy/ab_tree_model.cpp).
inline bool relaxed_freeze = false;
// ds/occ_avl_tree.hpp: rotations do not mark the node shrinking (tests/relacy/occ_avl_tree_model.cpp).
inline bool no_shrink_mark = false;
// reclaimers/lfrc.hpp: give_back() pushes the block at once (tests/relacy/lfrc_pool_model.cpp).
inline bool lfrc_give_back_at_once = false;
}  // namespace relacy_plant

inline void fence(memory_order mo, std::source_location w = std::source_location::current()) {
  if (relacy_plant::weak_fence && mo == mo_seq_cst) mo = mo_acq_rel;
  rl::atomic_thread_fence(mo, rl_info(w));
}
// Tells Relacy's scheduler that this thread is waiting for another one (spin loops), so that
// it switches threads and can report a livelock instead of exploring the spin forever.
inline void spin_pause(std::source_location w = std::source_location::current()) {
  rl::yield(1, rl_info(w));
}

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

// Granularity of false sharing: data written by different threads (or written often and read by
// many) is aligned to it so that one thread's stores do not invalidate another's line.
inline constexpr std::size_t cache_line = 64;

// Owner-written counter that other threads read: the owner does load+store (no RMW, no lock
// prefix), readers take a relaxed snapshot. Only the owning thread may call add().
#if defined(SMR_RELACY)
// Under Relacy, statistics are not part of the protocol being checked: a plain integer keeps
// them out of the model (no scheduling points, smaller search). Relacy's simulated threads are
// fibers of one OS thread, so the plain integer is not a real data race.
class owned_counter {
 public:
  void add(std::uint64_t n = 1) { v_ += n; }
  std::uint64_t read() const { return v_; }

 private:
  std::uint64_t v_ = 0;
};
#else
class owned_counter {
 public:
  void add(std::uint64_t n = 1) { v_.store(v_.load(mo_relaxed) + n, mo_relaxed); }
  std::uint64_t read() const { return v_.load(mo_relaxed); }

 private:
  atomic<std::uint64_t> v_{0};
};
#endif

}  // namespace smr::core
