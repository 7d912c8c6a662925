// The operation guard's defaults, shared by every reclaimer (CRTP).
//
// A data structure is written once against this vocabulary:
//   auto g = handle.begin_op();            // start_op / end_op (RAII)
//   r = g.read_phase([&] { ...; g.reserve(a, b); return r; });
//   p = g.protect(i, link);                // read a shared link with protection
//   g.hold(i, p);                          // keep a node that is already protected in slot i
//   n = g.template create<Node>(args...);  // allocate through the reclaimer
//   g.retire(n);  g.dispose(n);            // unlinked node / node never published
// Reclaimers override what they need: NBR the read phase and reserve, HP protect and hold,
// IBR protect and create. Everything else is a no-op here.
#pragma once

#include <utility>

#include "smr/core/node.hpp"

namespace smr::core {

template <class Derived>
class guard_base {
 public:
  // Runs a read phase: fn may only read shared memory and write locals; it ends with
  // reserve(...) naming every node the following write phase will touch. Only NBR restarts fn.
  template <class F>
  decltype(auto) read_phase(F&& fn) {
    return std::forward<F>(fn)();
  }

  template <class... T>
  void reserve(T*...) {}

  template <class T>
  void hold(unsigned, T*) {}

  template <class T, class... Args>
  T* create(Args&&... args) {
    return construct_node<T>(std::forward<Args>(args)...);
  }

  // Frees a node that was never reachable by another thread (e.g. a failed insert).
  template <class T>
  void dispose(T* n) {
    free_node(n);
  }
};

}  // namespace smr::core
