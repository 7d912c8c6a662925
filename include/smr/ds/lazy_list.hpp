// The lazy list: Heller, Herlihy, Luchangco, Moir, Scherer, Shavit, "A lazy concurrent
// list-based set algorithm" (OPODIS 2005), the list of the NBR paper's experiments (Singh et
// al. 2021, §5.2-5.3, Fig. 2).
//
// Algorithm: a sorted list behind a head sentinel, null-terminated, with a lock and a `marked`
// flag per node. insert/remove search without locks, lock pred and cur, validate (both
// unmarked, pred->next == cur), then update: remove marks cur (the linearization point) before
// unlinking it, and retires it after unlocking. contains is wait-free: it walks without locks
// or validation, possibly through unlinked nodes, and checks the mark of the node it stops at.
//
// Meeting the reclaimer: the search is the read phase and ends in reserve(pred, cur) (contains
// reserves nothing); locking, validation and the update are the write phase. Locks are taken
// only in the write phase, since a read phase may be abandoned by a restart. A failed
// validation starts a new read phase from the head.
//
// Requirements: keys copyable and ordered by operator<; traverses_unlinked_nodes (contains and
// the searches walk through nodes that may be unlinked), so hp, he and ibr_2ge are refused
// (NBR paper, Table 1; that its links are frozen once marked does not save ibr_2ge: see
// "When not to use it" in ibr_2ge.hpp); nothing else.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "smr/core/atomic.hpp"
#include "smr/detail/chaos.hpp"
#include "smr/detail/compat_check.hpp"
#include "smr/detail/unpredictable.hpp"
#include "smr/detail/sorted_list_inspection.hpp"
#include "smr/detail/spinlock.hpp"
#include "smr/core/concepts.hpp"
#include "smr/core/marked_ptr.hpp"
#include "smr/core/node.hpp"
#include "smr/core/traits.hpp"

namespace smr {

template <class K, reclaimer R>
class lazy_list {
 public:
  static constexpr std::string_view name = "lazy_list";
  static constexpr ds_requirements requirements{
      .traverses_unlinked_nodes = true,
      .continues_after_write = false,
      .writes_unprotected_pointers = true,  // remove links pred to cur's successor
      .protect_slots = 2,
  };
  using handle = typename R::handle;
  using key_type = K;

  explicit lazy_list(R& domain) {
    detail::admit<requirements>(domain, name);
  }
  lazy_list(const lazy_list&) = delete;
  lazy_list& operator=(const lazy_list&) = delete;
  ~lazy_list() { detail::free_list_nodes(head_.next); }

  bool insert(handle& h, const K& key) {
    auto g = h.begin_op();
    auto slots = g.template slots<2>();
    node* fresh = nullptr;  // allocated outside the locks, kept across retries
    for (;;) {
      const window w = search(g, slots, key);
      const bool seen = w.cur != nullptr && !(key < w.cur->key);
      if (!seen && fresh == nullptr) fresh = g.template create<node>(key);
      detail::chaos_point();
      lock_window(w);
      const bool valid = validate(w);
      bool done = false;
      if (valid && !(w.cur != nullptr && !(key < w.cur->key))) {
        // Not present, and cur is the same node we saw, so `fresh` was allocated above.
        fresh->next.store(mptr(w.cur), core::mo_relaxed);  // published by the store below
        // release: publishes the new node to lock-free readers that acquire pred->next.
        w.pred->next.store(mptr(fresh), core::mo_release);
        done = true;
      }
      unlock_window(w);
      if (valid) {
        if (!done && fresh != nullptr) g.dispose(fresh);
        return done;
      }
    }
  }

  bool remove(handle& h, const K& key) {
    auto g = h.begin_op();
    auto slots = g.template slots<2>();
    for (;;) {
      const window w = search(g, slots, key);
      detail::chaos_point();
      lock_window(w);
      const bool valid = validate(w);
      const bool found = valid && w.cur != nullptr && !(key < w.cur->key);
      if (found) {
        // relaxed: the flag publishes nothing; lockers read it under cur's lock, and a lock-free
        // reader that misses it is linearized before this store.
        w.cur->marked.store(true, core::mo_relaxed);
        // relaxed load: cur->next only changes under cur's lock, which we hold.
        // release store: readers reaching cur's successor through pred must see it built.
        w.pred->next.store(w.cur->next.load(core::mo_relaxed), core::mo_release);
      }
      unlock_window(w);
      if (found) g.retire(w.cur);
      if (valid) return found;
    }
  }

  bool contains(handle& h, const K& key) {
    auto g = h.begin_op();
    auto slots = g.template slots<2>();
    return g.read_phase([&] {
      node* cur = slots[0].protect(head_.next).get();
      unsigned i = 1;
      while (cur != nullptr && cur->key < key) {
        cur = slots[i].protect(cur->next).get();
        i ^= 1u;
      }
      // relaxed: see remove(); a node found unmarked was in the list at some point of the walk.
      const bool found = cur != nullptr && !(key < cur->key) && !cur->marked.load(core::mo_relaxed);
      g.reserve();  // no write phase follows
      return detail::unpredictable(found);  // before the phase and the guard close
    });
  }

  // ---- single-threaded inspection (after a run) ----

  template <class F>
  void for_each_unsafe(F&& fn) const {
    for (node* n = head_.next.load(core::mo_relaxed).get(); n != nullptr;
         n = n->next.load(core::mo_relaxed).get())
      fn(static_cast<const K&>(n->key));
  }

  std::size_t size_unsafe() const {
    std::size_t n = 0;
    for_each_unsafe([&](const K&) { ++n; });
    return n;
  }

  // Empty if: sentinel unmarked and unlocked, keys strictly increasing (no cycles), no marked
  // or locked node reachable.
  std::string check_invariants_unsafe() const {
    if (head_.marked.load(core::mo_relaxed)) return "head sentinel is marked";
    if (head_.lock.held()) return "head sentinel is locked";
    std::size_t index = 0;
    const node* prev = nullptr;
    for (const node* n = head_.next.load(core::mo_relaxed).get(); n != nullptr; ++index) {
      if (n->marked.load(core::mo_relaxed))
        return "marked node reachable at position " + std::to_string(index);
      if (n->lock.held()) return "locked node at position " + std::to_string(index);
      if (prev != nullptr && !(prev->key < n->key))
        return "keys not strictly increasing at position " + std::to_string(index);
      prev = n;
      n = n->next.load(core::mo_relaxed).get();
    }
    return {};
  }

 private:
  using spinlock = detail::spinlock;

  struct node;
  using mptr = core::marked_ptr<node>;

  // What the head sentinel and the nodes share; the sentinel has no key.
  struct link_node : R::node_base {
    spinlock lock;
    core::atomic<bool> marked{false};
    typename R::template atomic_ptr<node> next;
  };
  struct node : link_node {
    explicit node(const K& k) : key(k) {}
    const K key;
  };

  struct window {
    link_node* pred;
    node* cur;  // null at the end of the list
  };

  // Read phase: the first node with key >= key (or the end) and its predecessor.
  template <class G>
  window search(G& g, typename R::template slot_group<2>& slots, const K& key) {
    return g.read_phase([&] {
      link_node* pred = &head_;
      node* cur = slots[0].protect(head_.next).get();
      unsigned i = 1;
      while (cur != nullptr && cur->key < key) {
        pred = cur;
        cur = slots[i].protect(cur->next).get();
        i ^= 1u;
      }
      g.reserve(pred, cur);
      return window{pred, cur};
    });
  }

  // Always pred before cur: list order, so lockers never deadlock.
  static void lock_window(const window& w) {
    w.pred->lock.lock();
    if (w.cur != nullptr) w.cur->lock.lock();
  }
  static void unlock_window(const window& w) {
    if (w.cur != nullptr) w.cur->lock.unlock();
    w.pred->lock.unlock();
  }

  // Under both locks. relaxed loads: marks and pred->next are written only under these locks.
  static bool validate(const window& w) {
    return !w.pred->marked.load(core::mo_relaxed) &&
           (w.cur == nullptr || !w.cur->marked.load(core::mo_relaxed)) &&
           w.pred->next.load(core::mo_relaxed).get() == w.cur;
  }

  link_node head_;
};

}  // namespace smr
