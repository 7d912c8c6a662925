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
//  the era; return only if the era is at most an upper bound already published and fenced,
//  and otherwise publish it (release), run fence X (seq_cst) and read the link again. So when
//  L returns B, R's current `upper` was stored before a fence X that precedes L.
//  (a) birth(B) <= upper: the creator read birth(B) from the era before publishing B, and L
//      acquires that publication, so R's later era load reads birth(B) or a later era, and that
//      load is at most upper.
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
// a stalled reservation [lower, upper] pins only nodes born by `upper`: finitely many. A scan
// comes after max(empty_frequency, a quarter of what the last scan kept) retirements
// (amortize_scans; the paper's every empty_frequency without it), which keeps each bag within
// 1.25 times what is pinned plus empty_frequency (detail/era_family.hpp).
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
// it in every run.) Persistent structures are the exception (ds_requirements::persistent, the
// Bonsai tree): there a node is never younger than a version that holds it, so C was born by
// the era read after B's link, and C is retired only after the version the reader read is
// replaced, after `lower` ((b)): the interval meets C's lifetime. Nodes not allocated through
// create() get birth era 0 and are pinned by every overlapping reservation (safe, less precise).
//
// Usage contract: retire only nodes already unlinked.
#pragma once

#include <cstddef>
#include <cstdint>

#include "smr/core/domain.hpp"
#include "smr/detail/era_family.hpp"
#include "smr/detail/interval_reservation.hpp"

namespace smr {

// The node header with the node's lifetime in eras (detail/era_family.hpp).
using ibr_2ge_node = era_node;

// The interval reservation with the global era as the bound (detail/interval_reservation.hpp).
struct ibr_2ge_rule : detail::interval_rule<detail::global_era_bound> {
  static constexpr std::string_view name = "ibr_2ge", summary = "two-global-epochs interval-based reclamation (Wen et al. 2018, §3.3)";
  static constexpr reclaimer_traits traits{.protects_persistent_traversal = true, .bounded_garbage = true, .metrics = {.epochs = true}};
};

template <class FreePolicy = core::batch_free> using basic_ibr_2ge = basic_domain<ibr_2ge_rule, FreePolicy>;
using ibr_2ge = basic_ibr_2ge<>;
using ibr_2ge_af = basic_ibr_2ge<core::amortized_free<>>;

}  // namespace smr
