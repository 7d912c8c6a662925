// Facade tests: objects whose deleter retires a child into the same facade domain, for the
// domain-destruction contract (docs/facades.md, "Lifetimes"). One helper for both facades.
#pragma once

#include <atomic>

namespace smr::test {

// A chain link: its destructor counts itself and retires its child into the same domain.
// ObjBase is the facade's base template (hazard_pointer_obj_base or rcu_obj_base).
template <template <class...> class ObjBase, class Domain>
struct retiring_parent : ObjBase<retiring_parent<ObjBase, Domain>> {
  retiring_parent(retiring_parent* c, Domain* d, std::atomic<int>* freed) : child(c), dom(d), freed_(freed) {}
  ~retiring_parent() {
    freed_->fetch_add(1, std::memory_order_relaxed);
    if (child != nullptr) child->retire({}, *dom);
  }
  retiring_parent* child;
  Domain* dom;
  std::atomic<int>* freed_;
};

// A parent whose deleter retires its one child into dom: two objects, counted in `freed`.
template <template <class...> class ObjBase, class Domain>
retiring_parent<ObjBase, Domain>* parent_with_child(Domain& dom, std::atomic<int>& freed) {
  using node = retiring_parent<ObjBase, Domain>;
  return new node(new node(nullptr, &dom, &freed), &dom, &freed);
}

// Retires the tops of `chains` chains of `depth` into a fresh domain and destroys it; returns
// how many objects were destroyed by then (all of them, once each, is the contract).
template <template <class...> class ObjBase, class Domain>
int destroy_domain_holding_chains(int chains, int depth, bool& destroying_before) {
  using node = retiring_parent<ObjBase, Domain>;
  std::atomic<int> freed{0};
  {
    Domain dom;
    for (int i = 0; i < chains; ++i) {
      node* top = nullptr;
      for (int d = 0; d < depth; ++d) top = new node(top, &dom, &freed);
      top->retire({}, dom);  // few retirements: left for the destructor to free
    }
    destroying_before = dom.destroying();
  }
  return freed.load();
}

}  // namespace smr::test
