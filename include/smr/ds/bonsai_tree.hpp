// Bonsai tree: the persistent balanced BST of Clements, Kaashoek and Zeldovich (ASPLOS 2012),
// in the lock-free form of the IBR paper's experiments (Wen et al. 2018, §5, Fig. 8-10).
//
// Algorithm: a weight-balanced tree (Adams' trees with the parameters delta = 3, ratio = 2
// that Hirai and Yamamoto proved correct for single insertions and deletions): every node holds
// a key and the size of its subtree, and each child's size + 1 is at most delta times its
// sibling's size + 1. The tree is persistent: a node never changes once published. An update
// reads the root, builds a new version by path copying (a new node for each node on the path to
// the key, and new nodes for whatever the rebalancing rotations rearrange; every other subtree is
// shared), and installs it with one CAS on the root. A failed CAS discards the new nodes and
// starts over from the new root; a successful one retires every node of the old version that
// the new one left out: the copied path and the rotated nodes, a number that is not known in
// advance (why the IBR paper leaves hp and he out of this tree).
//
// Meeting the reclaimer: the read phase reads the root through protect_root() and every other
// link through protect(), and computes the new version as a *plan*, on the stack: each planned
// node is a key, a size and two references, each either an old node or an earlier planned node.
// It reserves only the old root (what the write phase compares against). The write phase then
// allocates the planned nodes (children first), CASes the root, and retires the replaced nodes,
// reading no old node: so NBR may abandon a read phase at any point (nothing was allocated
// yet) and frees nothing the write phase touches. Readers follow immutable links through
// versions that may already be replaced: every scheme that protects unlinked traversal applies,
// and so do the interval schemes (a node is never younger than a version that holds it, and is
// retired only after that version is replaced), POIBR included (the structure is persistent);
// hp, he, wfe and lfrc are refused.
//
// Requirements: keys trivially copyable (they are copied into the plan during a read phase,
// which NBR may abandon with siglongjmp), default-constructible and ordered by operator<. An
// update's plan lives on the calling thread's stack (about 25 KB).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "smr/detail/chaos.hpp"
#include "smr/detail/checks.hpp"
#include "smr/detail/compat_check.hpp"
#include "smr/detail/unpredictable.hpp"
#include "smr/core/concepts.hpp"
#include "smr/core/marked_ptr.hpp"
#include "smr/core/node.hpp"
#include "smr/core/traits.hpp"

namespace smr {

template <class K, reclaimer R>
class bonsai_tree {
  static_assert(std::is_trivially_copyable_v<K>,
                "bonsai_tree: keys must be trivially copyable (they are copied into the update "
                "plan during a read phase, which NBR may abandon)");

 public:
  static constexpr std::string_view name = "bonsai_tree";
  static constexpr ds_requirements requirements{
      .traverses_unlinked_nodes = true,  // readers walk versions that may be replaced
      .continues_after_write = false,    // a failed CAS starts over from the root
      .protect_slots = 1,
      .persistent = true,
  };
  using handle = typename R::handle;
  using key_type = K;

  explicit bonsai_tree(R& domain) { detail::admit<requirements>(domain, name); }
  bonsai_tree(const bonsai_tree&) = delete;
  bonsai_tree& operator=(const bonsai_tree&) = delete;
  // Single-threaded: frees the current version (replaced ones were retired).
  ~bonsai_tree() { free_subtree(root_.load(core::mo_relaxed).get()); }

  bool insert(handle& h, const K& key) {
    return update(h, [&](auto& p, ref root) { return p.insert(root, key); });
  }

  bool remove(handle& h, const K& key) {
    return update(h, [&](auto& p, ref root) { return p.remove(root, key); });
  }

  bool contains(handle& h, const K& key) {
    auto g = h.begin_op();
    auto slot = g.slot();
    const bool found = g.read_phase([&] {
      const node* n = slot.protect_root(root_).get();
      while (n != nullptr) {
        if (key < n->key) n = slot.protect(n->left).get();
        else if (n->key < key) n = slot.protect(n->right).get();
        else break;
      }
      g.reserve();
      return n != nullptr;
    });
    return detail::unpredictable(found);
  }

  // ---- single-threaded inspection (after a run) ----

  template <class F>
  void for_each_unsafe(F&& fn) const {
    for_each_in(root_.load(core::mo_relaxed).get(), fn);
  }

  std::size_t size_unsafe() const { return size_of(root_.load(core::mo_relaxed).get()); }

  // Empty if: no link is marked; keys strictly increase in order; every node's size is its
  // children's plus one; every node is weight-balanced (delta).
  std::string check_invariants_unsafe() const {
    std::string error;
    const K* last = nullptr;
    check_subtree(root_.load(core::mo_relaxed), last, error);
    return error;
  }

 private:
  struct node;
  using link = typename R::template atomic_ptr<node>;
  using mptr = core::marked_ptr<node>;

  struct node : R::node_base {
    // The links are published by the root CAS that installs the version (release).
    node(const K& k, std::size_t s, node* l, node* r) : key(k), size(s) {
      left.store(mptr(l), core::mo_relaxed);
      right.store(mptr(r), core::mo_relaxed);
    }
    const K key;
    const std::size_t size;
    link left;
    link right;
  };

  // Weight balance (Hirai and Yamamoto): a subtree of weight w = size + 1 has children of weight
  // at most 3/4 w, so the height is at most log_{4/3} of the weight, below 160 for any size_t.
  static constexpr std::size_t delta = 3, ratio = 2, max_height = 160;
  // Planned nodes of one update: at most three per level of the paths it copies (a double
  // rotation makes three), and the paths of one update together are no longer than the tree is
  // high.
  static constexpr std::size_t plan_capacity = 3 * max_height + 3;
  static bool balanced(std::size_t a, std::size_t b) { return delta * (a + 1) >= b + 1; }
  static bool single_rotation(std::size_t inner, std::size_t outer) { return inner + 1 < ratio * (outer + 1); }

  // A reference in a plan: null, an old node (aligned, low bit clear), or planned node i
  // (2i + 1).
  using ref = std::uintptr_t;
  static ref old_ref(const node* n) { return reinterpret_cast<ref>(n); }
  static bool is_planned(ref r) { return (r & 1) != 0; }

  // The new version an update computes during its read phase: planned nodes, children first,
  // and the old nodes it leaves out.
  template <class Slot>
  class basic_plan {
   public:
    static constexpr std::size_t capacity = plan_capacity;

    explicit basic_plan(Slot& slot) : slot_(&slot) {}
    void clear() { planned_ = dropped_count_ = 0; }

    // The new root after inserting key below `t`, or `unchanged` if key is there.
    ref insert(ref t, const K& key) {
      if (t == 0) return make(key, 0, 0);
      return copy_path(
          t, key, [&](ref child) { return insert(child, key); }, [](ref, const fields&) { return unchanged; });
    }

    // The new root after removing key from below `t`, or `unchanged` if key is absent.
    ref remove(ref t, const K& key) {
      if (t == 0) return unchanged;
      return copy_path(
          t, key, [&](ref child) { return remove(child, key); },
          [&](ref at, const fields& f) {
            drop(at);
            return glue(f.left, f.right);
          });
    }

    static constexpr ref unchanged = ~ref{0};  // neither null, an old node nor a plan index

    std::size_t planned() const { return planned_; }
    const K& key(std::size_t i) const { return nodes_[i].key; }
    std::size_t size(std::size_t i) const { return nodes_[i].size; }
    ref left(std::size_t i) const { return nodes_[i].left; }
    ref right(std::size_t i) const { return nodes_[i].right; }
    // A planned node that a later rotation took apart: never allocated.
    bool discarded(std::size_t i) const { return nodes_[i].discarded; }
    std::size_t dropped() const { return dropped_count_; }
    node* dropped(std::size_t i) const { return dropped_[i]; }

   private:
    struct fields {
      K key;
      std::size_t size;
      ref left, right;
    };
    struct planned_node : fields {
      bool discarded;
    };

    static std::size_t index(ref r) { return r >> 1; }

    // One level of an update's path: recurse toward key (`below(child)` gives the new child, or
    // `unchanged`), then copy t over the new child and rebalance; at key itself, `at_key(t, f)`.
    template <class Below, class AtKey>
    ref copy_path(ref t, const K& key, Below&& below, AtKey&& at_key) {
      const fields f = read(t);
      const bool left = key < f.key;
      if (!left && !(f.key < key)) return at_key(t, f);
      const ref child = below(left ? f.left : f.right);
      if (child == unchanged) return unchanged;
      drop(t);
      return left ? balance(f.key, child, f.right) : balance(f.key, f.left, child);
    }

    // The fields of an old node (its links read through the slot) or of a planned one.
    fields read(ref r) const {
      if (is_planned(r)) return nodes_[index(r)];
      const node* n = reinterpret_cast<const node*>(r);
      return {n->key, n->size, old_ref(slot_->protect(n->left).get()), old_ref(slot_->protect(n->right).get())};
    }

    std::size_t size_of(ref r) const {
      if (r == 0) return 0;
      return is_planned(r) ? nodes_[index(r)].size : reinterpret_cast<const node*>(r)->size;
    }

    // `r` is replaced in the new version: an old node is retired once the version is in, a
    // planned one is never allocated.
    void drop(ref r) {
      if (is_planned(r)) {
        nodes_[index(r)].discarded = true;
      } else {
        if (dropped_count_ == capacity) overflow();
        dropped_[dropped_count_++] = reinterpret_cast<node*>(r);
      }
    }

    ref make(const K& key, ref l, ref r) {
      if (planned_ == capacity) overflow();
      nodes_[planned_] = {{key, size_of(l) + size_of(r) + 1, l, r}, false};
      return (ref{planned_++} << 1) | 1;
    }

    // A node over l and r, one of which changed by one key since they were balanced.
    ref balance(const K& key, ref l, ref r) {
      const std::size_t sl = size_of(l), sr = size_of(r);
      if (sl + sr > 1) {
        if (!balanced(sl, sr)) return rotate_left(key, l, r);
        if (!balanced(sr, sl)) return rotate_right(key, l, r);
      }
      return make(key, l, r);
    }

    ref rotate_left(const K& key, ref l, ref r) {
      const fields fr = read(r);
      drop(r);
      if (single_rotation(size_of(fr.left), size_of(fr.right))) return make(fr.key, make(key, l, fr.left), fr.right);
      const fields frl = read(fr.left);
      drop(fr.left);
      return make(frl.key, make(key, l, frl.left), make(fr.key, frl.right, fr.right));
    }

    ref rotate_right(const K& key, ref l, ref r) {
      const fields fl = read(l);
      drop(l);
      if (single_rotation(size_of(fl.right), size_of(fl.left))) return make(fl.key, fl.left, make(key, fl.right, r));
      const fields flr = read(fl.right);
      drop(fl.right);
      return make(flr.key, make(fl.key, fl.left, flr.left), make(key, flr.right, r));
    }

    // l and r, with every key of l below every key of r, as one balanced tree: the larger side
    // gives up its extreme key to become the root.
    ref glue(ref l, ref r) {
      if (l == 0) return r;
      if (r == 0) return l;
      K top{};
      if (size_of(l) > size_of(r)) {
        const ref l2 = remove_max(l, top);
        return balance(top, l2, r);
      }
      const ref r2 = remove_min(r, top);
      return balance(top, l, r2);
    }

    ref remove_min(ref t, K& min) {
      const fields f = read(t);
      drop(t);
      if (f.left == 0) {
        min = f.key;
        return f.right;
      }
      const ref l = remove_min(f.left, min);
      return balance(f.key, l, f.right);
    }

    ref remove_max(ref t, K& max) {
      const fields f = read(t);
      drop(t);
      if (f.right == 0) {
        max = f.key;
        return f.left;
      }
      const ref r = remove_max(f.right, max);
      return balance(f.key, f.left, r);
    }

    [[noreturn]] static void overflow() {
      detail::misuse("bonsai_tree: an update plan outgrew its bound (the tree is not weight-balanced)");
    }

    Slot* slot_;
    std::size_t planned_ = 0, dropped_count_ = 0;
    planned_node nodes_[capacity];
    node* dropped_[capacity];
  };

  template <class Op>
  bool update(handle& h, Op&& op) {
    auto g = h.begin_op();
    auto slot = g.slot();
    using plan = basic_plan<decltype(slot)>;
    plan p(slot);
    node* built[plan_capacity];
    for (;;) {
      node* old_root = nullptr;
      ref new_root = plan::unchanged;
      g.read_phase([&] {
        p.clear();  // a restarted read phase starts from an empty plan
        old_root = slot.protect_root(root_).get();
        new_root = op(p, old_ref(old_root));
        // The write phase compares the root with old_root (reserved against ABA) and reads no
        // other old node.
        g.reserve(old_root);
        return 0;
      });
      if (new_root == plan::unchanged) return false;
      node* fresh = build(g, p, built, new_root);
      mptr expected(old_root);
      detail::chaos_point();
      // release: publishes the new version's nodes to readers that acquire the root.
      if (root_.compare_exchange_strong(expected, mptr(fresh), core::mo_release)) {
        for (std::size_t i = 0; i < p.dropped(); ++i) g.retire(p.dropped(i));
        return true;
      }
      // The version was never published: its new nodes go straight back.
      for (std::size_t i = 0; i < p.planned(); ++i)
        if (built[i] != nullptr) g.dispose(built[i]);
    }
  }

  // The write phase's allocation of a plan's nodes (children first, into `built`); returns the
  // new root. Reads no old node. If an allocation throws (std::bad_alloc, smrbench's exhausted
  // node pool), the nodes built so far, never published, are disposed of before it propagates.
  template <class G, class Plan>
  static node* build(G& g, const Plan& p, node** built, ref root) {
    std::size_t i = 0;
    try {
      for (; i < p.planned(); ++i) {
        built[i] = p.discarded(i) ? nullptr
                                  : g.template create<node>(p.key(i), p.size(i), resolve(built, p.left(i)),
                                                            resolve(built, p.right(i)));
      }
    } catch (...) {
      while (i != 0)
        if (node* n = built[--i]; n != nullptr) g.dispose(n);
      throw;
    }
    return resolve(built, root);
  }

  static node* resolve(node* const* built, ref r) {
    if (r == 0) return nullptr;
    return is_planned(r) ? built[r >> 1] : reinterpret_cast<node*>(r);
  }

  static std::size_t size_of(const node* n) { return n == nullptr ? 0 : n->size; }

  static void free_subtree(node* n) {
    while (n != nullptr) {
      free_subtree(n->left.load(core::mo_relaxed).get());
      node* r = n->right.load(core::mo_relaxed).get();
      core::free_node(n);
      n = r;
    }
  }

  template <class F>
  static void for_each_in(const node* n, F& fn) {
    while (n != nullptr) {
      for_each_in(n->left.load(core::mo_relaxed).get(), fn);
      fn(n->key);
      n = n->right.load(core::mo_relaxed).get();
    }
  }

  // Checks the subtree below `edge` (in order: `last` is the previous key); returns its size.
  static std::size_t check_subtree(mptr edge, const K*& last, std::string& error) {
    if (!error.empty()) return 0;
    if (edge.marked() || edge.tagged()) {
      error = "marked link reachable";
      return 0;
    }
    const node* n = edge.get();
    if (n == nullptr) return 0;
    const std::size_t sl = check_subtree(n->left.load(core::mo_relaxed), last, error);
    if (!error.empty()) return 0;
    if (last != nullptr && !(*last < n->key)) {
      error = "keys out of order";
      return 0;
    }
    last = &n->key;
    const std::size_t sr = check_subtree(n->right.load(core::mo_relaxed), last, error);
    if (!error.empty()) return 0;
    if (n->size != sl + sr + 1) {
      error = "a node's size is not its children's plus one";
      return 0;
    }
    if (!balanced(sl, sr) || !balanced(sr, sl)) {
      error = "a node is not weight-balanced";
      return 0;
    }
    return n->size;
  }

  link root_;
};

}  // namespace smr
