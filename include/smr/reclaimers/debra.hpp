// DEBRA: Brown's distributed epoch-based reclamation (PODC 2015), as summarised in "Epochs too
// epic" §2.
//
// What it is: EBR whose grace-period detection is spread over operations. Each thread's word
// holds the epoch it announced and a quiescent bit. At the start of an operation the thread
// leaves the quiescent state: it reads the global epoch, frees its nodes that became safe if
// the epoch changed (before announcing, as Brown does, so a long free never holds the epoch
// back), and announces the epoch. Every k operations it checks ONE other thread, round robin:
// if that thread is quiescent or announced the current epoch the round moves on, otherwise it
// retries that thread next time. The thread whose round covers every thread advances the epoch
// with a CAS. At the end of the operation it enters the quiescent state again. Scanning costs
// O(1) per operation, but an advance takes at least (threads x k) operations of one thread.
//
// Why it is safe (proof sketch; lemma and theorem in core/epoch_clock.hpp): a period is one
// operation. Leaving the quiescent state announces epoch a with a release store, a seq_cst
// fence and a re-read, so while the operation runs the epoch is at most a + 1; nodes it unlinks
// or adopts are tagged a + 1 and freed once the epoch reaches a + 3. Every check of a round
// for epoch e is made in an operation that announced e, after its fence, so by the lemma it
// sees the checked thread's current announcement or a later one, never a stale quiescent bit.
// The round for a + 2 passed every thread: each was quiescent (release store ending its
// operations) or had announced a + 2 (an operation that began after the unlink), so every
// operation that could hold the node happens before the round's checks, before its release CAS,
// and before the freeing thread's acquire read of the epoch.
//
// When not to use it: a thread stalled inside an operation stops every round, so garbage is
// unbounded (but, unlike qsbr, idle threads between operations never block). With many threads
// epochs are long and batches large: pair it with an amortized free policy (debra_af, Epochs
// too epic §4) or prefer a bounded scheme (hp, ibr_2ge, nbr) where threads stall.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "smr/core/atomic.hpp"
#include "smr/core/epoch_clock.hpp"
#include "smr/core/epoch_handle.hpp"
#include "smr/core/free_policy.hpp"
#include "smr/core/guard_base.hpp"
#include "smr/core/marked_ptr.hpp"
#include "smr/core/node.hpp"
#include "smr/core/traits.hpp"

namespace smr {

struct debra_config {
  unsigned check_every = 10;  // operations between checks of one thread (Brown's benchmark code)
  core::timeline* timeline = nullptr;
};

template <class FreePolicy = core::batch_free>
class basic_debra {
 public:
  using config = debra_config;
  using node_base = core::retired_node;
  template <class T>
  using atomic_ptr = core::atomic_marked_ptr<T>;

  static constexpr std::string_view base_name = "debra";
  static constexpr reclaimer_traits traits{
      .protects_unlinked_traversal = true,
      .continues_after_write = true,
      .bounded_garbage = false,
      .slot_based_protection = false,
      .metrics = {.epochs = true},
  };

  explicit basic_debra(config cfg = {}) : cfg_(cfg), core_(cfg.timeline) {
    if (cfg_.check_every == 0) cfg_.check_every = 1;
  }

  class handle;
  class guard;

  core::stats_snapshot stats() { return core_.stats(); }
  std::uint64_t epoch() const { return clock_.now(); }
  unsigned protect_slots() const { return 0; }

 private:
  struct slot {
    // epoch_clock::active(e) inside an operation, quiescent(e) between operations: the epoch
    // bits are kept, the quiescent bit (bit 0 clear) is what checkers look at.
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
    // Quiescent between operations, so also at destruction: the base frees what is safe and
    // donates the rest.
    explicit handle(basic_debra& d) : base(d.core_, d.clock_), domain_(&d) {}
    ~handle() { assert(depth_ == 0 && "debra handle destroyed inside an operation"); }

    guard begin_op() { return guard(*this); }

   private:
    friend class guard;

    // Nested guards share the outermost operation: only it leaves and re-enters the quiescent
    // state (an inner end must not declare the thread quiescent).
    void begin() {
      if (depth_++ == 0) leave_qstate();
    }
    void end() {
      if (--depth_ == 0) enter_qstate();
    }

    void leave_qstate() {
      this->free_.on_operation(this->tc());
      core::epoch_clock& clock = domain_->clock_;
      const std::uint64_t seen = clock.now();
      this->observe(seen);  // still quiescent: free first, then announce (Brown)
      const std::uint64_t e = clock.announce(this->slot().announce, seen);
      this->observe(e);  // nothing to do unless the epoch moved while we announced
      if (this->announced(e)) checked_ = 0;  // a new epoch starts a new round
      if (++ops_since_check_ >= domain_->cfg_.check_every) {
        ops_since_check_ = 0;
        check_next(e);
      }
    }

    // One step of the round for epoch e; runs after announce(), whose fence the lemma needs.
    void check_next(std::uint64_t e) {
      auto& registry = domain_->core_.registry();
      const std::size_t threads = registry.high_water();  // grows if threads join mid-round
      if (checked_ < threads &&
          core::epoch_clock::check(registry.slot_at(checked_).announce, e))
        ++checked_;
      if (checked_ >= threads) domain_->clock_.advance(e, this->tc());
    }

    void enter_qstate() {
      core::epoch_clock::quiesce(this->slot().announce, this->announced_epoch());
    }

    basic_debra* domain_;
    std::size_t checked_ = 0;  // threads of this round found quiescent or current
    unsigned ops_since_check_ = 0;
    unsigned depth_ = 0;
  };

  class guard : public core::guard_base<guard> {
   public:
    explicit guard(handle& h) : h_(&h) { h.begin(); }
    ~guard() { h_->end(); }
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

using debra = basic_debra<>;

}  // namespace smr
