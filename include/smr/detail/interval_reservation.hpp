// The interval reservation of IBR's robust schemes (Wen et al. 2018, Figs. 5 and 6), written
// once for ibr_2ge and tag_ibr: each thread reserves [lower, upper] for the duration of an
// operation, begin_op sets both to the current era, and protect() raises `upper` until it covers
// the era bound of what it read, publishing and fencing each raise before it re-reads the link.
// The schemes differ only in that bound (the `Bound` policy):
//   - ibr_2ge: the global era, read after the link (every node reachable now was born by then);
//   - tag_ibr: the link's born_before tag, which every write to the link keeps at or above the
//     birth era of the node it points to.
// The orders that make this safe are argued once, in reclaimers/ibr_2ge.hpp ((a)-(c)), with
// "the era read after L" standing for the bound; tag_ibr.hpp says what changes for the tag.
//
// A Bound supplies:
//   template <class T> using link;                   the link type (the rule's atomic_ptr<T>)
//   static bound_read<T> read(const link<T>&, era);  the link's value (an acquire load) and its
//                                                     bound, read after it (relaxed: (a) needs
//                                                     only that order) or with it in one
//                                                     snapshot; era() reads the global era
//   static void returned(const void* p, bound);      protect() returns p, covered by `bound`
//   static const void* entered(era); left(outer);    an operation begins (era: the domain's
//                                                     era word; returns what left() restores:
//                                                     the state of an operation this thread
//                                                     has open on another handle) or ends
//   static void created(const era_node* n);           this thread made n (birth stamped)
#pragma once

#include <algorithm>
#include <cstdint>

#include "smr/core/atomic.hpp"
#include "smr/core/marked_ptr.hpp"
#include "smr/detail/era_family.hpp"

namespace smr::detail {

// What protect() reads from a link: its value and the era bound that must be reserved for it.
template <class T>
struct bound_read {
  core::marked_ptr<T> ptr;
  std::uint64_t bound;
};

template <class Bound>
struct interval_rule : era_rule_base {
  template <class T>
  using atomic_ptr = typename Bound::template link<T>;

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
  static void collect_reservations(Domain&, Slot& s, reserved_eras& out) {
    for (;;) {
      // acquire (both): pairs with the release reservation stores, (c) in ibr_2ge.hpp.
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
  class thread_state : public era_thread<Base, typename Base::rule_type> {
    using era_base = era_thread<Base, typename Base::rule_type>;

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
      // end, so that operation's accesses happen before its frees; (c) in ibr_2ge.hpp.
      s.upper.store(e, core::mo_release);
      s.lower.store(e, core::mo_release);
      published_ = e;
      // No fence yet: the first protect() fences (X) before returning a node.
      fenced_ = unfenced;
      outer_ = Bound::entered(this->era_word());
    }

    void on_create(era_node* n) {
      era_base::on_create(n);
      Bound::created(n);
    }

    void leave() {
      auto& s = this->slot();
      // lower first, for the same reason as in enter(): [none, x] reserves nothing.
      // release: our accesses to reserved nodes happen before a scanner that reads `none`.
      s.lower.store(none, core::mo_release);
      s.upper.store(none, core::mo_release);
      Bound::left(outer_);
    }

    // Fig. 5 line 46 / Fig. 6: the pointer is returned only if it was read after an upper bound
    // covering its bound was published and fenced.
    template <class T>
    core::marked_ptr<T> protect(const atomic_ptr<T>& src) {
      for (;;) {
        // The link's value is an acquire load (pairs with the release that published the node
        // and its birth era), the bound read after it or with it: (a).
        const auto [p, read_bound] = Bound::read(src, [this] { return this->current_era(); });
        std::uint64_t b = read_bound;
        if (!covered(b)) {
          // A bound above the era (TagIBR-FAA's slack: concurrent raises add their differences
          // up) gives way to the era read now, which covers the target too: it is read after
          // the link, as ibr_2ge's bound is ((a)). Kept, one overshooting tag would have every
          // reader of the link reserve past the era, pinning what is born until the era
          // catches up.
          b = std::min(b, this->current_era());
          if (!covered(b)) {
            reserve_upper(b);
            continue;
          }
        }
        Bound::returned(p.get(), b);
        return p;
      }
    }

   private:
    // A fenced upper bound no era equals: nothing published has been fenced yet.
    static constexpr std::uint64_t unfenced = 0;

    bool covered(std::uint64_t b) const { return fenced_ != unfenced && b <= fenced_; }

    // Raises the published upper bound to cover b (it never goes down), then fence X; protect()
    // then re-reads its link.
    void reserve_upper(std::uint64_t b) {
      if (b > published_) {
        // release: see enter(); (c) in ibr_2ge.hpp.
        this->slot().upper.store(b, core::mo_release);
        published_ = b;
      }
      // seq_cst fence (X): the reservation is visible before the link is read again; pairs
      // with fence Y in the scan (c) and fence Z in retire (b).
      core::fence(core::mo_seq_cst);
      fenced_ = published_;
    }

    const void* outer_ = nullptr;  // from Bound::entered(): restored when the operation ends
    std::uint64_t published_ = 0;  // our slot's upper, as last stored by an operation
    std::uint64_t fenced_ = unfenced;  // our published upper bound, once fenced
    std::uint64_t seen_era_ = 0;
  };
};

// The hooks of a bound that keeps nothing per thread (ibr_2ge's, tag_ibr_tpa's).
struct no_bound_hooks {
  static void returned(const void*, std::uint64_t) {}
  static const void* entered(const core::atomic<std::uint64_t>&) { return nullptr; }
  static void left(const void*) {}
  static void created(const era_node*) {}
};

// ibr_2ge's bound: the global era, read after the link.
struct global_era_bound : no_bound_hooks {
  template <class T>
  using link = core::atomic_marked_ptr<T>;
  template <class T, class Era>
  static bound_read<T> read(const link<T>& src, Era era) {
    // acquire: (a); the acquire keeps the (relaxed) era load after it.
    const core::marked_ptr<T> p = src.load(core::mo_acquire);
    return {p, era()};
  }
};

}  // namespace smr::detail
