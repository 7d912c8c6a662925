// The bridge between the standard-style facades (smr/hazard_pointer.hpp, smr/rcu.hpp) and smr's
// per-thread handles. P2530 and P2545 have no attach(): a thread simply starts using a domain.
// smr's domains need a registered handle per thread, so each facade domain keeps, per thread, an
// *attachment* (its handles and whatever per-thread state the facade needs) that is created on
// the thread's first use of that domain and destroyed
//  - when the thread exits (its thread_local table is destroyed), or
//  - when the thread itself destroys the domain (the facade domain's destructor drops the
//    calling thread's attachment before the smr domain underneath dies).
// Another thread still attached when a domain dies is refused by the smr domain itself ("a ...
// domain was destroyed while N thread handle(s) were still attached"): join the threads that
// used an explicit domain before destroying it. The default domains are never destroyed
// (immortal, see the facades), so threads may use them until their very end.
//
// A thread_local table cannot be used again once the thread has started destroying it. Calls
// that leave nothing behind in the thread (retire, rcu_synchronize, rcu_barrier,
// hazard_pointer_cleanup) go through with(), which then makes a *one-shot* attachment: attached
// for the call, detached at its end (what it retired and cannot free yet goes to the domain, as
// at any thread's exit). That is what makes them work from later thread_local destructors, from
// deleters run while the table is destroyed, and from static destructors, which run after the
// main thread's thread_locals ([basic.start.term]). Calls whose effect outlives the call (a
// read-side section, a hazard_pointer) use of(), which refuses them there with a misuse message
// instead of touching freed memory. Any use of a domain being destroyed other than retiring into
// it (its deleters run then) is refused too.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "smr/detail/checks.hpp"

namespace smr::facade_detail {

// Domain must declare `struct attachment` constructible from Domain&.
template <class Domain>
class thread_attachments {
 public:
  using attachment = typename Domain::attachment;

  // The calling thread's attachment to d, made on first use. Refused for a domain being
  // destroyed: a new attachment would outlive it (Domain must have destroying()).
  static attachment& of(Domain& d) {
    if (exiting()) detail::misuse("a read-side section or a hazard_pointer was requested during thread exit (a thread_local or static destructor), after the thread's facade attachments were destroyed; only retire, rcu_synchronize, rcu_barrier and hazard_pointer_cleanup work there");
    refuse_if_destroying(d);
    table& t = local();
    if (t.last_domain == &d) return *t.last;
    attachment* found = nullptr;
    for (entry& e : t.entries) {
      if (e.domain == &d) found = e.att.get();
    }
    if (found == nullptr) {
      t.entries.push_back(entry{&d, nullptr});
      try {
        t.entries.back().att = std::make_unique<attachment>(d);
      } catch (...) {
        t.entries.pop_back();
        throw;
      }
      found = t.entries.back().att.get();
    }
    t.last_domain = &d;
    t.last = found;
    return *found;
  }

  // Runs fn(attachment&) on the calling thread's attachment to d, or, once the thread's table is
  // being destroyed or gone, on a one-shot attachment made for this call. For calls that keep
  // nothing in the attachment after they return.
  // A call made from inside another one-shot call on d (a deleter its retire ran) joins that
  // attachment, as it would join the thread's own: a second handle would let rcu_synchronize
  // wait for the outer call's operation, that is, for itself.
  template <class F>
  static decltype(auto) with(Domain& d, F&& fn) {
    if (!exiting()) [[likely]] return fn(of(d));
    refuse_if_destroying(d);
    for (one_shot* o = active_one_shots(); o != nullptr; o = o->outer)
      if (o->domain == &d) return fn(o->att);
    one_shot once(d);
    return fn(once.att);
  }

  // Ends the calling thread's attachment to d, if it has one (d is being destroyed by it).
  static void drop(Domain& d) {
    if (exiting()) return;
    table& t = local();
    if (t.last_domain == &d) {
      t.last_domain = nullptr;
      t.last = nullptr;
    }
    for (std::size_t i = 0; i < t.entries.size(); ++i) {
      if (t.entries[i].domain == &d) {
        std::unique_ptr<attachment> gone = std::move(t.entries[i].att);
        t.entries.erase(t.entries.begin() + static_cast<std::ptrdiff_t>(i));
        gone.reset();  // may run deleters; the table is consistent again by now
        return;
      }
    }
  }

 private:
  struct entry {
    Domain* domain;
    std::unique_ptr<attachment> att;
  };
  struct table {
    table() = default;
    table(const table&) = delete;
    table& operator=(const table&) = delete;
    // Last attached first. Marked as exiting before anything is destroyed: deleters that the
    // detaching handles run must not reach back into the table.
    ~table() {
      exiting() = true;
      last_domain = nullptr;
      last = nullptr;
      while (!entries.empty()) {
        std::unique_ptr<attachment> gone = std::move(entries.back().att);
        entries.pop_back();
        gone.reset();
      }
    }
    std::vector<entry> entries;
    Domain* last_domain = nullptr;  // a one-entry cache: most threads use one domain
    attachment* last = nullptr;
  };

  // A one-shot attachment, listed while it lives in the thread's chain of active ones.
  struct one_shot {
    explicit one_shot(Domain& d) : domain(&d), att(d), outer(active_one_shots()) { active_one_shots() = this; }
    ~one_shot() { active_one_shots() = outer; }  // before att detaches: its deleters start afresh
    one_shot(const one_shot&) = delete;
    one_shot& operator=(const one_shot&) = delete;
    Domain* domain;
    attachment att;
    one_shot* outer;
  };

  static void refuse_if_destroying(Domain& d) {
    if (d.destroying()) detail::misuse("a facade domain (hazard_pointer_domain / rcu_domain) was used by a deleter it runs while being destroyed; only retiring into it is allowed there");
  }

  static table& local() {
    thread_local table t;
    return t;
  }
  // Trivially destructible, so it stays readable after the table is gone.
  static bool& exiting() {
    thread_local bool flag = false;
    return flag;
  }
  static one_shot*& active_one_shots() {
    thread_local one_shot* innermost = nullptr;  // trivially destructible too
    return innermost;
  }
};

}  // namespace smr::facade_detail
