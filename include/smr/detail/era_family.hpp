// The parts the era schemes share (ibr_epoch, ibr_2ge, he; the rest of the IBR family and WFE
// build on them): the domain's era clock, the node header with the node's lifetime in eras, birth-era
// stamping with the periodic advance (IBR's alloc(), Fig. 2 and 4), retirement with fence Z,
// and the scan with fence Y that frees every node whose lifetime meets no reservation.
//
// The schemes differ only in what a thread reserves and how protect() raises it: ibr_epoch the
// era at the start of its operation (an interval [e, none]), ibr_2ge an interval [lower, upper]
// per thread, he and wfe one era per protection slot. Each rule says how to read its slot's
// reservations with a static collect_reservations(domain, slot, reserved_eras&), which
// era_thread calls for every registry slot during a scan, or reads them all itself with
// collect_all_reservations(domain, reserved_eras&) when the order of its reads matters (wfe).
// A rule may also act before each era advance (before_era_advance: wfe's helping).
//
// The orders that make this safe are argued once, in reclaimers/ibr_2ge.hpp ((a) birth era,
// (b) retire era, (c) the scan sees the reservation); he.hpp restates them for its slots.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "smr/core/atomic.hpp"
#include "smr/core/atomic_pair.hpp"
#include "smr/core/domain.hpp"
#include "smr/core/marked_ptr.hpp"
#include "smr/core/node.hpp"
#include "smr/core/traits.hpp"
#include "smr/detail/limbo_bag.hpp"
#include "smr/detail/thread_registry.hpp"

namespace smr {

// The era node header: the retired mark plus the node's lifetime in eras. Written by the owning
// thread before the node is published (birth) or after it is unlinked (retire) and read only by
// whoever holds the node in limbo, or by a thread that protects it or made it (he's hold(),
// tag_ibr's writes), after an acquire of its publication; so the fields need no atomics.
struct era_node : core::retired_node {
  std::uint64_t birth_era = 0;  // 0 (not made by create) is conservative: born before all
  std::uint64_t retire_era = 0;
};

}  // namespace smr

namespace smr::detail {

// The era a slot publishes to hold a node the thread already protects through another slot (he's
// and wfe's hold()): the node's birth era, which its lifetime contains. Birth era 0 (not made by
// create) reads as 1, the first era: still inside the node's lifetime.
inline std::uint64_t held_era(const core::retired_node* p) {
  return std::max<std::uint64_t>(static_cast<const era_node*>(p)->birth_era, 1);
}

// The writes of one published era per protection slot (he; wfe, whose slot is the first word of
// a pair that helpers also write): publish, hold and clear. Eras start at 1, so 0 means none.
// `Words` is the detail::published_words that keeps the slots and hold()'s version.
template <class Words>
struct slot_era {
  static constexpr std::uint64_t none = 0;

  static std::uint64_t read_own(const core::atomic<std::uint64_t>& w) {
    // relaxed: our own slot; what it holds was fenced when stored (publish()).
    return w.load(core::mo_relaxed);
  }
  static std::uint64_t read_own(const core::atomic_pair& w) { return w.load_first(core::mo_relaxed); }

  template <class Word>
  static void publish(Word& w, std::uint64_t e) {
    // release: pairs with the scanner's acquire load, (c) in he.hpp.
    store(w, e, core::mo_release);
    // seq_cst fence (X): the era is visible before the link is read again; pairs with fence Y
    // in the scan (c) and fence Z in retire (b).
    core::fence(core::mo_seq_cst);
  }

  // Holds a node the thread already protects through another slot (or clears on nullptr): its
  // birth era, then a version bump so that a scan reading the slots meanwhile reads them again.
  template <class Word>
  static void hold(Word& w, typename Words::slot& versions, const core::retired_node* p) {
    if (p == nullptr) {
      clear(w);
      return;
    }
    publish(w, held_era(p));
    Words::bump_version(versions);
  }

  template <class Word>
  static void clear(Word& w) {
    // release: our accesses to the protected node happen before a scanner that reads none.
    if (read_own(w) != none) store(w, none, core::mo_release);
  }

 private:
  static void store(core::atomic<std::uint64_t>& w, std::uint64_t e, core::memory_order mo) { w.store(e, mo); }
  static void store(core::atomic_pair& w, std::uint64_t e, core::memory_order mo) { w.store_first(e, mo); }
};

// Every reservation found by one scan, as closed intervals of eras. A node conflicts with a
// reservation [lo, hi] when its lifetime [birth, retire] meets it: birth <= hi and retire >= lo.
// Sorted by lo with the running maximum of hi, a query is one binary search: the intervals
// with lo <= retire are a prefix, and one of them meets the node iff the prefix's largest hi
// is >= birth. One allocation per thread in steady state.
class reserved_eras {
 public:
  void clear() { intervals_.clear(); }
  void add(std::uint64_t lo, std::uint64_t hi) { intervals_.push_back({lo, hi}); }
  // Call once after the last add() and before reserved().
  void seal() {
    std::sort(intervals_.begin(), intervals_.end(), [](const interval& a, const interval& b) { return a.lo < b.lo; });
    std::uint64_t max_hi = 0;
    for (interval& iv : intervals_) iv.max_hi = max_hi = std::max(max_hi, iv.hi);
  }
  bool reserved(std::uint64_t birth, std::uint64_t retire) const {
    auto end = std::upper_bound(intervals_.begin(), intervals_.end(), retire,
                                [](std::uint64_t r, const interval& iv) { return r < iv.lo; });
    return end != intervals_.begin() && std::prev(end)->max_hi >= birth;
  }
  std::size_t size() const { return intervals_.size(); }
  // Drops what was added after size() was n (a scan's retried read of one thread).
  void truncate(std::size_t n) { intervals_.resize(std::min(n, intervals_.size())); }

 private:
  struct interval {
    std::uint64_t lo, hi, max_hi = 0;  // max_hi: largest hi among this and every earlier one
  };
  std::vector<interval> intervals_;
};

// The era clock's tunables, for a config with the three members (era_rule_base's, or a rule's
// own that adds more: a tunable names its own config's member). IBR §5: the era advances every k
// allocations of a thread, times the registered threads when scaled (k = 150 there), so it
// advances at the same rate for every thread count; a thread scans every 30 retirements.
template <class Config>
inline constexpr std::tuple era_tunables{
    tunable{"epoch_frequency", &Config::epoch_frequency, "allocations between era advances (k)", 1u},
    tunable{"scale_epoch_frequency", &Config::scale_epoch_frequency, "multiply epoch_frequency by the registered threads (IBR §5)"},
    tunable{"empty_frequency", &Config::empty_frequency, "retirements between scans", 1u},
    tunable{"amortize_scans", &Config::amortize_scans, "after a scan that kept more than 4 x empty_frequency nodes, wait for a quarter as many retirements (false: every empty_frequency, as the IBR paper)"}};

// The domain side: the global era. Eras start at 1, so 0 can mean "no era" in a reservation.
template <class Base>
class era_domain : public Base {
 public:
  using Base::Base;
  std::uint64_t era() const { return era_.load(core::mo_relaxed); }

 private:
  template <class, class>
  friend class era_thread;
  alignas(cache_line) core::atomic<std::uint64_t> era_{1};
};

// The domain side of an era rule whose atomics are double-width pairs (wfe, tag_ibr_wcas): it
// refuses to start on a CPU without the double-width CAS (core/atomic_pair.hpp).
template <class Base>
class wcas_era_domain : public era_domain<Base> {
 public:
  template <class... Args>
  explicit wcas_era_domain(Args&&... args) : era_domain<Base>(std::forward<Args>(args)...) {
    core::require_double_width_cas(Base::rule::name);
  }
};

// What an era rule shares besides the thread side: the node header, the era clock's config and
// tunables, the tests' eager configuration, and the domain state.
struct era_rule_base : rule_defaults {
  using node_base = era_node;
  // A bound of a reservation that reserves nothing (ibr_2ge's lower, ibr_epoch's era) or, as
  // an upper bound, every era to come.
  static constexpr std::uint64_t none = std::numeric_limits<std::uint64_t>::max();
  struct config {  // era_tunables says what each means
    unsigned epoch_frequency = 150;
    bool scale_epoch_frequency = true;
    unsigned empty_frequency = 30;
    bool amortize_scans = true;
  };
  static constexpr auto tunables = era_tunables<config>;
  // Tests: the era advances every other allocation and every thread scans every 4 retirements.
  static config eager_config() { return {.epoch_frequency = 2, .scale_epoch_frequency = false, .empty_frequency = 4}; }
  template <class Base>
  using domain_state = era_domain<Base>;
  // Called by a thread just before it advances the era (nothing, except for wfe).
  template <class Domain, class Slot>
  static void before_era_advance(Domain&, Slot&) {}
};

// The thread side. Rule::collect_reservations(domain, slot, out) adds the slot's reservations.
template <class Base, class Rule>
class era_thread : public Base {
 protected:
  explicit era_thread(typename Base::domain_type& d) : Base(d), scan_after_(d.configuration().empty_frequency) {}

  // The rule's destructor has left its slot reserving nothing: free what nobody reserves and
  // hand the rest over.
  ~era_thread() {
    scan();
    this->donate(limbo_.take_all());
  }

  core::atomic<std::uint64_t>& era_word() { return this->domain().era_; }
  // The era carries no data: only its modification order matters (see ibr_2ge.hpp), so every
  // access is relaxed; the fences X, Y, Z order it against links and reservations.
  std::uint64_t current_era() { return era_word().load(core::mo_relaxed); }

  // HE's get_protected on a slot that publishes one era (he, wfe; SlotEra is their slot_era):
  // returns the link's value once it was read under a published, fenced era equal to the
  // current one; publishes (and counts a retry) only when the era moved. With a give_up
  // (wfe's slow path), the era is published at most `publications` times, then give_up()
  // answers instead.
  template <class SlotEra, class Word, class T, class GiveUp = std::nullptr_t>
  core::marked_ptr<T> protect_by_era(Word& w, const core::atomic_marked_ptr<T>& src,
                                     [[maybe_unused]] unsigned publications = 0,
                                     [[maybe_unused]] GiveUp give_up = nullptr) {
    std::uint64_t published = SlotEra::read_own(w);
    for (;;) {
      // acquire: pairs with the release that published the node (and its birth era), (a).
      const core::marked_ptr<T> p = src.load(core::mo_acquire);
      // The acquire above keeps this (relaxed) era load after it, which (a) needs.
      const std::uint64_t e = current_era();
      if (e == published) return p;
      if constexpr (!std::is_null_pointer_v<GiveUp>) {
        if (publications-- == 0) return give_up();
      }
      if (published != SlotEra::none) this->tc().stats().protect_retries.add();
      SlotEra::publish(w, e);  // fence X
      published = e;
    }
  }

  // alloc() of IBR Fig. 2/4: counts allocations, advances the era, stamps the birth era.
  void on_create(era_node* n) {
    if (++allocs_ >= epoch_period()) {
      allocs_ = 0;
      advance_era();
    }
    n->birth_era = current_era();
  }

  void retire(core::retired_node* r) {
    auto* n = static_cast<era_node*>(r);
    // seq_cst fence (Z): the unlink that preceded this call is ordered before the era read;
    // pairs with the protecting fence X, (b) in ibr_2ge.hpp.
    core::fence(core::mo_seq_cst);
    n->retire_era = current_era();
    limbo_.push(n);
    this->tc().note_retired();
    if (++retires_ >= scan_after_) scan();
  }

  std::size_t unreclaimed() const { return limbo_.size(); }

  // The reclaim-now step. Advancing first means reservations made from now on name an era
  // later than every retire era so far, so only protections already held can pin those nodes;
  // then a scan frees what no reservation covers.
  void reclaim_step() {
    advance_era();
    scan();
  }

 private:
  // relaxed: see current_era().
  void advance_era() {
    Rule::before_era_advance(this->domain(), this->slot());
    const std::uint64_t e = era_word().fetch_add(1, core::mo_relaxed) + 1;
    this->tc().stats().epochs.add();
    this->tc().record_instant(core::event_kind::epoch_advance, e);
  }

  std::uint64_t epoch_period() {
    const auto& cfg = this->domain().configuration();
    std::uint64_t p = cfg.epoch_frequency;
    if (cfg.scale_epoch_frequency) p *= std::max<std::size_t>(1, this->domain().registry().active_threads());
    return p;
  }

  // empty() of IBR Fig. 2-5 and HE's scan, over this thread's bag and any adopted orphans.
  // The next one comes after empty_frequency retirements, or (amortize_scans, the default)
  // after a quarter of what this one kept if that is more. A scan reads every node of the bag,
  // and reservations can pin thousands (a thread descheduled inside an operation pins what was
  // alive when it read): with the paper's fixed period every retirement paid for reading them
  // all again, about half of ibr_2ge's time at 8 threads on 2 cores. Waiting for a quarter as
  // many new nodes as were kept bounds the reads to five per retirement, and keeps a thread's
  // bag within 1.25 times what is pinned plus empty_frequency. (Waiting for as many, the hazard
  // pointers' R = 2H, read two per retirement but doubled the garbage; same throughput.)
  void scan() {
    retires_ = 0;
    scan_after_ = this->domain().configuration().empty_frequency;
    limbo_.splice(this->adopt_orphans());
    if (limbo_.empty()) return;
    // seq_cst fence (Y): every node in limbo was retired (and so unlinked) before it; pairs
    // with the protecting fence X, (c) in ibr_2ge.hpp.
    core::fence(core::mo_seq_cst);
    reserved_.clear();
    auto& d = this->domain();
    if constexpr (requires { Rule::collect_all_reservations(d, reserved_); })
      Rule::collect_all_reservations(d, reserved_);
    else
      this->for_each_slot([&](auto& s) { Rule::collect_reservations(d, s, reserved_); });
    reserved_.seal();
    this->release_safe(limbo_.extract_if([&](const core::retired_node* r) {
      const auto* n = static_cast<const era_node*>(r);
      return !reserved_.reserved(n->birth_era, n->retire_era);
    }));
    if (this->domain().configuration().amortize_scans) scan_after_ = std::max<std::size_t>(scan_after_, limbo_.size() / 4);
  }

  limbo_bag limbo_;
  reserved_eras reserved_;
  std::uint64_t allocs_ = 0;
  std::size_t retires_ = 0;     // since the last scan
  std::size_t scan_after_;      // retirements that start the next scan (set by each scan)
};

}  // namespace smr::detail
