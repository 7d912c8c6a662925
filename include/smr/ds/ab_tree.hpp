// ABtree: Brown's lock-free relaxed (a,b)-tree (Brown, PhD thesis 2017, ch. 8), built on LLX and
// SCX (detail/llx_scx.hpp). It is the tree of the NBR paper's Fig. 4a (E3) and of most of the
// Epochs paper's results (Figs. 1, 5, 10-12, Tables 1-4).
//
// Algorithm: an external (leaf-oriented) B-tree, a = 6 and b = 16 by default (`ab_tree`;
// `basic_ab_tree` takes others, e.g. the small degrees that the tests use to rebalance at every
// few updates). Leaves hold up to b keys;
// an internal node holds n children (2 <= n <= b) and n - 1 routing keys, child i covering the
// keys k with keys[i-1] <= k < keys[i]. A node's keys, size and kind never change: an update
// builds new nodes and swings one child link with an SCX, removing the nodes it rebuilt. Balance
// is relaxed: an update may leave a violation behind, and the thread that created it repairs it
// before returning (so a quiescent tree is a strict (a,b)-tree):
//  - insert: copy the leaf with the key added; a full leaf becomes a new internal node over two
//    half leaves, *tagged* (a height violation: it does not count as a level) unless it is the
//    new root;
//  - remove: copy the leaf without the key; below a keys it is *underfull* (the root is exempt);
//  - fix a tagged node t (parent p, grandparent gp): if p and t's children fit in one node,
//    replace p and t by that node (absorb); else split them into two untagged nodes under a new
//    tagged parent (untagged if p was the root). A tagged p is fixed first;
//  - fix an underfull node u with its sibling s under p: if u and s together have fewer than 2a
//    children/keys, merge them (p loses a child; if p was a root with two children, the merged
//    node becomes the root); else share them evenly (p gets a new routing key). Tagged
//    neighbours are fixed first.
// Every step's SCX has V = [gp, p, ...], top-down and left to right, and R = V minus gp (or p).
// Every new node is checked after its SCX and repaired if it carries a violation.
//
// Reclamation: the SCX's owner retires the nodes of R after the commit; nobody else can (R is
// finalized by that SCX only). Searches cross nodes that were replaced meanwhile without
// validating anything, so hp, he and the IBR schemes are refused (NBR paper, Table 1: B17a);
// TagIBR would also refuse the copies of unprotected child pointers into new nodes.
//
// Meeting NBR (paper §6: the ABtree's operations already restart from the root): each attempt is
// one read phase, the search from the root, ending in reserve() of the nodes its SCX will name
// (at most four); LLX, node building and SCX are the write phase. Helping another thread's SCX
// is its own pair: a read phase that copies the SCX record and reserves the nodes it names, then
// a write phase that runs the protocol on them (llx_scx.hpp says why those nodes are live). After
// any write phase the operation searches again from the root. Nothing read in a write phase is
// dereferenced after a later read phase begins; new nodes' search keys and sizes are noted before
// their SCX publishes them.
//
// Memory orders: searches read links with acquire loads (protect), pairing with the SCX's
// release CAS of the link that published the new nodes (built with plain and relaxed stores
// before it). llx_scx.hpp documents the protocol's own.
//
// Requirements: keys copyable, default-constructible and ordered by operator<; traverses
// unlinked nodes; every attempt restarts from the root.
#pragma once

#include <algorithm>
#include <array>
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
#include "smr/detail/checks.hpp"
#include "smr/detail/compat_check.hpp"
#include "smr/detail/llx_scx.hpp"
#include "smr/detail/unpredictable.hpp"

namespace smr {

template <class K, reclaimer R, unsigned MaxDegree = 16, unsigned MinDegree = 6>
class basic_ab_tree {
 public:
  static constexpr std::string_view name = "ab_tree";
  static constexpr ds_requirements requirements{
      .traverses_unlinked_nodes = true,
      .continues_after_write = false,
      .writes_unprotected_pointers = true,  // new nodes take the old ones' children as they are
      .protect_slots = 1,
  };
  static constexpr unsigned max_degree = MaxDegree;  // b
  static constexpr unsigned min_degree = MinDegree;  // a
  static_assert(min_degree >= 2 && 2 * min_degree - 1 <= max_degree, "an (a,b)-tree needs 2 <= a <= (b + 1) / 2");
  using handle = typename R::handle;
  using key_type = K;

  explicit basic_ab_tree(R& domain) {
    detail::admit<requirements>(domain, name);
    entry_.size = 1;
    entry_.link(0).store(mptr(&empty_root_), core::mo_relaxed);  // published by thread creation
  }
  basic_ab_tree(const basic_ab_tree&) = delete;
  basic_ab_tree& operator=(const basic_ab_tree&) = delete;
  // Single-threaded: frees every node still in the tree except the members.
  ~basic_ab_tree() { free_subtree(root_unsafe()); }

  bool insert(handle& h, const K& key) {
    return update_leaf(h, key, false, [&](node* leaf, const path& pa, auto& fresh) {
      if (leaf->size < max_degree) {
        node* n = fresh.make(true, false);
        n->size = merge_key(leaf, key, n->keys, true);
        n->search_key = n->keys[0];
        return n;
      }
      // b + 1 keys: the left half stays, the right half moves; the new router is the right's
      // first key. Tagged unless it becomes the root (then the tree grows a level).
      std::array<K, max_degree + 1> all;
      merge_key(leaf, key, all.data(), true);
      constexpr unsigned half = (max_degree + 1) / 2;
      node* left = fresh.make(true, false);
      node* right = fresh.make(true, false);
      fill_leaf(left, all.data(), half);
      fill_leaf(right, all.data() + half, max_degree + 1 - half);
      node* top = fresh.make(false, pa.p != &entry_);
      top->size = 2;
      top->keys[0] = right->keys[0];
      top->search_key = top->keys[0];
      set_child(top, 0, left);
      set_child(top, 1, right);
      return top;
    });
  }

  bool remove(handle& h, const K& key) {
    return update_leaf(h, key, true, [&](node* leaf, const path&, auto& fresh) {
      node* n = fresh.make(true, false);
      n->size = merge_key(leaf, key, n->keys, false);
      n->search_key = n->size > 0 ? n->keys[0] : key;
      return n;
    });
  }

  bool contains(handle& h, const K& key) {
    auto g = h.begin_op();
    auto slot = g.slot();
    return detail::unpredictable(g.read_phase([&] {
      const node* n = slot.protect(entry_.link(0)).get();
      while (!n->is_leaf) {
        n = slot.protect(n->link(child_index(n, key))).get();
        prefetch(n);
      }
      return leaf_has(n, key);
    }));
  }

  // ---- single-threaded inspection (after a run) ----

  template <class F>
  void for_each_unsafe(F&& fn) const {
    visit_leaves(root_unsafe(), [&](const node* leaf) {
      for (unsigned i = 0; i < leaf->size; ++i) fn(leaf->keys[i]);
    });
  }

  std::size_t size_unsafe() const {
    std::size_t count = 0;
    visit_leaves(root_unsafe(), [&](const node* leaf) { count += leaf->size; });
    return count;
  }

  // Empty if the tree is a strict (a,b)-tree: no tagged node, every non-root node with a to b
  // keys (leaves) or children (internal), an internal root with at least two, every leaf at the
  // same depth; keys strictly increasing within each node's range; no reachable node finalized
  // or frozen by an SCX still in progress.
  std::string check_invariants_unsafe() const {
    if (entry_.size != 1 || entry_.is_leaf) return "the entry node changed";
    inspection state;
    check_subtree(root_unsafe(), nullptr, nullptr, 0, true, state);
    return state.error;
  }

 private:
  struct node;
  using link_t = typename R::template atomic_ptr<node>;
  using mptr = core::marked_ptr<node>;
  static constexpr unsigned max_v = 4;  // gp, p and two siblings
  using scx_engine = detail::llx_scx<node, max_v>;
  using scx_op = typename scx_engine::scx_op;
  using tag_t = typename scx_engine::tag_t;

  // A leaf is a node; an internal node is a node followed by its links (internal_node), so a
  // leaf takes 168 bytes instead of 296 (for 8-byte keys): two thirds of the nodes an update
  // allocates are leaves, and a search's last step misses on fewer lines.
  struct node : R::node_base {
    node(bool leaf, bool tag) : is_leaf(leaf), tagged(tag) {}
    // Internal nodes only.
    link_t& link(unsigned i);
    const link_t& link(unsigned i) const;

    core::atomic<std::uint64_t> info{0};  // the tag of the last SCX that froze it (llx_scx.hpp)
    core::atomic<bool> marked{false};     // finalized: removed by a committed SCX
    const bool is_leaf;
    const bool tagged;  // a height violation (internal nodes only)
    // Written before the node is published, then never again.
    unsigned size = 0;  // leaves: keys; internal nodes: children
    K search_key{};     // a key in the node's range: how a repair finds it again
    K keys[max_degree];
  };

  struct internal_node : node {
    explicit internal_node(bool tag) : node(false, tag) {}
    link_t links[max_degree];
  };

  // What a search saw: the node n it stopped at (a leaf, or the target), its parent p and
  // grandparent gp (null when p is the entry), their child indices, and, when asked, n's
  // sibling (left one if any).
  struct path {
    node* gp = nullptr;
    node* p = nullptr;
    node* n = nullptr;
    node* sibling = nullptr;
    unsigned ix_p = 0;  // p's index in gp
    unsigned ix_n = 0;  // n's index in p
    unsigned ix_s = 0;  // the sibling's index in p
  };

  // A new node's violation, noted before its SCX publishes it (after that only a search may
  // reach it again).
  struct violation {
    node* n = nullptr;
    K key{};
    bool tagged = false;
    unsigned size = min_degree;
  };
  static violation note(const node* n) { return {const_cast<node*>(n), n->search_key, n->tagged, n->size}; }

  // The nodes one attempt builds: disposed of unless the SCX published them (also when a
  // create() throws half-way).
  template <class G>
  class new_nodes {
   public:
    explicit new_nodes(G& g) : g_(g) {}
    new_nodes(const new_nodes&) = delete;
    new_nodes& operator=(const new_nodes&) = delete;
    ~new_nodes() {
      if (!published_)
        for (unsigned i = 0; i < count_; ++i) g_.dispose(nodes_[i]);
    }
    node* make(bool leaf, bool tagged) {
      node* n = leaf ? g_.template create<node>(true, false) : g_.template create<internal_node>(tagged);
      nodes_[count_++] = n;
      return n;
    }
    void publish() { published_ = true; }

   private:
    G& g_;
    node* nodes_[3] = {};
    unsigned count_ = 0;
    bool published_ = false;
  };

  static bool equal(const K& a, const K& b) { return !(a < b) && !(b < a); }

  // The child of internal node n whose range holds key: the number of routing keys <= key.
  static unsigned child_index(const node* n, const K& key) {
    unsigned i = 0;
    while (i + 1 < n->size && !(key < n->keys[i])) ++i;
    return i;
  }

  static bool leaf_has(const node* leaf, const K& key) {
    for (unsigned i = 0; i < leaf->size; ++i)
      if (equal(leaf->keys[i], key)) return true;
    return false;
  }

  // leaf's keys with `key` added (or removed) into out; returns how many.
  static unsigned merge_key(const node* leaf, const K& key, K* out, bool add) {
    unsigned count = 0, i = 0;
    for (; i < leaf->size && leaf->keys[i] < key; ++i) out[count++] = leaf->keys[i];
    if (add) out[count++] = key;
    else ++i;  // skip the key (remove only calls this when the leaf holds it)
    for (; i < leaf->size; ++i) out[count++] = leaf->keys[i];
    return count;
  }

  static void fill_leaf(node* n, const K* keys, unsigned count) {
    std::copy(keys, keys + count, n->keys);
    n->size = count;
    n->search_key = count > 0 ? keys[0] : n->search_key;
  }

  // Internal node n gets `count` children and count - 1 routers; its search key is its first
  // router (inside its range), or `fallback` when it has a single child.
  static void fill_internal(node* n, node* const* children, const K* routers, unsigned count, const K& fallback) {
    n->size = count;
    for (unsigned i = 0; i < count; ++i) set_child(n, i, children[i]);
    for (unsigned i = 0; i + 1 < count; ++i) n->keys[i] = routers[i];
    n->search_key = count > 1 ? routers[0] : fallback;
  }

  // relaxed: the node is not published yet; the SCX's release CAS of the link publishes it.
  static void set_child(node* n, unsigned i, node* child) { n->link(i).store(mptr(child), core::mo_relaxed); }

  // A search reads a node's size, some keys and one link, spread over its 5 cache lines; asking
  // for all of them as soon as the node's address is known overlaps their misses with the first
  // line's, instead of paying them one after another (a large tree misses at every level).
  static void prefetch(const node* n) {
    for (std::size_t offset = 64; offset < sizeof(internal_node); offset += 64)
      __builtin_prefetch(reinterpret_cast<const char*>(n) + offset);
  }

  // acquire: pairs with the link CAS (release) that installed the child, as a search's protect.
  static node* child_of(const node* n, unsigned i) { return n->link(i).load(core::mo_acquire).get(); }

  // One attempt's read phase: from the root to the leaf for `key`, or to `target` if it is on the
  // way; with a target it also reads the target's sibling. Reserves what the write phase names.
  template <class G, class Slot>
  path search(G& g, Slot& slot, const K& key, const node* target) {
    return g.read_phase([&] {
      path pa;
      pa.p = &entry_;
      node* n = slot.protect(entry_.link(0)).get();
      while (n != target && !n->is_leaf) {
        pa.gp = pa.p;
        pa.ix_p = pa.ix_n;
        pa.p = n;
        pa.ix_n = child_index(n, key);
        n = slot.protect(n->link(pa.ix_n)).get();
        prefetch(n);
      }
      pa.n = n;
      if (target != nullptr && n == target && pa.p != &entry_ && pa.p->size >= 2) {
        pa.ix_s = pa.ix_n > 0 ? pa.ix_n - 1 : 1;
        pa.sibling = slot.protect(pa.p->link(pa.ix_s)).get();
      }
      g.reserve(pa.gp, pa.p, pa.n, pa.sibling);
      return pa;
    });
  }

  // LLX(r) in a write phase (r reserved): `copy` reads r's links. On failure, helps the SCX in
  // the way (a read phase of its own) and returns false: the caller searches again.
  template <class G, class Copy>
  bool llx(G& g, node* r, tag_t& seen, Copy&& copy) {
    tag_t busy = 0;
    const auto result = scx_.llx(r, copy, seen, busy);
    if (result == scx_engine::llx_result::ok) return true;
    if (busy != 0) help(g, busy);
    return false;
  }

  // Helping: copy the record and reserve its nodes (read phase), then run the protocol on them.
  template <class G>
  void help(G& g, tag_t tag) {
    scx_op op;
    const bool live = g.read_phase([&] {
      if (!scx_.copy(tag, op)) return false;
      g.reserve(op.v[0], op.v[1], op.count > 2 ? op.v[2] : nullptr, op.count > 3 ? op.v[3] : nullptr);
      return true;
    });
    if (live) scx_.help(op);
  }

  // The LLXs of an insert or remove: V = [p, leaf], R = [leaf], the link p -> leaf changes.
  template <class G>
  bool llx_parent_and_leaf(G& g, const path& pa, scx_op& op) {
    node* link_value = nullptr;
    if (!llx(g, pa.p, op.seen[0], [&] { link_value = child_of(pa.p, pa.ix_n); })) return false;
    if (link_value != pa.n) return false;
    if (!llx(g, pa.n, op.seen[1], [] {})) return false;
    op.count = 2;
    op.v[0] = pa.p;
    op.v[1] = pa.n;
    op.field = pa.ix_n;
    return true;
  }

  // LLX of an internal node copying all its children; false if it failed or (with `expected`)
  // the child at `index` is no longer `expected`.
  template <class G>
  bool llx_children(G& g, node* r, tag_t& seen, node** children, unsigned index = 0, const node* expected = nullptr) {
    if (!llx(g, r, seen, [&] {
          for (unsigned i = 0; i < r->size; ++i) children[i] = child_of(r, i);
        }))
      return false;
    return expected == nullptr || children[index] == expected;
  }

  template <class G>
  bool llx_link(G& g, node* r, tag_t& seen, unsigned index, const node* expected) {
    node* value = nullptr;
    return llx(g, r, seen, [&] { value = child_of(r, index); }) && value == expected;
  }

  // An insert or a remove: search for key's leaf; if the key's presence is what the update
  // needs (`needs_key`), replace the leaf (V = [parent, leaf]) by the subtree build(leaf, path,
  // fresh) returns, then repair what the new subtree's root left behind. Retries from the root.
  template <class Build>
  bool update_leaf(handle& h, const K& key, bool needs_key, Build&& build) {
    auto g = h.begin_op();
    auto slot = g.slot();
    typename scx_engine::lease lease(scx_);
    for (;;) {
      const path pa = search(g, slot, key, nullptr);
      if (leaf_has(pa.n, key) != needs_key) return false;
      scx_op op;
      if (!llx_parent_and_leaf(g, pa, op)) continue;
      new_nodes<decltype(g)> fresh(g);
      op.fresh = build(pa.n, pa, fresh);
      const violation left_behind = note(op.fresh);
      if (commit(g, slot, lease, op, fresh, left_behind)) return true;
    }
  }

  // The SCX of an update and what follows it: if it succeeds, the new nodes are published (no
  // longer disposed of by `fresh`), the replaced ones retired, and the violations the new nodes
  // left behind repaired. False if the SCX failed (the caller retries; `fresh` then disposes of
  // the unpublished nodes).
  template <class G, class Slot, class... Violations>
  bool commit(G& g, Slot& slot, typename scx_engine::lease& lease, scx_op& op, new_nodes<G>& fresh,
              const Violations&... left_behind) {
    if (!scx_.scx(lease, op)) return false;
    fresh.publish();
    retire_replaced(g, op);
    (settle(g, slot, lease, left_behind), ...);
    return true;
  }

  template <class G>
  void retire_replaced(G& g, const scx_op& op) {
    for (unsigned i = 1; i < op.count; ++i)
      if (op.v[i] != &empty_root_) g.retire(op.v[i]);
  }

  // Repairs what a new node left behind (it may have been replaced meanwhile: then whoever
  // replaced it took the violation over).
  template <class G, class Slot>
  void settle(G& g, Slot& slot, typename scx_engine::lease& lease, const violation& v) {
    if (v.tagged) fix_tagged(g, slot, lease, v.n, v.key);
    else if (v.size < min_degree) fix_underfull(g, slot, lease, v.n, v.key);
  }

  template <class G, class Slot>
  void fix_tagged(G& g, Slot& slot, typename scx_engine::lease& lease, const node* target, const K& key) {
    for (;;) {
      const path pa = search(g, slot, key, target);
      node* const t = pa.n;
      if (t != target || !t->tagged) return;  // fixed by someone else
      node* const p = pa.p;
      node* const gp = pa.gp;
      if (gp == nullptr) return;  // a tagged node is never the root (so p is below the entry)
      if (p->tagged) {
        fix_tagged(g, slot, lease, p, K(p->search_key));
        continue;
      }
      scx_op op;
      node* pk[max_degree];
      node* tk[max_degree];
      if (!llx_link(g, gp, op.seen[0], pa.ix_p, p) || !llx_children(g, p, op.seen[1], pk, pa.ix_n, t) ||
          !llx_children(g, t, op.seen[2], tk))
        continue;
      op.count = 3;
      op.v[0] = gp;
      op.v[1] = p;
      op.v[2] = t;
      op.field = pa.ix_p;
      // p's children with t replaced by t's children, and the routers to match.
      std::array<node*, 2 * max_degree> children;
      std::array<K, 2 * max_degree> routers;
      unsigned total = 0, keys = 0;
      for (unsigned i = 0; i < pa.ix_n; ++i) children[total++] = pk[i];
      for (unsigned i = 0; i < t->size; ++i) children[total++] = tk[i];
      for (unsigned i = pa.ix_n + 1; i < p->size; ++i) children[total++] = pk[i];
      for (unsigned i = 0; i < pa.ix_n; ++i) routers[keys++] = p->keys[i];
      for (unsigned i = 0; i + 1 < t->size; ++i) routers[keys++] = t->keys[i];
      for (unsigned i = pa.ix_n; i + 1 < p->size; ++i) routers[keys++] = p->keys[i];
      new_nodes<G> fresh(g);
      violation left_behind;
      if (total <= max_degree) {
        node* n = fresh.make(false, false);  // absorb: t's level goes
        fill_internal(n, children.data(), routers.data(), total, p->search_key);
        op.fresh = n;
        left_behind = note(n);
      } else {
        // Split into two untagged halves under a new parent, which takes t's place as the height
        // violation one level up (or is the new root).
        const unsigned half = total / 2;
        node* left = fresh.make(false, false);
        node* right = fresh.make(false, false);
        fill_internal(left, children.data(), routers.data(), half, p->search_key);
        fill_internal(right, children.data() + half, routers.data() + half, total - half, p->search_key);
        node* top = fresh.make(false, gp != &entry_);
        node* const pair[2] = {left, right};
        fill_internal(top, pair, &routers[half - 1], 2, p->search_key);
        op.fresh = top;
        left_behind = note(top);
      }
      if (commit(g, slot, lease, op, fresh, left_behind)) return;
    }
  }

  template <class G, class Slot>
  void fix_underfull(G& g, Slot& slot, typename scx_engine::lease& lease, const node* target, const K& key) {
    for (;;) {
      const path pa = search(g, slot, key, target);
      node* const u = pa.n;
      if (u != target || u->tagged || u->size >= min_degree) return;  // replaced, or no violation
      if (pa.p == &entry_) return;  // the root may hold fewer
      node* const p = pa.p;
      node* const gp = pa.gp;
      if (p->tagged) {
        fix_tagged(g, slot, lease, p, K(p->search_key));
        continue;
      }
      if (pa.sibling == nullptr) {  // p has one child: it is underfull itself (never the root)
        // For the root, the call below would return at once and this loop would spin.
        if (detail::checks_on() && pa.gp == &entry_) detail::misuse("ab_tree: an internal root with one child (a bug in smr)");
        fix_underfull(g, slot, lease, p, K(p->search_key));
        continue;
      }
      node* const s = pa.sibling;
      if (s->tagged) {
        fix_tagged(g, slot, lease, s, K(s->search_key));
        continue;
      }
      if (s->is_leaf != u->is_leaf) detail::misuse("ab_tree: siblings at different depths (corrupted tree)");
      const unsigned ix_left = std::min(pa.ix_n, pa.ix_s);
      node* const left = pa.ix_n < pa.ix_s ? u : s;
      node* const right = pa.ix_n < pa.ix_s ? s : u;
      scx_op op;
      node* pk[max_degree];
      node* lk[max_degree];
      node* rk[max_degree];
      if (!llx_link(g, gp, op.seen[0], pa.ix_p, p) || !llx_children(g, p, op.seen[1], pk, ix_left, left) ||
          pk[ix_left + 1] != right)
        continue;
      if (left->is_leaf) {
        if (!llx(g, left, op.seen[2], [] {}) || !llx(g, right, op.seen[3], [] {})) continue;
      } else if (!llx_children(g, left, op.seen[2], lk) || !llx_children(g, right, op.seen[3], rk)) {
        continue;
      }
      op.count = 4;
      op.v[0] = gp;
      op.v[1] = p;
      op.v[2] = left;
      op.v[3] = right;
      op.field = pa.ix_p;
      // The two siblings' contents in order: keys (leaves), or children and the routers between
      // them, p's router for the pair in the middle (internal nodes).
      const unsigned total = left->size + right->size;
      std::array<K, 2 * max_degree> keys;
      std::array<node*, 2 * max_degree> children;
      if (left->is_leaf) {
        std::copy(left->keys, left->keys + left->size, keys.data());
        std::copy(right->keys, right->keys + right->size, keys.data() + left->size);
      } else {
        std::copy(lk, lk + left->size, children.data());
        std::copy(rk, rk + right->size, children.data() + left->size);
        unsigned k = 0;
        for (unsigned i = 0; i + 1 < left->size; ++i) keys[k++] = left->keys[i];
        keys[k++] = p->keys[ix_left];
        for (unsigned i = 0; i + 1 < right->size; ++i) keys[k++] = right->keys[i];
      }
      new_nodes<G> fresh(g);
      violation merged_left_behind, parent_left_behind;
      auto build = [&](node* n, unsigned from, unsigned count) {
        if (n->is_leaf) fill_leaf(n, keys.data() + from, count);
        else fill_internal(n, children.data() + from, keys.data() + from, count, key);
      };
      if (total < 2 * min_degree) {
        // Merge: one node replaces both; p loses a child and a router.
        node* merged = fresh.make(left->is_leaf, false);
        build(merged, 0, total);
        if (merged->is_leaf && total == 0) merged->search_key = key;
        merged_left_behind = note(merged);
        if (gp == &entry_ && p->size == 2) {
          op.fresh = merged;  // the root had these two children only: the merged node is the root
        } else {
          node* parent = fresh.make(false, false);
          node* pc[max_degree];
          K pr[max_degree];
          unsigned c = 0, r = 0;
          for (unsigned i = 0; i < p->size; ++i) {
            if (i == ix_left) pc[c++] = merged;
            else if (i != ix_left + 1) pc[c++] = pk[i];
          }
          for (unsigned i = 0; i + 1 < p->size; ++i)
            if (i != ix_left) pr[r++] = p->keys[i];
          fill_internal(parent, pc, pr, c, p->search_key);
          op.fresh = parent;
          parent_left_behind = note(parent);
        }
      } else {
        // Distribute: half each; p gets the new router between them.
        const unsigned half = total / 2;
        node* new_left = fresh.make(left->is_leaf, false);
        node* new_right = fresh.make(left->is_leaf, false);
        build(new_left, 0, half);
        build(new_right, half, total - half);
        node* parent = fresh.make(false, false);
        node* pc[max_degree];
        K pr[max_degree];
        std::copy(pk, pk + p->size, pc);
        for (unsigned i = 0; i + 1 < p->size; ++i) pr[i] = p->keys[i];
        pc[ix_left] = new_left;
        pc[ix_left + 1] = new_right;
        pr[ix_left] = left->is_leaf ? keys[half] : keys[half - 1];
        fill_internal(parent, pc, pr, p->size, p->search_key);
        op.fresh = parent;
        parent_left_behind = note(parent);
      }
      if (commit(g, slot, lease, op, fresh, parent_left_behind, merged_left_behind)) return;
    }
  }

  // ---- single-threaded helpers ----

  node* root_unsafe() const { return entry_.link(0).load(core::mo_relaxed).get(); }

  template <class F>
  static void visit_leaves(const node* n, F&& fn) {
    if (n->is_leaf) {
      fn(n);
      return;
    }
    for (unsigned i = 0; i < n->size; ++i) visit_leaves(n->link(i).load(core::mo_relaxed).get(), fn);
  }

  void free_subtree(node* n) {
    if (!n->is_leaf)
      for (unsigned i = 0; i < n->size; ++i) free_subtree(n->link(i).load(core::mo_relaxed).get());
    if (n != &empty_root_) core::free_node(n);
  }

  struct inspection {
    std::string error;
    int leaf_depth = -1;
  };

  // Every key of n's subtree lies in [lo, hi) (null: unbounded).
  void check_subtree(const node* n, const K* lo, const K* hi, int depth, bool root, inspection& st) const {
    if (!st.error.empty()) return;
    auto fail = [&](const char* what) { st.error = what; };
    if (n == nullptr) return fail("a missing child link");
    if (n->marked.load(core::mo_relaxed)) return fail("a reachable node is finalized");
    if (const_cast<scx_engine&>(scx_).in_progress(n->info.load(core::mo_relaxed)))
      return fail("a reachable node is frozen by an unfinished SCX");
    if (n->tagged) return fail("a tagged node remains (height violation left unfixed)");
    if (n->size > max_degree) return fail("a node above the maximum degree");
    const unsigned keys = n->is_leaf ? n->size : n->size - 1;
    if (!root && n->size < min_degree) return fail("a non-root node below the minimum degree");
    if (root && !n->is_leaf && n->size < 2) return fail("an internal root with fewer than two children");
    for (unsigned i = 0; i < keys; ++i) {
      if (i > 0 && !(n->keys[i - 1] < n->keys[i])) return fail("keys not strictly increasing in a node");
      if ((lo != nullptr && n->keys[i] < *lo) || (hi != nullptr && !(n->keys[i] < *hi)))
        return fail("a key outside its node's range");
    }
    if (n->is_leaf) {
      if (st.leaf_depth < 0) st.leaf_depth = depth;
      else if (st.leaf_depth != depth) fail("leaves at different depths");
      return;
    }
    for (unsigned i = 0; i < n->size; ++i)
      check_subtree(n->link(i).load(core::mo_relaxed).get(), i == 0 ? lo : &n->keys[i - 1],
                    i + 1 == n->size ? hi : &n->keys[i], depth + 1, false, st);
  }

  // The entry node (an internal node with one child, the root; never replaced: SCXs that change
  // the root name it as V[0]) and the first root, an empty leaf; neither is retired.
  internal_node entry_{false};
  node empty_root_{true, false};
  scx_engine scx_;
};

template <class K, reclaimer R, unsigned MaxDegree, unsigned MinDegree>
auto basic_ab_tree<K, R, MaxDegree, MinDegree>::node::link(unsigned i) -> link_t& {
  return static_cast<internal_node*>(this)->links[i];
}
template <class K, reclaimer R, unsigned MaxDegree, unsigned MinDegree>
auto basic_ab_tree<K, R, MaxDegree, MinDegree>::node::link(unsigned i) const -> const link_t& {
  return static_cast<const internal_node*>(this)->links[i];
}

// Brown's degrees (a = 6, b = 16), as the papers' experiments run it.
template <class K, reclaimer R>
using ab_tree = basic_ab_tree<K, R>;

}  // namespace smr
