// NEBR: "new epoch-based reclamation", Hart et al. (2007), §6.2 and Fig. 17: EBR whose critical
// region spans many operations.
//
// What it is: EBR (ebr.hpp) pays a store and a seq_cst fence to enter the critical region at
// every operation. NEBR moves the region to the application: the thread enters a region (one
// announcement of the epoch, with its fence) before a stretch of code that makes lock-free calls
// and leaves it (one release store) after, so the fence is paid once per region. Inside the
// region an operation costs a counter: every `advance_every` operations the thread reads the
// global epoch, re-announces if it moved (a new period, between two operations), and tries to
// advance it, as EBR does; so a long region holds the epoch back by at most advance_every
// operations of its thread, as qsbr's quiescent_every does. (Hart's NEBR reads the epoch at
// every operation, which he names as its overhead over QSBR; reading a line that every advance
// invalidates costs a miss per advance per thread, and the re-announcement needs no more.)
// Regions are explicit, h.enter_region() / h.leave_region(), or implicit:
// with `region_ops` = k > 0, an operation outside any region opens one that ends after k
// operations (how smrbench runs it, Hart's harness setting the flag at the application level).
// An operation outside any region with region_ops = 0 is a region of its own: EBR.
//
// The application's contract (the price of NEBR, Hart: "compromising EBR's application-
// independence"): a thread must not block, sleep or idle inside a region, even between
// operations: its standing announcement holds every epoch advance, as an online qsbr thread
// does, until its next operation re-announces. Leave the region first (h.leave_region(), or
// end the handle). With implicit regions this means: a thread that stops operating in the
// middle of a region (at most k - 1 operations into it) holds reclamation until it operates
// again, calls h.leave_region() or h.reclaim_now(), or detaches. Not detected (it cannot be
// told from a thread that is merely slow); reclaim_now() then returns false at its timeout.
//
// Why it is safe (proof sketch; lemma and theorem in detail/epoch_clock.hpp): a period runs from
// one announcement (region entry, or a re-announcement at the start of an operation inside a
// region) to the next release store to the thread's word (the next announcement, or leaving the
// region). Every announcement is epoch_clock::announce(), so the lemma and the tag rule hold per
// period exactly as for ebr and debra; nodes are tagged with the period's epoch + 1. The
// re-announcement happens between operations, where the thread holds nothing: its earlier
// period's references are gone before its release store ends that period.
//
// When not to use it: as ebr (a thread stalled inside a region stops reclamation: unbounded
// garbage), plus the contract above; where the application cannot bound its regions, use ebr or
// debra.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <tuple>

#include "smr/core/domain.hpp"
#include "smr/detail/epoch_family.hpp"

namespace smr {

struct nebr_rule : detail::epoch_rule_base {
  static constexpr std::string_view name = "nebr", summary = "EBR whose critical region spans many operations, entered by the application (Hart et al. 2007, §6.2)";
  struct config {
    unsigned advance_every = 100;  // operations between epoch checks and advance attempts (as ebr)
    unsigned region_ops = 100;     // operations per implicit region; 0 = explicit regions only
  };
  static constexpr std::tuple tunables{
      tunable{"advance_every", &config::advance_every, "operations between looks at the epoch (re-announce, try to advance)", 1u},
      tunable{"region_ops", &config::region_ops, "operations per implicit region (0: only h.enter_region() opens one)", 0u}};
  static config eager_config() { return {.advance_every = 2, .region_ops = 4}; }

  template <class Base>
  class thread_state : public detail::epoch_thread<Base> {
   public:
    // Opens a region that lasts until leave_region(): its operations pay no fence unless the
    // epoch moved. Outside operations only.
    void enter_region() {
      if (this->in_operation()) detail::misuse("nebr: enter_region() inside an operation");
      this->check_owner("nebr: enter_region() on a handle of another thread");
      if (region_ == region::none) open_region(region::explicit_);
      else if (region_ != region::explicit_) make_explicit();
    }
    // Leaves the region (explicit or implicit): the thread holds back no epoch any more.
    // Outside operations only.
    void leave_region() {
      if (this->in_operation()) detail::misuse("nebr: leave_region() inside an operation");
      this->check_owner("nebr: leave_region() on a handle of another thread");
      quiesce();
    }
    bool in_region() const { return region_ != region::none; }

   protected:
    explicit thread_state(typename Base::domain_type& d)
        : detail::epoch_thread<Base>(d),
          advance_every_(d.configuration().advance_every),
          region_ops_(d.configuration().region_ops),
          advance_left_(advance_every_) {}
    ~thread_state() { quiesce(); }

    // The fast path is one test here and one countdown in leave(), what qsbr pays: the two
    // periodic duties (a look at the epoch every advance_every operations, the end of an
    // implicit region after region_ops) share the countdown to whichever comes first.
    void enter() {
      if (region_ == region::none) [[unlikely]]
        open_region(region_ops_ == 0 ? region::single_ : region::implicit_);
    }

    void leave() {
      if (--countdown_ == 0) [[unlikely]]
        periodic_step();
    }

    // Outside operations: a period that frees what is safe and advances the epoch if it can;
    // an implicit region ends here, an explicit one goes on in the new period.
    void reclaim_step() {
      detail::epoch_thread<Base>::reclaim_step();
      if (region_ != region::explicit_) quiesce();
    }

   private:
    enum class region { none, single_, implicit_, explicit_ };

    // Inline: measured out of line, the one-element read-only list lost 3% at one thread
    // (nebr / qsbr 0.926 against 0.953, eight interleaved rounds).
    void open_region(region r) {
      this->start_period();
      region_ = r;
      region_left_ = r == region::implicit_ ? region_ops_ : 0;
      rearm();
    }

    // Between two operations (the thread holds nothing): the countdown reached the nearer duty.
    // Out of line: one operation in min(advance_every, region_ops) gets here.
    [[gnu::noinline]] void periodic_step() {
      const unsigned ran = armed_;
      const bool look = (advance_left_ -= ran) == 0;
      const bool region_over = region_ == region::single_ || (region_ == region::implicit_ && (region_left_ -= ran) == 0);
      if (look) {
        advance_left_ = advance_every_;
        if (this->clock().now() != this->announced_epoch())
          this->start_period();  // a new period between operations: see the proof sketch
        this->try_advance(this->announced_epoch());
      }
      if (region_over) {
        quiesce_now();  // the next operation opens the next region
      } else {
        rearm();
      }
    }

    // Counts down to the nearer of the two duties (a region of its own ends after one).
    void rearm() {
      armed_ = region_ == region::implicit_   ? std::min(advance_left_, region_left_)
               : region_ == region::explicit_ ? advance_left_
                                              : 1u;
      countdown_ = armed_;
    }

    // The operations run since the countdown was armed, taken off the look at the epoch (which
    // stays due at the same operation when the region changes kind or ends early).
    void settle() {
      const unsigned done = armed_ - countdown_;
      advance_left_ = advance_left_ > done ? advance_left_ - done : 1;
      countdown_ = armed_ = advance_left_;
    }

    // An implicit region becomes explicit: it no longer ends by count.
    void make_explicit() {
      settle();
      region_ = region::explicit_;
      rearm();
    }

    void quiesce() {
      if (region_ != region::none) settle();
      quiesce_now();
    }
    void quiesce_now() {
      detail::epoch_clock::quiesce(this->slot().announce);
      region_ = region::none;
      countdown_ = armed_ = 1;  // nothing is due outside a region; enter() opens the next one
    }

    const unsigned advance_every_;
    const unsigned region_ops_;
    region region_ = region::none;
    unsigned countdown_ = 1;     // operations until periodic_step()
    unsigned armed_ = 1;         // what the countdown started from
    unsigned advance_left_;      // operations until the next look at the epoch (across regions)
    unsigned region_left_ = 0;   // operations until an implicit region ends
  };
};

template <class FreePolicy = core::batch_free>
using basic_nebr = basic_domain<nebr_rule, FreePolicy>;
using nebr = basic_nebr<>;
using nebr_af = basic_nebr<core::amortized_free<>>;

}  // namespace smr
