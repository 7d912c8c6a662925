// IBR-EPOCH: the simple epoch-based scheme of Wen et al. (2018), Fig. 2 (the "RCU" tracker of
// the IBR benchmark): the baseline the interval schemes improve on, on the same era clock.
//
// What it is: a global era advances every `epoch_frequency` allocations of a thread (as the IBR
// prototypes do; Fig. 2 counts retirements instead). An operation reserves the era current at
// its start; every node records its retire era. A scan every `empty_frequency` retirements (or
// a quarter of what the last scan kept, if more: amortize_scans) frees each node retired before
// the smallest reservation. There is no per-pointer protection:
// reading a link is one acquire load, and searches may pass through unlinked nodes, as in EBR.
// In the era family's terms (detail/era_family.hpp) a reservation is the interval [e, none],
// which meets every node retired from e on.
//
// Why it is safe (ibr_2ge.hpp's argument, with the reservation published at the start of the
// operation): begin_op stores e, read from the era, and runs fence X before the operation reads
// any link. Take a node B the operation reads (load L, after X) and a thread T that unlinks B (U)
// and retires it: retire runs fence Z after U and reads the era r. Had it read an era older than
// e, Z would precede X in S, and L would observe U, not B; so r >= e. T's scan runs fence Y
// after Z, so X precedes Y in S and the scan reads e, or a later reservation of the same thread
// (a release store made after the operation that read B ended): B, retired at r >= e, is kept.
//
// When not to use it: like EBR, one thread stalled inside an operation pins every node retired
// after its reservation: garbage is unbounded. It exists to compare the interval schemes with.
#pragma once

#include <cstdint>

#include "smr/core/domain.hpp"
#include "smr/detail/era_family.hpp"

namespace smr {

struct ibr_epoch_rule : detail::era_rule_base {
  static constexpr std::string_view name = "ibr_epoch", summary = "IBR's simple epoch-based scheme: reserve the era at the start of an operation (Wen et al. 2018, Fig. 2)";
  static constexpr reclaimer_traits traits{.protects_unlinked_traversal = true, .metrics = {.epochs = true}};


  struct slot {
    core::atomic<std::uint64_t> reserved{none};  // the era of the running operation, or none
  };

  template <class Domain, class Slot>
  static void collect_reservations(Domain&, Slot& s, detail::reserved_eras& out) {
    // acquire: pairs with the release stores of begin_op and end_op.
    const std::uint64_t e = s.reserved.load(core::mo_acquire);
    if (e != none) out.add(e, none);
  }

  template <class Base>
  class thread_state : public detail::era_thread<Base, typename Base::rule_type> {
   protected:
    using detail::era_thread<Base, typename Base::rule_type>::era_thread;

    void enter() {
      // release: a scanner that reads this (acquire) sees our previous operation's end.
      this->slot().reserved.store(this->current_era(), core::mo_release);
      // seq_cst fence (X): the reservation is visible before any link is read; pairs with
      // fence Y in the scan and fence Z in retire (see the header).
      core::fence(core::mo_seq_cst);
    }

    void leave() {
      // release: our accesses to nodes happen before a scanner that reads `none`.
      this->slot().reserved.store(none, core::mo_release);
    }
  };
};

template <class FreePolicy = core::batch_free> using basic_ibr_epoch = basic_domain<ibr_epoch_rule, FreePolicy>;
using ibr_epoch = basic_ibr_epoch<>;
using ibr_epoch_af = basic_ibr_epoch<core::amortized_free<>>;

}  // namespace smr
