// Single-threaded inspection of a sorted, null-terminated list whose nodes have `key` and a
// marked `next` link (the Harris-Michael chain, Harris's list, the lazy list): the walk, the
// invariant check and the teardown those lists share. For use when no thread operates on the
// list (after a run, in the destructor).
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include "smr/core/atomic.hpp"
#include "smr/core/node.hpp"

namespace smr::detail {

// Calls fn(node) for every node reachable from `head`, in order.
template <class Link, class F>
void for_each_list_node(const Link& head, F&& fn) {
  for (auto* n = head.load(core::mo_relaxed).get(); n != nullptr; n = n->next.load(core::mo_relaxed).get())
    fn(*n);
}

// Calls fn(key) for every key reachable from `head`, in order (as const: keys never change).
template <class Link, class F>
void for_each_list_key(const Link& head, F&& fn) {
  for_each_list_node(head, [&](const auto& n) { fn(std::as_const(n.key)); });
}

// The number of nodes reachable from `head`.
template <class Link>
std::size_t count_list_nodes(const Link& head) {
  std::size_t n = 0;
  for_each_list_node(head, [&](const auto&) { ++n; });
  return n;
}

// Frees every node still linked from `head` (retired ones belong to the reclaimer). With counted
// links (lfrc) the head gives back its reference and the counts free the chain.
template <class Link>
void free_list_nodes(Link& head) {
  if constexpr (requires { head.release_chain_unsafe(); }) {
    head.release_chain_unsafe();
    return;
  }
  for (auto* n = head.load(core::mo_relaxed).get(); n != nullptr;) {
    auto* next = n->next.load(core::mo_relaxed).get();
    core::free_node(n);
    n = next;
  }
}

// Empty if: keys strictly increasing (which also rules out cycles), no marked link reachable
// (every remove that returned saw its node unlinked), and in_place(key) for every key (the hash
// map's bucket check); otherwise what is wrong, and where.
template <class Link, class InPlace>
std::string check_sorted_list(const Link& head, InPlace&& in_place) {
  if (head.load(core::mo_relaxed).marked()) return "head link is marked";
  std::size_t index = 0;
  decltype(head.load(core::mo_relaxed).get()) prev = nullptr;
  for (auto* n = head.load(core::mo_relaxed).get(); n != nullptr; ++index) {
    const auto next = n->next.load(core::mo_relaxed);
    if (next.marked()) return "marked node reachable at position " + std::to_string(index);
    if (prev != nullptr && !(prev->key < n->key))
      return "keys not strictly increasing at position " + std::to_string(index);
    if (!in_place(n->key)) return "key in the wrong place at position " + std::to_string(index);
    prev = n;
    n = next.get();
  }
  return {};
}

}  // namespace smr::detail
