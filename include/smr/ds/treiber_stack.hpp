// Treiber's lock-free stack (Treiber 1986), as benchmarked by Hart et al.
//
// push: link a new node above the observed top and CAS it in. pop: read the top with
// protection (reserve it, for NBR), read its next, CAS the top past it, retire it.
// Protection of the popped node also rules out ABA: it cannot be freed and reused while held.
// The stack is persistent (IBR §3.1): a node's next never changes once it is pushed, so POIBR,
// which reserves only the era in which the top was read, applies; pop reads the top through
// protect_root().
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "smr/detail/chaos.hpp"
#include "smr/detail/compat_check.hpp"
#include "smr/core/concepts.hpp"
#include "smr/core/marked_ptr.hpp"
#include "smr/core/traits.hpp"

namespace smr {

template <class T, reclaimer R>
class treiber_stack {
 public:
  static constexpr std::string_view name = "treiber_stack";
  // push links the new node to a top read without protection, pop installs top->next; only
  // the top ever changes.
  static constexpr ds_requirements requirements{.writes_unprotected_pointers = true, .protect_slots = 1, .persistent = true};

  using handle = typename R::handle;

  explicit treiber_stack(R& domain) {
    detail::admit<requirements>(domain, "treiber_stack");
  }
  treiber_stack(const treiber_stack&) = delete;
  treiber_stack& operator=(const treiber_stack&) = delete;
  ~treiber_stack() {
    node* n = top_.load(core::mo_relaxed).get();
    while (n != nullptr) {
      node* next = n->next.load(core::mo_relaxed).get();
      core::free_node(n);
      n = next;
    }
  }

  void push(handle& h, const T& value) {
    auto g = h.begin_op();
    node* n = g.template create<node>(value);
    core::marked_ptr<node> top = top_.load(core::mo_relaxed);
    for (;;) {
      n->next.store(top, core::mo_relaxed);
      detail::chaos_point();
      // release: publishes the node's contents to readers that acquire the top.
      if (top_.compare_exchange_strong(top, core::marked_ptr<node>(n), core::mo_release)) return;
    }
  }

  std::optional<T> pop(handle& h) {
    auto g = h.begin_op();
    auto slot = g.slot();
    for (;;) {
      node* top = g.read_phase([&] {
        node* t = slot.protect_root(top_).get();
        g.reserve(t);
        return t;
      });
      if (top == nullptr) return std::nullopt;
      // top is protected (or reserved): reading its immutable next is safe.
      core::marked_ptr<node> next = top->next.load(core::mo_relaxed);
      core::marked_ptr<node> expected(top);
      detail::chaos_point();
      // acquire on success is not needed: we already read top's contents under protection.
      if (top_.compare_exchange_strong(expected, next, core::mo_relaxed)) {
        std::optional<T> value;
        try {
          value.emplace(std::move(top->value));  // only the winner of the CAS touches it
        } catch (...) {
          g.retire(top);  // a move that throws must not leak the unlinked node
          throw;
        }
        g.retire(top);
        return value;
      }
    }
  }

  // Single-threaded inspection (validation after a trial).
  template <class F>
  void for_each_unsafe(F&& fn) const {
    for (node* n = top_.load(core::mo_relaxed).get(); n != nullptr; n = n->next.load(core::mo_relaxed).get())
      fn(n->value);
  }

  std::size_t size_unsafe() const {
    std::size_t n = 0;
    for_each_unsafe([&](const T&) { ++n; });
    return n;
  }

  // Empty if no link is marked (the stack never marks one).
  std::string check_invariants_unsafe() const {
    std::size_t index = 0;
    for (core::marked_ptr<node> p = top_.load(core::mo_relaxed); p.get() != nullptr; ++index) {
      if (p.marked()) return "marked link at position " + std::to_string(index);
      p = p->next.load(core::mo_relaxed);
    }
    return {};
  }

 private:
  struct node : R::node_base {
    explicit node(const T& v) : value(v) {}
    T value;
    typename R::template atomic_ptr<node> next;
  };

  typename R::template atomic_ptr<node> top_;
};

}  // namespace smr
