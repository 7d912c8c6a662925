// DGT tree: the external BST of David, Guerraoui and Trigonakis, "Asynchronized concurrency:
// the secret to scaling concurrent search data structures" (ASPLOS 2015), their BST-TK: searches
// take no lock and write nothing, updates lock the one or two nodes they change. It is the tree
// of the NBR paper's main results (Singh et al. 2021, Fig. 3a, 4c-d) and of Epochs too epic
// (Figs. 13-14).
//
// Algorithm: an external (leaf-oriented) BST, as nm_tree.hpp: keys live in the leaves, internal
// nodes route (left: key < node key, right: key >= node key) and always have two children. The
// same three sentinel keys above every real key give a fixed top: root (inf2) with left child S
// (inf1) and right child the leaf inf2; S has the leaves inf0 and inf1 at first, and every real
// key lives in S's left subtree, so a real leaf always has a parent and a grandparent, and the
// parent is never S.
//   Each internal node carries a lock word with one version per child link (left, right): even
// while the link is free, odd while an update holds it. An update never waits for a lock: it
// takes it only if the version is still the one its search read before following the link
// (try_lock at a version, BST-TK's tl_trylock_version), so holding it proves that the link is
// still what the search saw. A search reads a node's word, then the child link it follows.
//  - insert: search to the leaf; lock the parent's link to it at the version read; replace the
//    leaf by a new internal node over the old leaf and a new one; unlock (version + 2).
//  - remove: search to the leaf, keeping parent and grandparent; lock the grandparent's link to
//    the parent, then both links of the parent (one CAS of the whole word at the versions
//    read); swing the grandparent's link to the leaf's sibling; unlock the grandparent. The
//    parent stays locked for ever: every later try_lock on it fails, so no update can land in
//    a node that has left the tree. If the parent cannot be locked, the grandparent's lock is
//    reverted (version back to what it was: nothing changed under it).
// A failed try_lock restarts the operation from the root.
//
// Reclamation: the remover retires the leaf and the parent it unlinked; nobody else can (both
// were locked by it). Searches pass through nodes that were unlinked meanwhile without
// validating anything, so hp, he, ibr_2ge and tag_ibr are refused (NBR paper, Table 1: DGT is
// supported by NBR and the epoch schemes only).
//
// Meeting NBR: the search is the read phase and ends in reserve(grandparent, parent, leaf), the
// nodes the write phase touches (it also reads the sibling link of the locked parent, a field
// of a reserved node, and writes the sibling's address without dereferencing it); every retry
// searches again from the root.
//
// Memory orders (the versions work as a sequence lock per link):
//  - search: acquire load of the lock word, then acquire load of the link it guards; a
//    try_lock CAS that succeeds at that version proves that no unlock intervened, so no store
//    to the link did either (stores happen only under the lock, before the unlock);
//  - try_lock: acquire CAS, pairing with the previous holder's release unlock, so the links it
//    stored (and the nodes they publish) are visible to us;
//  - link stores under the lock: release, pairing with searches' acquire loads of the link;
//  - unlock: release RMW; revert: relaxed (nothing was written under the lock).
//
// Requirements: keys copyable, default-constructible (the sentinels hold K{}) and ordered by
// operator<; traverses unlinked nodes; every retry restarts from the root.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "smr/core/atomic.hpp"
#include "smr/core/concepts.hpp"
#include "smr/core/marked_ptr.hpp"
#include "smr/core/node.hpp"
#include "smr/core/traits.hpp"
#include "smr/detail/chaos.hpp"
#include "smr/detail/compat_check.hpp"
#include "smr/detail/unpredictable.hpp"
#include "smr/detail/external_bst.hpp"

namespace smr {

template <class K, reclaimer R>
class dgt_tree {
 public:
  static constexpr std::string_view name = "dgt_tree";
  static constexpr ds_requirements requirements{
      .traverses_unlinked_nodes = true,
      .continues_after_write = false,
      .writes_unprotected_pointers = true,  // remove moves the sibling up without protecting it
      .protect_slots = 1,
  };
  using handle = typename R::handle;
  using key_type = K;

  explicit dgt_tree(R& domain) { detail::admit<requirements>(domain, name); }
  dgt_tree(const dgt_tree&) = delete;
  dgt_tree& operator=(const dgt_tree&) = delete;
  // Single-threaded: frees every node still in the tree except the sentinels (members).
  ~dgt_tree() { detail::external_bst::free_subtree(s_.left.load(core::mo_relaxed).get(), &inf0_); }

  bool insert(handle& h, const K& key) {
    auto g = h.begin_op();
    auto slot = g.slot();
    node* fresh_leaf = nullptr;  // allocated once, kept across retries
    for (;;) {
      const path p = search(g, slot, key);
      if (holds(p.leaf, key)) {
        if (fresh_leaf != nullptr) g.dispose(fresh_leaf);
        return false;
      }
      if (fresh_leaf == nullptr) fresh_leaf = g.template create<node>(key, real);
      node* internal = detail::external_bst::new_internal(g, key, p.leaf, fresh_leaf);
      const side s = side_of(p.parent, key);
      detail::chaos_point();
      if (p.parent->lock.try_lock(s, p.parent_word)) {
        // release: readers that acquire the link see both new nodes built.
        p.parent->link(s).store(mptr(internal), core::mo_release);
        p.parent->lock.unlock(s);
        return true;
      }
      g.dispose(internal);  // never published
    }
  }

  bool remove(handle& h, const K& key) {
    auto g = h.begin_op();
    auto slot = g.slot();
    for (;;) {
      const path p = search(g, slot, key);
      if (!holds(p.leaf, key)) return false;
      const side up = side_of(p.grandparent, key);
      detail::chaos_point();
      if (!p.grandparent->lock.try_lock(up, p.grandparent_word)) continue;
      detail::chaos_point();
      if (!p.parent->lock.try_lock_both(p.parent_word)) {
        p.grandparent->lock.revert(up);
        continue;
      }
      // Both of the parent's links are ours now and stay so: the sibling link is final.
      // relaxed: our try_lock_both acquired from the unlock that followed its last store.
      const mptr sibling = p.parent->link(opposite(side_of(p.parent, key))).load(core::mo_relaxed);
      // release: passes on the sibling's construction (acquired above) to readers of the link.
      p.grandparent->link(up).store(sibling, core::mo_release);
      p.grandparent->lock.unlock(up);
      g.retire(p.leaf);
      g.retire(p.parent);
      return true;
    }
  }

  bool contains(handle& h, const K& key) {
    auto g = h.begin_op();
    auto slot = g.slot();
    return detail::unpredictable(holds(search(g, slot, key).leaf, key));  // before the guard closes
  }

  // ---- single-threaded inspection (after a run) ----

  template <class F>
  void for_each_unsafe(F&& fn) const {
    detail::external_bst::for_each_key(s_.left.load(core::mo_relaxed).get(), fn);
  }

  std::size_t size_unsafe() const { return detail::external_bst::count_keys(s_.left.load(core::mo_relaxed).get()); }

  // Empty if: the sentinel top is intact; every internal node has two children, routes its
  // subtrees (left < key <= right) and holds no lock (every update that returned unlocked, and
  // only removed nodes stay locked); the leaves, in order, are the real keys strictly
  // increasing and then inf0.
  std::string check_invariants_unsafe() const {
    if (root_.left.load(core::mo_relaxed).get() != &s_ || root_.right.load(core::mo_relaxed).get() != &inf2_ ||
        s_.right.load(core::mo_relaxed).get() != &inf1_)
      return "sentinel top of the tree changed";
    if (root_.lock.held() || s_.lock.held()) return "a sentinel is locked";
    std::string error;
    check_subtree(s_.left.load(core::mo_relaxed).get(), nullptr, &s_, error);
    if (!error.empty()) return error;
    return detail::external_bst::check_leaf_order(s_.left.load(core::mo_relaxed).get(), &inf0_);
  }

 private:
  struct node;
  using link_t = typename R::template atomic_ptr<node>;
  using mptr = core::marked_ptr<node>;
  enum class side : unsigned { left = 0, right = 1 };
  static constexpr side opposite(side s) { return s == side::left ? side::right : side::left; }

  // A key's rank: real keys first, then the sentinels, which compare above every real key.
  using rank_t = detail::external_bst::rank_t;
  static constexpr rank_t real = detail::external_bst::real, inf0 = detail::external_bst::inf0,
                          inf1 = detail::external_bst::inf1, inf2 = detail::external_bst::inf2;

  // An internal node's two link locks in one word: the left link's version in the low half,
  // the right link's in the high half; odd = held.
  class link_locks {
   public:
    // acquire: see the header (a search reads this before the link it guards).
    std::uint64_t word() const { return word_.load(core::mo_acquire); }
    bool held() const {
      const std::uint64_t w = word_.load(core::mo_relaxed);
      return w != even(w);
    }

    // Takes side s's lock if its version is still the one in `seen` (and free then).
    bool try_lock(side s, std::uint64_t seen) {
      const std::uint32_t version = half(seen, s);
      if ((version & 1) != 0) return false;
      std::uint64_t cur = word_.load(core::mo_relaxed);
      // The other half may change meanwhile (its own updates): retry while ours is unchanged.
      while (half(cur, s) == version) {
        // acquire: pairs with the release unlock of the previous holder.
        if (word_.compare_exchange_weak(cur, with_half(cur, s, version + 1), core::mo_acquire, core::mo_relaxed))
          return true;
      }
      return false;
    }

    // Takes both locks if the whole word is still `seen` (both versions unchanged and free).
    bool try_lock_both(std::uint64_t seen) {
      if (seen != even(seen)) return false;
      const std::uint64_t locked = with_half(with_half(seen, side::left, half(seen, side::left) + 1), side::right,
                                             half(seen, side::right) + 1);
      // acquire: as try_lock, for both links.
      return word_.compare_exchange_strong(seen, locked, core::mo_acquire, core::mo_relaxed);
    }

    // release: the link stores made under the lock happen before any try_lock that succeeds
    // after this (and the version change fails every try_lock at the old version).
    void unlock(side s) { step(s, +1, core::mo_release); }
    // relaxed: nothing was written under the lock, and the version is the one searches saw;
    // as an RMW it continues the release sequence of the last unlock, so the next holder still
    // acquires what that unlock published.
    void revert(side s) { step(s, -1, core::mo_relaxed); }

   private:
    static std::uint32_t half(std::uint64_t w, side s) {
      return static_cast<std::uint32_t>(w >> (32 * static_cast<unsigned>(s)));
    }
    static std::uint64_t with_half(std::uint64_t w, side s, std::uint32_t v) {
      const unsigned shift = 32 * static_cast<unsigned>(s);
      return (w & ~(std::uint64_t{0xFFFFFFFF} << shift)) | (std::uint64_t{v} << shift);
    }
    static std::uint64_t even(std::uint64_t w) { return w & ~std::uint64_t{0x0000000100000001}; }
    // We hold side s's lock, so only the other half can change: a CAS loop keeps each half's
    // arithmetic within its 32 bits.
    void step(side s, int delta, core::memory_order mo) {
      std::uint64_t cur = word_.load(core::mo_relaxed);
      while (!word_.compare_exchange_weak(cur, with_half(cur, s, half(cur, s) + static_cast<std::uint32_t>(delta)), mo,
                                          core::mo_relaxed)) {
      }
    }

    core::atomic<std::uint64_t> word_{0};
  };

  struct node : R::node_base {
    // A leaf (no children), or an internal node with both.
    node(const K& k, rank_t r) : key(k), rank(r), is_leaf(true) {}
    node(const K& k, rank_t r, node* l, node* rt) : key(k), rank(r), is_leaf(false) {
      left.store(mptr(l), core::mo_relaxed);  // published by the store that links the node
      right.store(mptr(rt), core::mo_relaxed);
    }
    link_t& link(side s) { return s == side::left ? left : right; }
    const K key;
    const rank_t rank;
    const bool is_leaf;
    link_t left;
    link_t right;
    link_locks lock;  // used by internal nodes only
  };

  // What a search saw: the leaf where the key is or belongs, its parent and grandparent, and
  // the lock words of those two read before following their links.
  struct path {
    node* grandparent;
    node* parent;
    node* leaf;
    std::uint64_t grandparent_word;
    std::uint64_t parent_word;
  };

  static bool less(const node& a, const node& b) { return detail::external_bst::less(a, b); }
  static bool goes_left(const K& key, const node* n) { return detail::external_bst::goes_left(key, n); }
  static side side_of(const node* n, const K& key) { return goes_left(key, n) ? side::left : side::right; }
  static bool holds(const node* leaf, const K& key) { return detail::external_bst::holds(leaf, key); }

  // The read phase: from S to the leaf where `key` is or belongs. Every link read goes through
  // protect(), an acquire load for every admitted scheme; none is slot-based, so one slot serves
  // the whole walk.
  template <class G, class Slot>
  path search(G& g, Slot& slot, const K& key) {
    return g.read_phase([&] {
      path p{&root_, &s_, nullptr, root_.lock.word(), s_.lock.word()};
      node* current = slot.protect(s_.left).get();  // real keys all live under S's left link
      while (!current->is_leaf) {
        p.grandparent = p.parent;
        p.grandparent_word = p.parent_word;
        p.parent = current;
        p.parent_word = current->lock.word();  // before the link it guards
        current = slot.protect(current->link(side_of(current, key))).get();
      }
      p.leaf = current;
      g.reserve(p.grandparent, p.parent, p.leaf);
      return p;
    });
  }

  // Every node below n lies in [lo, hi) (lo null: unbounded): a router's left subtree is below
  // its key, its right subtree at or above it. Sets `error` on the first fault.
  static void check_subtree(const node* n, const node* lo, const node* hi, std::string& error) {
    if (!error.empty()) return;
    if (n == nullptr) {
      error = "internal node with a missing child";
      return;
    }
    if ((lo != nullptr && less(*n, *lo)) || (hi != nullptr && !less(*n, *hi))) {
      error = "node out of its routers' range";
      return;
    }
    if (n->is_leaf) return;
    if (n->lock.held()) {
      error = "a reachable node is locked (an update left unfinished, or a removed node linked)";
      return;
    }
    check_subtree(n->left.load(core::mo_relaxed).get(), lo, n, error);
    check_subtree(n->right.load(core::mo_relaxed).get(), n, hi, error);
  }

  // The sentinel top (never retired; nodes not made by create() are treated conservatively by
  // every reclaimer). inf0's leaf moves inside S's left subtree as keys come and go.
  node inf0_{K{}, inf0};
  node inf1_{K{}, inf1};
  node inf2_{K{}, inf2};
  node s_{K{}, inf1, &inf0_, &inf1_};
  node root_{K{}, inf2, &s_, &inf2_};
};

}  // namespace smr
