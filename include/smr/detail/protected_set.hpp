// The announcement scan shared by pointer-based schemes (HP, NBR reservations, HE-style
// variants): collect every announced pointer into a sorted set, then keep in limbo exactly the
// retired nodes found in it. Announcements are stored as `const retired_node*` (static_cast
// from the node type) so they compare equal to the limbo bag's entries.
//
// The set is a reusable sorted vector: one allocation per thread in steady state, O(P log P)
// to build and O(log P) per lookup, which is what Michael's scan needs to stay O(R log P).
#pragma once

#include <algorithm>
#include <vector>

#include "smr/detail/limbo_bag.hpp"
#include "smr/core/node.hpp"

namespace smr::detail {
using namespace ::smr::core;  // the public building blocks (atomics, nodes, stats)


class protected_set {
 public:
  void clear() { ptrs_.clear(); }
  void add(const retired_node* p) {
    if (p != nullptr) ptrs_.push_back(p);
  }
  // Call once after the last add() and before contains().
  void seal() {
    std::sort(ptrs_.begin(), ptrs_.end());
    ptrs_.erase(std::unique(ptrs_.begin(), ptrs_.end()), ptrs_.end());
  }
  bool contains(const retired_node* p) const { return std::binary_search(ptrs_.begin(), ptrs_.end(), p); }
  std::size_t size() const { return ptrs_.size(); }
  // Drops what was added after size() was n (a scan's retried read of one thread).
  void truncate(std::size_t n) { ptrs_.resize(std::min(n, ptrs_.size())); }

  // Moves the nodes of `bag` that nobody announced into the returned bag.
  limbo_bag extract_unprotected(limbo_bag& bag) const {
    return bag.extract_if([this](const retired_node* n) { return !contains(n); });
  }

 private:
  std::vector<const retired_node*> ptrs_;
};

}  // namespace smr::detail
