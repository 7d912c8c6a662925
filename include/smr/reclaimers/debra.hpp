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
// Why it is safe (proof sketch; lemma and theorem in detail/epoch_clock.hpp): a period is one
// operation. Leaving the quiescent state announces epoch a with a release store, a seq_cst
// fence and a re-read, so while the operation runs the epoch is at most a + 1; nodes it unlinks
// are tagged a + 1 (adopted ones keep their tags) and freed once the epoch reaches a + 3. Every check of a round
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

#include <cstddef>

#include "smr/core/domain.hpp"
#include "smr/detail/epoch_family.hpp"

namespace smr {

// The epoch bits stay in the slot between operations (quiescent(e)); bit 0 is what checkers read.
struct debra_rule : detail::epoch_rule_base {
  static constexpr std::string_view name = "debra", summary = "Brown's distributed epoch-based reclamation: one thread checked per k operations (Epochs too epic §2)";
  struct config {
    unsigned check_every = 10;  // operations between checks of one thread (Brown's benchmark code)
  };
  static constexpr std::tuple tunables{tunable{"check_every", &config::check_every, "operations between checks of one thread's epoch", 1u}};
  static config eager_config() { return {.check_every = 1}; }

  template <class Base>
  class thread_state : public detail::epoch_thread<Base> {
   protected:
    using detail::epoch_thread<Base>::epoch_thread;

    // Leave the quiescent state: free first, then announce (Brown).
    // Out of line: inlined into every operation of a structure (which GCC 12 did once the free
    // policy was amortized free, the batch free loop no longer inside), it made those operations
    // slower, not the entry: debra_af ran at 0.72-0.78x debra on a 20K-key hash map at 2 and
    // 8 threads, and at 0.96-0.98x with this call (one interleaved run; debra itself 1-4% faster).
    [[gnu::noinline]] void enter() {
      detail::epoch_clock& clock = this->clock();
      const std::uint64_t seen = clock.now();
      this->observe(seen);  // still quiescent
      const std::uint64_t e = clock.announce(this->slot().announce, seen);
      this->observe(e);  // nothing to do unless the epoch moved while we announced
      this->announced(e);
      if (++ops_since_check_ >= this->domain().configuration().check_every) {
        ops_since_check_ = 0;
        check_next(e);
      }
    }

    void leave() { detail::epoch_clock::quiesce(this->slot().announce, this->announced_epoch()); }
    // A full scan rather than one step of the round: the barrier wants the epoch to move now.
    void reclaim_step() {
      detail::epoch_thread<Base>::reclaim_step();
      leave();
    }

   private:
    // One step of the round for epoch e; runs after announce(), whose fence the lemma needs.
    void check_next(std::uint64_t e) {
      // A round counts checks made in one epoch. Reset on the epoch, not on this thread's own
      // announcement changing in enter(): a barrier's period (reclaim_step) also announces, and
      // checks carried over from an older epoch would let the round pass a thread that is still
      // inside an operation of that epoch (tests/unit/epoch_family_test.cpp, Debra.Barrier...).
      if (e != round_epoch_) {
        round_epoch_ = e;
        checked_ = 0;
      }
      auto& registry = this->domain().registry();
      const std::size_t threads = registry.high_water();  // grows if threads join mid-round
      if (checked_ < threads && detail::epoch_clock::check(registry.slot_at(checked_).announce, e)) ++checked_;
      if (checked_ >= threads) this->clock().advance(e, this->tc());
    }

    std::uint64_t round_epoch_ = 0;  // the epoch the current round checks for
    std::size_t checked_ = 0;        // threads of this round found quiescent or current in it
    unsigned ops_since_check_ = 0;
  };
};

template <class FreePolicy = core::batch_free> using basic_debra = basic_domain<debra_rule, FreePolicy>;
using debra = basic_debra<>;
using debra_af = basic_debra<core::amortized_free<>>;

}  // namespace smr
