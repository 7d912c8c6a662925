// QSBR: quiescent-state-based reclamation, Hart et al. (2007), §2.1 and the setup of §4.
//
// What it is: a quiescent state of a thread is a point where it holds no reference to any
// shared node. Any interval in which every thread passes a quiescent state is a grace period,
// after which nodes unlinked before the interval can be freed. Grace periods are detected with
// the epoch fuzzy barrier Hart uses for both QSBR and EBR: at a quiescent state a thread
// announces the global epoch, frees what became safe, and advances the epoch if every online
// thread has announced it. The end of every k-th operation (Listing 4: k = 100) is a quiescent
// state; h.quiescent_state() declares one explicitly. Operations themselves touch nothing
// shared (begin_op is free), so QSBR has the lowest per-operation cost of the epoch family.
// A thread is online from attach() until its handle is destroyed; offline threads never block.
//
// Why it is safe (proof sketch; lemma and theorem in core/epoch_clock.hpp): a thread's period
// runs from one quiescent state (or attach) to the next (or detach). Each quiescent state
// announces epoch a with a release store, a seq_cst fence and a re-read, so while the period
// lasts the epoch is at most a + 1; nodes the thread unlinks or adopts in it are tagged a + 1
// and freed once the epoch reaches a + 3. The advance to a + 3 scanned every online thread
// after a fence and found it announcing a + 2 (a period that began after the unlink) or offline
// after a release store; either way its earlier periods, the only ones that could hold the
// node, happen before the advancer's release CAS, which the freeing thread read (acquire).
// Quiescent states are only declared where the thread holds nothing: at the end of an outermost
// guard, or by the user outside any guard (asserted).
//
// When not to use it: one online thread that stops passing quiescent states (stalled, blocked
// in I/O, or simply idle without detaching) stops all reclamation (Hart §2.1, Fig. 3); garbage
// is unbounded. Detach idle threads, or prefer debra (only threads inside an operation block)
// or a bounded scheme (hp, ibr_2ge, nbr).
#pragma once

#include <cassert>
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

struct qsbr_config {
  unsigned quiescent_every = 100;  // operations per quiescent state (Hart's OPS_PER_LOOP)
  core::timeline* timeline = nullptr;
};

template <class FreePolicy = core::batch_free>
class basic_qsbr {
 public:
  using config = qsbr_config;
  using node_base = core::retired_node;
  template <class T>
  using atomic_ptr = core::atomic_marked_ptr<T>;

  static constexpr std::string_view base_name = "qsbr";
  static constexpr reclaimer_traits traits{
      .protects_unlinked_traversal = true,
      .continues_after_write = true,
      .bounded_garbage = false,
      .slot_based_protection = false,
      .metrics = {.epochs = true},
  };

  explicit basic_qsbr(config cfg = {}) : cfg_(cfg), core_(cfg.timeline) {
    if (cfg_.quiescent_every == 0) cfg_.quiescent_every = 1;
  }

  class handle;
  class guard;

  core::stats_snapshot stats() { return core_.stats(); }
  std::uint64_t epoch() const { return clock_.now(); }
  unsigned protect_slots() const { return 0; }

 private:
  struct slot {
    // epoch_clock::active(epoch) while online, quiescent() (offline) otherwise.
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
    // Online from here: the first period starts before the handle can be used.
    explicit handle(basic_qsbr& d) : base(d.core_, d.clock_), domain_(&d) {
      core::epoch_clock& clock = d.clock_;
      const std::uint64_t e = clock.announce(this->slot().announce, clock.now());
      this->observe(e);
      this->announced(e);
    }

    // Offline for good; the base then frees what is safe and donates the rest.
    ~handle() {
      assert(depth_ == 0 && "qsbr handle destroyed inside an operation");
      core::epoch_clock::quiesce(this->slot().announce);
    }

    guard begin_op() { return guard(*this); }

    // Declares a quiescent state: the calling thread holds no reference to any shared node.
    void quiescent_state() {
      assert(depth_ == 0 && "quiescent_state() inside an operation");
      declare_quiescent_state();
    }

   private:
    friend class guard;

    void begin() {
      if (depth_++ == 0) this->free_.on_operation(this->tc());
    }

    // End of an outermost operation: every k-th one is a quiescent state (Listing 4).
    void end() {
      if (--depth_ == 0 && ++ops_ >= domain_->cfg_.quiescent_every) declare_quiescent_state();
    }

    // Hart's fuzzy barrier: enter it (announce the epoch), run the protected code (free what
    // the new epoch made safe), and advance the epoch if every online thread is in it.
    void declare_quiescent_state() {
      ops_ = 0;
      core::epoch_clock& clock = domain_->clock_;
      const std::uint64_t e = clock.announce(this->slot().announce, clock.now());
      this->observe(e);
      this->announced(e);
      clock.try_advance(e, domain_->core_.registry(), this->tc());
    }

    basic_qsbr* domain_;
    unsigned depth_ = 0;  // nested guards: only the outermost end may be quiescent
    unsigned ops_ = 0;    // operations since the last quiescent state
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

using qsbr = basic_qsbr<>;

}  // namespace smr
