// EBR: Fraser's epoch-based reclamation as described by Hart et al. (2007), §2.2.
//
// What it is: every operation is a critical region. On entry a thread announces the global
// epoch it observed; after `advance_every` critical-region entries it tries to advance the
// global epoch, which succeeds only if every thread inside a critical region has announced
// the current epoch. Retired nodes wait in three epoch-tagged limbo bags.
//
// Why it is safe (proof sketch): a thread announces epoch a and then, after a seq_cst fence,
// re-reads the global epoch until it equals a; from then until it leaves, the global epoch is
// at most a + 1 (the advance a+1 -> a+2 needs its announcement to read a+1). So a node it
// unlinks during the operation was unlinked while the global epoch was <= a + 1; it is tagged
// a + 1 (core/epoch_limbo.hpp) and freed once the global epoch reaches a + 3. That advance
// required every thread in a critical region to announce a + 2 after a fence that follows the
// advance to a + 2, i.e. to have entered after the unlink; threads that had the node before
// the unlink had left their critical regions, and their exit stores (release) were read by the
// advancer (acquire), whose CAS (release) the freeing thread read (acquire).
//
// When not to use it: a thread stalled inside a critical region stops all reclamation
// (unbounded garbage: see bounded_garbage below); prefer hp, ibr_2ge or nbr where threads can be
// preempted for long inside operations.
#pragma once

#include <cstdint>
#include <string_view>

#include "smr/core/atomic.hpp"
#include "smr/core/epoch_limbo.hpp"
#include "smr/core/free_policy.hpp"
#include "smr/core/handle_base.hpp"
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
  std::uint64_t epoch() const { return epoch_.load(core::mo_acquire); }
  unsigned protect_slots() const { return 0; }

 private:
  static constexpr std::uint64_t inactive = 0;  // announcement of a thread outside any region

  struct slot {
    // (epoch << 1) | 1 while in a critical region, `inactive` otherwise.
    core::atomic<std::uint64_t> announce{inactive};
    core::thread_stats stats;
  };

  // Tries to advance from `e`: succeeds only if every thread in a critical region announced e.
  bool try_advance(std::uint64_t e, core::thread_core& tc) {
    // seq_cst fence: pairs with the fence in enter() (store-load / Dekker): either we see a
    // thread's announcement, or it sees our epoch and the unlinks that preceded it.
    core::fence(core::mo_seq_cst);
    bool all_current = true;
    core_.registry().for_each([&](slot& s, std::size_t) {
      // acquire: a thread's exit store (release) makes its region's reads happen before us.
      const std::uint64_t a = s.announce.load(core::mo_acquire);
      if (a != inactive && (a >> 1) != e) all_current = false;
    });
    if (!all_current) return false;
    // acq_rel: release publishes the chain above to threads that read the new epoch (acquire).
    if (epoch_.compare_exchange_strong(e, e + 1, core::mo_acq_rel)) {
      tc.stats().epochs.add();
      tc.record_instant(core::event_kind::epoch_advance, e + 1);
      return true;
    }
    return false;
  }

  config cfg_;
  core::domain_core<slot> core_;
  alignas(core::cache_line) core::atomic<std::uint64_t> epoch_{1};

 public:
  class handle : public core::handle_base<slot, FreePolicy> {
    using base = core::handle_base<slot, FreePolicy>;

   public:
    explicit handle(basic_ebr& d) : base(d.core_), domain_(&d) {}
    ~handle() {
      // Outside any region: reclaim what is already safe, hand the rest to the domain.
      this->release_safe(limbo_.collect(domain_->epoch_.load(core::mo_acquire)));
      this->domain_core_ref().donate(limbo_.take_all());
    }

    guard begin_op() { return guard(*this); }
    std::size_t unreclaimed() const { return limbo_.size() + this->free_.pending(); }

   private:
    friend class guard;

    void enter() {
      this->free_.on_operation(this->tc());
      slot& s = this->slot();
      std::uint64_t e = domain_->epoch_.load(core::mo_acquire);
      for (;;) {
        s.announce.store((e << 1) | 1, core::mo_relaxed);
        // seq_cst fence: our announcement is visible before any read of shared nodes and
        // before the re-read below (pairs with the fence in try_advance).
        core::fence(core::mo_seq_cst);
        const std::uint64_t now = domain_->epoch_.load(core::mo_acquire);
        if (now == e) break;
        e = now;
      }
      if (e != local_epoch_) {
        local_epoch_ = e;
        this->tc().record_instant(core::event_kind::garbage, limbo_.size());
        this->release_safe(limbo_.collect(e));
        adopt_orphans();
      }
      if (++entries_ >= domain_->cfg_.advance_every) {
        entries_ = 0;
        domain_->try_advance(e, this->tc());
      }
    }

    void exit() {
      // release: everything this region read happens before an advancer that sees us leave.
      this->slot().announce.store(inactive, core::mo_release);
    }

    void retire(core::retired_node* n) {
      limbo_.retire(n, local_epoch_ + 1);
      this->tc().note_retired();
    }

    void adopt_orphans() {
      core::limbo_bag orphans = this->domain_core_ref().adopt();
      while (core::retired_node* n = orphans.pop_front()) limbo_.retire(n, local_epoch_ + 1);
    }

    basic_ebr* domain_;
    core::epoch_limbo limbo_;
    std::uint64_t local_epoch_ = 0;
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
