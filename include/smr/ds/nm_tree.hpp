// Natarajan-Mittal tree: Natarajan and Mittal, "Fast concurrent lock-free binary search trees"
// (PPoPP 2014), the external BST of the IBR paper's experiments (Wen et al. 2018, §5, Fig. 8-10).
//
// Algorithm: an external (leaf-oriented) BST: keys live in the leaves, internal nodes route
// (left: key < node key, right: key >= node key), every internal node has two children. Three
// sentinel keys above every real key (inf0 < inf1 < inf2) give the fixed top: root (inf2) with
// left child S (inf1) and right child the leaf inf2; S has the leaves inf0 and inf1, and every
// real key lives in S's left subtree. Deletion is marked on edges, two bits per child link:
//  - flag: the edge's leaf is being deleted (set by the CAS that makes this delete the one that
//    owns the key; insert and contains still find a flagged leaf, as in the paper, so the
//    delete takes effect at the cleanup CAS that unlinks the leaf, by this thread or a helper);
//  - tag: the edge's node (the sibling of a flagged leaf) is about to move up; a tagged or
//    flagged edge never changes again.
// seek(key) walks from the root and records (ancestor, successor, parent, leaf): leaf is where
// the key is or would be, parent its parent, and ancestor -> successor the last untagged edge
// on the path. insert swaps parent's edge to the leaf for a new internal node over the old leaf
// and a new one. remove flags parent's edge to the leaf (inject), then cleans up: tags the
// sibling's edge and swings ancestor's edge from successor to the sibling with one CAS, which
// removes every node from successor down to parent and the flagged leaf of each. An operation
// that meets a flagged or tagged edge where it wants to write helps that cleanup first.
//
// Reclamation: the thread whose cleanup CAS succeeds retires what it removed: the chain
// successor..parent (every edge in it is tagged, so it is frozen) and, of each node of the
// chain, the child that is not on the path (a flagged leaf), except the sibling it moved up.
// Nobody else can retire these nodes, so the walk reads them safely before retiring each.
//
// Meeting the reclaimer: seek is the read phase and ends in reserve(ancestor, successor,
// parent, leaf); the CASes (insert, flag, tag, cleanup) form the write phase after it, and every
// retry seeks again from the root (so NBR applies: NBR paper, Table 1, NM14). A walk may pass
// through nodes that a concurrent cleanup has already unlinked (unlike the Harris-Michael list
// it never validates reachability), so hp, he and ibr_2ge are refused (Table 1, "No [13]").
// The IBR paper runs its schemes on this tree anyway; its links out of an unlinked node are
// frozen, but that does not make the pairing safe (ibr_2ge.hpp, "When not to use it").
//
// Requirements: keys copyable, default-constructible (the sentinels hold K{}) and ordered by
// operator<; traverses unlinked nodes; every retry restarts from the root.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "smr/detail/chaos.hpp"
#include "smr/detail/compat_check.hpp"
#include "smr/detail/unpredictable.hpp"
#include "smr/detail/external_bst.hpp"
#include "smr/core/concepts.hpp"
#include "smr/core/marked_ptr.hpp"
#include "smr/core/node.hpp"
#include "smr/core/traits.hpp"

namespace smr {

template <class K, reclaimer R>
class nm_tree {
 public:
  static constexpr std::string_view name = "nm_tree";
  static constexpr ds_requirements requirements{
      .traverses_unlinked_nodes = true,
      .continues_after_write = false,
      .writes_unprotected_pointers = true,  // cleanup moves the sibling up
      .protect_slots = 1,
  };
  using handle = typename R::handle;
  using key_type = K;

  explicit nm_tree(R& domain) {
    detail::admit<requirements>(domain, name);
  }
  nm_tree(const nm_tree&) = delete;
  nm_tree& operator=(const nm_tree&) = delete;
  // Single-threaded: frees every node still in the tree except the sentinels (members).
  ~nm_tree() { detail::external_bst::free_subtree(s_.left.load(core::mo_relaxed).get(), &inf0_); }

  bool insert(handle& h, const K& key) {
    auto g = h.begin_op();
    auto slot = g.slot();
    node* fresh_leaf = nullptr;  // allocated once, kept across retries
    for (;;) {
      const seek_record r = seek(g, slot, key);
      if (holds(r.leaf, key)) {
        if (fresh_leaf != nullptr) g.dispose(fresh_leaf);
        return false;
      }
      if (fresh_leaf == nullptr) fresh_leaf = g.template create<node>(key, real);
      node* internal = detail::external_bst::new_internal(g, key, r.leaf, fresh_leaf);
      link& edge = child(r.parent, key);
      detail::chaos_point();
      mptr expected(r.leaf);
      // release: publishes both new nodes (and, transitively, the leaf we read to build them).
      if (edge.compare_exchange_strong(expected, mptr(internal), core::mo_release)) return true;
      g.dispose(internal);
      // The edge still leads to our leaf but is flagged or tagged: help that delete first.
      if (expected.get() == r.leaf && (expected.marked() || expected.tagged())) cleanup(g, key, r);
    }
  }

  bool remove(handle& h, const K& key) {
    auto g = h.begin_op();
    auto slot = g.slot();
    node* flagged = nullptr;  // our leaf once our flag is on its edge (cleanup mode)
    for (;;) {
      const seek_record r = seek(g, slot, key);
      link& edge = child(r.parent, key);
      if (flagged == nullptr) {
        if (!holds(r.leaf, key)) return false;
        detail::chaos_point();
        mptr expected(r.leaf);
        // The flag makes this delete the owner of the key (it takes effect at the cleanup CAS,
        // header). relaxed: it publishes nothing; as an RMW it extends the release sequence of
        // the write that installed the leaf.
        if (edge.compare_exchange_strong(expected, mptr(r.leaf, true), core::mo_relaxed)) {
          flagged = r.leaf;
          if (cleanup(g, key, r)) return true;
        } else if (expected.get() == r.leaf && (expected.marked() || expected.tagged())) {
          cleanup(g, key, r);
        }
      } else {
        // Done once our leaf has left the tree. Its address can come back only after it was
        // removed and freed (NBR frees during our later read phases); such a newcomer hangs
        // from an unflagged edge unless it is being deleted too, and then finishing that
        // delete is right for both.
        if (r.leaf != flagged || !edge.load(core::mo_relaxed).marked()) return true;
        if (cleanup(g, key, r)) return true;
      }
    }
  }

  bool contains(handle& h, const K& key) {
    auto g = h.begin_op();
    auto slot = g.slot();
    return detail::unpredictable(holds(seek(g, slot, key).leaf, key));  // before the guard closes
  }

  // ---- single-threaded inspection (after a run) ----

  template <class F>
  void for_each_unsafe(F&& fn) const {
    detail::external_bst::for_each_key(s_.left.load(core::mo_relaxed).get(), fn);
  }

  std::size_t size_unsafe() const { return detail::external_bst::count_keys(s_.left.load(core::mo_relaxed).get()); }

  // Empty if: the sentinel top is intact; every internal node has two children and routes its
  // subtrees (left < key <= right); no flagged or tagged edge is reachable (every delete that
  // returned finished its cleanup); the leaves, in order, are the real keys strictly increasing
  // and then inf0.
  std::string check_invariants_unsafe() const {
    if (root_.left.load(core::mo_relaxed) != mptr(const_cast<node*>(&s_)) ||
        root_.right.load(core::mo_relaxed) != mptr(const_cast<node*>(&inf2_)) ||
        s_.right.load(core::mo_relaxed) != mptr(const_cast<node*>(&inf1_)))
      return "sentinel top of the tree changed";
    std::string error;
    check_subtree(s_.left.load(core::mo_relaxed), nullptr, &s_, error);
    if (!error.empty()) return error;
    return detail::external_bst::check_leaf_order(s_.left.load(core::mo_relaxed).get(), &inf0_);
  }

 private:
  struct node;
  using link = typename R::template atomic_ptr<node>;
  using mptr = core::marked_ptr<node>;

  // A key's rank: real keys first, then the sentinels, which compare above every real key.
  using rank_t = detail::external_bst::rank_t;
  static constexpr rank_t real = detail::external_bst::real, inf0 = detail::external_bst::inf0,
                          inf1 = detail::external_bst::inf1, inf2 = detail::external_bst::inf2;

  struct node : R::node_base {
    // A leaf (no children), or an internal node with both.
    node(const K& k, rank_t r, node* l = nullptr, node* rt = nullptr) : key(k), rank(r) {
      left.store(mptr(l), core::mo_relaxed);  // published by the CAS that links the node
      right.store(mptr(rt), core::mo_relaxed);
    }
    const K key;
    const rank_t rank;
    link left;
    link right;
  };

  struct seek_record {
    node* ancestor;
    node* successor;
    node* parent;
    node* leaf;
  };

  static bool less(const node& a, const node& b) { return detail::external_bst::less(a, b); }
  static bool goes_left(const K& key, const node* n) { return detail::external_bst::goes_left(key, n); }
  static bool holds(const node* leaf, const K& key) { return detail::external_bst::holds(leaf, key); }
  static link& child(node* n, const K& key) { return goes_left(key, n) ? n->left : n->right; }
  static link& other_child(node* n, const K& key) { return goes_left(key, n) ? n->right : n->left; }

  // The read phase: from the root to the leaf where `key` is or belongs. Every link read goes
  // through protect(), an acquire load for every admitted scheme; none is slot-based, so one
  // slot serves the whole walk.
  template <class G, class Slot>
  seek_record seek(G& g, Slot& slot, const K& key) {
    return g.read_phase([&] {
      seek_record r{&root_, &s_, &s_, nullptr};
      mptr parent_edge = slot.protect(s_.left);  // real keys all live under S's left edge
      r.leaf = parent_edge.get();
      mptr current_edge = slot.protect(child(r.leaf, key));
      while (node* current = current_edge.get()) {
        // The ancestor's edge is the last untagged one: what lies below a tagged edge is
        // about to move up, and the cleanup CAS must swing the edge above it.
        if (!parent_edge.tagged()) {
          r.ancestor = r.parent;
          r.successor = r.leaf;
        }
        r.parent = r.leaf;
        r.leaf = current;
        parent_edge = current_edge;
        current_edge = slot.protect(child(current, key));
      }
      g.reserve(r.ancestor, r.successor, r.parent, r.leaf);
      return r;
    });
  }

  // The write phase of a delete of the leaf on `key`'s path below r.parent (ours or one we
  // help): freeze the sibling's edge, then swing ancestor's edge from successor to the sibling.
  // True if our CAS removed the leaf.
  template <class G>
  bool cleanup(G& g, const K& key, const seek_record& r) {
    link* kept_edge = &other_child(r.parent, key);
    // relaxed: only the flag bit is used, and a flag never leaves an edge.
    if (!child(r.parent, key).load(core::mo_relaxed).marked())
      kept_edge = &child(r.parent, key);  // the sibling is the leaf being deleted: keep ours
    detail::chaos_point();
    // acq_rel: acquire, because the CAS below publishes the kept node (we must have acquired its
    // construction for readers that acquire the new edge to see it built); release, so that a
    // seek that reads the tag also sees the flag that caused it.
    const mptr kept = kept_edge->fetch_tag(core::mo_acq_rel);
    mptr expected(r.successor);
    detail::chaos_point();
    // release: readers reaching the kept node through the ancestor see it built.
    if (!child(r.ancestor, key).compare_exchange_strong(expected, mptr(kept.get(), kept.marked()),
                                                        core::mo_release))
      return false;
    retire_removed(g, key, r, kept.get());
    return true;
  }

  // After our cleanup CAS: retire successor..parent and, of each, the child off the path (its
  // flagged leaf), except `kept`, which moved up. Every edge in this region is frozen. Acquire
  // loads would read the final values (our seek acquired each tag in the chain, released by a
  // tagger that had read the flag; at the parent our own fetch_tag did), but RMWs read the last
  // value of each edge outright, with no argument needed, and this path runs once per removal.
  // Children are read before their parent is retired (retire may free at once under some
  // schemes, e.g. nbr with a full bag).
  template <class G>
  void retire_removed(G& g, const K& key, const seek_record& r, node* kept) {
    node* n = r.successor;
    for (;;) {
      // acquire: pairs with the release that installed each child, before we write its header.
      node* on_path = child(n, key).load_latest(core::mo_acquire).get();
      node* off_path = other_child(n, key).load_latest(core::mo_acquire).get();
      if (n == r.parent) {
        g.retire(on_path == kept ? off_path : on_path);
        g.retire(n);
        return;
      }
      g.retire(off_path);
      g.retire(n);
      n = on_path;
    }
  }

  // Every node below `edge` lies in [lo, hi) (lo null: unbounded): a router's left subtree is
  // below its key, its right subtree at or above it. Sets `error` on the first fault.
  static void check_subtree(mptr edge, const node* lo, const node* hi, std::string& error) {
    if (!error.empty()) return;
    if (edge.marked() || edge.tagged()) {
      error = "flagged or tagged edge reachable (a delete left unfinished)";
      return;
    }
    const node* n = edge.get();
    if (n == nullptr) {
      error = "internal node with one child";
      return;
    }
    if ((lo != nullptr && less(*n, *lo)) || (hi != nullptr && !less(*n, *hi))) {
      error = "node out of its routers' range";
      return;
    }
    const mptr l = n->left.load(core::mo_relaxed);
    const mptr rt = n->right.load(core::mo_relaxed);
    if (l.get() == nullptr && rt.get() == nullptr) return;  // a leaf
    check_subtree(l, lo, n, error);
    check_subtree(rt, n, hi, error);
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
