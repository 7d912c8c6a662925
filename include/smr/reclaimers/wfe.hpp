// WFE: wait-free eras, Nikolaev and Ravindran (PPoPP 2020), one of the ten reclaimers of the
// Epochs paper's study.
//
// What it is: hazard eras (he.hpp) whose protect() finishes in a bounded number of steps.
// HE's protect() loops until the era stands still between its publication and the re-read of
// the link; a thread that keeps allocating can keep the era moving and starve it. WFE bounds
// that loop: after `fast_path_attempts` publications (16, as in the paper's code) protect()
// takes the slow path and asks for help, and every thread that is about to advance the era
// first answers every open request. The era cannot move without the request being answered, so
// the asking thread is done within a bounded number of the others' advances.
//
// The slow path, per protection slot i of thread T (its reservation is the pair {era, tag}):
//  1. T writes its request (the link's address, and [lo, hi], the span of the eras its other
//     slots publish) and opens it: answer := {pending, tag}; then counts it in `asked`.
//  2. T goes on as in HE, but publishes each new era with a WCAS that expects {era, tag}, and
//     stops when either it validated a read itself (it closes the request with a CAS on the
//     answer) or a helper answered.
//  3. A helper H (before an era advance, while asked != answered): publishes [lo, hi] in its own
//     help_lo/help_hi, fences, and checks that T's tag has not moved (the request is open, so
//     T's other slots still pin the node that holds the link); then runs HE's loop under its own
//     help_era, and answers {value, era} with a WCAS on the answer. It then hands the
//     protection over: a WCAS on T's reservation from {x, tag} to {era, tag + 1}, which fails
//     harmlessly once T has moved on (T bumps the tag when it leaves the slow path).
//  4. T takes the answer, publishes its era (the same value the helper handed over), bumps its
//     tag, fences, and counts the request answered.
//
// Why it is safe. Protections made on the fast path and by T itself are HE's ((a)-(c) in
// he.hpp). For a helped read: H read the link under help_era = e with the HE validation, so the
// node was pinned by e in H's words until H handed e over to T's reservation, and H clears its
// words only after that. A scan reads every thread's slots, then every helper's words, then
// every thread's slots again (collect_all_reservations): if it missed help_era because H had
// already cleared it, the hand-over (before the clearing) is visible to the third pass.
// The node that holds the link is pinned for H by [lo, hi]: H published it and fenced (X')
// before reading T's tag; if the tag had not moved, T's slots still published those eras; a
// scan that then no longer sees them reads T's slots after T bumped the tag and ran its closing
// fence, and that fence and X' make the scan's later read of H's words see [lo, hi]. (The
// scan reads the helpers after the slots for this reason; tests/relacy/wfe_parent_model.cpp
// checks the pin.)
//
// Deviation from the paper: its protect() takes the parent node and the helper publishes the
// parent's birth era. smr's protect(link) does not name the parent, so the helper pins the span
// of the asker's published eras instead: one of them lies in the parent's lifetime, so the span
// meets it. This is as safe and pins a little more, only while a request is being helped.
//
// The double-width CAS (core/atomic_pair.hpp) is cmpxchg16b on x86-64; a domain refuses to start
// on a CPU without it.
//
// Bounds: as HE; a helper pins, for the length of one help, what the asker's eras pin.
//
// When not to use it: where HE does not apply (searches through unlinked nodes, NBR Table 1).
// The fast path is HE's, so WFE pays for wait-freedom only when the era moves under a read.
//
// Usage contract: HE's; and the link passed to protect() must lie in memory that the thread's
// other slots protect (or that is never freed while the thread runs), never in the node that
// the same slot protects: a helper relies on the other slots to keep it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <tuple>

#include "smr/core/atomic_pair.hpp"
#include "smr/core/domain.hpp"
#include "smr/detail/era_family.hpp"
#include "smr/detail/published_words.hpp"

namespace smr {

struct wfe_rule : detail::era_rule_base {
  static constexpr std::string_view name = "wfe", summary = "wait-free eras: hazard eras whose protect() asks for help after a bounded number of tries, answered by threads before they advance the era (Nikolaev and Ravindran 2020)";

  struct config {
    unsigned slots = 4;  // published eras per thread (K)
    unsigned fast_path_attempts = 16;
    unsigned epoch_frequency = 150;
    bool scale_epoch_frequency = true;
    unsigned empty_frequency = 30;
    bool amortize_scans = true;
  };
  static constexpr auto tunables = std::tuple_cat(
      std::tuple{tunable{"slots", &config::slots, "published eras per thread (K)", 1u},
                 tunable{"fast_path_attempts", &config::fast_path_attempts,
                         "era publications protect() makes before it asks for help (0: ask as soon as the era moved)", 0u}},
      detail::era_tunables<config>);
  static constexpr reclaimer_traits traits{.bounded_garbage = true, .slot_based_protection = true, .metrics = {.epochs = true, .protect_retries = true}};
  // Tests: one try before asking, so that the stress suites run the slow path and the helping
  // often; the era advances every other allocation and every thread scans every 4 retirements.
  static config eager_config() {
    return {.slots = 4, .fast_path_attempts = 1, .epoch_frequency = 2, .scale_epoch_frequency = false, .empty_frequency = 4};
  }

  static constexpr std::uint64_t no_era = 0;
  // An open request's answer word holds {pending, tag}; no link value is all ones (alignment).
  static constexpr std::uint64_t pending = std::numeric_limits<std::uint64_t>::max();

  // A slot's reservation {era, tag}: the era is what scans read; the tag counts the slot's
  // slow paths, so a helper's late hand-over cannot overwrite a later protection.
  using reservation = core::atomic_pair;
  using eras = detail::published_words<reservation>;
  // Publish (fence X), hold and clear of the era half. Its store races with no helper: a late
  // hand-over expects the older tag that the slow path's exit replaced.
  using slot_era = detail::slot_era<eras>;

  // A protection slot's request for help; written by its owner before it opens the request.
  struct alignas(core::cache_line) request {
    core::atomic_pair answer;  // {pending, tag} open; {value, era} answered; {0, 0} closed by the owner
    core::atomic<const core::atomic<std::uintptr_t>*> link{nullptr};
    core::atomic<std::uint64_t> lo{no_era}, hi{no_era};  // the owner's other published eras
  };

  struct slot {
    slot() = default;
    slot(const slot&) = delete;
    slot& operator=(const slot&) = delete;
    ~slot() { delete[] requests.load(core::mo_relaxed); }

    eras::slot reservations;
    core::atomic<request*> requests{nullptr};  // K, allocated by the slot's first owner
    // The owner's words while it helps another thread: [help_lo, help_hi] pins the node that
    // holds the link, help_era the node read from it.
    alignas(core::cache_line) core::atomic<std::uint64_t> help_lo{no_era};
    core::atomic<std::uint64_t> help_hi{no_era};
    core::atomic<std::uint64_t> help_era{no_era};
  };

  template <class Base>
  class domain_state : public detail::wcas_era_domain<Base> {
   public:
    using detail::wcas_era_domain<Base>::wcas_era_domain;
    unsigned protect_slots() const { return this->configuration().slots; }
    // Slow paths begun, and requests answered by a helper (not by their owner).
    std::uint64_t slow_paths() const { return asked_.load(core::mo_relaxed); }
    std::uint64_t helped() const { return helped_.load(core::mo_relaxed); }

   private:
    friend struct wfe_rule;
    // Open requests exist while asked_ != done_: an era advance helps only then.
    alignas(core::cache_line) core::atomic<std::uint64_t> asked_{0};
    alignas(core::cache_line) core::atomic<std::uint64_t> done_{0};
    core::atomic<std::uint64_t> helped_{0};
  };

  // The scan's three passes: slots, helpers' words, slots again (why: the header).
  template <class Domain>
  static void collect_all_reservations(Domain& d, detail::reserved_eras& out) {
    const unsigned k = d.protect_slots();
    const auto collect_slots = [&](auto& s, std::size_t) {
      const std::size_t before = out.size();
      eras::collect(
          s.reservations, k, [&](std::uint64_t e) { if (e != no_era) out.add(e, e); },
          [&] { out.truncate(before); });
    };
    d.registry().for_each(collect_slots);
    d.registry().for_each([&](auto& s, std::size_t) {
      // acquire: pairs with the helper's release stores; it stores hi before lo, so a lo read
      // here comes with its hi (or with the 0 of a later clearing, which empties the span).
      const std::uint64_t lo = s.help_lo.load(core::mo_acquire);
      const std::uint64_t hi = s.help_hi.load(core::mo_acquire);
      if (lo != no_era && lo <= hi) out.add(lo, hi);
      if (const std::uint64_t e = s.help_era.load(core::mo_acquire); e != no_era) out.add(e, e);
    });
    d.registry().for_each(collect_slots);
  }

  // Before every era advance: answer every open request (what makes protect() wait-free).
  template <class Domain, class Slot>
  static void before_era_advance(Domain& d, Slot& mine) {
    // seq_cst: pairs with the asker's seq_cst count, which it makes after opening its request;
    // an advance that reads the count sees the open request. done_ first, in its own statement
    // (the operands of == are unsequenced): read after asked_, closes made meanwhile (a request
    // closed and another opened and closed) could match a count that includes a request still
    // open, and the advance would skip it again and again.
    const std::uint64_t done = d.done_.load(core::mo_seq_cst);
    if (done == d.asked_.load(core::mo_seq_cst)) return;
    const unsigned k = d.protect_slots();
    d.registry().for_each([&](auto& s, std::size_t) {
      if (&s == &mine) return;  // a thread that advances is not inside its own protect()
      // acquire: pairs with the release that published the array (claim_requests).
      request* requests = s.requests.load(core::mo_acquire);
      if (requests == nullptr) return;
      for (unsigned i = 0; i < k; ++i)
        if (requests[i].answer.load_first(core::mo_acquire) == pending) help(d, s, requests[i], i, mine);
    });
  }

  // The parent pin (step 3): the asker's span [lo, hi] in the helper's own words, so that a scan
  // sees the node that holds the link pinned once the asker has moved on. release: pairs with
  // the scan's acquire loads; hi before lo (collect_all_reservations).
  template <class Slot>
  static void pin_parent(Slot& mine, std::uint64_t lo, std::uint64_t hi) {
    mine.help_hi.store(hi, core::mo_release);
    mine.help_lo.store(lo, core::mo_release);
  }

  // The hand-over of a helper's answer to the asker's reservation (step 3).
  static void hand_over(reservation& r, std::uint64_t tag, std::uint64_t era) {
    // acquire/acq_rel: orders the WCAS after the answer; a failed WCAS reloads `old`.
    core::word_pair old = r.load(core::mo_acquire);
    while (old.second == tag && !r.compare_exchange(old, core::word_pair{era, tag + 1}, core::mo_acq_rel)) {}
  }

  template <class Base>
  class thread_state : public detail::era_thread<Base, typename Base::rule_type> {
    using era_base = detail::era_thread<Base, typename Base::rule_type>;

   public:
    using protection = reservation*;

   protected:
    explicit thread_state(typename Base::domain_type& d)
        : era_base(d),
          lines_(eras::claim(this->slot().reservations, d.protect_slots())),
          requests_(claim_requests(this->slot(), d.protect_slots())),
          attempts_(d.configuration().fast_path_attempts) {}

    void enter() {}
    void leave() {}

    protection protection_at(unsigned i) { return &eras::at(lines_, i); }

    // HE's get_protected with at most attempts_ publications, then the slow path.
    template <class T>
    core::marked_ptr<T> protect(reservation* r, const core::atomic_marked_ptr<T>& src) {
      return this->template protect_by_era<slot_era>(
          *r, src, attempts_, [&] { return core::marked_ptr<T>::from_bits(slow_path(r, src.word())); });
    }

    void hold(reservation* r, const core::retired_node* p) { slot_era::hold(*r, this->slot().reservations, p); }
    void clear(reservation* r) { slot_era::clear(*r); }

   private:
    static request* claim_requests(slot& s, unsigned k) {
      // relaxed: only owners write `requests` (as published_words::claim).
      request* requests = s.requests.load(core::mo_relaxed);
      if (requests == nullptr) {
        requests = new request[k];
        // release: helpers that see the pointer (acquire) see constructed requests.
        s.requests.store(requests, core::mo_release);
      }
      return requests;
    }

    // Steps 1, 2 and 4 of the header; returns the link's value, protected by r.
    std::uintptr_t slow_path(reservation* r, const core::atomic<std::uintptr_t>& link) {
      auto& d = this->domain();
      unsigned i = 0;
      while (&eras::at(lines_, i) != r) ++i;
      request& q = requests_[i];
      // relaxed: our own reservation (helpers write it only while our request is open).
      const std::uint64_t tag = r->load_second(core::mo_relaxed);
      std::uint64_t published = r->load_first(core::mo_relaxed);
      std::uint64_t lo = std::numeric_limits<std::uint64_t>::max(), hi = no_era;
      for (unsigned j = 0; j < d.protect_slots(); ++j) {
        const std::uint64_t e = j == i ? no_era : eras::at(lines_, j).load_first(core::mo_relaxed);
        if (e != no_era) lo = std::min(lo, e), hi = std::max(hi, e);
      }
      if (hi == no_era) lo = no_era;
      // release (each): a helper that reads a value of a later request (acquire) then also
      // reads that request's tag, and gives up (step 3).
      q.link.store(&link, core::mo_release);
      q.hi.store(hi, core::mo_release);
      q.lo.store(lo, core::mo_release);
      // release: a helper that sees the request open (acquire) sees its fields.
      q.answer.store(core::word_pair{pending, tag}, core::mo_release);
      // seq_cst: pairs with the seq_cst loads in before_era_advance.
      d.asked_.fetch_add(1, core::mo_seq_cst);

      for (;;) {
        // acquire: as on the fast path.
        const std::uintptr_t value = link.load(core::mo_acquire);
        const std::uint64_t e = this->current_era();
        if (e == published) {
          core::word_pair open{pending, tag};
          // acq_rel: closes the request against a helper's answer.
          if (q.answer.compare_exchange(open, core::word_pair{0, 0}, core::mo_acq_rel)) {
            leave_slow_path(r, tag);
            return value;
          }
          break;  // answered meanwhile
        }
        core::word_pair expected{published, tag};
        // seq_cst: as slot_era::publish(); fails only once a helper handed its answer over.
        if (!r->compare_exchange(expected, core::word_pair{e, tag}, core::mo_seq_cst)) break;
        // seq_cst fence (X), as in slot_era::publish().
        core::fence(core::mo_seq_cst);
        published = e;
        // acquire: pairs with the helper's acq_rel answer.
        if (q.answer.load_first(core::mo_acquire) != pending) break;
      }
      // acquire: pairs with the helper's acq_rel answer; {value, era}.
      const core::word_pair answer = q.answer.load(core::mo_acquire);
      // release: as slot_era::publish(); the helper handed this era over already, or is about to.
      r->store_first(answer.second, core::mo_release);
      leave_slow_path(r, tag);
      return static_cast<std::uintptr_t>(answer.first);
    }

    void leave_slow_path(reservation* r, std::uint64_t tag) {
      // release: a late hand-over (expecting `tag`) now fails.
      r->store_second(tag + 1, core::mo_release);
      // seq_cst fence: orders the new tag before any later change of our eras, against the
      // helper's fence X' (the parent pin in the header).
      core::fence(core::mo_seq_cst);
      // relaxed: only a count for the helping trigger; an advance that reads a stale one looks
      // for open requests and finds none (the answer words are what it acts on).
      this->domain().done_.fetch_add(1, core::mo_relaxed);
    }

    typename eras::line* lines_;
    request* requests_;
    unsigned attempts_;
  };

 private:
  // Step 3: H (mine) answers T's (s) request q for slot i.
  template <class Domain, class Slot>
  static void help(Domain& d, Slot& s, request& q, unsigned i, Slot& mine) {
    // acquire: pairs with the asker's release that opened the request.
    const core::word_pair open = q.answer.load(core::mo_acquire);
    if (open.first != pending) return;
    // acquire (each): see slow_path(); a value of a later request makes the tag check fail.
    const core::atomic<std::uintptr_t>* link = q.link.load(core::mo_acquire);
    const std::uint64_t lo = q.lo.load(core::mo_acquire), hi = q.hi.load(core::mo_acquire);
    Domain::rule::pin_parent(mine, lo, hi);
    // seq_cst fence (X'): the pin is visible before we read T's tag (the header).
    core::fence(core::mo_seq_cst);
    // acquire: pairs with the release that published T's lines.
    reservation& r = eras::at(s.reservations.lines.load(core::mo_acquire), i);
    if (r.load_second(core::mo_acquire) == open.second) {
      std::uint64_t prev = d.era();
      for (;;) {
        mine.help_era.store(prev, core::mo_release);
        // seq_cst fence (X): as in slot_era::publish().
        core::fence(core::mo_seq_cst);
        const std::uintptr_t value = link->load(core::mo_acquire);
        const std::uint64_t e = d.era();
        if (e == prev) {
          core::word_pair expected = open;
          // acq_rel: pairs with the asker's acquire of the answer.
          if (q.answer.compare_exchange(expected, core::word_pair{value, e}, core::mo_acq_rel)) {
            d.helped_.fetch_add(1, core::mo_relaxed);
            Domain::rule::hand_over(r, open.second, e);
          }
          break;
        }
        prev = e;
        if (q.answer.load(core::mo_acquire) != open) break;  // answered or closed
      }
      // release: after the hand-over; the scan's third pass sees it (the header).
      mine.help_era.store(no_era, core::mo_release);
    }
    mine.help_lo.store(no_era, core::mo_release);
    mine.help_hi.store(no_era, core::mo_release);
  }
};

template <class FreePolicy = core::batch_free> using basic_wfe = basic_domain<wfe_rule, FreePolicy>;
using wfe = basic_wfe<>;
using wfe_af = basic_wfe<core::amortized_free<>>;

}  // namespace smr
