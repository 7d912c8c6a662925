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
// A thread_local table cannot take new entries once the thread has started destroying it. Calls
// that leave nothing behind in the thread (retire, rcu_synchronize, rcu_barrier,
// hazard_pointer_cleanup) go through with(), which then uses an attachment the thread still has
// (see with()) or makes a *one-shot* one: attached for the call, detached at its end (what it
// retired and cannot free yet goes to the domain, as at any thread's exit). That is what makes
// them work from later thread_local destructors, from deleters run while the table is
// destroyed, and from static destructors, which run after the main thread's thread_locals
// ([basic.start.term]). Calls whose effect outlives the call (a read-side section, a
// hazard_pointer) use of(), which refuses them there with a misuse message instead of touching
// freed memory. Any use of a domain being destroyed other than retiring into it (its deleters
// run then) is refused too.
//
// Not detected: a thread whose first call on this Domain type comes after its thread_locals
// were destroyed (a main thread that used no RCU before exit(), then RCU from a static
// destructor; each facade has its own table) gets a table whose destructor never runs (the C++
// runtime has already run the thread's), so that call is served, sections included, and the
// attachment stays registered until the process ends.
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

  // What a call through with() does: only retire (it may then join an attachment that is
  // detaching, whose handle takes retirements until its end), or wait for reclamation
  // (rcu_synchronize, rcu_barrier, hazard_pointer_cleanup: never on a detaching handle).
  enum class call { retires, waits };

  // Runs fn(attachment&) on the calling thread's attachment to d. Once the thread's table is
  // being destroyed or gone (exiting), that is, in this order:
  //  - an attachment to d this thread is in a call on, or is detaching (see `call`): a deleter
  //    that such a call or detach runs joins it, as it joins the thread's own attachment in a
  //    live thread. A new attachment instead would wait for the outer call's operation (a self
  //    wait), or, made by each deleter inside the previous one's detach, nest as deep as a
  //    chain of objects whose deleters retire the next one;
  //  - the table's own attachment to d while the table is being destroyed and has not reached
  //    it yet (its section depth is then still checked);
  //  - else a one-shot attachment, made for this call and detached at its end.
  // For calls that keep nothing in the attachment after they return.
  template <class F>
  static decltype(auto) with(Domain& d, call kind, F&& fn) {
    if (!exiting()) [[likely]] return fn(of(d));
    refuse_if_destroying(d);
    for (listing* l = innermost_listing(); l != nullptr; l = l->outer) {
      if (l->domain == &d && l->att != nullptr && (!l->detaching || kind == call::retires)) return fn(*l->att);
    }
    if (table_being_destroyed()) {
      for (entry& e : local().entries) {
        if (e.domain == &d) return fn(*e.att);
      }
    }
    one_shot once(d);
    return fn(*once.listed.att);
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
    // detaching handles run must not make new entries (with() finds the entries still here,
    // and the one detaching, through its listing).
    ~table() {
      exiting() = true;
      table_being_destroyed() = true;
      last_domain = nullptr;
      last = nullptr;
      while (!entries.empty()) {
        entry gone = std::move(entries.back());
        entries.pop_back();
        listing detaching(*gone.domain);
        detaching.att = gone.att.get();
        detaching.detaching = true;
        gone.att.reset();
      }
      table_being_destroyed() = false;
    }
    std::vector<entry> entries;
    Domain* last_domain = nullptr;  // a one-entry cache: most threads use one domain
    attachment* last = nullptr;
  };

  // An attachment that with() may join once the thread is exiting: a one-shot attachment, or
  // the table's entry being destroyed. Listed in the thread's chain while it lives.
  struct listing {
    explicit listing(Domain& d) : domain(&d), outer(innermost_listing()) { innermost_listing() = this; }
    ~listing() { innermost_listing() = outer; }
    listing(const listing&) = delete;
    listing& operator=(const listing&) = delete;
    Domain* domain;
    attachment* att = nullptr;  // null until it is whole
    bool detaching = false;
    listing* outer;
  };

  // Listed from the moment its attachment is whole until that attachment has detached: a
  // deleter the detach runs and that retires joins it (declared first, destroyed last).
  struct one_shot {
    explicit one_shot(Domain& d) : listed(d), att(d) { listed.att = &att; }
    ~one_shot() { listed.detaching = true; }
    one_shot(const one_shot&) = delete;
    one_shot& operator=(const one_shot&) = delete;
    listing listed;
    attachment att;
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
  // Trivially destructible too.
  static listing*& innermost_listing() {
    thread_local listing* innermost = nullptr;
    return innermost;
  }
  static bool& table_being_destroyed() {
    thread_local bool flag = false;
    return flag;
  }
};

}  // namespace smr::facade_detail
