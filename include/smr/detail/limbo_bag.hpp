// The one limbo bag: an intrusive FIFO of retired nodes, linked through their headers.
//
// Owned by a single thread (no synchronization inside). The last node links to end_of_bag,
// not null, so every node in a bag reads as retired; walks count nodes instead. Every reclaimer keeps its retired
// nodes in these bags; what differs between reclaimers is only *when* a node may leave one,
// which they decide with extract_if / take_all and hand the result to their free policy.
#pragma once

#include <cstddef>
#include <utility>

#include "smr/core/node.hpp"

namespace smr::detail {
using namespace ::smr::core;  // the public building blocks (atomics, nodes, stats)


class limbo_bag {
 public:
  limbo_bag() = default;
  limbo_bag(const limbo_bag&) = delete;
  limbo_bag& operator=(const limbo_bag&) = delete;
  limbo_bag(limbo_bag&& o) noexcept { *this = std::move(o); }
  limbo_bag& operator=(limbo_bag&& o) noexcept {
    head_ = std::exchange(o.head_, nullptr);
    tail_ = std::exchange(o.tail_, nullptr);
    size_ = std::exchange(o.size_, 0);
    return *this;
  }

  void push(retired_node* n) {
    n->next_retired = end_of_bag;  // non-null: the node stays marked retired (core/node.hpp)
    if (tail_ == nullptr) {
      head_ = n;
    } else {
      tail_->next_retired = n;
    }
    tail_ = n;
    ++size_;
  }

  // Moves every node of `other` to the back of this bag.
  void splice(limbo_bag&& other) {
    if (other.head_ == nullptr) return;
    if (tail_ == nullptr) {
      head_ = other.head_;
    } else {
      tail_->next_retired = other.head_;
    }
    tail_ = other.tail_;
    size_ += other.size_;
    other.head_ = other.tail_ = nullptr;
    other.size_ = 0;
  }

  limbo_bag take_all() { return std::move(*this); }

  // Moves the nodes for which pred(node) holds into the returned bag, keeping order.
  template <class Pred>
  limbo_bag extract_if(Pred&& pred) {
    limbo_bag out;
    limbo_bag keep;
    retired_node* n = head_;
    for (std::size_t left = size_; left > 0; --left) {
      retired_node* next = n->next_retired;
      (pred(n) ? out : keep).push(n);
      n = next;
    }
    head_ = tail_ = nullptr;
    size_ = 0;
    *this = std::move(keep);
    return out;
  }

  retired_node* pop_front() {
    retired_node* n = head_;
    if (n == nullptr) return nullptr;
    if (--size_ == 0) {
      head_ = tail_ = nullptr;
    } else {
      head_ = n->next_retired;
    }
    return n;
  }

  template <class F>
  void for_each(F&& fn) const {
    retired_node* n = head_;
    for (std::size_t left = size_; left > 0; --left, n = n->next_retired) fn(n);
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  retired_node* head_ = nullptr;
  retired_node* tail_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace smr::detail
