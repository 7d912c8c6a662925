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
// A thread_local table cannot be used again once the thread has started destroying it; a facade
// call from a later thread_local destructor (or from a deleter run while the table is being
// destroyed) is refused with a misuse message instead of touching freed memory. So is any use of
// a domain being destroyed other than retiring into it (its deleters run then).
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
    if (exiting()) detail::misuse("a facade (hazard_pointer / rcu) was used during thread exit, after the thread's attachments were destroyed");
    if (d.destroying()) detail::misuse("a facade domain (hazard_pointer_domain / rcu_domain) was used by a deleter it runs while being destroyed; only retiring into it is allowed there");
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

  static table& local() {
    thread_local table t;
    return t;
  }
  // Trivially destructible, so it stays readable after the table is gone.
  static bool& exiting() {
    thread_local bool flag = false;
    return flag;
  }
};

}  // namespace smr::facade_detail
