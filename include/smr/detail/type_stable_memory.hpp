// What the reclaimers that keep their nodes' memory for the domain's lifetime share (lfrc's
// counted cells, tag_ibr_tpa's type-preserving blocks): where a block's bytes come from and go
// back to, how a free object inside a block is poisoned for the use-after-free detectors, and the
// domain's table of one pool per node type.
#pragma once

#include <array>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>

#include "smr/core/atomic.hpp"
#include "smr/core/node.hpp"
#include "smr/detail/spinlock.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define SMR_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SMR_ASAN 1
#endif
#endif
#if defined(SMR_ASAN) && !defined(SMR_RELACY)
#include <sanitizer/asan_interface.h>
#endif

namespace smr::detail {

// A block of `bytes` aligned to `align`: from the node memory resource (smrbench's bounded pool)
// when one is installed, else the global operator new, its aligned form only for over-aligned
// blocks (the choice core/node.hpp makes for nodes). Under Relacy, the model's allocator.
inline void* allocate_block(std::size_t bytes, std::size_t align) {
#if defined(SMR_RELACY)
  (void)align;
  return rl::rl_malloc(bytes, RL_INFO);
#else
  if (auto* r = node_resource().load(std::memory_order_relaxed); r != nullptr) return r->allocate(bytes, align);
  if (align > __STDCPP_DEFAULT_NEW_ALIGNMENT__) return ::operator new(bytes, std::align_val_t{align});
  return ::operator new(bytes);
#endif
}

inline void free_block(void* p, std::size_t align) {
#if defined(SMR_RELACY)
  (void)align;
  rl::rl_free(p, RL_INFO);
#else
  if (auto* r = node_resource().load(std::memory_order_relaxed); r != nullptr && r->owns(p)) return r->deallocate(p);
  if (align > __STDCPP_DEFAULT_NEW_ALIGNMENT__) ::operator delete(p, std::align_val_t{align});
  else ::operator delete(p);
#endif
}

// A destroyed object's bytes inside a block the pool keeps: overwritten in poison mode, and
// unaddressable under ASan until the block is handed out again (a late access is reported as a
// use-after-poison). The pool's own words around the object stay readable.
inline void poison_object(void* obj, std::size_t size) {
#if !defined(SMR_RELACY)
  if (core::poison_on_free()) std::memset(obj, core::poison_byte, size);
#if defined(SMR_ASAN)
  ASAN_POISON_MEMORY_REGION(obj, size);
#endif
#endif
  (void)obj;
  (void)size;
}
inline void unpoison_object(void* obj, std::size_t size) {
#if defined(SMR_ASAN) && !defined(SMR_RELACY)
  ASAN_UNPOISON_MEMORY_REGION(obj, size);
#endif
  (void)obj;
  (void)size;
}

// One pool per node type in a domain, made on first use and deleted with the domain. Pool has
// key() (the address of a per-type object) and a virtual destructor; a pool is found by a scan
// of at most N entries, lock-free once it exists.
template <class Pool, std::size_t N>
class pools_by_type {
 public:
  pools_by_type() = default;
  pools_by_type(const pools_by_type&) = delete;
  pools_by_type& operator=(const pools_by_type&) = delete;
  ~pools_by_type() {
    for (auto& p : pools_) delete p.load(core::mo_relaxed);
  }

  static constexpr std::size_t capacity = N;

  // The pool for key; make(index) builds it (index: its place in this table, < N) the first
  // time. Throws std::length_error naming `owner` past N node types.
  template <class Make>
  Pool& get(const void* key, Make&& make, std::string_view owner) {
    for (auto& p : pools_) {
      // acquire: pairs with the release store below (the pool is built).
      Pool* q = p.load(core::mo_acquire);
      if (q == nullptr) break;
      if (q->key() == key) return *q;
    }
    // Under the model checker a std::mutex would block the one OS thread its fibers share.
    std::lock_guard<spinlock> lock(lock_);
    for (std::size_t i = 0; i < N; ++i) {
      Pool* q = pools_[i].load(core::mo_relaxed);
      if (q == nullptr) {
        q = make(i);
        pools_[i].store(q, core::mo_release);
        return *q;
      }
      if (q->key() == key) return *q;
    }
    throw std::length_error(std::string(owner) + ": a domain serves at most " + std::to_string(N) + " node types");
  }

  // Whether p is this table's pool number i (a node of another domain names another table).
  // acquire: as in get().
  bool holds(std::size_t i, const Pool* p) const { return i < N && pools_[i].load(core::mo_acquire) == p; }

  // Every pool built so far (single-threaded use: a teardown).
  template <class F>
  void for_each(F&& f) {
    for (auto& p : pools_)
      if (Pool* q = p.load(core::mo_relaxed); q != nullptr) f(*q);
  }

 private:
  std::array<core::atomic<Pool*>, N> pools_{};
  spinlock lock_;
};

}  // namespace smr::detail
