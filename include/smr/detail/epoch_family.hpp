// The parts the epoch and quiescence schemes (ebr, debra, qsbr) share: the announcement slot,
// the domain's epoch clock, and the per-thread side: the epoch-tagged limbo, retirement and
// orphans handed over with their tags (tag = announced epoch + 1, detail/epoch_clock.hpp),
// collection when the thread sees a new epoch, and the exit path. The schemes differ only in
// when they announce, quiesce and scan; that stays in their rules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>

#include "smr/core/domain.hpp"
#include "smr/detail/epoch_clock.hpp"
#include "smr/detail/epoch_limbo.hpp"

namespace smr::detail {

struct epoch_slot {
  // epoch_clock::active(e) during a period, quiescent(...) outside one (see epoch_clock.hpp).
  atomic<std::uint64_t> announce{epoch_clock::quiescent()};
};

template <class Base>
class epoch_domain;

// What the three epoch rules share besides the thread side: traits, slot, domain state.
struct epoch_rule_base : rule_defaults {
  static constexpr reclaimer_traits traits{.protects_unlinked_traversal = true, .metrics = {.epochs = true}};
  using slot = epoch_slot;
  template <class Base>
  using domain_state = epoch_domain<Base>;
};

template <class Base>
class epoch_domain : public Base {
 public:
  using Base::Base;
  // Every handle is gone (basic_domain checked): what detached threads left is unreachable.
  ~epoch_domain() {
    limbo_bag all = orphans_.take_all();
    while (retired_node* n = all.pop_front()) core::free_node(n);
  }
  // The global epoch (starts at 1).
  std::uint64_t epoch() const { return clock_.now(); }

  // Whether detached threads left nodes that nobody adopted yet (reclaim_now() steps until
  // there are none). Hides the core's: these rules keep their orphans here, tagged.
  bool has_orphans() const { return has_orphans_.load(mo_acquire); }

 private:
  template <class>
  friend class epoch_thread;

  // A detaching thread's limbo, each bag keeping its tag: the nodes stay as close to safe as
  // they were. Re-tagging them with the adopter's epoch, as untagged orphans must be, restarts
  // their grace period at every adoption, and under thread churn (handles that live a few
  // operations) they would be handed on for ever and never freed.
  void donate_tagged(epoch_limbo& from) {
    if (from.size() == 0) return;
    std::lock_guard<std::mutex> g(orphan_lock_);
    orphans_.absorb(from);
    // release: pairs with the acquire check in adopt_tagged(); the lock orders the bags.
    has_orphans_.store(true, mo_release);
  }
  void adopt_tagged(epoch_limbo& into) {
    if (!has_orphans_.load(mo_acquire)) return;
    std::lock_guard<std::mutex> g(orphan_lock_);
    into.absorb(orphans_);
    has_orphans_.store(false, mo_relaxed);  // the lock orders it with the next donation
  }

  epoch_clock clock_;
  std::mutex orphan_lock_;
  epoch_limbo orphans_;
  atomic<bool> has_orphans_{false};
};

template <class Base>
class epoch_thread : public Base {
 protected:
  explicit epoch_thread(typename Base::domain_type& d) : Base(d) {}

  // The rule's destructor has made the thread quiescent or offline. One reclaim step on the way
  // out: announce (adopting orphans), try to advance, quiesce again, free what is safe; then the
  // rest goes to the domain with its tags. Without the step, handles that live fewer operations
  // than a rule's advance interval (thread churn) would never try to advance the epoch, and
  // nothing would be freed. Nothing is freed while announced: a deleter that starts an operation
  // through the handle finds the rule's state as its destructor left it (nebr: no region).
  ~epoch_thread() {
    epoch_clock& c = clock();
    const std::uint64_t e = c.announce(this->slot().announce, c.now());
    announced(e);
    try_advance(e);
    epoch_clock::quiesce(this->slot().announce);
    this->release_safe(limbo_.collect(c.now()));
    this->domain().donate_tagged(limbo_);
    // A deleter run just now may have retired a child through this handle, in an operation
    // that announced the epoch again (nebr opens a region, qsbr's leave may start a period):
    // the word must read quiescent once the slot goes back, or every later advance would wait
    // on it (a released slot is still scanned). Its value is ours alone to store here.
    if ((this->slot().announce.load(core::mo_relaxed) & 1) != 0) epoch_clock::quiesce(this->slot().announce);
  }

  epoch_clock& clock() { return this->domain().clock_; }

  // Starts a period: announces the current epoch (epoch_clock::announce), frees what it made
  // safe and adopts orphans. Returns the epoch announced.
  std::uint64_t start_period() {
    epoch_clock& c = clock();
    const std::uint64_t e = c.announce(this->slot().announce, c.now());
    observe(e);
    announced(e);
    return e;
  }

  // The thread read `global` from the clock: frees what became safe (a bag tagged t is safe once
  // any thread has read t + 2). Needs no announcement. Returns whether `global` is new.
  bool observe(std::uint64_t global) {
    if (global == observed_) return false;
    observed_ = global;
    this->tc().record_instant(event_kind::garbage, limbo_.size());
    this->release_safe(limbo_.collect(global));
    return true;
  }

  // The thread's current period announced e. Returns whether e is new.
  bool announced(std::uint64_t e) {
    if (e == announced_) return false;
    announced_ = e;
    // Detached threads' bags, with their tags (epoch_domain::donate_tagged).
    this->domain().adopt_tagged(limbo_);
    return true;
  }

  std::uint64_t announced_epoch() const { return announced_; }

  // Scans every slot and advances from e if all permit it (the caller announced e).
  bool try_advance(std::uint64_t e) { return clock().try_advance(e, this->domain().registry(), this->tc()); }

  // The reclaim-now step, outside any operation: a period that frees what the epoch made safe
  // and advances it if every thread permits. qsbr uses it as it is (a quiescent state); ebr
  // and debra end the period again, since their threads are quiescent between operations.
  void reclaim_step() { try_advance(start_period()); }

  // Only inside a period: a node unlinked while active with e is tagged e + 1 (adopted nodes keep
  // the tags their threads gave them).
  void retire(retired_node* n) {
    limbo_.retire(n, announced_ + 1);
    this->tc().note_retired();
  }

  std::size_t unreclaimed() const { return limbo_.size(); }

 private:
  epoch_limbo limbo_;
  std::uint64_t observed_ = 0;   // last epoch this thread read (collection)
  std::uint64_t announced_ = 0;  // epoch of its current or last period (tagging)
};

}  // namespace smr::detail
