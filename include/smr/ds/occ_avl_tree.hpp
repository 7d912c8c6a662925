// OCC AVL tree: the relaxed-balance AVL tree of Bronson, Casper, Chafi and Olukotun, "A practical
// concurrent binary search tree" (PPoPP 2010), the OCCtree of Epochs too epic (Kim, Brown, Singh
// 2024, Fig. 1). Searches take no lock; updates lock the few nodes they change.
//
// Algorithm: a partially external BST. A key lives in an internal node or a leaf; a removed key
// whose node has two children leaves that node in place as a *routing* node (present == false),
// unlinked later once it has at most one child. A holder node above the root (its right link)
// is never rotated, so every real node has a parent.
//  - Optimistic hand-over-hand validation. Each node has a version word: bit 0 unlinked, bit 1
//    shrinking (a rotation is moving the node down, so keys may leave its subtree), the rest a
//    count of finished shrinks. A search at node n holds n's version v; it reads a child c, reads
//    c's version, checks that c is still n's child and n's version still v, then goes on in c
//    with c's version. Any change makes it retry from n (only n's level, not the root). A
//    shrinking child is waited for (briefly spun on, then its lock taken and released).
//  - insert: at a null link, lock the parent, check its version and the link, link a new leaf;
//    at a routing node with the key, lock it and mark it present.
//  - remove: a node with two children is marked routing under its lock; one with at most one
//    child is spliced out under its parent's lock and its own (unlinked bit set).
//  - Repair: the thread that changed a node climbs parent links and fixes what it finds:
//    heights (under the node's lock), unlinks routing nodes with at most one child, and single or
//    double rotations (under the locks of parent, node, child and grandchild, always top-down,
//    so no two threads wait for each other in a cycle). Every update repairs the damage it
//    leaves, so a quiescent tree is a strict AVL tree: exact heights, balance within one, and no
//    routing node with fewer than two children, which the invariant check demands.
// The rotation code is written once for both sides: "up" is the node's child on the heavy side.
// Two departures from the paper's listing, each found by a test here: a search re-validates its
// node when the child it reads is unlinked (attempt_get), and a double rotation that leaves a
// routing node short of a child unlinks it at once, the repair coming back to the rotation's
// parent once the damage below it is fixed (rotate_double, repair). Without them a search could
// spin for ever, and a quiescent tree could keep a stale height or an imbalance.
//
// Reclamation: a node is retired by the thread that unlinked it (a remove that splices it out,
// or a repair that unlinks a routing node), after releasing its locks; no one else can unlink
// it (the unlinked bit is set under its lock). Searches pass through nodes unlinked meanwhile,
// and the repair climbs parent links to nodes the search never saw, writing the links it reads:
// so the tree needs a scheme that protects whole operations. hp, he, the IBR interval schemes
// and lfrc are refused (traverses_unlinked_nodes, writes_unprotected_pointers) and so is NBR
// (continues_after_write: a neutralized thread cannot restart from the root while it holds locks
// half way up a repair; NBR paper §6 names this tree as incompatible).
//
// Memory orders:
//  - child links: release stores (a new leaf is built before it is linked; a rotation's shrink
//    mark precedes its link changes), acquire loads in searches. A search that reads a link a
//    rotation wrote therefore sees the shrink mark when it re-reads the version (sequence-lock
//    reasoning, the mark being the odd state); the end of a rotation is a release store of the
//    version, pairing with the acquire load of a search that then reads the new links.
//  - versions, heights, present flags and child links change only under the node's own lock
//    (parent links: under the lock of the node's old parent), so a check made under that lock
//    reads them relaxed. Outside it, versions and present flags are read with acquire, heights
//    relaxed (hints, checked again under a lock before they matter); child and parent links
//    that lead to a node whose fields are read are acquire loads of release stores.
//
// Requirements: keys copyable, default-constructible (the holder holds K{}) and ordered by
// operator<.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "smr/core/atomic.hpp"
#include "smr/core/concepts.hpp"
#include "smr/core/marked_ptr.hpp"
#include "smr/core/node.hpp"
#include "smr/core/traits.hpp"
#include "smr/detail/chaos.hpp"
#include "smr/detail/compat_check.hpp"
#include "smr/detail/spinlock.hpp"
#include "smr/detail/unpredictable.hpp"

namespace smr {

template <class K, reclaimer R>
class occ_avl_tree {
 public:
  static constexpr std::string_view name = "occ_avl_tree";
  static constexpr ds_requirements requirements{
      .traverses_unlinked_nodes = true,
      .continues_after_write = true,        // the repair climbs parent links after each update
      .writes_unprotected_pointers = true,  // rotations and splices move children they never protected
      .protect_slots = 1,
  };
  using handle = typename R::handle;
  using key_type = K;

  explicit occ_avl_tree(R& domain) { detail::admit<requirements>(domain, name); }
  occ_avl_tree(const occ_avl_tree&) = delete;
  occ_avl_tree& operator=(const occ_avl_tree&) = delete;
  // Single-threaded: frees every node still in the tree (the holder is a member).
  ~occ_avl_tree() { free_subtree(root_unsafe()); }

  bool insert(handle& h, const K& key) {
    auto g = h.begin_op();
    auto slot = g.slot();
    node* fresh = nullptr;  // allocated once, kept across retries
    const result r = update(g, slot, key, op_kind::insert, fresh);
    if (fresh != nullptr) g.dispose(fresh);  // never linked: the key was found after all
    return r == result::yes;
  }

  bool remove(handle& h, const K& key) {
    auto g = h.begin_op();
    auto slot = g.slot();
    node* unused = nullptr;
    return update(g, slot, key, op_kind::remove, unused) == result::yes;
  }

  bool contains(handle& h, const K& key) {
    auto g = h.begin_op();
    auto slot = g.slot();
    const node* const holder = &holder_;
    for (;;) {  // the holder's version never changes, so this loop runs once
      const result r = attempt_get(slot, key, holder, side::right, holder->version.load(core::mo_acquire));
      if (r != result::retry) return detail::unpredictable(r == result::yes);  // before the guard closes
    }
  }

  // ---- single-threaded inspection (after a run) ----

  template <class F>
  void for_each_unsafe(F&& fn) const {
    for_each_in(root_unsafe(), fn);
  }

  std::size_t size_unsafe() const {
    std::size_t n = 0;
    for_each_unsafe([&](const K&) { ++n; });
    return n;
  }

  // Empty if the tree is a strict AVL tree with consistent bookkeeping: keys in BST order,
  // every height exact and every balance within one, no routing node with fewer than two
  // children, parent links matching child links, and no node locked, shrinking or unlinked.
  std::string check_invariants_unsafe() const {
    if (holder_.link(side::left).load(core::mo_relaxed).get() != nullptr) return "the holder has a left child";
    if (holder_.lock.held()) return "the holder is locked";
    std::string error;
    check_subtree(root_unsafe(), &holder_, nullptr, nullptr, error);
    return error;
  }

  // Height of the tree (0 when empty), single-threaded.
  int height_unsafe() const {
    const node* r = root_unsafe();
    return r == nullptr ? 0 : r->height.load(core::mo_relaxed);
  }

 private:
  struct node;
  using link_t = typename R::template atomic_ptr<node>;
  using mptr = core::marked_ptr<node>;
  using version_t = std::uint64_t;
  using lock_guard = std::lock_guard<detail::spinlock>;

  enum class side : unsigned { left = 0, right = 1 };
  static constexpr side opposite(side s) { return s == side::left ? side::right : side::left; }
  enum class result { no, yes, retry };
  enum class op_kind { insert, remove };

  static constexpr version_t unlinked_bit = 1;
  static constexpr version_t shrinking_bit = 2;
  static constexpr version_t shrink_count_step = 4;
  static bool is_unlinked(version_t v) { return (v & unlinked_bit) != 0; }
  static bool is_shrinking(version_t v) { return (v & shrinking_bit) != 0; }

  struct node : R::node_base {
    explicit node(const K& k) : key(k) {}
    link_t& link(side s) { return children[static_cast<unsigned>(s)]; }
    const link_t& link(side s) const { return children[static_cast<unsigned>(s)]; }
    const K key;
    core::atomic<version_t> version{0};
    core::atomic<int> height{1};
    core::atomic<bool> present{true};  // false: a routing node
    detail::spinlock lock;
    core::atomic<node*> parent{nullptr};
    link_t children[2];
  };

  // A node's links. Relaxed: under the node's lock (every link of a node is written under its
  // lock, so the lock orders the child's construction and fields before us), or when the child
  // is only compared. Acquire otherwise, pairing with the release store that linked the child.
  static node* child(const node* n, side s) { return n->link(s).load(core::mo_relaxed).get(); }
  static node* child_acquire(const node* n, side s) { return n->link(s).load(core::mo_acquire).get(); }
  // A node's parent, to lock and read it. acquire: pairs with the release store that set it (a
  // rotation's or a splice's, made by a thread that had the parent's construction in view), as
  // the parent may be a node this thread never reached through a link.
  static node* parent_of(const node* n) { return n->parent.load(core::mo_acquire); }
  static int height_of(const node* n) { return n == nullptr ? 0 : n->height.load(core::mo_relaxed); }

  // -1, 0 or 1 as key is below, at or above n's key.
  static int compare(const K& key, const node* n) {
    if (key < n->key) return -1;
    return n->key < key ? 1 : 0;
  }
  static side side_of(int c) { return c < 0 ? side::left : side::right; }

  node* root_unsafe() const { return child(&holder_, side::right); }

  // ---- searches ----

  // A rotation is moving n down: spin briefly for it to end, then wait on its lock (the rotating
  // thread holds it until then, and may be descheduled).
  static void wait_until_not_changing(const node* n, version_t seen) {
    for (unsigned spins = 0; spins < 64; ++spins) {
      if (n->version.load(core::mo_acquire) != seen) return;
      core::spin_pause();
    }
    node* m = const_cast<node*>(n);
    m->lock.lock();
    m->lock.unlock();
  }

  // Looks for key below n's link on side s, n's version having been n_version when the search
  // reached it.
  template <class Slot>
  result attempt_get(Slot& slot, const K& key, const node* n, side s, version_t n_version) {
    for (;;) {
      const node* const c = slot.protect(n->link(s)).get();
      if (c == nullptr) return n->version.load(core::mo_acquire) != n_version ? result::retry : result::no;
      const int cmp = compare(key, c);
      // acquire: pairs with the release stores of insert and remove, so a lookup that sees an
      // insert's flag also sees what the inserting thread wrote before it (as a link would).
      if (cmp == 0) return c->present.load(core::mo_acquire) ? result::yes : result::no;
      const version_t c_version = c->version.load(core::mo_acquire);
      if (is_shrinking(c_version)) {
        wait_until_not_changing(c, c_version);
        continue;
      }
      // The link re-read and n's version re-read come after the acquire loads above, so a
      // rotation that changed either is seen (see the header).
      if (!is_unlinked(c_version) && c == child_acquire(n, s)) {
        if (n->version.load(core::mo_acquire) != n_version) return result::retry;
        const result r = attempt_get(slot, key, c, side_of(cmp), c_version);
        if (r != result::retry) return r;
      } else if (n->version.load(core::mo_acquire) != n_version) {
        // n was unlinked too, its link frozen on c, which was unlinked later (from its new
        // parent): without this check the search would read the same two nodes for ever (the
        // paper's listing of attemptGet leaves it out; the stress test hung on it). A node still
        // in the tree never links an unlinked one: its link changes before the child's unlinked
        // mark, a release store.
        return result::retry;
      }
    }
  }

  // ---- updates ----

  template <class G, class Slot>
  result update(G& g, Slot& slot, const K& key, op_kind op, node*& fresh) {
    for (;;) {
      const result r = attempt_update(g, slot, key, op, &holder_, side::right, holder_.version.load(core::mo_acquire), fresh);
      if (r != result::retry) return r;
    }
  }

  template <class G, class Slot>
  result attempt_update(G& g, Slot& slot, const K& key, op_kind op, node* n, side s, version_t n_version,
                        node*& fresh) {
    for (;;) {
      node* const c = slot.protect(n->link(s)).get();
      if (n->version.load(core::mo_acquire) != n_version) return result::retry;
      result r;
      if (c == nullptr) {
        if (op == op_kind::remove) return result::no;
        r = attempt_insert(g, key, n, s, n_version, fresh);
      } else {
        const int cmp = compare(key, c);
        if (cmp == 0) {
          r = op == op_kind::insert ? attempt_make_present(c) : attempt_remove_node(g, n, c);
        } else {
          const version_t c_version = c->version.load(core::mo_acquire);
          if (is_shrinking(c_version)) {
            wait_until_not_changing(c, c_version);
            r = result::retry;
          } else if (!is_unlinked(c_version) && c == child_acquire(n, s)) {
            if (n->version.load(core::mo_acquire) != n_version) return result::retry;
            r = attempt_update(g, slot, key, op, c, side_of(cmp), c_version, fresh);
          } else {
            r = result::retry;
          }
        }
      }
      if (r != result::retry) return r;
    }
  }

  // Links a new leaf at n's empty link on side s, if n is still as the search saw it.
  template <class G>
  result attempt_insert(G& g, const K& key, node* n, side s, version_t n_version, node*& fresh) {
    if (fresh == nullptr) fresh = g.template create<node>(key);
    detail::chaos_point();
    {
      const lock_guard held(n->lock);
      // relaxed: versions and links of n change only under n's lock, which we hold.
      if (n->version.load(core::mo_relaxed) != n_version || child(n, s) != nullptr) return result::retry;
      fresh->parent.store(n, core::mo_relaxed);  // unpublished yet: the link store publishes it
      // release: the new leaf is built before a search can reach it.
      n->link(s).store(mptr(fresh), core::mo_release);
    }
    fresh = nullptr;
    repair(g, n);
    return result::yes;
  }

  // The key is in n, a routing node or a present one.
  static result attempt_make_present(node* n) {
    detail::chaos_point();
    const lock_guard held(n->lock);
    if (is_unlinked(n->version.load(core::mo_relaxed))) return result::retry;
    if (n->present.load(core::mo_relaxed)) return result::no;
    n->present.store(true, core::mo_release);  // release: pairs with searches' acquire loads
    return result::yes;
  }

  static bool can_unlink(const node* n) { return child(n, side::left) == nullptr || child(n, side::right) == nullptr; }

  // The key is in n, a child of parent when the search looked.
  template <class G>
  result attempt_remove_node(G& g, node* parent, node* n) {
    if (!n->present.load(core::mo_acquire)) return result::no;
    detail::chaos_point();
    if (!can_unlink(n)) {
      // Two children: n stays as a routing node.
      const lock_guard held(n->lock);
      if (is_unlinked(n->version.load(core::mo_relaxed)) || can_unlink(n)) return result::retry;
      if (!n->present.load(core::mo_relaxed)) return result::no;
      n->present.store(false, core::mo_release);
      return result::yes;
    }
    {
      const lock_guard parent_held(parent->lock);
      // relaxed: n's parent changes only under the lock of n's parent, which we hold if it is still parent.
      if (is_unlinked(parent->version.load(core::mo_relaxed)) || n->parent.load(core::mo_relaxed) != parent)
        return result::retry;
      const lock_guard held(n->lock);
      if (is_unlinked(n->version.load(core::mo_relaxed))) return result::retry;
      if (!n->present.load(core::mo_relaxed)) return result::no;
      if (!unlink_nl(parent, n)) return result::retry;
    }
    g.retire(n);
    repair(g, parent);
    return result::yes;
  }

  // Splices n (at most one child) out from under parent; both locked. False if n is no longer
  // parent's child or has two children now. `held`: a child of n the caller has locked already.
  static bool unlink_nl(node* parent, node* n, const node* held = nullptr) {
    side s;
    if (child(parent, side::left) == n) s = side::left;
    else if (child(parent, side::right) == n) s = side::right;
    else return false;
    node* const l = child(n, side::left);
    node* const r = child(n, side::right);
    if (l != nullptr && r != nullptr) return false;
    node* const splice = l != nullptr ? l : r;
    // release: pairs with searches' acquire loads of the link (nothing new behind it but the
    // order of the unlinked mark below, which searches check on n after reading this link).
    parent->link(s).store(mptr(splice), core::mo_release);
    if (splice != nullptr) {
      const lock_moved splice_held(splice == held ? nullptr : splice);
      splice->parent.store(parent, core::mo_release);  // see parent_of()
    }
    n->present.store(false, core::mo_release);
    n->version.store(unlinked_bit, core::mo_release);  // release: a search that sees it retries
    return true;
  }

  // ---- repair ----

  static constexpr int unlink_required = -1;
  static constexpr int rebalance_required = -2;
  static constexpr int nothing_required = -3;

  // What n needs, from one racy look (relaxed reads; whoever acts checks again under locks):
  // a new height (the value), an unlink, a rotation, or nothing.
  static int condition(const node* n) {
    // acquire: the children's heights are read without their parent's lock (see child_acquire).
    const node* const l = child_acquire(n, side::left);
    const node* const r = child_acquire(n, side::right);
    if ((l == nullptr || r == nullptr) && !n->present.load(core::mo_relaxed)) return unlink_required;
    const int hn = n->height.load(core::mo_relaxed);
    const int hl = height_of(l);
    const int hr = height_of(r);
    const int want = 1 + std::max(hl, hr);
    if (hl - hr < -1 || hl - hr > 1) return rebalance_required;
    return hn != want ? want : nothing_required;
  }

  // n locked: fixes its height if that is all it needs. Returns the next node to look at (its
  // parent after a height change, n itself if it needs more, null if nothing).
  static node* fix_height_nl(node* n) {
    const int c = condition(n);
    switch (c) {
      case rebalance_required:
      case unlink_required:
        return n;
      case nothing_required:
        return nullptr;
      default:
        n->height.store(c, core::mo_relaxed);
        return parent_of(n);
    }
  }

  // What one locked repair step did besides returning the next node to look at: a node it
  // unlinked (retired once the locks are released), and the parent of a rotation that left
  // damage below it (its height can only be right once that damage is repaired, so the climb
  // comes back to it).
  struct repair_step {
    node* unlinked = nullptr;
    node* revisit = nullptr;
    bool nothing_done = false;  // a rebalance_toward found its subtree no longer too tall
  };

  // Climbs from n, fixing heights, unlinking routing nodes with at most one child and rotating,
  // until a node needs nothing; then climbs again from each rotation's parent noted on the way.
  // Any damage it did not make is its maker's to repair.
  template <class G>
  void repair(G& g, node* n) {
    std::vector<node*> revisit;  // allocates only when a rotation leaves damage below it (rare)
    for (;;) {
      while (n != nullptr && parent_of(n) != nullptr) {
        const int c = condition(n);
        if (is_unlinked(n->version.load(core::mo_acquire))) break;
        if (c == nothing_required) {
          // Confirmed under n's lock before the climb stops: the racy look may see a height
          // that a concurrent repair, holding n's lock, is about to overwrite with one computed
          // from a child height older than ours, and then neither climb would fix it (seen by
          // smrbench's invariant check in about 1% of 20 ms runs). The lock orders the two: the
          // later holder reads the other's child height and writes the right one.
          const lock_guard held(n->lock);
          if (condition(n) == nothing_required) break;
          continue;
        }
        if (c != unlink_required && c != rebalance_required) {
          const lock_guard held(n->lock);
          n = fix_height_nl(n);
          continue;
        }
        node* const parent = parent_of(n);
        repair_step step;
        detail::chaos_point();
        {
          const lock_guard parent_held(parent->lock);
          if (!is_unlinked(parent->version.load(core::mo_relaxed)) && n->parent.load(core::mo_relaxed) == parent) {
            const lock_guard held(n->lock);
            n = rebalance_nl(parent, n, step);
          }
        }
        if (step.unlinked != nullptr) g.retire(step.unlinked);
        if (step.revisit != nullptr) revisit.push_back(step.revisit);
      }
      if (revisit.empty()) return;
      n = revisit.back();
      revisit.pop_back();
    }
  }

  // parent and n locked, n parent's child.
  static node* rebalance_nl(node* parent, node* n, repair_step& step) {
    node* const l = child(n, side::left);
    node* const r = child(n, side::right);
    if ((l == nullptr || r == nullptr) && !n->present.load(core::mo_relaxed)) {
      if (!unlink_nl(parent, n)) return n;
      step.unlinked = n;
      return fix_height_nl(parent);  // while we hold its lock
    }
    const int hn = n->height.load(core::mo_relaxed);
    const int hl = height_of(l);
    const int hr = height_of(r);
    const int want = 1 + std::max(hl, hr);
    if (hl - hr > 1) return rebalance_toward(parent, n, l, hr, side::left, step);
    if (hr - hl > 1) return rebalance_toward(parent, n, r, hl, side::right, step);
    if (want != hn) {
      n->height.store(want, core::mo_relaxed);
      return fix_height_nl(parent);
    }
    return nullptr;
  }

  // n's subtree on side `heavy` (rooted at up) is too tall against the other side's height
  // h_light: rotate up above n, first rotating up's inner child above up if that side is the
  // taller one (a double rotation). parent and n locked.
  static node* rebalance_toward(node* parent, node* n, node* up, int h_light, side heavy, repair_step& step) {
    const lock_guard up_held(up->lock);
    const int h_up = up->height.load(core::mo_relaxed);
    if (h_up - h_light <= 1) {  // changed since n's look: look again
      step.nothing_done = true;
      return n;
    }
    node* const inner = child(up, opposite(heavy));
    const int h_outer = height_of(child(up, heavy));
    {
      // Every node whose parent link a rotation moves is locked before its height is read (see
      // lock_moved): inner here, and its children for a double rotation.
      const lock_moved inner_held(inner);
      const int h_inner = height_of(inner);
      if (h_outer >= h_inner) return rotate_single(parent, n, up, h_light, h_outer, inner, h_inner, heavy, step);
      // inner is taller than outer here, so not null.
      const lock_moved near_held(child(inner, heavy));
      const lock_moved far_held(child(inner, opposite(heavy)));
      const int h_inner_near = height_of(child(inner, heavy));
      // A double rotation only if it leaves up balanced, so that all damage stays on this path.
      if (!out_of_balance(h_outer - h_inner_near))
        return rotate_double(parent, n, up, h_light, h_outer, inner, h_inner_near, heavy, step);
    }
    // Otherwise fix up alone first (rotate inner above it); n is looked at again after that.
    node* const next = rebalance_toward(n, up, inner, h_outer, opposite(heavy), step);
    // That rotation found nothing to do: inner is out of balance itself, damage of a repair that
    // has not climbed this far yet. Repair inner first and come back to n: returning up, which
    // needs nothing, would stop the climb and leave n out of balance in a quiescent tree, since
    // that other repair stops below n (found in a review).
    if (step.nothing_done) {
      step.nothing_done = false;
      step.revisit = n;
      return inner;
    }
    return next;
  }

  // The lock of a node (or nothing, for null) whose parent link a rotation or an unlink moves,
  // held while its height is read and its parent link stored. A repair that changed that node's
  // height holds its lock and reads its parent link next, to climb; we read its height, move
  // it, and compute its new parent's height from that. Without the lock the repair could climb
  // to the old parent while we used the old height (or, on an unlink, both could read the old
  // values: store buffering), and neither would fix the new parent (found in a review; the
  // stale height fails the invariant check of a quiescent tree). Always a node below every
  // lock held, so the locks stay top-down.
  class lock_moved {
   public:
    explicit lock_moved(node* n) : n_(n) {
      if (n_ != nullptr) n_->lock.lock();
    }
    ~lock_moved() {
      if (n_ != nullptr) n_->lock.unlock();
    }
    lock_moved(const lock_moved&) = delete;
    lock_moved& operator=(const lock_moved&) = delete;

   private:
    node* n_;
  };

  static side side_in(const node* parent, const node* n) {
    return child(parent, side::left) == n ? side::left : side::right;
  }

  // Version changes around a rotation: shrinking while it runs, then the count moves on.
  static void begin_shrink(node* n, version_t v) {
#if defined(SMR_RELACY)
    if (core::relacy_plant::no_shrink_mark) return;  // planted bug (tests/relacy/occ_avl_tree_model.cpp): searches miss the rotation
#endif
    n->version.store(v | shrinking_bit, core::mo_relaxed);
  }
  static void end_shrink(node* n, version_t v) {
    // release: pairs with searches' acquire loads of the version; the rotation's links happen before.
    n->version.store((v & ~(unlinked_bit | shrinking_bit)) + shrink_count_step, core::mo_release);
  }
  // release: every link a rotation changes; it orders the shrink mark before the change (see
  // the header).
  static void set_child(node* n, side s, node* c) {
    n->link(s).store(mptr(c), core::mo_release);
    if (c != nullptr) c->parent.store(n, core::mo_release);  // see parent_of()
  }
  static bool out_of_balance(int b) { return b < -1 || b > 1; }

  // Where the repair goes after a rotation under parent: to the deepest node it left damaged
  // (then back to parent, whose height waits for that), else to parent's height while its lock
  // is still held.
  static node* after_rotation(node* parent, node* damaged, repair_step& step) {
    if (damaged == nullptr) return fix_height_nl(parent);
    step.revisit = parent;
    return damaged;
  }

  // up (n's child on side `heavy`) takes n's place; n takes up's inner child. parent, n, up and
  // inner (if any) locked. Returns the next node to look at, fixing what it can with the locks it has.
  static node* rotate_single(node* parent, node* n, node* up, int h_light, int h_outer, node* inner, int h_inner,
                             side heavy, repair_step& step) {
    const version_t v = n->version.load(core::mo_relaxed);
    const side where = side_in(parent, n);
    begin_shrink(n, v);
    set_child(n, heavy, inner);
    set_child(up, opposite(heavy), n);
    set_child(parent, where, up);
    const int hn = 1 + std::max(h_inner, h_light);
    n->height.store(hn, core::mo_relaxed);
    up->height.store(1 + std::max(h_outer, hn), core::mo_relaxed);
    end_shrink(n, v);
    // n, now below up, has its height right; it may still be out of balance or a routing node
    // short of a child. Then up, then parent's height.
    node* damaged = nullptr;
    if (out_of_balance(h_inner - h_light) || ((inner == nullptr || h_light == 0) && !n->present.load(core::mo_relaxed)))
      damaged = n;
    else if (out_of_balance(h_outer - hn) || (h_outer == 0 && !up->present.load(core::mo_relaxed)))
      damaged = up;
    return after_rotation(parent, damaged, step);
  }

  // inner (up's child away from `heavy`) takes n's place, with up and n as its children. parent,
  // n, up, inner and inner's children (if any) locked. If up is a routing node left short of a child, it is unlinked at
  // once (and handed back in `step`), where the paper rotates up alone first instead: that
  // rotation may find nothing to do and the repair stop there, leaving n out of balance in a
  // quiescent tree (seen in a sequential run: a routing up whose inner child had no near child).
  static node* rotate_double(node* parent, node* n, node* up, int h_light, int h_outer, node* inner, int h_inner_near,
                             side heavy, repair_step& step) {
    const version_t v = n->version.load(core::mo_relaxed);
    const version_t up_v = up->version.load(core::mo_relaxed);
    const side where = side_in(parent, n);
    node* const near = child(inner, heavy);
    node* const far = child(inner, opposite(heavy));
    const int h_far = height_of(far);
    begin_shrink(n, v);
    begin_shrink(up, up_v);
    set_child(n, heavy, far);
    set_child(up, opposite(heavy), near);
    set_child(inner, heavy, up);
    set_child(inner, opposite(heavy), n);
    set_child(parent, where, inner);
    const int hn = 1 + std::max(h_far, h_light);
    int hup = 1 + std::max(h_outer, h_inner_near);
    n->height.store(hn, core::mo_relaxed);
    up->height.store(hup, core::mo_relaxed);
    inner->height.store(1 + std::max(hup, hn), core::mo_relaxed);
    end_shrink(n, v);
    end_shrink(up, up_v);
    if ((h_outer == 0 || h_inner_near == 0) && !up->present.load(core::mo_relaxed)) {
      // Cannot fail: inner and up locked, up inner's child with at most one child (near, which
      // we hold, or outer).
      unlink_nl(inner, up, near);
      step.unlinked = up;
      // up's one child (or nothing) took its place. Its height read again, not h_outer: with near
      // null that child is outer, read before we held its lock; unlink_nl locked it to move it,
      // so a repair that changed its height either did so before (we read the new height) or
      // reads inner as its parent afterwards and fixes inner itself (see lock_moved).
      hup = height_of(child(inner, heavy));
      inner->height.store(1 + std::max(hup, hn), core::mo_relaxed);
    }
    node* damaged = nullptr;
    if (out_of_balance(h_far - h_light) || ((far == nullptr || h_light == 0) && !n->present.load(core::mo_relaxed)))
      damaged = n;
    else if (out_of_balance(hup - hn))
      damaged = inner;
    return after_rotation(parent, damaged, step);
  }

  // ---- single-threaded helpers ----

  template <class F>
  static void for_each_in(const node* n, F& fn) {
    if (n == nullptr) return;
    for_each_in(child(n, side::left), fn);
    if (n->present.load(core::mo_relaxed)) fn(n->key);
    for_each_in(child(n, side::right), fn);
  }

  static void free_subtree(node* n) {
    if (n == nullptr) return;
    free_subtree(child(n, side::left));
    free_subtree(child(n, side::right));
    core::free_node(n);
  }

  // Checks n's subtree (keys strictly between lo and hi, each null for unbounded) and returns
  // its height; sets `error` on the first fault.
  static int check_subtree(const node* n, const node* parent, const node* lo, const node* hi, std::string& error) {
    if (n == nullptr || !error.empty()) return 0;
    if (n->parent.load(core::mo_relaxed) != parent) error = "a node's parent link does not match its parent";
    else if ((lo != nullptr && !(lo->key < n->key)) || (hi != nullptr && !(n->key < hi->key)))
      error = "a key out of BST order";
    else if (n->lock.held()) error = "a reachable node is locked";
    else if (n->version.load(core::mo_relaxed) & (unlinked_bit | shrinking_bit))
      error = "a reachable node is unlinked or shrinking";
    else if (!n->present.load(core::mo_relaxed) && can_unlink(n))
      error = "a routing node with fewer than two children";
    if (!error.empty()) return 0;
    const int hl = check_subtree(child(n, side::left), n, lo, n, error);
    const int hr = check_subtree(child(n, side::right), n, n, hi, error);
    if (!error.empty()) return 0;
    const int h = 1 + std::max(hl, hr);
    if (n->height.load(core::mo_relaxed) != h) error = "a node's height is not its subtree's";
    else if (out_of_balance(hl - hr)) error = "a node out of AVL balance";
    return h;
  }

  node holder_{K{}};  // its right link is the root; never rotated, never retired
};

}  // namespace smr
