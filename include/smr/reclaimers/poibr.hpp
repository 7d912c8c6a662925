// POIBR: persistent-object interval-based reclamation, Wen et al. (2018) §3.1 (Fig. 4).
//
// What it is: the era clock, node lifetimes [birth, retire] and scan of the IBR family
// (detail/era_family.hpp), for persistent structures only (ds_requirements::persistent: every
// link but the root is immutable once its node is published, and an update installs a new
// version with one CAS on the root). An operation reserves the era in which it reads the root,
// and nothing else: every later read is a plain acquire load, with no reservation, no fence and
// no validation, because every node reachable from that root was alive in that era.
//
// The reservation is ibr_2ge's interval [lower, upper] (detail/interval_reservation.hpp), raised
// only by protect_root(): begin_op publishes [e, e]; protect_root() reads the root and then the
// era, and if the era is above the fenced upper bound it publishes it, runs fence X and reads
// the root again (Fig. 4's snapshot, in ibr_2ge's order). An attempt that reads the root again
// (a retry, or a nested operation) raises upper and keeps lower, so what earlier reads of the
// same operation still use stays covered.
//
// Why it is safe: ibr_2ge.hpp's (a)-(c), for the root R that protect_root() returned after load
// L, and then for any node C reachable from R.
//  (a) birth(C) <= upper: C was created before R's version was published (a version links only
//      older nodes and nodes its updater created before its root CAS), and L acquires that
//      publication, so the era read after L, which upper covers, is at least birth(C).
//  (b) retire(C) >= lower: C is retired after a root CAS U that installs a version without C,
//      and U is later than R in the root's modification order (a node left out of a version
//      never comes back, since each version is built from the one it replaces). If the retire
//      era read after fence Z were below lower, Z would precede X in S and L would observe U
//      or a later root, not R.
//  (c) the scan sees the reservation: as in ibr_2ge.hpp.
// So [lower, upper] meets C's lifetime at every scan until the operation ends.
//
// Bounds: as ibr_2ge (IBR Theorem 2): a stalled reservation pins only nodes born by its upper.
//
// When not to use it: any structure that is not persistent (a link that changes after its node
// is published can lead to a node born after the reserved era); the pair is refused at compile
// time and by smrbench. A structure must read its root through protect_root() at the start of
// every attempt; checked builds refuse a protect() that comes first.
#pragma once

#include <cstdint>
#include <string_view>

#include "smr/core/domain.hpp"
#include "smr/detail/checks.hpp"
#include "smr/detail/era_family.hpp"
#include "smr/detail/interval_reservation.hpp"

namespace smr {

// The node header with the node's lifetime in eras (detail/era_family.hpp).
using poibr_node = era_node;

struct poibr_rule : detail::interval_rule<detail::global_era_bound> {
  static constexpr std::string_view name = "poibr", summary = "persistent-object interval-based reclamation: reserve the era of the root read (Wen et al. 2018, §3.1); persistent structures only";
  static constexpr reclaimer_traits traits{.protects_persistent_traversal = true,
                                           .requires_persistent = true,
                                           .bounded_garbage = true,
                                           .metrics = {.epochs = true}};

  template <class Base>
  class thread_state : public detail::interval_rule<detail::global_era_bound>::thread_state<Base> {
    using interval = detail::interval_rule<detail::global_era_bound>::thread_state<Base>;

   protected:
    using interval::interval;

    void enter() {
      interval::enter();
      rooted_ = false;
    }

    // Fig. 4's read(root): the interval's protect with the global era as the bound.
    template <class T>
    core::marked_ptr<T> protect_root(const atomic_ptr<T>& root) {
      rooted_ = true;
      return interval::protect(root);
    }

    // Any other link of a persistent structure: its target is reachable from the root read
    // under the reservation, so one load is all. What makes the target's contents visible is
    // the root read's acquire: a persistent structure writes a node's links before the root
    // update (release) that publishes the version holding it. acquire here as well, for a
    // structure that publishes a node through a release store of a link instead.
    template <class T>
    core::marked_ptr<T> protect(const atomic_ptr<T>& link) {
      if constexpr (detail::checked_build) {
        if (!rooted_) detail::misuse("poibr: protect() before protect_root() in an operation; a persistent structure reads its root through protect_root()");
      }
      return link.load(core::mo_acquire);
    }

    bool rooted_ = false;  // protect_root() ran in this operation (checked builds refuse protect() before)
  };
};

template <class FreePolicy = core::batch_free> using basic_poibr = basic_domain<poibr_rule, FreePolicy>;
using poibr = basic_poibr<>;
using poibr_af = basic_poibr<core::amortized_free<>>;

}  // namespace smr
