// The node header every reclaimable object carries, and allocation/free through one hook.
//
// A data structure's node derives from its reclaimer's `node_base` (which derives from
// `retired_node`). The header holds the retired mark and a type-erased destroy function, so one
// limbo bag serves every node type and every reclaimer. Schemes that need more (IBR's birth and
// retire eras) extend the header in their own node_base.
//
// Allocation honours the node type (construct_node / guard.create):
//  - over-aligned types (alignof(T) > __STDCPP_DEFAULT_NEW_ALIGNMENT__) get the aligned global
//    operator new and its matching delete;
//  - a type that declares a class-specific `operator new(std::size_t)` is allocated with it and
//    freed with its class-specific `operator delete` (the object is then built with the global
//    placement new, `::new (mem) T`, which a class operator new cannot hide).
//  - every other type comes from the process's node memory resource when one is installed
//    (set_node_memory_resource: smrbench's bounded pool), else from the global operator new.
// A node allocated by the user can be retired with a stateless deleter instead
// (guard.retire(n, deleter)): smr then calls deleter(n) and never touches the memory itself.
//
// The header's `next_retired` word is the retired mark: null from construction until the node
// is retired, `end_of_bag` afterwards (poisoned memory is 0xDD..., also non-null). That makes a
// second retire of the same node detectable in every build (in checked mode also when two threads
// retire it at once: claim_retired_mark). The limbo bag keeps the node's
// address in blocks of its own (detail/limbo_bag.hpp); the word is not a link any more, and
// bench/external's collector borrows it while it owns the node.
//
// Poison mode (set_poison_on_free(true)) is the use-after-free detector that works without
// ASan: freed nodes are overwritten with 0xDD bytes and parked in a FIFO quarantine before the
// memory really goes back to the allocator, so a late reader sees garbage keys (checksums fail)
// or a non-canonical pointer (it faults) instead of silently reading a recycled node.
#pragma once

#include "smr/detail/require_cpp20.hpp"

#include <cstddef>
#include <cstdint>
#include <atomic>
#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <type_traits>
#include <utility>

#include "smr/core/atomic.hpp"

namespace smr::core {

struct retired_node {
  retired_node* next_retired = nullptr;  // the retired mark: null until retired (see above)
  void (*destroy)(retired_node*) = nullptr;
};

// The retired mark (any non-null value reads as retired).
inline retired_node* const end_of_bag = reinterpret_cast<retired_node*>(std::uintptr_t{1});

// relaxed atomic (a plain load in the machine code), as set_retired_mark() below.
inline bool is_retired(const retired_node* n) {
  return std::atomic_ref<retired_node*>(const_cast<retired_node*>(n)->next_retired).load(std::memory_order_relaxed) != nullptr;
}

// Sets the retired mark with one atomic exchange: of any number of threads marking the same node
// at once, exactly one gets true. Checked mode uses it to catch a node retired by two threads
// (is_retired() then set_retired_mark() would let both through). relaxed: only the exchange's
// atomicity matters; the node is not published through the mark.
inline bool claim_retired_mark(retired_node* n) {
  return std::atomic_ref<retired_node*>(n->next_retired).exchange(end_of_bag, std::memory_order_relaxed) == nullptr;
}

// Sets the retired mark (the limbo bag, lfrc). A relaxed atomic store, a plain store in the
// machine code: a second retirer's claim may race with it, and that thread then reports the
// double retire instead of the race being undefined behaviour (and a ThreadSanitizer report).
inline void set_retired_mark(retired_node* n) {
  std::atomic_ref<retired_node*>(n->next_retired).store(end_of_bag, std::memory_order_relaxed);
}

}  // namespace smr::core

namespace smr::core {

// A replacement for the global operator new/delete of node memory, process-wide (smrbench's
// bounded node pool, Hart et al. Fig. 14). Contract: install it before the nodes it should serve
// are allocated, and uninstall it (nullptr) only once none of them is alive, retired nodes
// included (destroy the structures and domains first): a node freed after that would go to the
// global operator delete. Nodes allocated before it was installed are told apart by owns() and
// still go back to operator delete. Types with a class-specific operator new keep theirs. In
// poison mode its blocks are poisoned and returned at once, never quarantined.
class node_memory_resource {
 public:
  virtual void* allocate(std::size_t bytes, std::size_t alignment) = 0;  // never null: throws or waits
  virtual void deallocate(void* p) = 0;
  virtual bool owns(const void* p) const = 0;

 protected:
  ~node_memory_resource() = default;
};

}  // namespace smr::core

namespace smr::detail {

using release_fn = void (*)(void*);

// relaxed: installed before the threads that allocate from it start (thread creation orders it).
inline std::atomic<core::node_memory_resource*>& node_resource() {
  static std::atomic<core::node_memory_resource*> installed{nullptr};
  return installed;
}

struct quarantine {
  struct entry {
    void* memory;
    release_fn release;
  };
  std::mutex lock;
  std::deque<entry> parked;
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

// How the memory of a T goes back: the class's operator delete, the aligned global one, or the
// plain global one (the same choice as allocate_for<T>).
template <class T>
concept has_class_operator_new = requires { T::operator new(sizeof(T)); };

template <class T>
inline constexpr bool over_aligned = alignof(T) > __STDCPP_DEFAULT_NEW_ALIGNMENT__;

template <class T>
void* allocate_for() {
  if constexpr (has_class_operator_new<T>) {
    return T::operator new(sizeof(T));
  } else {
    if (auto* r = node_resource().load(std::memory_order_relaxed); r != nullptr) [[unlikely]]
      return r->allocate(sizeof(T), alignof(T));
    if constexpr (over_aligned<T>) return ::operator new(sizeof(T), std::align_val_t{alignof(T)});
    else return ::operator new(sizeof(T));
  }
}

template <class T>
void deallocate_for(void* p) {
  if constexpr (has_class_operator_new<T>) {
    T::operator delete(static_cast<T*>(p));
  } else {
    if (auto* r = node_resource().load(std::memory_order_relaxed); r != nullptr && r->owns(p)) [[unlikely]]
      return r->deallocate(p);
    if constexpr (over_aligned<T>) ::operator delete(p, std::align_val_t{alignof(T)});
    else ::operator delete(p);
  }
}

}  // namespace smr::detail

namespace smr::core {

// Installs (or, with nullptr, removes) the node memory resource; see its contract above.
inline void set_node_memory_resource(node_memory_resource* r) { ::smr::detail::node_resource().store(r, std::memory_order_relaxed); }

inline void set_poison_on_free(bool on) { ::smr::detail::poison_flag().store(on, std::memory_order_relaxed); }
inline bool poison_on_free() { return ::smr::detail::poison_flag().load(std::memory_order_relaxed); }

inline constexpr unsigned char poison_byte = 0xDD;

// Returns the bytes of a destroyed T to the allocator, or poisons and quarantines them.
template <class T>
void release_storage(T* obj) {
  void* p = static_cast<void*>(obj);
#if defined(SMR_RELACY)
  // Model checking (tests/relacy): Relacy's allocator records the free in the execution
  // history, reports a double free, and the destroyed node's rl::atomic fields report any later
  // access as "access to freed memory". Poison mode is not needed there.
  rl::rl_free(p, RL_INFO);
  return;
#endif
  if (!poison_on_free()) {
    ::smr::detail::deallocate_for<T>(p);
    return;
  }
  std::memset(p, poison_byte, sizeof(T));
  // A node memory resource's block goes straight back to it, poisoned: parked in the
  // quarantine, it could be released after the resource is gone (and a bounded pool would
  // starve). A stale read still sees poison until the block is reused.
  if (auto* r = ::smr::detail::node_resource().load(std::memory_order_relaxed); r != nullptr && r->owns(p)) {
    ::smr::detail::deallocate_for<T>(p);
    return;
  }
  auto& q = ::smr::detail::poison_quarantine();
  ::smr::detail::quarantine::entry oldest{nullptr, nullptr};
  {
    std::lock_guard<std::mutex> g(q.lock);
    q.parked.push_back({p, &::smr::detail::deallocate_for<T>});
    if (q.parked.size() > ::smr::detail::quarantine::capacity) {
      oldest = q.parked.front();
      q.parked.pop_front();
    }
  }
  if (oldest.memory != nullptr) oldest.release(oldest.memory);
}

// Empties the quarantine (end of a test or trial).
inline void drain_quarantine() {
  auto& q = ::smr::detail::poison_quarantine();
  std::deque<::smr::detail::quarantine::entry> parked;
  {
    std::lock_guard<std::mutex> g(q.lock);
    parked.swap(q.parked);
  }
  for (const auto& e : parked) e.release(e.memory);
}

template <class T>
void destroy_node(retired_node* n) {
  T* obj = static_cast<T*>(n);
  obj->~T();
  release_storage(obj);
}

// A node freed by a user-supplied stateless deleter (guard.retire(n, deleter)).
template <class T, class Deleter>
void destroy_with_deleter(retired_node* n) {
  Deleter{}(static_cast<T*>(n));
}

// Builds a T (derived from retired_node) with its destroy hook set. Reclaimers call this from
// their allocation point, after which they may stamp their own header fields.
template <class T, class... Args>
T* construct_node(Args&&... args) {
  static_assert(std::is_base_of_v<retired_node, T>, "a node type must derive from its reclaimer's node_base");
#if defined(SMR_RELACY)
  void* mem = rl::rl_malloc(sizeof(T), RL_INFO);  // recorded in Relacy's history and leak check
#else
  void* mem = ::smr::detail::allocate_for<T>();
#endif
  T* obj;
  try {
    obj = ::new (mem) T(std::forward<Args>(args)...);
  } catch (...) {
#if defined(SMR_RELACY)
    rl::rl_free(mem, RL_INFO);
#else
    ::smr::detail::deallocate_for<T>(mem);
#endif
    throw;
  }
  obj->destroy = &destroy_node<T>;
  return obj;
}

// noexcept: a deleter or destructor that throws ends the program. Propagated, it would leave a
// batch half freed (the rest leaked) and an operation's start half done (the handle inside an
// operation no other thread knows of).
inline void free_node(retired_node* n) noexcept { n->destroy(n); }

}  // namespace smr::core
