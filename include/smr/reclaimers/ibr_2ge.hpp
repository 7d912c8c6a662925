// IBR-2GE: two-global-epochs interval-based reclamation, Wen et al. (2018) §3.3 (Figs. 4-6).
//
// What it is: a global era advances every `epoch_frequency` allocations of a thread. Every
// node records its birth era (create) and retire era (retire). During an operation a thread
// reserves an interval of eras [lower, upper]: begin_op sets both to the current era, and every
// protect() raises upper to the era current when the pointer was read. A retired node may be
// freed once its lifetime [birth, retire] meets no reserved interval (birth <= upper and
// retire >= lower means conflict). The node header carries both eras; the links are plain
// marked pointers (no born_before tag, unlike TagIBR).
//
// Why it is safe (paper §4.2, restated for C++ rather than sequential consistency). Take a
// reader R whose protect() returns node B, and a thread T that unlinks B (U) and retires it.
//  protect (Fig. 6, in the order of the paper's artifact): load the link (L, acquire), load
//  the era; return only if the era equals the upper bound already published, and otherwise
//  publish it (release), run fence X (seq_cst) and read the link again. So when L returns B,
//  R's current `upper` was stored before a fence X that precedes L.
//  (a) birth(B) <= upper: the creator read birth(B) from the era before publishing B, and L
//      acquires that publication, so R's later era load reads birth(B) or a later era, and that
//      load equals upper.
//  (b) retire(B) >= lower: retire runs fence Z (seq_cst) after U and then reads the era. If it
//      read an era older than R's begin_op read (lower), Z would precede X in S (both era loads
//      are ordered by the era's modification order), and then L, after X, would observe U and
//      not return B. (The unlink must happen before retire, as every structure guarantees.)
//  (c) the scan sees the reservation: T's scan runs fence Y (seq_cst) before reading
//      reservations. L read B before U overwrote the link, so X precedes Y in S, and Y's
//      loads observe R's stores before X or later ones. Later values only come from later in
//      R's operation (upper only grows) or from its end_op and later operations, and all
//      reservation stores are releases read by acquire loads, so R's accesses to B happen
//      before the free. begin_op publishes upper before lower and end_op clears lower first,
//      and a slot whose lower is `none` reserves nothing: R has read nothing at that point
//      (its first protect fences after both stores), or no longer uses what it read.
//  The era itself carries no data: only its modification order matters, so its accesses are
//  relaxed.
//
// Bounds (Theorem 2): a thread allocates at most epoch_frequency nodes per era it advances, so
// a stalled reservation [lower, upper] pins only nodes born by `upper`: finitely many. Scans
// every `empty_frequency` retirements keep each bag within empty_frequency of what is pinned.
// A thread that runs one operation forever (starved, not stalled) pins more and more (§4.3.1).
//
// When not to use it: searches that pass through unlinked nodes (NBR Table 1: protect() must
// read each node from a link while the node is reachable). Frozen links (a node's links never
// change once it is marked, as in the lazy list and the Natarajan-Mittal tree) are not enough:
// a reader standing on unlinked B with interval [lower, upper] may find in B.next a node C born
// after `upper` and already unlinked and retired; a scan that ran before the reader raised
// `upper` saw [lower, upper] miss C's lifetime and freed it, and protect()'s re-read of B.next
// cannot notice, because the frozen link still holds C. (The IBR paper's well-behavedness
// proviso, §4.1, excludes this; the expected-failure test interval_through_unlinked catches
// it in every run.) Nodes not allocated through
// create() get birth era 0 and are pinned by every overlapping reservation (safe, less precise).
//
// Usage contract: retire only nodes already unlinked.
#pragma once

#include <cstddef>
#include <cstdint>

#include "smr/core/domain.hpp"
#include "smr/detail/era_family.hpp"

namespace smr {

// The node header with the node's lifetime in eras (detail/era_family.hpp).
using ibr_2ge_node = era_node;

struct ibr_2ge_rule : detail::era_rule_base {
  static constexpr std::string_view name = "ibr_2ge", summary = "two-global-epochs interval-based reclamation (Wen et al. 2018, §3.3)";
  static constexpr reclaimer_traits traits{.bounded_garbage = true, .metrics = {.epochs = true}};

  // A handle's "upper published and fenced" value before its first protect(): no era equals it.
  static constexpr std::uint64_t unfenced = 0;

  struct slot {
    // The reserved interval; [none, none] outside operations (conflicts with no node).
    core::atomic<std::uint64_t> lower{none};
    core::atomic<std::uint64_t> upper{none};
  };

  // A slot's interval, for the scan. Same lower before and after the upper load: the upper
  // belongs to the operation that set that lower, or to one that began in the same era (the
  // acquire keeps the re-read after it). A mixed pair would be safe but could pin every node
  // retired while the scanner was preempted between the two loads.
  template <class Domain, class Slot>
  static void collect_reservations(Domain&, Slot& s, detail::reserved_eras& out) {
    for (;;) {
      // acquire (both): pairs with the release reservation stores, (c) above.
      const std::uint64_t lo = s.lower.load(core::mo_acquire);
      if (lo == none) return;  // outside an operation, or entering one: nothing read yet
      const std::uint64_t hi = s.upper.load(core::mo_acquire);
      if (s.lower.load(core::mo_relaxed) == lo) {
        out.add(lo, hi);
        return;
      }
    }
  }

  template <class Base>
  class thread_state : public detail::era_thread<Base, typename Base::rule_type> {
    using era_base = detail::era_thread<Base, typename Base::rule_type>;

   protected:
    using era_base::era_base;

    void enter() {
      const std::uint64_t e = this->current_era();
      if (e != seen_era_) {
        seen_era_ = e;
        this->tc().record_instant(core::event_kind::garbage, this->unreclaimed());
      }
      auto& s = this->slot();
      // upper first: while lower is still `none` the slot reserves nothing, which is right
      // because we have read nothing yet. The other order would publish [e, none] for as long
      // as we were preempted in between: every node retired since e pinned, as in EBR.
      // release (both): a scanner that reads these (acquire) sees our previous operation's
      // end, so that operation's accesses happen before its frees; (c) in the header.
      s.upper.store(e, core::mo_release);
      s.lower.store(e, core::mo_release);
      // No fence yet: the first protect() publishes and fences (X) before returning a node.
      upper_ = unfenced;
    }

    void leave() {
      auto& s = this->slot();
      // lower first, for the same reason as in enter(): [none, x] reserves nothing.
      // release: our accesses to reserved nodes happen before a scanner that reads `none`.
      s.lower.store(none, core::mo_release);
      s.upper.store(none, core::mo_release);
    }

    // Fig. 6: the pointer is returned only if it was read after an upper bound equal to the
    // current era was published and fenced.
    template <class T>
    core::marked_ptr<T> protect(const core::atomic_marked_ptr<T>& src) {
      for (;;) {
        // acquire: pairs with the release that published the node (and its birth era), (a).
        const core::marked_ptr<T> p = src.load(core::mo_acquire);
        // The acquire above keeps this (relaxed) load after it, which is all (a) needs.
        const std::uint64_t e = this->current_era();
        if (e == upper_) return p;
        reserve_upper(e);
      }
    }

   private:
    // Raises the published upper bound to e, then fence X; protect() then re-reads its link.
    void reserve_upper(std::uint64_t e) {
      // release: see enter(); (c) in the header.
      this->slot().upper.store(e, core::mo_release);
      // seq_cst fence (X): the reservation is visible before the link is read again; pairs
      // with fence Y in the scan (c) and fence Z in retire (b).
      core::fence(core::mo_seq_cst);
      upper_ = e;
    }

    std::uint64_t upper_ = unfenced;  // our published upper bound, once fenced
    std::uint64_t seen_era_ = 0;
  };
};

template <class FreePolicy = core::batch_free> using basic_ibr_2ge = basic_domain<ibr_2ge_rule, FreePolicy>;
using ibr_2ge = basic_ibr_2ge<>;
using ibr_2ge_af = basic_ibr_2ge<core::amortized_free<>>;

}  // namespace smr
