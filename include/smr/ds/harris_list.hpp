// Harris's lock-free ordered list: Harris, "A pragmatic implementation of non-blocking
// linked-lists" (DISC 2001), the original (the Harris-Michael list, hm_list, is Michael's
// reworking of it for hazard pointers).
//
// Algorithm: a sorted, null-terminated singly linked list. remove marks the low bit of the
// victim's next link (logical deletion, the linearization point), then tries to unlink it with
// one CAS on its predecessor's link. search(key) walks from the head, passing over marked
// nodes without touching them, to the first unmarked node `right` with key >= key, remembering
// `left`, the last unmarked node before it, and the link value it read there. If left's link no
// longer leads straight to right, a chain of marked nodes lies between them: one CAS of left's
// link from the chain's first node to right unlinks the whole chain. If right has been marked
// meanwhile, the search starts again from the head. Whoever's CAS unlinks a node retires it,
// once: the chain's CAS retires the chain (its links are frozen by their marks, so walking it
// is safe, and no one else can retire those nodes), remove's own CAS retires its node.
//
// Meeting the reclaimer: the walk is one read phase that ends in reserve(left, left's link
// target, right); the
// chain's unlink CAS, insert's CAS and remove's mark and unlink CASes form the write phase, and
// every search after a write starts again from the head (so NBR applies: NBR paper, Table 1,
// HL01; its §4 uses this list as the example). Unlike Michael's version, the walk reads the
// links of marked nodes, which may already be unlinked, without validating that they are still
// reachable: hp, he and ibr_2ge cannot protect it and are refused (the interval schemes too,
// although the links are frozen: reclaimers/ibr_2ge.hpp, "When not to use it").
//
// Requirements: keys copyable and ordered by operator<; traverses unlinked nodes; every
// search after a write restarts from the head.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "smr/detail/chaos.hpp"
#include "smr/detail/compat_check.hpp"
#include "smr/detail/unpredictable.hpp"
#include "smr/detail/sorted_list_inspection.hpp"
#include "smr/core/concepts.hpp"
#include "smr/core/marked_ptr.hpp"
#include "smr/core/node.hpp"
#include "smr/core/traits.hpp"

namespace smr {

template <class K, reclaimer R>
class harris_list {
 public:
  static constexpr std::string_view name = "harris_list";
  static constexpr ds_requirements requirements{
      .traverses_unlinked_nodes = true,
      .continues_after_write = false,
      .writes_unprotected_pointers = true,  // remove links left to right's successor
      .protect_slots = 1,
  };
  using handle = typename R::handle;
  using key_type = K;

  explicit harris_list(R& domain) {
    detail::admit<requirements>(domain, name);
  }
  harris_list(const harris_list&) = delete;
  harris_list& operator=(const harris_list&) = delete;
  // Single-threaded: frees every node still linked (retired ones belong to the reclaimer).
  ~harris_list() { detail::free_list_nodes(head_); }

  bool insert(handle& h, const K& key) {
    auto g = h.begin_op();
    auto slot = g.slot();
    node* fresh = nullptr;  // allocated once, kept across retries
    for (;;) {
      const window w = search(g, slot, key);
      if (w.right != nullptr && !(key < w.right->key)) {
        if (fresh != nullptr) g.dispose(fresh);
        return false;
      }
      if (fresh == nullptr) fresh = g.template create<node>(key);
      fresh->next.store(mptr(w.right), core::mo_relaxed);  // published by the CAS below
      detail::chaos_point();
      mptr expected(w.right);
      // release: publishes the new node.
      if (link_of(w.left).compare_exchange_strong(expected, mptr(fresh), core::mo_release)) return true;
    }
  }

  bool remove(handle& h, const K& key) {
    auto g = h.begin_op();
    auto slot = g.slot();
    for (;;) {
      const window w = search(g, slot, key);
      if (w.right == nullptr || key < w.right->key) return false;
      // acquire: our unlink CAS below publishes right_next to readers of left's link, so we
      // must have acquired its construction (TSan caught the relaxed load).
      const mptr right_next = w.right->next.load(core::mo_acquire);
      if (right_next.marked()) continue;  // someone else is removing it: search again
      detail::chaos_point();
      mptr expected = right_next;
      // Logical deletion. acquire: right_next is not reserved, so under nbr it may be freed and
      // its address reused by a new successor of right before this CAS; succeeding then means
      // the CAS read that insert's release, and the unlink below publishes the new node, whose
      // construction we must have acquired.
      if (!w.right->next.compare_exchange_strong(expected, right_next.with_mark(true), core::mo_acquire))
        continue;
      detail::chaos_point();
      expected = mptr(w.right);
      // release: readers reaching right_next through left must see it built (we acquired it).
      if (link_of(w.left).compare_exchange_strong(expected, right_next, core::mo_release)) {
        g.retire(w.right);
      } else {
        search(g, slot, key);  // Harris: a search unlinks it (here or in a helper) before returning
      }
      return true;
    }
  }

  bool contains(handle& h, const K& key) {
    auto g = h.begin_op();
    auto slot = g.slot();
    const window w = search(g, slot, key);
    return detail::unpredictable(w.right != nullptr && !(key < w.right->key));  // before the guard closes
  }

  // ---- single-threaded inspection (after a run) ----

  template <class F>
  void for_each_unsafe(F&& fn) const {
    detail::for_each_list_key(head_, fn);
  }

  std::size_t size_unsafe() const { return detail::count_list_nodes(head_); }

  // Empty if: strictly sorted and no marked node reachable (detail::check_sorted_list).
  std::string check_invariants_unsafe() const {
    return detail::check_sorted_list(head_, [](const K&) { return true; });
  }

 private:
  struct node : R::node_base {
    explicit node(const K& k) : key(k) {}
    const K key;
    typename R::template atomic_ptr<node> next;
  };
  using link = typename R::template atomic_ptr<node>;
  using mptr = core::marked_ptr<node>;

  // left -> right, both unmarked when read, adjacent (left's link held right when checked);
  // left null means the head.
  struct window {
    node* left;
    node* right;
  };
  // What the read phase found: also left's link value, whose target starts the chain of marked
  // nodes to unlink when it is not `right`.
  struct found {
    node* left;
    mptr left_next;
    node* right;
  };

  link& link_of(node* n) { return n == nullptr ? head_ : n->next; }

  // Harris's search: returns left, right adjacent and unmarked with left->key < key <=
  // right->key (right null at the end), unlinking the marked chain between them first.
  template <class G, class Slot>
  window search(G& g, Slot& slot, const K& key) {
    for (;;) {
      const found f = g.read_phase([&] { return walk(g, slot, key); });
      if (f.left_next.get() != f.right) {
        // Write phase: unlink the chain left_next .. (right) with one CAS.
        detail::chaos_point();
        mptr expected = f.left_next;
        // release: readers reaching right through left must see it built (we acquired it).
        if (!link_of(f.left).compare_exchange_strong(expected, mptr(f.right), core::mo_release))
          continue;
        retire_chain(g, f.left_next.get(), f.right);
      }
      // relaxed: only the mark is used; right is reserved.
      if (f.right != nullptr && f.right->next.load(core::mo_relaxed).marked()) continue;
      return window{f.left, f.right};
    }
  }

  // One read phase from the head: passes over marked nodes, remembering the last unmarked node
  // (left) and its link, and stops at the first unmarked node with key >= key.
  template <class G, class Slot>
  found walk(G& g, Slot& slot, const K& key) {
    found f{nullptr, slot.protect(head_), nullptr};  // head_ is never marked
    node* t = f.left_next.get();
    while (t != nullptr) {
      const mptr t_next = slot.protect(t->next);
      if (!t_next.marked()) {
        if (!(t->key < key)) break;  // t is right
        f.left = t;
        f.left_next = t_next;
      }
      t = t_next.get();
    }
    f.right = t;
    // left_next too: the chain's CAS expects it, and were it freed and its address reused by
    // a new node after left, the CAS would succeed on the wrong node (nbr frees unreserved
    // nodes during write phases).
    g.reserve(f.left, f.left_next.get(), f.right);
    return f;
  }

  // After our CAS unlinked first .. (last): retire each node of the chain. The chain's links are
  // frozen by their marks and only our CAS could unlink these nodes, so none is retired yet;
  // each link is read before its node is retired (retire may free at once, e.g. nbr).
  template <class G>
  void retire_chain(G& g, node* first, node* last) {
    while (first != last) {
      // relaxed: the mark froze this link before the chain was unlinked, and we read the value
      // we walked through (or a later one: there is none).
      node* next = first->next.load(core::mo_relaxed).get();
      g.retire(first);
      first = next;
    }
  }

  link head_;
};

}  // namespace smr
