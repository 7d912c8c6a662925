// EBR: Fraser's epoch-based reclamation as described by Hart et al. (2007), §2.2.
//
// What it is: every operation is a critical region. On entry a thread announces the global
// epoch it observed; after `advance_every` critical-region entries it tries to advance the
// global epoch, which succeeds only if every thread inside a critical region has announced
// the current epoch. Retired nodes wait in three epoch-tagged limbo bags.
//
// Why it is safe (proof sketch; the lemma and theorem are in detail/epoch_clock.hpp): a thread
// announces epoch a (release store), runs a seq_cst fence, and re-reads the global epoch until
// it equals a; from then until it leaves, the global epoch is at most a + 1 (the advance
// a+1 -> a+2 needs its announcement to read a+1). So a node it unlinks during the operation was
// unlinked while the global epoch was <= a + 1; it is tagged a + 1 (detail/epoch_limbo.hpp) and
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

#include "smr/core/domain.hpp"
#include "smr/detail/epoch_family.hpp"

namespace smr {

struct ebr_rule : detail::epoch_rule_base {
  static constexpr std::string_view name = "ebr", summary = "Fraser's epoch-based reclamation: every operation announces the epoch (Hart et al. 2007, §2.2)";
  struct config {
    unsigned advance_every = 100;  // critical-region entries between attempts to advance (Hart)
  };
  static constexpr std::tuple tunables{tunable{"advance_every", &config::advance_every, "critical-region entries between attempts to advance the epoch", 1u}};
  static config eager_config() { return {.advance_every = 2}; }  // tests: try every other entry

  template <class Base>
  class thread_state : public detail::epoch_thread<Base> {
   protected:
    using detail::epoch_thread<Base>::epoch_thread;

    // The critical region starts with the announcement (announce, fence, re-read).
    void enter() {
      const std::uint64_t e = this->start_period();
      if (++entries_ >= this->domain().configuration().advance_every) {
        entries_ = 0;
        this->try_advance(e);
      }
    }
    void leave() { detail::epoch_clock::quiesce(this->slot().announce); }
    void reclaim_step() {
      detail::epoch_thread<Base>::reclaim_step();
      leave();
    }

   private:
    unsigned entries_ = 0;
  };
};

template <class FreePolicy = core::batch_free> using basic_ebr = basic_domain<ebr_rule, FreePolicy>;
using ebr = basic_ebr<>;
using ebr_af = basic_ebr<core::amortized_free<>>;

}  // namespace smr
