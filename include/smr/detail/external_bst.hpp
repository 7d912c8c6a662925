// What the external (leaf-oriented) BSTs share (ds/nm_tree.hpp, ds/dgt_tree.hpp): keys ranked
// with three sentinels above every real key, routing by that order, and the single-threaded
// inspection of a subtree (its keys, its leaf order, its teardown).
//
// A Node has `key` (K), `rank` (rank_t) and child links `left`, `right` (R's atomic_ptr); a leaf
// is a node whose left link is null, an internal node has both.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "smr/core/atomic.hpp"
#include "smr/core/node.hpp"

namespace smr::detail::external_bst {

// A key's rank: real keys first, then the sentinels, which compare above every real key.
using rank_t = unsigned char;
inline constexpr rank_t real = 0, inf0 = 1, inf1 = 2, inf2 = 3;

template <class Node>
bool less(const Node& a, const Node& b) {
  return a.rank != b.rank ? a.rank < b.rank : (a.rank == real && a.key < b.key);
}
// Whether `key` belongs in n's left subtree (key < n's key).
template <class K, class Node>
bool goes_left(const K& key, const Node* n) {
  return n->rank != real || key < n->key;
}
template <class K, class Node>
bool holds(const Node* leaf, const K& key) {
  return leaf->rank == real && !(key < leaf->key) && !(leaf->key < key);
}

// An insert's new internal node: it routes between the leaf found and the new leaf, and its key
// is the larger of the two. If allocating it throws (std::bad_alloc, smrbench's exhausted node
// pool), the new leaf, never published, is disposed of, so the failed insert leaks nothing.
template <class Node, class G, class K>
Node* new_internal(G& g, const K& key, Node* leaf, Node* fresh_leaf) {
  try {
    return goes_left(key, leaf) ? g.template create<Node>(leaf->key, leaf->rank, fresh_leaf, leaf)
                                : g.template create<Node>(key, real, leaf, fresh_leaf);
  } catch (...) {
    g.dispose(fresh_leaf);
    throw;
  }
}

template <class Node>
const Node* left_of(const Node* n) {
  return n->left.load(core::mo_relaxed).get();
}
template <class Node>
const Node* right_of(const Node* n) {
  return n->right.load(core::mo_relaxed).get();
}

// Single-threaded: fn(leaf) for every leaf below n, in key order. With an explicit stack: these
// trees are unbalanced (keys inserted in order make a path as long as the set), and a recursion
// that deep would overflow the thread's stack.
template <class Node, class F>
void visit_leaves(const Node* n, F&& fn) {
  std::vector<const Node*> pending{n};
  while (!pending.empty()) {
    const Node* m = pending.back();
    pending.pop_back();
    if (left_of(m) == nullptr) {
      fn(m);
      continue;
    }
    pending.push_back(right_of(m));  // after the left subtree
    pending.push_back(left_of(m));
  }
}

// Single-threaded: fn(key) for every real key below n, in order.
template <class Node, class F>
void for_each_key(const Node* n, F&& fn) {
  visit_leaves(n, [&](const Node* leaf) {
    if (leaf->rank == real) fn(leaf->key);
  });
}

template <class Node>
std::size_t count_keys(const Node* n) {
  std::size_t count = 0;
  for_each_key(n, [&](const auto&) { ++count; });
  return count;
}

// Single-threaded: "" if the leaves below n are strictly increasing and the last is `last`
// (the inf0 sentinel of S's left subtree), else what is wrong.
template <class Node>
std::string check_leaf_order(const Node* n, const Node* last) {
  const Node* prev = nullptr;
  std::size_t index = 0;
  std::string error;
  visit_leaves(n, [&](const Node* leaf) {
    if (error.empty() && prev != nullptr && !less(*prev, *leaf))
      error = "leaves not strictly increasing at position " + std::to_string(index);
    prev = leaf;
    ++index;
  });
  if (error.empty() && prev != last) error = "the last leaf of S's left subtree is not inf0";
  return error;
}

// Single-threaded: frees every node below n that create() made (all but the sentinel `keep`).
// An explicit stack, as visit_leaves.
template <class Node>
void free_subtree(Node* n, const Node* keep) {
  std::vector<Node*> pending{n};
  while (!pending.empty()) {
    Node* m = pending.back();
    pending.pop_back();
    if (m == nullptr || m == keep) continue;
    pending.push_back(m->left.load(core::mo_relaxed).get());
    pending.push_back(m->right.load(core::mo_relaxed).get());
    core::free_node(m);
  }
}

}  // namespace smr::detail::external_bst
