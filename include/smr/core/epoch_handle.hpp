// The per-thread side shared by the epoch and quiescence schemes (ebr, debra, qsbr): the
// epoch-tagged limbo, retirement and orphan adoption under the tag rule of core/epoch_clock.hpp
// (tag = announced epoch + 1), collection when the thread sees a new epoch, and the exit path.
// The schemes differ only in when they announce, quiesce and scan; that stays in their headers.
#pragma once

#include <cstddef>
#include <cstdint>

#include "smr/core/epoch_clock.hpp"
#include "smr/core/epoch_limbo.hpp"
#include "smr/core/handle_base.hpp"

namespace smr::core {

template <class Slot, class FreePolicy>
class epoch_handle_base : public handle_base<Slot, FreePolicy> {
  using base = handle_base<Slot, FreePolicy>;

 public:
  // Retired nodes this thread has not freed yet (limbo plus the free policy's backlog).
  std::size_t unreclaimed() const { return limbo_.size() + this->free_.pending(); }

 protected:
  epoch_handle_base(domain_core<Slot>& dc, const epoch_clock& clock) : base(dc), clock_(&clock) {}

  // The derived destructor has made the thread quiescent or offline for good: free what is safe
  // now and hand the rest to the domain.
  ~epoch_handle_base() {
    this->release_safe(limbo_.collect(clock_->now()));
    this->domain_core_ref().donate(limbo_.take_all());
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

  // The thread's current period announced e (epoch_clock::announce). Returns whether e is new.
  bool announced(std::uint64_t e) {
    if (e == announced_) return false;
    announced_ = e;
    adopt_orphans();  // while active, so they are tagged by the rule below
    return true;
  }

  std::uint64_t announced_epoch() const { return announced_; }

  // Only inside a period: a node unlinked (or adopted) while active with e is tagged e + 1.
  void retire(retired_node* n) {
    limbo_.retire(n, announced_ + 1);
    this->tc().note_retired();
  }

 private:
  void adopt_orphans() {
    limbo_bag orphans = this->domain_core_ref().adopt();
    while (retired_node* n = orphans.pop_front()) limbo_.retire(n, announced_ + 1);
  }

  const epoch_clock* clock_;
  epoch_limbo limbo_;
  std::uint64_t observed_ = 0;   // last epoch this thread read (collection)
  std::uint64_t announced_ = 0;  // epoch of its current or last period (tagging)
};

}  // namespace smr::core
