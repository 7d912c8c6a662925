// The smallest "structure" a model can run on: one shared cell holding a pointer to a node with
// a checked payload (token_chain_model.cpp, token_forward_model.cpp). The model's threads swap
// nodes in and retire the old ones, or load the node and read its payload later; teardown
// (single-threaded) frees the node left in the cell.
#pragma once

#include "model.hpp"

namespace smr::model {

template <class R>
struct cell_node : R::node_base {
  explicit cell_node(int v) : value(v) {}
  payload value;
};

template <class R>
struct cell {
  explicit cell(R&) {}
  ~cell() { delete root.load(smr::core::mo_relaxed).get(); }
  typename R::template atomic_ptr<cell_node<R>> root;
};

}  // namespace smr::model
