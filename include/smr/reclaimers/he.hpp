// HE: hazard eras, Ramalhete and Correia (SPAA 2017), as described in Wen et al. (2018) §2.3 and
// run in its benchmark and the Epochs paper's.
//
// What it is: hazard pointers whose announcements are eras instead of addresses. A global era
// advances every `epoch_frequency` allocations of a thread (IBR's alloc(), as in the IBR
// benchmark); every node records its birth era (create) and retire era (retire). protect() on a
// slot publishes the era current when the link was read, and re-reads only when the era moved
// since the slot's last publication: while the era stands still, protecting is a load, a load
// and a compare, with no fence. A retired node may be freed once no published era lies in its
// lifetime [birth, retire]. Slots are owned by protection_slot / slot_group objects, as for hp.
//
// Why it is safe. This is ibr_2ge's argument (reclaimers/ibr_2ge.hpp, (a)-(c)) with one era per
// slot in place of the interval [lower, upper]: when protect() returns node B read by load L,
// the slot's era e was stored (release) before a fence X that precedes L, and the era read
// after L equals e.
//  (a) birth(B) <= e: the creator read birth(B) from the era before publishing B; L acquires the
//      publication, so the era load after L reads birth(B) or later, and it read e.
//  (b) retire(B) >= e: retire runs fence Z after the unlink U and then reads the era. Had it
//      read an era older than e (which this thread read before X), Z would precede X in S, and
//      L, after X, would observe U and not return B.
//  (c) the scan sees e: it runs fence Y before reading the slots; L read B before U, so X
//      precedes Y in S and the scan reads e or a later value of the slot. Later values come
//      from later protections through the same slot, which the caller makes only once it no
//      longer uses B, or from its release (a release store of 0 after the last access).
//  hold(slot, B) protects a node the thread already protects through another slot: it stores
//  birth(B), which lies in B's lifetime, bumps the slot's version (release) and fences (X), as
//  hp's hold does with the address; a scan that read the slots while the version moved reads
//  them again ((3) in hp.hpp), so it never misses B between the two slots.
//
// Bounds: a published era e pins only nodes born by e, and a thread allocates at most
// epoch_frequency of them per era it advances, so a stalled thread pins finitely many (IBR §2.3,
// Theorem 2's argument). Unlike hp the pinned set is every node alive in that era, not K nodes.
//
// When not to use it: searches that pass through unlinked nodes (NBR Table 1), as for hp; nodes
// not made by create() have birth era 0 and are pinned by every reservation up to their retire.
//
// Usage contract: retire only nodes already unlinked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <tuple>

#include "smr/core/domain.hpp"
#include "smr/detail/era_family.hpp"
#include "smr/detail/published_words.hpp"

namespace smr {

struct he_rule : detail::era_rule_base {
  static constexpr std::string_view name = "he", summary = "hazard eras: one published era per slot, birth and retire eras in the node (Ramalhete and Correia 2017; Wen et al. 2018, §2.3)";

  struct config {
    unsigned slots = 4;  // published eras per thread (hp's K)
    // The era clock, as ibr_2ge's (the IBR benchmark runs HE on it): detail::era_tunables.
    unsigned epoch_frequency = 150;
    bool scale_epoch_frequency = true;
    unsigned empty_frequency = 30;
    bool amortize_scans = true;
  };
  static constexpr auto tunables = std::tuple_cat(
      std::tuple{tunable{"slots", &config::slots, "published eras per thread (K)", 1u}}, detail::era_tunables<config>);
  static constexpr reclaimer_traits traits{.bounded_garbage = true, .slot_based_protection = true, .metrics = {.epochs = true, .protect_retries = true}};
  // Tests: the era advances every other allocation and every thread scans every 4 retirements.
  static config eager_config() { return {.slots = 4, .epoch_frequency = 2, .scale_epoch_frequency = false, .empty_frequency = 4}; }

  // A slot's era when it protects nothing (eras start at 1).
  static constexpr std::uint64_t no_era = 0;
  using hazard_era = core::atomic<std::uint64_t>;
  // K eras per thread on cache lines of their own, and hold()'s version.
  using eras = detail::published_words<hazard_era>;
  using slot = eras::slot;
  using slot_era = detail::slot_era<eras>;  // publish (fence X), hold and clear

  template <class Base>
  class domain_state : public detail::era_domain<Base> {
   public:
    using detail::era_domain<Base>::era_domain;
    unsigned protect_slots() const { return this->configuration().slots; }
  };

  // Every published era of a slot, each an interval [e, e]; acquire loads that pair with the
  // release era stores, (c) in the header.
  template <class Domain, class Slot>
  static void collect_reservations(Domain& d, Slot& s, detail::reserved_eras& out) {
    const std::size_t before = out.size();
    eras::collect(
        s, d.protect_slots(), [&](std::uint64_t e) { if (e != no_era) out.add(e, e); },
        [&] { out.truncate(before); });
  }

  template <class Base>
  class thread_state : public detail::era_thread<Base, typename Base::rule_type> {
    using era_base = detail::era_thread<Base, typename Base::rule_type>;

   public:
    using protection = hazard_era*;  // what a protection slot keeps: its era's address

   protected:
    explicit thread_state(typename Base::domain_type& d)
        : era_base(d), lines_(eras::claim(this->slot(), d.protect_slots())) {}

    void enter() {}
    void leave() {}

    protection protection_at(unsigned i) { return &eras::at(lines_, i); }

    // HE's get_protected (era_thread::protect_by_era).
    template <class T>
    core::marked_ptr<T> protect(hazard_era* h, const core::atomic_marked_ptr<T>& src) {
      return this->template protect_by_era<slot_era>(*h, src);
    }

    void hold(hazard_era* h, const core::retired_node* p) { slot_era::hold(*h, this->slot(), p); }
    void clear(hazard_era* h) { slot_era::clear(*h); }

   private:
    typename eras::line* lines_;
  };
};

template <class FreePolicy = core::batch_free> using basic_he = basic_domain<he_rule, FreePolicy>;
using he = basic_he<>;
using he_af = basic_he<core::amortized_free<>>;

}  // namespace smr
