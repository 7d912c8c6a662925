// HP: Michael's hazard pointers, as described by Hart et al. (2007) §2.3 and Wen et al. (2018)
// §2.3.
//
// What it is: every thread owns K single-writer hazard pointers (config `slots`). Before it
// dereferences a node read from a shared link, a thread publishes the node's address in one of
// them, issues a store-load fence and re-reads the link; only if the link still holds the node
// does protect() return it. Retired nodes wait in a per-thread limbo bag; when the bag holds R
// nodes the thread scans every hazard pointer of every thread and frees the nodes nobody
// announced.
//
// Why it is safe (proof sketch). Labels name the code below.
//  (1) protect: the reader stores h = n (release), fence X (seq_cst), re-reads the link (L) and
//      sees n. The reclaimer of n unlinked it (U) before retiring it, and its scan runs fence Y
//      (seq_cst) before reading hazards. X and Y are ordered in the single order S of seq_cst
//      fences. If Y came first, L would observe U (or later) and the validation would fail. So X
//      comes first, and the scanner's read of h observes h = n or a later store to h.
//  (2) A later store to h means the reader replaced or cleared the protection. Every hazard
//      store is a release and every scanner load an acquire, so all of the reader's accesses to
//      n happen before the scanner sees the new value, hence before the free.
//  (3) hold(p) copies into slot i a node that slot j already protects. A scanner reads a thread's slots
//      one by one, so it could read slot i before the copy and slot j after the reader
//      overwrote it, and miss n although some slot held n at every moment. Every hold bumps the
//      slot's `version` (release) after the copy. The scanner reads the version (acquire), the
//      slots (acquire), then the version again, and retries that thread if it changed. If the
//      scan saw j's overwrite, it also sees the bump that preceded it: either the first version
//      read already saw the bump (and then slot i shows the copy) or the two reads differ. A
//      retry happens only when the reader completed a hold meanwhile, so scans stay lock-free.
// Adopted orphans were unlinked before the donor handed them over (under the domain's lock),
// so they too were unlinked before fence Y.
//
// Bounds (Hart §2.3): at most H = K x threads nodes are protected. A scan leaves at most H
// nodes, and with R = 2H + 100 each scan frees at least H + 100, so the per-node scan cost is
// constant. A stalled thread blocks at most K nodes plus its own bag (< R).
//
// When not to use it: searches that pass through unlinked nodes (Harris's list, NBR Table 1),
// because validation cannot prove such a node is still reachable; structures needing an
// unbounded number of protections at once (tree rotations); read-mostly workloads over long
// paths, where the fence per node visited dominates (Hart §5).
//
// Usage contract: protection goes through protection_slot / guarded_ptr objects (at most
// `slots` at once per thread, else smr::slots_exhausted); slot.hold(p) needs p protected by
// another slot of the same thread (or not yet published).
//
// The fence pair is a policy. hp_rule_with<Fences> is the one HP rule; Fences supplies fence X
// (reader(), in protect) and fence Y (scanner(), in scan), and the rule's name. smr::hp uses
// hp_symmetric_fences: a seq_cst fence on both sides, exactly the code the proof above is
// about. smr::hp_asym (reclaimers/hp_asym.hpp) replaces X by a compiler barrier and Y by a
// process-wide barrier (membarrier); its header comment has the proof for that pair. A policy
// is an empty or small value type: the domain builds one at construction (where a policy may
// set itself up, e.g. register with the kernel) and every handle keeps a copy, so that its
// fences read nothing shared.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "smr/core/domain.hpp"
#include "smr/detail/protected_set.hpp"
#include "smr/detail/published_words.hpp"

namespace smr {

// smr::hp's fence pair: X and Y are both seq_cst fences, (1) above.
struct hp_symmetric_fences {
  static constexpr std::string_view name = "hp", summary = "Michael's hazard pointers: publish, fence, validate per pointer (Hart et al. 2007, §2.3)";
  static void reader() { core::fence(core::mo_seq_cst); }   // X
  static void scanner() { core::fence(core::mo_seq_cst); }  // Y
};

template <class Fences>
struct hp_rule_with : rule_defaults {
  static constexpr std::string_view name = Fences::name, summary = Fences::summary;
  using fences = Fences;

  struct config {
    unsigned slots = 4;  // K: hazard pointers per thread
    // R: limbo size that triggers a scan. 0 means 2H + 100 with H = K x registered threads (Hart).
    std::size_t scan_threshold = 0;
  };
  static constexpr std::tuple tunables{
      tunable{"slots", &config::slots, "hazard pointers per thread (K)", 1u},
      tunable{"scan_threshold", &config::scan_threshold, "retired nodes that trigger a scan (R); 0 = 2H + 100 with H = K x threads"}};
  static constexpr reclaimer_traits traits{.bounded_garbage = true, .slot_based_protection = true, .metrics = {.protect_retries = true}};
  // Tests: a small R so that scans (and the version-checked slot reads) run constantly.
  static config eager_config() { return {.slots = 4, .scan_threshold = 8}; }

  // Non-const pointee: Relacy's atomics cannot hold pointers to const. Scans only compare them.
  using hazard = core::atomic<core::retired_node*>;

  // K hazards per thread on cache lines of their own, and hold()'s version, (3) above.
  using hazards = detail::published_words<hazard>;
  using slot = typename hazards::slot;

  template <class Base>
  class domain_state : public Base {
   public:
    using Base::Base;

    unsigned protect_slots() const { return this->configuration().slots; }

    // The fence pair, set up once with the domain (before any handle can exist).
    const Fences& fence_policy() const { return fences_; }

    // R with the threads registered now.
    std::size_t scan_threshold() {
      if (this->configuration().scan_threshold != 0) return this->configuration().scan_threshold;
      const std::size_t h = std::size_t{this->configuration().slots} * this->registry().active_threads();
      return 2 * h + 100;
    }

   private:
    [[no_unique_address]] Fences fences_{};
  };

  template <class Base>
  class thread_state : public Base {
   public:
    using protection = hazard*;  // what a protection slot keeps: its hazard's address

   protected:
    explicit thread_state(typename Base::domain_type& d)
        : Base(d), fences_(d.fence_policy()), lines_(hazards::claim(this->slot(), d.protect_slots())) {}

    // Every slot was released (cleared) with its protection_slot: free what nobody protects,
    // hand the rest to the domain.
    ~thread_state() {
      scan();
      this->donate(limbo_.take_all());
    }

    void enter() {}
    void leave() {}

    protection protection_at(unsigned i) { return &hazards::at(lines_, i); }

    // Reads `src` and keeps its target protected in h until h is reused or cleared. Retries
    // (and counts) while the link changes under us.
    template <class T>
    core::marked_ptr<T> protect(hazard* h, const core::atomic_marked_ptr<T>& src) {
      // acquire: pairs with the release that published the node (a null result is returned
      // as read; there is nothing to protect).
      core::marked_ptr<T> p = src.load(core::mo_acquire);
      for (;;) {
        if (p.get() == nullptr) {
          clear(h);
          return p;
        }
        h->store(static_cast<core::retired_node*>(p.get()), core::mo_release);  // (2)
        // Fence X: the hazard is visible before the re-read; pairs with fence Y in scan(), (1)
        // above (a seq_cst fence; hp_asym: a compiler barrier, paired with membarrier).
        fences_.reader();
        // acquire: pairs with the release that published the node.
        const core::marked_ptr<T> q = src.load(core::mo_acquire);
        if (q == p) return q;
        this->tc().stats().protect_retries.add();
        p = q;
      }
    }

    // The first half of a protect() that its caller completes (the standard facade's
    // try_protect: fence X, then the re-read): no version bump, as that validation is (1)'s.
    // A bump per step would make a scan that collects this thread's hazards retry for as long
    // as the thread keeps traversing.
    void announce(hazard* h, const core::retired_node* p) {
      h->store(const_cast<core::retired_node*>(p), core::mo_release);  // (2)
    }

    void hold(hazard* h, const core::retired_node* p) {
      h->store(const_cast<core::retired_node*>(p), core::mo_release);  // release: see (2), (3)
      hazards::bump_version(this->slot());  // (3)
    }

    void clear(hazard* h) {
      // release: our accesses to the protected node happen before a scanner that reads null.
      if (h->load(core::mo_relaxed) != nullptr) h->store(nullptr, core::mo_release);
    }

    void retire(core::retired_node* n) {
      limbo_.push(n);
      this->tc().note_retired();
      if (limbo_.size() >= this->domain().scan_threshold()) scan();
    }

    std::size_t unreclaimed() const { return limbo_.size(); }

    // The reclaim-now step: a scan frees every node no hazard holds.
    void reclaim_step() { scan(); }

   private:
    void scan() {
      limbo_.splice(this->adopt_orphans());
      if (limbo_.empty()) return;
      this->tc().record_instant(core::event_kind::garbage, limbo_.size());
      // Fence Y: every node in limbo was unlinked before it; pairs with fence X in protect(),
      // (1) above (a seq_cst fence; hp_asym: membarrier).
      fences_.scanner();
      set_.clear();
      const unsigned k = this->domain().protect_slots();
      // Acquire loads of every hazard, pairing with the release stores (2) and (3) above.
      this->for_each_slot([&](auto& s) {
        const std::size_t before = set_.size();
        hazards::collect(s, k, [&](core::retired_node* p) { set_.add(p); }, [&] { set_.truncate(before); });
      });
      set_.seal();
      this->release_safe(set_.extract_unprotected(limbo_));
    }

    [[no_unique_address]] Fences fences_;  // a copy of the domain's: nothing shared to read
    typename hazards::line* lines_;
    detail::limbo_bag limbo_;
    detail::protected_set set_;
  };
};

using hp_rule = hp_rule_with<hp_symmetric_fences>;

template <class FreePolicy = core::batch_free> using basic_hp = basic_domain<hp_rule, FreePolicy>;
using hp = basic_hp<>;
using hp_af = basic_hp<core::amortized_free<>>;

}  // namespace smr
