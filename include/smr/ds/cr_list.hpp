// The concurrently readable list: Hart, McKenney, Brown, Walpole, "Performance of memory
// reclamation for lockless synchronization" (JPDC 2007), §2 Listings 2-3 and §5.5 (Fig. 15):
// lock-protected updates, lockless reads, the style the Linux kernel pairs with RCU.
//
// Algorithm: a sorted, null-terminated list behind a head link, with one spinlock for all its
// updates. insert and remove take the lock, walk the list with plain loads (no node can be
// unlinked under them: only the lock holder unlinks) and link or unlink with one store; remove
// first sets the mark bit of the removed node's next link, then unlinks it, and retires it
// after unlocking. insert allocates its node before taking the lock (no allocation under a
// spinlock, and an allocation that throws leaves nothing to undo) and disposes of it when the
// key is present. contains takes no lock. With a reclaimer that protects traversals through
// unlinked nodes (the epoch schemes, IBR's epoch, NBR) it simply walks, as Listing 2; with a
// per-pointer scheme (HP, HE, IBR intervals) it validates every step as Listing 3 (Michael's
// search without the helping CAS: updaters hold the lock, readers never write): each link is
// read through protect(), and a marked link means the node it leaves was removed, so the
// search starts again from the head.
//
// Meeting the reclaimer: contains is one read phase (NBR restarts it from the head), ending in
// reserve() of nothing. Updates run outside any read phase: under the lock the nodes they touch
// are linked, hence not retired, hence never freed, whatever the scheme. Two protection slots,
// rotating (the node and its successor).
//
// Requirements: keys copyable and ordered by operator<; writes_unprotected_pointers (remove
// links the predecessor to the successor, read under the lock without protection), so TagIBR is
// refused; nothing else. Updates serialize on the lock: use cr_hash_map for many writers.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "smr/core/atomic.hpp"
#include "smr/core/concepts.hpp"
#include "smr/core/marked_ptr.hpp"
#include "smr/core/node.hpp"
#include "smr/core/traits.hpp"
#include "smr/detail/chain_set.hpp"
#include "smr/detail/chaos.hpp"
#include "smr/detail/sorted_list_inspection.hpp"
#include "smr/detail/spinlock.hpp"

namespace smr {

namespace detail {

// One concurrently readable list on its own head link and lock, shared by cr_list (one chain)
// and cr_hash_map (one per bucket). Every operation runs inside the caller's guard.
template <class K, reclaimer R>
class cr_chain {
 public:
  using key_type = K;
  using domain_type = R;
  static constexpr std::string_view set_name = "cr_list", map_name = "cr_hash_map";
  static constexpr ds_requirements requirements{
      .traverses_unlinked_nodes = false,  // validated where the scheme needs it (see above)
      .continues_after_write = false,
      .writes_unprotected_pointers = true,
      .protect_slots = 2,
  };

  cr_chain() = default;
  cr_chain(const cr_chain&) = delete;
  cr_chain& operator=(const cr_chain&) = delete;
  // Single-threaded: frees every node still linked (retired ones belong to the reclaimer).
  ~cr_chain() { free_list_nodes(head_); }

  template <class G>
  bool insert(G& g, const K& key) {
    node* fresh = g.template create<node>(key);
    lock_.lock();
    const window w = locate(key);
    const bool absent = w.cur == nullptr || key < w.cur->key;
    if (absent) {
      fresh->next.store(mptr(w.cur), core::mo_relaxed);  // published by the store below
      detail::chaos_point();
      // release: publishes the new node to lockless readers, which acquire the link.
      w.prev->store(mptr(fresh), core::mo_release);
    }
    lock_.unlock();
    if (!absent) g.dispose(fresh);
    return absent;
  }

  template <class G>
  bool remove(G& g, const K& key) {
    lock_.lock();
    const window w = locate(key);
    const bool present = w.cur != nullptr && !(key < w.cur->key);
    if (present) {
      const mptr next = w.cur->next.load(core::mo_relaxed);
      // The mark stops a validating reader that stands on cur from going on through it (its
      // successor may be removed and freed later, while cur's link would still point there).
      // release: a plain store ends the release sequence of the store that linked the successor,
      // and a reader of the simple walk (which ignores marks) that reads this value goes on to
      // the successor's key; we read that link (under the lock) after it was made, so our release
      // carries its initialisation to the reader's acquire.
      w.cur->next.store(mptr(next.get(), true), core::mo_release);
      detail::chaos_point();
      // release: a reader that acquires the new link sees the successor's initialisation (it
      // happened before our lock; the reader holds none).
      w.prev->store(next, core::mo_release);
    }
    lock_.unlock();
    if (present) g.retire(w.cur);
    return present;
  }

  template <class G>
  bool contains(G& g, const K& key) {
    auto slots = g.template slots<2>();
    return g.read_phase([&] {
      bool found = false;
      if constexpr (R::traits.protects_unlinked_traversal) {
        // Listing 2: the scheme keeps every node this walk can reach alive.
        node* cur = slots[0].protect(head_).get();
        unsigned i = 1;
        while (cur != nullptr && cur->key < key) {
          cur = slots[i].protect(cur->next).get();
          i ^= 1u;
        }
        found = cur != nullptr && !(key < cur->key);
      } else {
        found = validated_search(slots, key);
      }
      g.reserve();  // no write phase follows
      return found;
    });
  }

  // ---- single-threaded inspection (after a run) ----

  template <class F>
  void for_each_unsafe(F&& fn) const {
    for_each_list_key(head_, fn);
  }
  std::size_t size_unsafe() const { return count_list_nodes(head_); }
  // Empty if: the lock is free, keys strictly increasing, no marked link reachable (a removed
  // node is unlinked before its remover lets go of the lock), every key in_place.
  template <class InPlace>
  std::string check_unsafe(InPlace&& in_place) const {
    if (lock_.held()) return "update lock held";
    return check_sorted_list(head_, in_place);
  }

 private:
  struct node;
  using mptr = core::marked_ptr<node>;
  using link = typename R::template atomic_ptr<node>;

  struct node : R::node_base {
    explicit node(const K& k) : key(k) {}
    const K key;
    link next;
  };

  struct window {
    link* prev;  // the link that leads to cur
    node* cur;   // the first node with key >= key, or null
  };

  // Under the lock. relaxed: links are written only under it, and the lock orders them.
  window locate(const K& key) {
    link* prev = &head_;
    node* cur = head_.load(core::mo_relaxed).get();
    while (cur != nullptr && cur->key < key) {
      prev = &cur->next;
      cur = cur->next.load(core::mo_relaxed).get();
    }
    return {prev, cur};
  }

  // Listing 3. Each protect() re-reads its link after the protection is visible: an unmarked
  // link read from a protected node that was still linked means its target was linked then, so
  // the protection came in time. A marked link: the node we stand on was removed; restart.
  template <class Slots>
  bool validated_search(Slots& slots, const K& key) {
    for (;;) {
      mptr cur = slots[0].protect(head_);  // the head link is never marked
      unsigned i = 1;
      for (;;) {
        if (cur.get() == nullptr) return false;
        if (!(cur->key < key)) return !(key < cur->key);
        const mptr next = slots[i].protect(cur->next);
        if (next.marked()) break;  // cur was removed under us
        cur = next;
        i ^= 1u;
      }
    }
  }

  spinlock lock_;
  link head_;
};

}  // namespace detail

template <class K, reclaimer R>
class cr_list : public detail::chain_set<detail::cr_chain<K, R>> {
 public:
  using detail::chain_set<detail::cr_chain<K, R>>::chain_set;
};

}  // namespace smr
