// smr::rcu_domain: the C++26 RCU interface (P2545, [saferecl.rcu]) on top of smr's ebr
// reclaimer (reclaimers/ebr.hpp). docs/facades.md lists every function, its contract, and where
// smr departs from the standard.
//
//   struct config : smr::rcu_obj_base<config> { ... };   // rcu-protectable
//   std::atomic<config*> current;
//
//   {
//     std::scoped_lock lock(smr::rcu_default_domain());  // a read-side critical section
//     config* c = current.load(std::memory_order_acquire);
//     ...                                               // *c stays allocated until the unlock
//   }
//   config* old = current.exchange(fresh);
//   old->retire();                                      // deleted after every reader that may
//                                                       // still hold it has unlocked
//   smr::rcu_synchronize();                             // wait for pre-existing readers
//   smr::rcu_barrier();                                 // run this thread's pending deleters
//
// Why ebr. An RCU read-side section maps to one smr operation (a guard) and a grace period to
// the epoch advancing twice. Of smr's epoch schemes, qsbr would count every thread that ever
// used the domain as a reader until it exits (it is online, and declares quiescent states only
// every k operations), so rcu_synchronize would wait for idle threads: not the standard's
// contract, which waits only for sections that exist. ebr and debra both ignore threads between
// sections; ebr tries to advance the epoch with a full scan every `advance_every` sections of any
// thread, so a retired object's grace period does not depend on one thread completing a round
// over every registered thread (debra's amortized rounds pay off with many threads and many
// operations, not with RCU's read-mostly few writers).
//
// The bridge to smr:
//  - Each thread gets, on first use of a domain, one smr::ebr handle (facade/thread_attachments
//    .hpp), detached at thread exit. lock() opens a guard on it when the thread's nesting depth
//    goes from 0 to 1 (announce the epoch, fence, re-check) and unlock() closes it at 0.
//  - rcu_obj_base<T, D> derives from ebr::node_base and keeps its deleter; rcu_retire(p, d) works
//    on any T by retiring a small node that owns p and d (one allocation per call).
//  - rcu_synchronize retires a marker node and waits (the handle's reclaim_now) until it is
//    freed: that takes the epoch past every section that was open at the retire.
//  - rcu_barrier is the handle's reclaim_now plus the domain's (orphans of exited threads):
//    it covers the calling thread's retirements and those of threads that have exited, not the
//    pending retirements of other live threads (docs/facades.md, "rcu_barrier").
//  - The default domain is created on first use and never destroyed, so threads may use it until
//    they end. From static destructors and late thread_local destructors, retire,
//    rcu_synchronize and rcu_barrier work through an attachment the thread still has or a
//    one-shot one; sections are refused there (docs/facades.md, "Lifetimes"). Explicit domains
//    (an smr extension; the standard's rcu_domain has no public constructor) must outlive every
//    thread that used them, except the thread that destroys them.
#pragma once

#include "smr/detail/require_cpp20.hpp"

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

#include "smr/facade/thread_attachments.hpp"
#include "smr/reclaimers/ebr.hpp"

namespace smr {

class rcu_domain;
inline rcu_domain& rcu_default_domain() noexcept;

// A domain of RCU protection: an smr::ebr and the per-thread attachments to it. Meets
// Cpp17Lockable: std::scoped_lock on it is a read-side critical section.
class rcu_domain {
 public:
  using reclaimer_type = smr::ebr;

  // smr extension: the standard's only domain is rcu_default_domain().
  explicit rcu_domain(ebr::config cfg = {}) : ebr_(cfg) {}
  // Detaches the calling thread (refused inside one of its sections). Every other thread that
  // used the domain must have exited (joined threads have); otherwise the smr domain refuses to
  // die (misuse, abort).
  ~rcu_domain() {
    destroying_ = true;
    facade_detail::thread_attachments<rcu_domain>::drop(*this);
  }
  rcu_domain(const rcu_domain&) = delete;
  rcu_domain& operator=(const rcu_domain&) = delete;

  // Opens a read-side critical section; sections nest (only the outermost one reaches ebr).
  void lock() noexcept {
    attachment& a = facade_detail::thread_attachments<rcu_domain>::of(*this);
    if (a.depth++ == 0) a.section.emplace(a.handle);
  }
  bool try_lock() noexcept {
    lock();
    return true;
  }
  // Closes the section most recently opened by this thread.
  void unlock() noexcept {
    attachment& a = facade_detail::thread_attachments<rcu_domain>::of(*this);
    if (a.depth == 0) detail::misuse("rcu_domain::unlock() without a matching lock() in this thread");
    if (--a.depth == 0) a.section.reset();
  }

  // The smr domain underneath (stats(), epoch(), ...).
  reclaimer_type& reclaimer() noexcept { return ebr_; }
  // smr extension: whether the domain is being destroyed. Its deleters then run on the
  // destroying thread (the last one attached), and one that retires an object into the domain
  // (a child only its object reached) has it deleted at once: no other thread may use the
  // domain any more, and this one is in no section of it.
  bool destroying() const noexcept { return destroying_; }

  // What a thread keeps per domain (facade/thread_attachments.hpp).
  struct attachment {
    explicit attachment(rcu_domain& d) : handle(d.ebr_) {}
    ~attachment() {
      if (depth != 0) detail::misuse("a thread ended (or destroyed an rcu_domain) inside a read-side section of it");
    }
    attachment(const attachment&) = delete;
    attachment& operator=(const attachment&) = delete;

    ebr::handle handle;
    std::optional<ebr::guard> section;  // the outermost open section's operation
    unsigned depth = 0;                 // sections open in this thread
  };

 private:
  bool destroying_ = false;  // declared before ebr_: still readable while ebr_ frees what is left
  ebr ebr_;
};

// The process-wide domain: made on first use and never destroyed (a static pointer keeps it
// reachable, so leak checkers stay quiet), so threads may use it until they end.
inline rcu_domain& rcu_default_domain() noexcept {
  static rcu_domain* const domain = new rcu_domain();
  return *domain;
}

namespace facade_detail {
using rcu_attachments = thread_attachments<rcu_domain>;

// Retires n through the calling thread's handle, in an operation (joining an open section).
template <class Node, class Deleter = void>
void rcu_retire_node(Node* n, rcu_domain& dom) {
  if (dom.destroying()) {  // from a deleter the dying domain runs: no section can hold n
    if constexpr (std::is_void_v<Deleter>) core::free_node(n);
    else Deleter{}(n);
    return;
  }
  rcu_attachments::with(dom, rcu_attachments::call::retires, [n](rcu_domain::attachment& a) {
    auto g = a.handle.begin_op();
    if constexpr (std::is_void_v<Deleter>) g.retire(n);
    else g.retire(n, Deleter{});
  });
}

// What rcu_retire(p, d) retires: a node that owns p and d, and invokes d(p) when freed.
template <class T, class D>
struct retired_pointer : ebr::node_base {
  retired_pointer(T* p, D&& d) : ptr(p), deleter(std::move(d)) {}
  retired_pointer(const retired_pointer&) = delete;
  retired_pointer& operator=(const retired_pointer&) = delete;
  ~retired_pointer() { deleter(ptr); }
  T* ptr;
  [[no_unique_address]] D deleter;
};

// rcu_synchronize's marker: freed (and then sets its flag) once its grace period has passed.
struct grace_marker : ebr::node_base {
  explicit grace_marker(bool* passed) : passed_(passed) {}
  grace_marker(const grace_marker&) = delete;
  grace_marker& operator=(const grace_marker&) = delete;
  ~grace_marker() { *passed_ = true; }
  bool* passed_;
};

// fn(attachment&) for a call refused inside a section of dom in this thread (`what` says why).
template <class F>
void outside_sections(rcu_domain& dom, const char* what, F&& fn) {
  rcu_attachments::with(dom, rcu_attachments::call::waits, [&](rcu_domain::attachment& a) {
    if (a.depth != 0) detail::misuse(what);
    fn(a);
  });
}
}  // namespace facade_detail

// The base of every rcu-protectable type T: derive as `struct T : rcu_obj_base<T>`.
template <class T, class D = std::default_delete<T>>
class rcu_obj_base : public ebr::node_base {
 public:
  // Stores d and schedules d(static_cast<T*>(this)) for after every read-side section of dom
  // that may still hold the object has ended. Preconditions: the object is unreachable from
  // shared memory, and not retired before. May run deleters whose grace period has passed.
  void retire(D d = D(), rcu_domain& dom = rcu_default_domain()) noexcept {
    static_assert(std::is_base_of_v<rcu_obj_base, T>, "T must derive from rcu_obj_base<T, D>");
    deleter_ = std::move(d);
    facade_detail::rcu_retire_node<T, invoke_deleter>(static_cast<T*>(this), dom);
  }

 protected:
  rcu_obj_base() = default;
  // Copies carry the deleter, never the retirement header: a copy is a fresh, unretired object.
  rcu_obj_base(const rcu_obj_base& o) : ebr::node_base(), deleter_(o.deleter_) {}
  rcu_obj_base(rcu_obj_base&& o) : ebr::node_base(), deleter_(std::move(o.deleter_)) {}
  rcu_obj_base& operator=(const rcu_obj_base& o) {
    deleter_ = o.deleter_;
    return *this;
  }
  rcu_obj_base& operator=(rcu_obj_base&& o) {
    deleter_ = std::move(o.deleter_);
    return *this;
  }
  ~rcu_obj_base() = default;

 private:
  // What smr calls at free time: stateless, it finds the stored deleter in the object. The
  // deleter is moved out first, since it may destroy the object that holds it. noexcept: a
  // deleter that throws terminates here, instead of leaving the thread inside the operation
  // that was freeing (every later grace period would wait for it) and the batch's rest leaked.
  struct invoke_deleter {
    void operator()(T* p) const noexcept {
      rcu_obj_base& base = *p;
      D d(std::move(base.deleter_));
      d(p);
    }
  };

  [[no_unique_address]] D deleter_{};
};

// Schedules d(p) for after every read-side section of dom that may still hold *p has ended. Any
// T (no base class needed); costs one small allocation, which may throw std::bad_alloc (then p
// is not retired). May run deleters whose grace period has passed.
template <class T, class D = std::default_delete<T>>
void rcu_retire(T* p, D d = D(), rcu_domain& dom = rcu_default_domain()) {
  static_assert(std::is_move_constructible_v<D> && std::is_invocable_v<D&, T*>, "rcu_retire(p, d): d(p) must be valid and D movable");
  if (dom.destroying()) {  // from a deleter the dying domain runs: no section can hold p
    d(p);
    return;
  }
  facade_detail::rcu_attachments::with(dom, facade_detail::rcu_attachments::call::retires, [&](rcu_domain::attachment& a) {
    auto g = a.handle.begin_op();
    g.retire(g.template create<facade_detail::retired_pointer<T, D>>(p, std::move(d)));
  });
}

// Blocks until every read-side section of dom that was open when it was called has closed
// (sections opened later are not waited for, nor are threads outside sections). Refused inside
// a section of dom in this thread (it would wait for itself). Also runs this thread's deleters
// whose grace period passes meanwhile.
inline void rcu_synchronize(rcu_domain& dom = rcu_default_domain()) noexcept {
  facade_detail::outside_sections(dom, "rcu_synchronize() inside a read-side section of the same domain (it would wait for itself)", [](rcu_domain::attachment& a) {
    bool passed = false;
    {
      auto g = a.handle.begin_op();
      g.retire(g.template create<facade_detail::grace_marker>(&passed));
    }
    // The marker was retired after the call began, so it is freed only once every section open
    // at that point has closed. Checked every millisecond of reclaiming: waiting for
    // reclaim_now() to finish would also wait for the retirements of exited threads that others
    // keep donating.
    while (!passed) a.handle.reclaim_now(std::chrono::milliseconds(1));
  });
}

// Runs every deleter that the calling thread scheduled on dom before the call, and every one
// that threads which have exited left behind, waiting for their grace periods. Retirements of
// other live threads stay with them (docs/facades.md: the departure from P2545). Refused inside
// a section of dom in this thread.
inline void rcu_barrier(rcu_domain& dom = rcu_default_domain()) noexcept {
  facade_detail::outside_sections(dom, "rcu_barrier() inside a read-side section of the same domain (it would wait for itself)",
                                  [](rcu_domain::attachment& a) { a.handle.reclaim_now(); });
  dom.reclaimer().reclaim_now();  // a fresh handle adopts what exited threads left
}

}  // namespace smr
