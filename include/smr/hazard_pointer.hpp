// smr::hazard_pointer: the C++26 hazard pointer interface (P2530, [saferecl.hp]) on top of smr's
// hp reclaimer (reclaimers/hp.hpp). docs/facades.md lists every function, its contract, and
// where smr departs from the standard.
//
//   struct config : smr::hazard_pointer_obj_base<config> { ... };   // hazard-protectable
//   std::atomic<config*> current;
//
//   smr::hazard_pointer h = smr::make_hazard_pointer();
//   config* c = h.protect(current);           // *c stays allocated until h protects something
//   ...                                       // else, is reset, or is destroyed
//   config* old = current.exchange(fresh);
//   old->retire();                            // deleted once no hazard pointer protects it
//
// The bridge to smr:
//  - hazard_pointer_obj_base<T, D> derives from smr::hp::node_base (the retired mark and destroy
//    hook every retired object carries) and keeps the deleter; retire() hands the object to the
//    skeleton's retire with a stateless deleter that invokes the stored one.
//  - A hazard_pointer owns one protection slot (one hazard) of its thread. protect() and
//    try_protect() work on a plain std::atomic<T*>: publish the hazard, a seq_cst fence (smr's
//    core::fence, so TSan sees it), re-read the source; the scan's fence in hp.hpp pairs with it
//    exactly as with smr's own atomic_ptr (hp.hpp, proof step (1)).
//  - There is no attach(): each thread gets, on first use of a domain, two smr handles of it
//    (facade/thread_attachments.hpp): one owns the hazards of the thread's hazard_pointer objects
//    and never enters an operation; the other retires (in a short operation) and reclaims, and
//    never owns a hazard. Two, because smr refuses (in checked builds) a protection slot that
//    lives across the end of an operation, and a hazard_pointer may live across any number of
//    retire() calls. Both are detached when the thread exits.
//  - The default domain (hazard_pointer_default_domain()) is created on first use and never
//    destroyed, so threads may use it until they end. retire() and hazard_pointer_cleanup() also
//    work from static destructors and late thread_local destructors, through an attachment the
//    thread still has or a one-shot one; a new hazard_pointer there is refused
//    (docs/facades.md, "Lifetimes"). Explicit domains (an smr extension; P2530 has only the
//    default one) must outlive every thread that used them, except the thread that destroys them.
#pragma once

#include "smr/detail/require_cpp20.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "smr/core/atomic.hpp"
#include "smr/facade/thread_attachments.hpp"
#include "smr/reclaimers/hp.hpp"

namespace smr {

class hazard_pointer;
class hazard_pointer_domain;
inline hazard_pointer_domain& hazard_pointer_default_domain() noexcept;
inline hazard_pointer make_hazard_pointer(hazard_pointer_domain& dom);

// A domain of hazard pointers: an smr::hp and the per-thread attachments to it. The standard has
// only the default domain; a separate one keeps its objects and its scans apart.
class hazard_pointer_domain {
 public:
  using reclaimer_type = smr::hp;
  // Hazards per thread: the most hazard_pointer objects one thread may own at once
  // (make_hazard_pointer() throws smr::slots_exhausted beyond). R (the scan threshold) is
  // Hart's 2H + 100, H = hazards x attached handles.
  static constexpr unsigned default_slots = 8;

  explicit hazard_pointer_domain(hp::config cfg = {.slots = default_slots}) : hp_(cfg) {}
  // Detaches the calling thread. Every other thread that used the domain must have exited
  // (joined threads have); otherwise the smr domain refuses to die (misuse, abort).
  ~hazard_pointer_domain() {
    destroying_ = true;
    facade_detail::thread_attachments<hazard_pointer_domain>::drop(*this);
  }
  hazard_pointer_domain(const hazard_pointer_domain&) = delete;
  hazard_pointer_domain& operator=(const hazard_pointer_domain&) = delete;

  // The smr domain underneath (stats(), protect_slots(), ...).
  reclaimer_type& reclaimer() noexcept { return hp_; }
  // smr extension: whether the domain is being destroyed. Its deleters then run on the
  // destroying thread (the last one attached), and one that retires an object into the domain
  // (a child only its object reached) has it deleted at once: no other thread may use the
  // domain any more, and this one holds no hazard pointer of it.
  bool destroying() const noexcept { return destroying_; }

  // What a thread keeps per domain (facade/thread_attachments.hpp).
  struct attachment {
    explicit attachment(hazard_pointer_domain& d)
        : retirer(d.hp_), protector(d.hp_), hazards(d.hp_.protect_slots()) {}
    ~attachment() {
      if (live != 0)
        detail::misuse("a hazard_pointer outlived its thread's use of the domain (destroy it before the thread exits or the domain dies; do not move it to another thread)");
    }
    attachment(const attachment&) = delete;
    attachment& operator=(const attachment&) = delete;

    // A free entry of `hazards`, made to own one of the protector's slots (throws
    // smr::slots_exhausted when every one is taken).
    std::optional<hp::protection_slot>& take_hazard() {
      for (auto& h : hazards) {
        if (!h) {
          h.emplace(protector);
          ++live;
          return h;
        }
      }
      throw slots_exhausted("hazard_pointer: all " + std::to_string(hazards.size()) +
                            " hazard pointers of this thread are in use; destroy one, or use a "
                            "hazard_pointer_domain with more slots");
    }
    void give_back(std::optional<hp::protection_slot>& h) noexcept {
      h.reset();  // clears the hazard (release store) and frees the slot
      --live;
    }

    // The retirer is declared first so that it is destroyed last: the protector's last scan
    // may free what exited threads left, and a deleter that then retires into the domain during
    // the thread's exit goes through this attachment's retirer (thread_attachments::with).
    hp::handle retirer;    // retires and reclaims; never owns a hazard
    hp::handle protector;  // owns this thread's hazards; never in an operation
    // One entry per slot the domain gives a thread; a hazard_pointer points at its entry, so
    // moving one moves a pointer. Sized once: entries never move.
    std::vector<std::optional<hp::protection_slot>> hazards;
    std::size_t live = 0;  // entries in use
    const std::thread::id thread = std::this_thread::get_id();  // the only one that may use it
  };

 private:
  bool destroying_ = false;  // declared before hp_: still readable while hp_ frees what is left
  hp hp_;
};

// The process-wide domain behind make_hazard_pointer() and retire(): made on first use and never
// destroyed (a static pointer keeps it reachable, so leak checkers stay quiet).
inline hazard_pointer_domain& hazard_pointer_default_domain() noexcept {
  static hazard_pointer_domain* const domain = new hazard_pointer_domain();
  return *domain;
}

namespace facade_detail {
using hp_attachments = thread_attachments<hazard_pointer_domain>;

// Hazard-protectable: derived (publicly, once) from hazard_pointer_obj_base<T, D> for some D.
template <class T>
concept hazard_protectable = requires { typename T::smr_hazard_pointer_obj_base; } &&
                             std::is_base_of_v<typename T::smr_hazard_pointer_obj_base, T> &&
                             std::is_convertible_v<T*, const core::retired_node*>;
}  // namespace facade_detail

// The base of every hazard-protectable type T: derive as `struct T : hazard_pointer_obj_base<T>`.
template <class T, class D = std::default_delete<T>>
class hazard_pointer_obj_base : public hp::node_base {
 public:
  using smr_hazard_pointer_obj_base = hazard_pointer_obj_base;

  // Stores d and retires the object: d(static_cast<T*>(this)) runs once no hazard pointer
  // protects it (in some later retire(), hazard_pointer_cleanup(), or at a thread's exit).
  // Preconditions: the object is unreachable from shared memory, and not retired before.
  void retire(D d = D()) noexcept { retire(std::move(d), hazard_pointer_default_domain()); }
  // smr extension: retires into an explicit domain (the one whose hazard pointers protect it).
  void retire(D d, hazard_pointer_domain& dom) noexcept {
    static_assert(std::is_base_of_v<hazard_pointer_obj_base, T>, "T must derive from hazard_pointer_obj_base<T, D>");
    deleter_ = std::move(d);
    if (dom.destroying()) {  // from a deleter the dying domain runs: nobody can protect it
      invoke_deleter{}(static_cast<T*>(this));
      return;
    }
    facade_detail::hp_attachments::with(dom, facade_detail::hp_attachments::call::retires, [this](hazard_pointer_domain::attachment& a) {
      auto g = a.retirer.begin_op();
      g.retire(static_cast<T*>(this), invoke_deleter{});
    });
  }

 protected:
  hazard_pointer_obj_base() = default;
  // Copies carry the deleter, never the retirement header: a copy is a fresh, unretired object.
  hazard_pointer_obj_base(const hazard_pointer_obj_base& o) : hp::node_base(), deleter_(o.deleter_) {}
  hazard_pointer_obj_base(hazard_pointer_obj_base&& o) : hp::node_base(), deleter_(std::move(o.deleter_)) {}
  hazard_pointer_obj_base& operator=(const hazard_pointer_obj_base& o) {
    deleter_ = o.deleter_;
    return *this;
  }
  hazard_pointer_obj_base& operator=(hazard_pointer_obj_base&& o) {
    deleter_ = std::move(o.deleter_);
    return *this;
  }
  ~hazard_pointer_obj_base() = default;

 private:
  // What smr calls at free time: stateless, it finds the stored deleter in the object. The
  // deleter is moved out first, since it may destroy the object that holds it. noexcept: a
  // deleter that throws terminates here, instead of leaving the thread inside the operation
  // that was freeing (every later grace period would wait for it) and the batch's rest leaked.
  struct invoke_deleter {
    void operator()(T* p) const noexcept {
      hazard_pointer_obj_base& base = *p;
      D d(std::move(base.deleter_));
      d(p);
    }
  };

  [[no_unique_address]] D deleter_{};
};

// Owns one hazard pointer (one of its thread's hazards), or nothing (empty). Move-only. A
// hazard_pointer belongs to the thread that made it: use, move and destroy it there, before the
// thread exits.
class hazard_pointer {
 public:
  // Empty: owns no hazard pointer.
  hazard_pointer() noexcept = default;
  hazard_pointer(hazard_pointer&& o) noexcept
      : slot_(std::exchange(o.slot_, nullptr)), owner_(std::exchange(o.owner_, nullptr)) {}
  hazard_pointer& operator=(hazard_pointer&& o) noexcept {
    if (this != &o) {
      release();
      slot_ = std::exchange(o.slot_, nullptr);
      owner_ = std::exchange(o.owner_, nullptr);
    }
    return *this;
  }
  // Ends the protection and gives the hazard back to the thread.
  ~hazard_pointer() { release(); }

  bool empty() const noexcept { return slot_ == nullptr; }

  // Reads src and protects what it read: the returned object is not deleted until this hazard
  // pointer protects something else, is reset or destroyed. Retries while src changes.
  template <class T>
  T* protect(const std::atomic<T*>& src) noexcept {
    T* ptr = src.load(std::memory_order_relaxed);
    while (!try_protect(ptr, src)) {
    }
    return ptr;
  }

  // Protects ptr, then re-reads src into ptr: true if src still held ptr (ptr is protected),
  // false if it changed (ptr is the new value, and nothing is protected).
  template <class T>
  bool try_protect(T*& ptr, const std::atomic<T*>& src) noexcept {
    static_assert(facade_detail::hazard_protectable<T>, "T must derive from hazard_pointer_obj_base<T, D>");
    check();
    T* const old = ptr;
    // Published as hp's own protect() does (validated below, so no version bump: a scan is
    // not made to retry for every step of a traversal).
    if (old == nullptr) (*slot_)->reset();
    else (*slot_)->announce(old);
    // seq_cst: the hazard is visible to every later scan before src is re-read; pairs with the
    // scan's fence (hp.hpp, (1)). Nothing to order when nothing is protected.
    if (old != nullptr) core::fence(core::mo_seq_cst);
    // acquire: pairs with the release that published the object.
    ptr = src.load(std::memory_order_acquire);
    if (old != ptr) {
      reset_protection();
      return false;
    }
    return true;
  }

  // Protects *ptr without validation (ptr must be protected already, by another hazard pointer
  // or otherwise, or be unreachable by retirers); null ends the protection.
  template <class T>
  void reset_protection(const T* ptr) noexcept {
    static_assert(facade_detail::hazard_protectable<T>, "T must derive from hazard_pointer_obj_base<T, D>");
    check();
    if (ptr == nullptr) (*slot_)->reset();
    else (*slot_)->hold(ptr);
  }
  // Ends the protection (the hazard pointer stays owned).
  void reset_protection(std::nullptr_t = nullptr) noexcept {
    check();
    (*slot_)->reset();
  }

  void swap(hazard_pointer& o) noexcept {
    std::swap(slot_, o.slot_);
    std::swap(owner_, o.owner_);
  }
  friend void swap(hazard_pointer& a, hazard_pointer& b) noexcept { a.swap(b); }

 private:
  friend hazard_pointer make_hazard_pointer(hazard_pointer_domain&);

  explicit hazard_pointer(hazard_pointer_domain::attachment& a) : slot_(&a.take_hazard()), owner_(&a) {}

  void release() noexcept {
    if (slot_ != nullptr) {
      // Another thread would race with the owner on its free entries and its hazard (one
      // pthread_self per destruction or reassignment; protect() is left unchecked).
      if (owner_->thread != std::this_thread::get_id())
        detail::misuse("a hazard_pointer was destroyed or reassigned by a thread other than the one that made it");
      owner_->give_back(*slot_);
      slot_ = nullptr;
      owner_ = nullptr;
    }
  }

  // P2530 makes these calls undefined on an empty hazard_pointer; smr refuses them.
  void check() const noexcept {
    if (slot_ == nullptr) [[unlikely]]
      detail::misuse("a call on an empty hazard_pointer (protect, try_protect or reset_protection)");
  }

  std::optional<hp::protection_slot>* slot_ = nullptr;  // its entry in the thread's attachment
  hazard_pointer_domain::attachment* owner_ = nullptr;
};

// A hazard pointer of the calling thread (unassociated). Throws smr::slots_exhausted when the
// thread already owns all of the domain's hazards (hazard_pointer_domain::default_slots).
inline hazard_pointer make_hazard_pointer(hazard_pointer_domain& dom) {
  return hazard_pointer(facade_detail::hp_attachments::of(dom));
}
inline hazard_pointer make_hazard_pointer() { return make_hazard_pointer(hazard_pointer_default_domain()); }

// N hazard pointers at once (all or none: if one cannot be made, those made are released).
template <std::size_t N>
std::array<hazard_pointer, N> make_hazard_pointers(hazard_pointer_domain& dom = hazard_pointer_default_domain()) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<hazard_pointer, N>{((void)I, make_hazard_pointer(dom))...};
  }(std::make_index_sequence<N>{});
}

// smr extension (folly's hazptr_cleanup): deletes every object the calling thread retired into
// dom, and every object exited threads left to it, waiting up to `timeout` for hazard pointers
// to let go of them. Returns whether all of them were deleted. Retirements of other live threads
// stay theirs (each may call this itself). A thread that still protects one of its own retired
// objects waits for itself until the timeout.
inline bool hazard_pointer_cleanup(hazard_pointer_domain& dom = hazard_pointer_default_domain(),
                                   std::chrono::nanoseconds timeout = std::chrono::nanoseconds::max()) {
  // The thread's own retirements (a scan also adopts what exited threads left), then the
  // domain's barrier, which does not depend on this thread's scan adopting them.
  const auto deadline = detail::deadline_after(timeout);
  const bool own_done = facade_detail::hp_attachments::with(
      dom, facade_detail::hp_attachments::call::waits, [timeout](hazard_pointer_domain::attachment& a) { return a.retirer.reclaim_now(timeout); });
  if (!own_done) return false;
  if (deadline == std::chrono::steady_clock::time_point::max()) return dom.reclaimer().reclaim_now();
  const auto left = deadline - std::chrono::steady_clock::now();
  return dom.reclaimer().reclaim_now(std::max(std::chrono::nanoseconds::zero(), std::chrono::duration_cast<std::chrono::nanoseconds>(left)));
}

}  // namespace smr
