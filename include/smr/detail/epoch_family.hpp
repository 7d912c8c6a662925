// The parts the epoch and quiescence schemes (ebr, debra, qsbr) share: the announcement slot,
// the domain's epoch clock, and the per-thread side: the epoch-tagged limbo, retirement and
// orphan adoption under the tag rule of detail/epoch_clock.hpp (tag = announced epoch + 1),
// collection when the thread sees a new epoch, and the exit path. The schemes differ only in
// when they announce, quiesce and scan; that stays in their rules.
#pragma once

#include <cstddef>
#include <cstdint>

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
  // The global epoch (starts at 1).
  std::uint64_t epoch() const { return clock_.now(); }

 private:
  template <class>
  friend class epoch_thread;
  epoch_clock clock_;
};

template <class Base>
class epoch_thread : public Base {
 protected:
  explicit epoch_thread(typename Base::domain_type& d) : Base(d) {}

  // The rule's destructor has made the thread quiescent or offline for good: free what is safe
  // now and hand the rest to the domain.
  ~epoch_thread() {
    this->release_safe(limbo_.collect(clock().now()));
    this->donate(limbo_.take_all());
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
    // While active, so orphans are tagged by the rule below.
    limbo_bag orphans = this->adopt_orphans();
    while (retired_node* n = orphans.pop_front()) limbo_.retire(n, announced_ + 1);
    return true;
  }

  std::uint64_t announced_epoch() const { return announced_; }

  // Scans every slot and advances from e if all permit it (the caller announced e).
  bool try_advance(std::uint64_t e) { return clock().try_advance(e, this->domain().registry(), this->tc()); }

  // The reclaim-now step, outside any operation: a period that frees what the epoch made safe
  // and advances it if every thread permits. qsbr uses it as it is (a quiescent state); ebr
  // and debra end the period again, since their threads are quiescent between operations.
  void reclaim_step() { try_advance(start_period()); }

  // Only inside a period: a node unlinked (or adopted) while active with e is tagged e + 1.
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
