// Test-only reclaimers with PLANTED BUGS. They exist to prove that the verification layers can
// fail: the expected-failure executables (tests/expected_failure) and the Relacy models
// (tests/relacy) run them and must report a use-after-free. Never use them for anything else.
//
//   free_on_retire          frees a node the moment it is retired (no grace period at all).
//   short_grace_ebr<Early>  a minimal three-epoch EBR built from core parts whose limbo is
//                           collected `Early` epochs too soon. Early = 0 is the correct scheme
//                           (the control that must pass), Early = 1 frees one epoch too early.
//   unvalidated_protect<R>  the real reclaimer R with a protect() that reads the link and
//                           publishes the pointer but never validates it: HP's protect without
//                           the fence and re-read, IBR's without raising the reserved upper era,
//                           HE's publishing the node's era without re-reading the link, POIBR's
//                           root read without raising its reservation to the era of the read.
//   planted_nbr             NBR that frees without waiting for the signalled threads'
//                           acknowledgements.
//   barrier_skips_readers   EBR whose reclaim-now step advances the epoch without asking the
//                           other threads: a barrier that does not wait for protection.
//   hp_asym_no_membarrier   hp_asym whose scanner issues a compiler barrier instead of
//                           membarrier: nothing orders a reader's hazard store before its re-read.
//   token_no_heavy_fence    Token-EBR whose forwarding past an idle-looking thread skips the
//                           process-wide barrier: it may forward past a thread already reading.
//   token_no_attach_barrier Token-EBR whose attaching thread skips the process-wide barrier: a
//                           pass that skipped its id does not order its first reads.
//   token_no_take_back      Token-EBR whose pass does not check, after its store, that the
//                           receiver is detaching: the token may be left in a slot given back.
//   token_forgets_debts     Token-EBR whose ledger records no debt: the token is forwarded past
//                           a thread inside an operation and its bags are freed all the same.
//   token_one_debt_per_lap  Token-EBR whose ledger keeps one debt per lap: a forward past two
//                           stalled threads in a row holds back only the first one's nodes.
//   token_latest_lap        Token-EBR whose debt for an operation takes the lap of the latest
//                           forward past it, not the first: a thread stalled for several laps
//                           stops holding back the bags closed before its latest forward.
//   rcu_no_heavy_fence      RCU whose grace period skips the process-wide barrier: its snapshot
//                           may miss a reader that already reads.
//   rcu_ids_before_barrier  RCU whose grace period reads the bound of the ids it snapshots before
//                           its barrier: a thread that registers in between is missed.
//   nebr_leaves_early       NEBR whose operations clear the region's announcement as soon as
//                           they have made it: the region is left while the operation runs.
//   lfrc_early_release      LFRC whose SafeRead gives its reference back before it validates
//                           the link, and keeps none: the reader uses a node it does not count.
//   wfe_no_hand_over       WFE whose helper answers a request but does not hand its era over to
//                          the asker's reservation: from the helper's clearing to the asker's
//                          own publication, nothing pins the node it answered with.
//   wfe_no_parent_pin      WFE whose helper does not publish the asker's span [lo, hi]: nothing
//                          pins the node holding the link once the asker has let go of it.
//   interval_off_by_one<R>  the real interval scheme R (ibr_2ge, tag_ibr) whose scan reads each
//                           reservation [lower, upper] as [lower + 1, upper].
//   claims_unlinked_traversal<R>
//                           the real reclaimer R declaring that it protects searches through
//                           unlinked nodes, so that a structure which needs that accepts it.
//
// Each is a rule on the same skeleton as the real reclaimers (core/domain.hpp), or a rule
// derived from a real one that overrides one hook; they build under every back end of
// core/atomic.hpp (std, TSan, Relacy).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "smr/core/domain.hpp"
#include "smr/detail/epoch_limbo.hpp"
#include "smr/reclaimers/ebr.hpp"
#include "smr/reclaimers/he.hpp"
#include "smr/reclaimers/poibr.hpp"
#include "smr/reclaimers/hp.hpp"
#include "smr/reclaimers/lfrc.hpp"
#include "smr/reclaimers/ibr_2ge.hpp"
#include "smr/reclaimers/nbr.hpp"
#include "smr/reclaimers/nebr.hpp"
#include "smr/reclaimers/rcu.hpp"
#include "smr/reclaimers/token.hpp"
#include "smr/reclaimers/wfe.hpp"

namespace smr::test {

// ---------------------------------------------------------------------------------------------
// PLANTED BUG: frees at retire. Any reader that still holds the node reads freed memory.
struct free_on_retire_rule : rule_defaults {
  static constexpr std::string_view name = "free_on_retire";
  static constexpr std::string_view summary = "PLANTED BUG: frees at retire";
  struct config {};
  static constexpr std::tuple<> tunables{};
  // Claims every capability so that it can be paired with any data structure.
  static constexpr reclaimer_traits traits{
      .protects_unlinked_traversal = true,
      .continues_after_write = true,
      .bounded_garbage = true,
  };
  static config eager_config() { return {}; }
  struct slot {};

  template <class Base>
  class thread_state : public Base {
   protected:
    using Base::Base;
    void enter() {}
    void leave() {}
    void retire(core::retired_node* n) {
      this->tc().note_retired();
      detail::limbo_bag now;
      now.push(n);
      this->release_safe(std::move(now));  // the bug: no grace period
    }
    std::size_t unreclaimed() const { return 0; }
  };
};
using free_on_retire = basic_domain<free_on_retire_rule>;

// ---------------------------------------------------------------------------------------------
// A minimal three-epoch EBR (Fraser; Hart et al. §2.2) whose grace period can be shortened.
//
// Protocol: entering an operation announces the global epoch a (store, seq_cst fence, re-read
// until stable); every operation tries to advance the epoch, which succeeds only when every
// thread inside an operation announced the current one. A node unlinked during an operation
// that announced a is tagged a + 1 (the global epoch is at most a + 1 then) and is safe once the
// global epoch reaches tag + 2 (detail/epoch_limbo.hpp). With Early = 1 the limbo is collected
// as if the epoch were one higher: a node is freed at tag + 1, while a reader that announced
// tag = a + 1 before the unlink may still hold it. PLANTED BUG when Early > 0.
template <unsigned Early>
struct short_grace_ebr_rule : rule_defaults {
  static constexpr std::string_view name = Early == 0 ? "short_grace_ebr<0>" : "short_grace_ebr<1>";
  static constexpr std::string_view summary = "a minimal EBR whose grace period can be shortened";
  struct config {};
  static constexpr std::tuple<> tunables{};
  static constexpr reclaimer_traits traits{
      .protects_unlinked_traversal = true,
      .continues_after_write = true,
      .bounded_garbage = false,
      .metrics = {.epochs = true},
  };
  static config eager_config() { return {}; }

  static constexpr std::uint64_t inactive = 0;  // else (epoch << 1) | 1

  struct slot {
    core::atomic<std::uint64_t> announce{inactive};
  };

  template <class Base>
  class thread_state;

  template <class Base>
  class domain_state : public Base {
   public:
    using Base::Base;

   private:
    template <class>
    friend class thread_state;
    core::atomic<std::uint64_t> epoch_{1};
  };

  template <class Base>
  class thread_state : public Base {
   protected:
    using Base::Base;
    ~thread_state() {
      this->release_safe(limbo_.collect(epoch().load(core::mo_acquire) + Early));
      this->donate(limbo_.take_all());
    }

    void enter() {
      auto& s = this->slot();
      std::uint64_t e = epoch().load(core::mo_acquire);
      for (;;) {
        s.announce.store((e << 1) | 1, core::mo_relaxed);
        // seq_cst fence: the announcement is visible before we read any node (Dekker with
        // try_advance).
        core::fence(core::mo_seq_cst);
        const std::uint64_t now = epoch().load(core::mo_acquire);
        if (now == e) break;
        e = now;
      }
      if (e != local_) {
        local_ = e;
        this->release_safe(limbo_.collect(e + Early));
        detail::limbo_bag orphans = this->adopt_orphans();
        while (core::retired_node* n = orphans.pop_front()) limbo_.retire(n, e + 1);
      }
      try_advance(e);
    }

    void leave() {
      // release: this operation's reads happen before an advancer that sees us inactive.
      this->slot().announce.store(inactive, core::mo_release);
    }

    void retire(core::retired_node* n) {
      limbo_.retire(n, local_ + 1);
      this->tc().note_retired();
    }
    std::size_t unreclaimed() const { return limbo_.size(); }

   private:
    core::atomic<std::uint64_t>& epoch() { return this->domain().epoch_; }

    void try_advance(std::uint64_t e) {
      // seq_cst fence: pairs with the one after the announcement in enter() (store-load).
      core::fence(core::mo_seq_cst);
      bool all_current = true;
      this->for_each_slot([&](auto& s) {
        // acquire: an operation's exit store (release) orders its reads before our advance.
        const std::uint64_t a = s.announce.load(core::mo_acquire);
        if (a != inactive && (a >> 1) != e) all_current = false;
      });
      // acq_rel: readers of the new epoch (acquire) see everything the scan established.
      if (all_current && epoch().compare_exchange_strong(e, e + 1, core::mo_acq_rel))
        this->tc().stats().epochs.add();
    }

    detail::epoch_limbo limbo_;
    std::uint64_t local_ = 0;
  };
};
template <unsigned Early>
using short_grace_ebr = basic_domain<short_grace_ebr_rule<Early>>;

// ---------------------------------------------------------------------------------------------
// PLANTED BUG: the real rule with a protect() that does not validate. The pointer is read once
// and published (HP: a release store, no fence, no re-read; IBR: the reserved upper era is never
// raised). A reclaimer scanning between the read and the publication, or before the publication
// becomes visible, misses the reader.
template <class Rule>
struct unvalidated_rule;

template <>
struct unvalidated_rule<hp_rule> : hp_rule {
  template <class Base>
  class thread_state : public hp_rule::thread_state<Base> {
   protected:
    using hp_rule::thread_state<Base>::thread_state;
    template <class T>
    core::marked_ptr<T> protect(hazard* h, const core::atomic_marked_ptr<T>& src) {
      const core::marked_ptr<T> p = src.load(core::mo_acquire);
      this->hold(h, p.get());  // the bug: published, never re-read
      return p;
    }
  };
};

template <>
struct unvalidated_rule<ibr_2ge_rule> : ibr_2ge_rule {
  template <class Base>
  class thread_state : public ibr_2ge_rule::thread_state<Base> {
   protected:
    using ibr_2ge_rule::thread_state<Base>::thread_state;
    template <class T>
    core::marked_ptr<T> protect(const core::atomic_marked_ptr<T>& src) {
      return src.load(core::mo_acquire);  // the bug: the reserved upper era is never raised
    }
  };
};

template <>
struct unvalidated_rule<he_rule> : he_rule {
  template <class Base>
  class thread_state : public he_rule::thread_state<Base> {
   protected:
    using he_rule::thread_state<Base>::thread_state;
    template <class T>
    core::marked_ptr<T> protect(hazard_era* h, const core::atomic_marked_ptr<T>& src) {
      const core::marked_ptr<T> p = src.load(core::mo_acquire);
      this->hold(h, p.get());  // the bug: an era of the node published, the link never re-read
      return p;
    }
  };
};

template <>
struct unvalidated_rule<poibr_rule> : poibr_rule {
  template <class Base>
  class thread_state : public poibr_rule::thread_state<Base> {
   protected:
    using poibr_rule::thread_state<Base>::thread_state;
    template <class T>
    core::marked_ptr<T> protect_root(const core::atomic_marked_ptr<T>& root) {
      this->rooted_ = true;
      return root.load(core::mo_acquire);  // the bug: the reservation is never raised to cover it
    }
  };
};

template <class R>
using unvalidated_protect = basic_domain<unvalidated_rule<typename R::rule>, typename R::free_policy>;

// ---------------------------------------------------------------------------------------------
// PLANTED BUG: an interval check off by one. The scan reads each reservation as
// [lower + 1, upper], so a node retired in the era a reader's operation began looks unreserved.
template <class Rule>
struct interval_off_by_one_rule : Rule {
  template <class Domain, class Slot>
  static void collect_reservations(Domain&, Slot& s, detail::reserved_eras& out) {
    const std::uint64_t lo = s.lower.load(core::mo_acquire);
    if (lo == Rule::none) return;
    out.add(lo + 1, s.upper.load(core::mo_acquire));  // the bug: lo + 1
  }
};

template <class R>
using interval_off_by_one = basic_domain<interval_off_by_one_rule<typename R::rule>, typename R::free_policy>;

// ---------------------------------------------------------------------------------------------
// PLANTED BUG: a real reclaimer whose traits claim protects_unlinked_traversal. For ibr_2ge on
// the lazy list this is the pairing the IBR paper's well-behavedness proviso rules out
// (reclaimers/ibr_2ge.hpp, "When not to use it"), although the list's links are frozen.
template <class Rule>
struct claims_unlinked_traversal_rule : Rule {
  static constexpr reclaimer_traits traits = [] {
    reclaimer_traits t = Rule::traits;
    t.protects_unlinked_traversal = true;  // the bug
    return t;
  }();
};

template <class R>
using claims_unlinked_traversal =
    basic_domain<claims_unlinked_traversal_rule<typename R::rule>, typename R::free_policy>;

// ---------------------------------------------------------------------------------------------
// PLANTED BUG: NBR that frees a round's batch at once, without waiting for the threads it
// caught in a read phase to move on (unsafe).
struct planted_nbr_rule : nbr_rule {
  static constexpr bool wait_for_acknowledgements = false;
};
using planted_nbr = basic_domain<planted_nbr_rule>;

// ---------------------------------------------------------------------------------------------
// PLANTED BUG: a reclaim-now barrier that forces the epoch forward. Operations are EBR's, but
// each barrier step advances the clock even while a reader is still in the old epoch, so two
// steps free a node that reader holds.
struct barrier_skips_readers_rule : ebr_rule {
  static constexpr std::string_view name = "barrier_skips_readers";
  static constexpr std::string_view summary = "PLANTED BUG: reclaim_now() advances the epoch without waiting";
  template <class Base>
  class thread_state : public ebr_rule::thread_state<Base> {
   protected:
    using ebr_rule::thread_state<Base>::thread_state;
    void reclaim_step() {
      const std::uint64_t e = this->start_period();
      this->clock().advance(e, this->tc());  // the bug: no check of the other threads
      this->leave();
    }
  };
};
using barrier_skips_readers = basic_domain<barrier_skips_readers_rule>;

// ---------------------------------------------------------------------------------------------
// PLANTED BUG: hp_asym without its membarrier. The reader keeps hp_asym's compiler barrier and
// the scanner's membarrier becomes a compiler barrier too, so nothing orders the reader's hazard
// store before its re-read of the link: on x86 the store may wait in the store buffer while the
// re-read still sees the node, and a scan running meanwhile misses the hazard and frees the node
// (the store-load reordering TSO allows). One policy of the same HP rule (hp.hpp).
struct no_membarrier_fences {
  static constexpr std::string_view name = "hp_asym_no_membarrier",
                                    summary = "PLANTED BUG: hp_asym with a compiler barrier instead of membarrier";
  static void reader() { std::atomic_signal_fence(std::memory_order_seq_cst); }
  static void scanner() { std::atomic_signal_fence(std::memory_order_seq_cst); }  // the bug
};
using hp_asym_no_membarrier = basic_domain<hp_rule_with<no_membarrier_fences>>;

// ---------------------------------------------------------------------------------------------
// PLANTED BUG for token and rcu: an asymmetric fence pair whose heavy side is a compiler barrier
// like its light side. Nothing orders a thread's "I am in an operation" store before its reads,
// nor the other side's unlink before its read of that word.
struct no_heavy_fence_pair {
  bool asymmetric() const { return true; }
  void light() const { std::atomic_signal_fence(std::memory_order_seq_cst); }
  void heavy() const { std::atomic_signal_fence(std::memory_order_seq_cst); }  // the bug
};

struct token_no_heavy_fence_rule : token_rule {
  static constexpr std::string_view name = "token_no_heavy_fence";
  static constexpr std::string_view summary = "PLANTED BUG: forwards the token without the process-wide barrier";
  template <class Base>
  using domain_state = detail::token_domain<Base, no_heavy_fence_pair>;
};
using token_no_heavy_fence = basic_domain<token_no_heavy_fence_rule>;

// Token-EBR whose attaching thread skips its barrier (forwards keep theirs): a pass that skipped
// the new thread's id no longer orders the thread's first reads after the unlinks of that lap.
template <class Base>
struct token_domain_without_attach_barrier : detail::token_domain<Base> {
  using detail::token_domain<Base>::token_domain;
  template <class Fences>
  static void attach_barrier(const Fences&) {}  // the bug
};
struct token_no_attach_barrier_rule : token_rule {
  static constexpr std::string_view name = "token_no_attach_barrier";
  static constexpr std::string_view summary = "PLANTED BUG: a thread attaches without the process-wide barrier";
  template <class Base>
  using domain_state = token_domain_without_attach_barrier<Base>;
};
using token_no_attach_barrier = basic_domain<token_no_attach_barrier_rule>;

// Token-EBR whose pass stores the token into a slot and never checks that its thread is
// detaching: a thread that read the token's absence before the store gives its slot back with
// the token in it, and no receipt follows until a forward finds it (liveness, not safety).
template <class Base>
struct token_domain_without_take_back : detail::token_domain<Base> {
  using detail::token_domain<Base>::token_domain;
  template <class Fences>
  static bool receiver_leaving(detail::token_slot&, const Fences&) { return false; }  // the bug
};
struct token_no_take_back_rule : token_rule {
  static constexpr std::string_view name = "token_no_take_back";
  static constexpr std::string_view summary = "PLANTED BUG: a pass may leave the token in the slot of a detaching thread";
  template <class Base>
  using domain_state = token_domain_without_take_back<Base>;
};
using token_no_take_back = basic_domain<token_no_take_back_rule>;

// PLANTED BUGS for token: the real rule with another debt ledger.
template <class Ledger>
struct token_with_ledger_rule : token_rule {
  static constexpr std::string_view name = Ledger::name;
  static constexpr std::string_view summary = Ledger::summary;
  template <class Base>
  using domain_state = detail::token_domain<Base, detail::asymmetric_fence_pair, Ledger>;
};

// A ledger that forgets every debt.
struct forgetful_token_debts {
  static constexpr std::string_view name = "token_forgets_debts";
  static constexpr std::string_view summary = "PLANTED BUG: forwards the token past busy threads without debts";
  void record(std::size_t, std::uint64_t, std::uint64_t) {}
  template <class WordOf>
  std::uint64_t settle(WordOf&&) { return detail::token_debts::none; }  // the bug
};
using token_forgets_debts = basic_domain<token_with_ledger_rule<forgetful_token_debts>>;

// A ledger that keeps one debt per lap, so the second thread the token goes past in a lap (the
// next one of one forward past several stalled threads) holds nothing back.
class one_debt_per_lap_token_debts : public detail::token_debts {
 public:
  static constexpr std::string_view name = "token_one_debt_per_lap";
  static constexpr std::string_view summary = "PLANTED BUG: keeps one debt per lap of the token";
  void record(std::size_t id, std::uint64_t word, std::uint64_t lap) {
    if (lap == last_lap_ && id != last_id_) return;  // the bug
    last_lap_ = lap;
    last_id_ = id;
    detail::token_debts::record(id, word, lap);
  }

 private:
  std::uint64_t last_lap_ = 0;
  std::size_t last_id_ = 0;
};
using token_one_debt_per_lap = basic_domain<token_with_ledger_rule<one_debt_per_lap_token_debts>>;

// A ledger whose debt for an operation moves to the lap of each new forward past it (the real
// one keeps the first: the operation may hold what was unlinked up to a lap before that).
class latest_lap_token_debts {
 public:
  static constexpr std::string_view name = "token_latest_lap";
  static constexpr std::string_view summary = "PLANTED BUG: a debt takes the lap of the latest forward past its operation";
  void record(std::size_t id, std::uint64_t word, std::uint64_t lap) {
    std::erase_if(debts_, [id](const debt& d) { return d.id == id; });
    debts_.push_back({id, word, lap});  // the bug, for the same word
  }
  template <class WordOf>
  std::uint64_t settle(WordOf&& word_of) {
    std::erase_if(debts_, [&word_of](const debt& d) { return word_of(d.id) != d.word; });
    std::uint64_t lowest = detail::token_debts::none;
    for (const debt& d : debts_) lowest = std::min(lowest, d.lap);
    return lowest;
  }

 private:
  struct debt {
    std::size_t id;
    std::uint64_t word;
    std::uint64_t lap;
  };
  std::vector<debt> debts_;
};
using token_latest_lap = basic_domain<token_with_ledger_rule<latest_lap_token_debts>>;

struct rcu_no_heavy_fence_rule : rcu_rule {
  static constexpr std::string_view name = "rcu_no_heavy_fence";
  static constexpr std::string_view summary = "PLANTED BUG: a grace period without the process-wide barrier";
  template <class Base>
  using domain_state = detail::asymmetric_fence_domain<Base, no_heavy_fence_pair>;
};
using rcu_no_heavy_fence = basic_domain<rcu_no_heavy_fence_rule>;

// PLANTED BUG: RCU's grace period reads the high-water mark of thread ids before its barrier: a
// thread that registers between the two, and reads before the barrier reaches it, is missed.
struct rcu_ids_before_barrier_rule : rcu_rule {
  static constexpr std::string_view name = "rcu_ids_before_barrier";
  static constexpr std::string_view summary = "PLANTED BUG: the snapshot's bound read before the barrier";
  template <class Fences, class Registry>
  static std::size_t barrier_then_ids(const Fences& fences, Registry& registry) {
    const std::size_t ids = registry.high_water();
    fences.heavy();
    return ids;
  }
};
using rcu_ids_before_barrier = basic_domain<rcu_ids_before_barrier_rule>;

// ---------------------------------------------------------------------------------------------
// PLANTED BUG: NEBR leaving its region early. Every operation that announces (a region's first,
// or one that saw the epoch move) clears the announcement right away, so the thread operates
// inside what it believes is its region while scans find it quiescent.
struct nebr_leaves_early_rule : nebr_rule {
  static constexpr std::string_view name = "nebr_leaves_early";
  static constexpr std::string_view summary = "PLANTED BUG: leaves the region at the start of the operation";
  template <class Base>
  class thread_state : public nebr_rule::thread_state<Base> {
   protected:
    using nebr_rule::thread_state<Base>::thread_state;
    void enter() {
      nebr_rule::thread_state<Base>::enter();
      detail::epoch_clock::quiesce(this->slot().announce);  // the bug
    }
  };
};
using nebr_leaves_early = basic_domain<nebr_leaves_early_rule>;

// ---------------------------------------------------------------------------------------------
// PLANTED BUG: LFRC's count decremented before the link is validated. protect() adds to the
// target's count and takes it back at once, then validates and returns the node with the slot
// holding no reference: the last real reference can go (an unlink) while the reader walks on.
struct lfrc_early_release_rule : lfrc_rule {
  static constexpr std::string_view name = "lfrc_early_release";
  static constexpr std::string_view summary = "PLANTED BUG: SafeRead gives its reference back before validating";
  template <class Base>
  class thread_state : public lfrc_rule::thread_state<Base> {
    using state = lfrc_rule::thread_state<Base>;

   protected:
    using state::state;
    template <class T>
    core::marked_ptr<T> protect(typename state::protection h, const counted_link<T>& src) {
      state::clear(h);
      for (;;) {
        const core::marked_ptr<T> p = src.load(core::mo_acquire);
        if (detail::lfrc_cell* c = counted_link<T>::cell(p)) {
          c->count.fetch_add(detail::lfrc_cell::one_ref, core::mo_acq_rel);
          detail::lfrc_pool::release(c);  // the bug: before the validation, and for good
        }
        if (src.load(core::mo_acquire) == p) return p;
      }
    }
  };
};
using lfrc_early_release = basic_domain<lfrc_early_release_rule>;

// ---------------------------------------------------------------------------------------------
// PLANTED BUG: WFE's helper skips the hand-over (step 3 in reclaimers/wfe.hpp).
struct wfe_no_hand_over_rule : wfe_rule {
  static constexpr std::string_view name = "wfe_no_hand_over";
  static constexpr std::string_view summary = "PLANTED BUG: a helper's answer is not handed over to the asker's reservation";
  static void hand_over(reservation&, std::uint64_t, std::uint64_t) {}
};
using wfe_no_hand_over = basic_domain<wfe_no_hand_over_rule>;

// ---------------------------------------------------------------------------------------------
// PLANTED BUG: WFE's helper does not pin the node that holds the link (step 3's [lo, hi]): once
// the asker finishes on its own and lets go of that node, a scan frees it while the helper is
// about to read the link inside it.
struct wfe_no_parent_pin_rule : wfe_rule {
  static constexpr std::string_view name = "wfe_no_parent_pin";
  static constexpr std::string_view summary = "PLANTED BUG: a helper does not pin the node that holds the link";
  template <class Slot>
  static void pin_parent(Slot&, std::uint64_t, std::uint64_t) {}
};
using wfe_no_parent_pin = basic_domain<wfe_no_parent_pin_rule>;

}  // namespace smr::test
