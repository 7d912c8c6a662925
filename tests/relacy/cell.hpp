// The smallest "structure" a model can run on: one shared cell holding a pointer to a node with
// a checked payload (the token and rcu_attach models). The model's threads swap nodes in and
// retire the old ones, or load the node and read its payload later; teardown (single-threaded)
// frees the node left in the cell.
#pragma once

#include "model.hpp"
#include "smr/core/marked_ptr.hpp"

namespace smr::model {

template <class R>
struct cell_node : R::node_base {
  explicit cell_node(int v) : value(v) {}
  payload value;
};

template <class R>
struct cell {
  using node = cell_node<R>;

  explicit cell(R&) {}
  ~cell() { delete root.load(smr::core::mo_relaxed).get(); }

  // The first node, stored inside the operation `g` of a handle before the threads start.
  // release: pairs with load()'s acquire.
  template <class Guard>
  void publish(Guard& g, int v) {
    root.store(smr::core::marked_ptr<node>(g.template create<node>(v)), smr::core::mo_release);
  }

  // Inside the operation `g`: swaps a new node with value v in and retires the old one.
  template <class Guard>
  void replace(Guard& g, int v) {
    node* fresh = g.template create<node>(v);
    // acq_rel: publishes the new node and takes the old one's contents with it.
    g.retire(root.exchange(smr::core::marked_ptr<node>(fresh), smr::core::mo_acq_rel).get());
  }

  // acquire: pairs with the release of the node's publication (publish() or replace()); which
  // node a reader gets is what the models check.
  node* load() const { return root.load(smr::core::mo_acquire).get(); }

  typename R::template atomic_ptr<node> root;
};

// Empty operations of h until it holds nothing unreclaimed, at most `attempts` of them: each
// one's start is where the reclaimer may free (a receipt of the token, a grace period's step).
template <class Handle>
void operate_until_freed(Handle& h, int attempts) {
  for (int i = 0; i < attempts && h.unreclaimed() != 0; ++i) {
    auto g = h.begin_op();
  }
}

}  // namespace smr::model
