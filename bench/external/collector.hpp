// Frees that an external library performs through a callback, routed back into smr's free path.
//
// ck_epoch and libcds call the deleter of a retired node synchronously, from inside a call that
// one of the domain's threads makes (ck_epoch_poll, a libcds scan). Around such a call the
// thread installs a collector: each callback then only moves its node into the collector's bag,
// and afterwards the thread hands the bag to its free policy, so these frees are counted, timed
// and recorded on the timeline exactly like smr's own. A callback that runs with no collector
// installed (the library's own teardown, when no thread of the domain is left) frees the node
// itself.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "smr/core/node.hpp"
#include "smr/detail/limbo_bag.hpp"

namespace smr::external {

class collector {
 public:
  // The calling thread's callbacks go to `bag` while this object lives (RAII, nests).
  explicit collector(detail::limbo_bag& bag) : previous_(current_) { current_ = &bag; }
  ~collector() { current_ = previous_; }
  collector(const collector&) = delete;
  collector& operator=(const collector&) = delete;

  // What a library's callback calls with the node it found safe.
  static void take(core::retired_node* n) {
    if (current_ != nullptr) current_->push(n);
    else core::free_node(n);
  }

 private:
  static inline thread_local detail::limbo_bag* current_ = nullptr;
  detail::limbo_bag* previous_;
};

// The part of a thread's registry slot that counts its retired nodes the library has not freed
// yet. The registry keeps slots until the domain dies, so a callback that runs after the thread
// exited still finds it, and the reclaim-now barrier can wait for exactly those nodes.
struct pending_count {
  std::atomic<std::int64_t> pending{0};
};

// Retirement into a library: the limbo link is unused while the library holds the node, so it
// carries the count the node belongs to (and, non-null, keeps the node marked retired).
inline void hand_over(core::retired_node* n, pending_count& from) {
  n->next_retired = reinterpret_cast<core::retired_node*>(&from);
  from.pending.fetch_add(1, std::memory_order_relaxed);
}
// In the library's callback, before the node is freed or collected.
template <class Count = pending_count>
Count& origin_of(core::retired_node* n) {
  return *static_cast<Count*>(reinterpret_cast<pending_count*>(n->next_retired));
}
// After the free (or the collection, which the same thread follows with the free).
inline void settled(pending_count& c) {
  c.pending.fetch_sub(1, std::memory_order_release);  // pairs with the acquire in pending_of()
}

// The thread's own nodes still held by the library.
inline std::size_t pending_of(const pending_count& own) {
  // acquire: pairs with settled(), so a count of 0 means the frees happened before.
  const std::int64_t n = own.pending.load(std::memory_order_acquire);
  return n > 0 ? static_cast<std::size_t>(n) : 0;
}

// The domain state every adapter builds on: nodes that exited threads left in the library count
// as the domain's orphans, which the reclaim-now barrier waits for (core/domain.hpp).
template <class Base>
class pending_domain : public Base {
 public:
  using Base::Base;
  bool has_orphans() {
    if (Base::has_orphans()) return true;
    auto& registry = this->registry();
    for (std::size_t id = 0, end = registry.high_water(); id < end; ++id)
      if (!registry.owned_at(id) && pending_of(registry.slot_at(id)) != 0) return true;
    return false;
  }
};

// A per-thread registration count with a library whose registration is per thread, not per
// domain (liburcu, libcds): the first attach of a thread registers it, the last detach
// unregisters it. Tag tells the libraries (and flavours) apart.
template <class Tag>
class thread_registration {
 public:
  template <class Register>
  static void acquire(Register&& do_register) {
    if (count_++ == 0) do_register();
  }
  template <class Unregister>
  static void release(Unregister&& do_unregister) {
    if (--count_ == 0) do_unregister();
  }
  static unsigned count() { return count_; }

 private:
  static inline thread_local unsigned count_ = 0;
};

}  // namespace smr::external
