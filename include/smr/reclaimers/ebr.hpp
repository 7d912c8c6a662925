// EBR: Fraser's epoch-based reclamation as described by Hart et al. (2007), §2.2.
//
// What it is: every operation is a critical region. On entry a thread announces the global
// epoch it observed; after `advance_every` critical-region entries it tries to advance the
// global epoch, which succeeds only if every thread inside a critical region has announced
// the current epoch. Retired nodes wait in three epoch-tagged limbo bags.
//
// Why it is safe (proof sketch; the lemma and theorem are in core/epoch_clock.hpp): a thread
// announces epoch a (release store), runs a seq_cst fence, and re-reads the global epoch until
// it equals a; from then until it leaves, the global epoch is at most a + 1 (the advance
// a+1 -> a+2 needs its announcement to read a+1). So a node it unlinks during the operation was
// unlinked while the global epoch was <= a + 1; it is tagged a + 1 (core/epoch_limbo.hpp) and
// freed once the global epoch reaches a + 3. That advance required every thread in a critical
// region to announce a + 2 after a fence that follows the advance to a + 2, i.e. to have entered
// after the unlink; threads that had the node before the unlink had left their critical
// regions, and their exit stores or later announcements (release) were read by the advancer
// (acquire), whose CAS (release) the freeing thread read (acquire).
//
// When not to use it: a thread stalled inside a critical region stops all reclamation
// (unbounded garbage: see bounded_garbage below); prefer hp, ibr_2ge or nbr where threads can be
// preempted for long inside operations.
#pragma once

#include <cstdint>
#include <string_view>

#include "smr/core/atomic.hpp"
#include "smr/core/epoch_clock.hpp"
#include "smr/core/epoch_handle.hpp"
#include "smr/core/free_policy.hpp"
#include "smr/core/marked_ptr.hpp"
#include "smr/core/node.hpp"
#include "smr/core/traits.hpp"
#include "smr/core/guard_base.hpp"

namespace smr {

struct ebr_config {
  unsigned advance_every = 100;  // critical-region entries between attempts to advance (Hart)
  core::timeline* timeline = nullptr;
};

template <class FreePolicy = core::batch_free>
class basic_ebr {
 public:
  using config = ebr_config;
  using node_base = core::retired_node;
  template <class T>
  using atomic_ptr = core::atomic_marked_ptr<T>;

  static constexpr std::string_view base_name = "ebr";
  static constexpr reclaimer_traits traits{
      .protects_unlinked_traversal = true,
      .continues_after_write = true,
      .bounded_garbage = false,
      .slot_based_protection = false,
      .metrics = {.epochs = true},
  };

  explicit basic_ebr(config cfg = {}) : cfg_(cfg), core_(cfg.timeline) {
    if (cfg_.advance_every == 0) cfg_.advance_every = 1;
  }

  class handle;
  class guard;

  core::stats_snapshot stats() { return core_.stats(); }
  std::uint64_t epoch() const { return clock_.now(); }
  unsigned protect_slots() const { return 0; }

 private:
  struct slot {
    // epoch_clock::active(epoch) while in a critical region, quiescent() outside.
    core::atomic<std::uint64_t> announce{core::epoch_clock::quiescent()};
    core::thread_stats stats;
  };

  config cfg_;
  core::domain_core<slot> core_;
  core::epoch_clock clock_;

 public:
  class handle : public core::epoch_handle_base<slot, FreePolicy> {
    using base = core::epoch_handle_base<slot, FreePolicy>;

   public:
    // Outside any region at destruction: the base frees what is safe and donates the rest.
    explicit handle(basic_ebr& d) : base(d.core_, d.clock_), domain_(&d) {}

    guard begin_op() { return guard(*this); }

   private:
    friend class guard;

    void enter() {
      this->free_.on_operation(this->tc());
      core::epoch_clock& clock = domain_->clock_;
      // Announce, fence, re-read (epoch_clock::announce): the critical region starts here.
      const std::uint64_t e = clock.announce(this->slot().announce, clock.now());
      this->observe(e);
      this->announced(e);
      if (++entries_ >= domain_->cfg_.advance_every) {
        entries_ = 0;
        clock.try_advance(e, domain_->core_.registry(), this->tc());
      }
    }

    void exit() { core::epoch_clock::quiesce(this->slot().announce); }

    basic_ebr* domain_;
    unsigned entries_ = 0;
  };

  class guard : public core::guard_base<guard> {
   public:
    explicit guard(handle& h) : h_(&h) { h.enter(); }
    ~guard() { h_->exit(); }
    guard(const guard&) = delete;
    guard& operator=(const guard&) = delete;

    template <class T>
    core::marked_ptr<T> protect(unsigned, const atomic_ptr<T>& src) {
      // acquire: pairs with the release store/CAS that published the node.
      return src.load(core::mo_acquire);
    }

    void retire(node_base* n) { h_->retire(n); }

   private:
    handle* h_;
  };

  handle attach() { return handle(*this); }
};

using ebr = basic_ebr<>;

}  // namespace smr
