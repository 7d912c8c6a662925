// The node header every reclaimable object carries, and allocation/free through one hook.
//
// A data structure's node derives from its reclaimer's `node_base` (which derives from
// `retired_node`). The header holds the limbo link and a type-erased destroy function, so one
// limbo bag serves every node type and every reclaimer. Schemes that need more (IBR's birth and
// retire eras) extend the header in their own node_base.
//
// Poison mode (set_poison_on_free(true)) is the use-after-free detector that works without
// ASan: freed nodes are overwritten with 0xDD bytes and parked in a FIFO quarantine before the
// memory really goes back to the allocator, so a late reader sees garbage keys (checksums fail)
// or a non-canonical pointer (it faults) instead of silently reading a recycled node.
#pragma once

#include <cstddef>
#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <utility>

#include "smr/core/atomic.hpp"

namespace smr::core {

struct retired_node {
  retired_node* next_retired = nullptr;
  void (*destroy)(retired_node*) = nullptr;
};

namespace detail {

struct quarantine {
  std::mutex lock;
  std::deque<void*> parked;
  static constexpr std::size_t capacity = 1u << 16;
};

inline quarantine& poison_quarantine() {
  static quarantine q;
  return q;
}

inline std::atomic<bool>& poison_flag() {
  static std::atomic<bool> flag{false};
  return flag;
}

}  // namespace detail

inline void set_poison_on_free(bool on) { detail::poison_flag().store(on, std::memory_order_relaxed); }
inline bool poison_on_free() { return detail::poison_flag().load(std::memory_order_relaxed); }

inline constexpr unsigned char poison_byte = 0xDD;

// Returns the bytes of a destroyed object to the allocator, or poisons and quarantines them.
inline void release_storage(void* p, std::size_t size) {
#if defined(SMR_RELACY)
  // Model checking (tests/relacy): Relacy's allocator records the free in the execution
  // history, reports a double free, and the destroyed node's rl::atomic fields report any later
  // access as "access to freed memory". Poison mode is not needed there.
  (void)size;
  rl::rl_free(p, RL_INFO);
  return;
#endif
  if (!poison_on_free()) {
    ::operator delete(p);
    return;
  }
  std::memset(p, poison_byte, size);
  auto& q = detail::poison_quarantine();
  void* oldest = nullptr;
  {
    std::lock_guard<std::mutex> g(q.lock);
    q.parked.push_back(p);
    if (q.parked.size() > detail::quarantine::capacity) {
      oldest = q.parked.front();
      q.parked.pop_front();
    }
  }
  if (oldest != nullptr) ::operator delete(oldest);
}

// Empties the quarantine (end of a test or trial).
inline void drain_quarantine() {
  auto& q = detail::poison_quarantine();
  std::deque<void*> parked;
  {
    std::lock_guard<std::mutex> g(q.lock);
    parked.swap(q.parked);
  }
  for (void* p : parked) ::operator delete(p);
}

template <class T>
void destroy_node(retired_node* n) {
  T* obj = static_cast<T*>(n);
  obj->~T();
  release_storage(obj, sizeof(T));
}

// Builds a T (derived from retired_node) with its destroy hook set. Reclaimers call this from
// their allocation point, after which they may stamp their own header fields.
template <class T, class... Args>
T* construct_node(Args&&... args) {
#if defined(SMR_RELACY)
  void* mem = rl::rl_malloc(sizeof(T), RL_INFO);  // recorded in Relacy's history and leak check
#else
  void* mem = ::operator new(sizeof(T));
#endif
  T* obj = new (mem) T(std::forward<Args>(args)...);
  obj->destroy = &destroy_node<T>;
  return obj;
}

inline void free_node(retired_node* n) { n->destroy(n); }

}  // namespace smr::core
