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
//  (3) hold(i, p) copies a node that slot j already protects. A scanner reads a thread's slots
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
// Usage contract: one guard per handle at a time. Slot indices are < protect_slots(). hold(i, p)
// needs p protected in another slot of the same guard (or not yet published).
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "smr/core/atomic.hpp"
#include "smr/core/free_policy.hpp"
#include "smr/core/guard_base.hpp"
#include "smr/core/handle_base.hpp"
#include "smr/core/marked_ptr.hpp"
#include "smr/core/node.hpp"
#include "smr/core/protected_set.hpp"
#include "smr/core/traits.hpp"

namespace smr {

struct hp_config {
  unsigned slots = 4;  // K: hazard pointers per thread
  // R: limbo size that triggers a scan. 0 means 2H + 100 with H = K x registered threads (Hart).
  std::size_t scan_threshold = 0;
  core::timeline* timeline = nullptr;
};

template <class FreePolicy = core::batch_free>
class basic_hp {
 public:
  using config = hp_config;
  using node_base = core::retired_node;
  template <class T>
  using atomic_ptr = core::atomic_marked_ptr<T>;

  static constexpr std::string_view base_name = "hp";
  static constexpr reclaimer_traits traits{
      .protects_unlinked_traversal = false,
      .continues_after_write = true,
      .bounded_garbage = true,
      .slot_based_protection = true,
      .metrics = {.protect_retries = true},
  };

  explicit basic_hp(config cfg = {}) : cfg_(cfg), core_(cfg.timeline) {
    if (cfg_.slots == 0) cfg_.slots = 1;
  }

  class handle;
  class guard;

  core::stats_snapshot stats() { return core_.stats(); }
  unsigned protect_slots() const { return cfg_.slots; }

  // R with the threads registered now.
  std::size_t scan_threshold() {
    if (cfg_.scan_threshold != 0) return cfg_.scan_threshold;
    const std::size_t h = std::size_t{cfg_.slots} * core_.registry().active_threads();
    return 2 * h + 100;
  }

 private:
  // Non-const pointee: Relacy's atomics cannot hold pointers to const. Scans only compare them.
  using hazard = core::atomic<core::retired_node*>;

  // A thread's K hazards fill whole cache lines of their own, so no two threads share a line.
  struct alignas(core::cache_line) hazard_line {
    static constexpr std::size_t size = std::max<std::size_t>(1, core::cache_line / sizeof(hazard));
    hazard hp[size];
  };

  struct slot {
    slot() = default;
    slot(const slot&) = delete;
    slot& operator=(const slot&) = delete;
    ~slot() { delete[] lines.load(core::mo_relaxed); }

    // ceil(K / line size) lines, allocated by the slot's first owner and kept for later owners
    // (K is fixed per domain). Null until then: the slot protects nothing.
    core::atomic<hazard_line*> lines{nullptr};
    core::atomic<std::uint64_t> version{0};  // bumped by every hold(); see (3) above
    core::thread_stats stats;
  };

  static hazard& at(hazard_line* lines, unsigned i) {
    return lines[i / hazard_line::size].hp[i % hazard_line::size];
  }

  // Adds every hazard of `s` to `set` (a union over retries, which is only more conservative).
  void collect(slot& s, core::protected_set& set) const {
    // acquire: pairs with the release in handle() that published the lines.
    hazard_line* lines = s.lines.load(core::mo_acquire);
    if (lines == nullptr) return;
    for (;;) {
      // acquire: pairs with the release bump in hold(); the copies made before it are visible.
      const std::uint64_t v = s.version.load(core::mo_acquire);
      for (unsigned i = 0; i < cfg_.slots; ++i) {
        // acquire: pairs with the release hazard stores, (2) and (3) above.
        set.add(at(lines, i).load(core::mo_acquire));
      }
      // The acquire loads above keep this load after them.
      if (s.version.load(core::mo_relaxed) == v) return;
    }
  }

  config cfg_;
  core::domain_core<slot> core_;

 public:
  class handle : public core::handle_base<slot, FreePolicy> {
    using base = core::handle_base<slot, FreePolicy>;

   public:
    explicit handle(basic_hp& d) : base(d.core_), domain_(&d) {
      slot& s = this->slot();
      // relaxed: only owners write `lines`, and our acquire claim of the slot follows the
      // previous owner's release.
      lines_ = s.lines.load(core::mo_relaxed);
      if (lines_ == nullptr) {
        const unsigned n = (d.cfg_.slots + hazard_line::size - 1) / hazard_line::size;
        lines_ = new hazard_line[n]{};
        // release: scanners that see the pointer (acquire in collect) see null hazards.
        s.lines.store(lines_, core::mo_release);
      }
    }

    ~handle() {
      assert(!in_op_ && "a guard outlived its handle");
      // Our hazards are clear: free what nobody protects, hand the rest to the domain.
      scan();
      this->domain_core_ref().donate(limbo_.take_all());
    }

    guard begin_op() { return guard(*this); }
    std::size_t unreclaimed() const { return limbo_.size() + this->free_.pending(); }

   private:
    friend class guard;

    hazard& hazard_at(unsigned i) {
      assert(i < domain_->cfg_.slots && "hazard slot index out of range");
      return at(lines_, i);
    }

    void enter() {
      assert(!in_op_ && "one guard per handle at a time");
      in_op_ = true;
      this->free_.on_operation(this->tc());
    }

    void exit() {
      for (unsigned i = 0; i < domain_->cfg_.slots; ++i) {
        hazard& h = at(lines_, i);
        // release: our accesses to the protected node happen before a scanner that reads null.
        if (h.load(core::mo_relaxed) != nullptr) h.store(nullptr, core::mo_release);
      }
      in_op_ = false;
    }

    void hold(unsigned i, core::retired_node* p) {
      hazard_at(i).store(p, core::mo_release);  // release: see (2), (3)
      slot& s = this->slot();
      // release: a scanner that reads this bump (acquire) also sees the copy above, (3).
      s.version.store(s.version.load(core::mo_relaxed) + 1, core::mo_release);
    }

    void retire(core::retired_node* n) {
      limbo_.push(n);
      this->tc().note_retired();
      if (limbo_.size() >= domain_->scan_threshold()) scan();
    }

    void scan() {
      limbo_.splice(this->domain_core_ref().adopt());
      if (limbo_.empty()) return;
      this->tc().record_instant(core::event_kind::garbage, limbo_.size());
      // seq_cst fence (Y): every node in limbo was unlinked before it; pairs with fence X in
      // protect(), (1) above.
      core::fence(core::mo_seq_cst);
      set_.clear();
      domain_->core_.registry().for_each([&](slot& s, std::size_t) { domain_->collect(s, set_); });
      set_.seal();
      this->release_safe(set_.extract_unprotected(limbo_));
    }

    basic_hp* domain_;
    hazard_line* lines_ = nullptr;
    core::limbo_bag limbo_;
    core::protected_set set_;
    bool in_op_ = false;
  };

  class guard : public core::guard_base<guard> {
   public:
    explicit guard(handle& h) : h_(&h) { h.enter(); }
    ~guard() { h_->exit(); }
    guard(const guard&) = delete;
    guard& operator=(const guard&) = delete;

    // Reads `src` and keeps its target protected in slot i until the slot is reused or the
    // guard ends. Retries (and counts) while the link changes under us.
    template <class T>
    core::marked_ptr<T> protect(unsigned i, const atomic_ptr<T>& src) {
      hazard& h = h_->hazard_at(i);
      // acquire: pairs with the release that published the node (a null result is returned
      // as read; there is nothing to protect).
      core::marked_ptr<T> p = src.load(core::mo_acquire);
      for (;;) {
        if (p.get() == nullptr) {
          h.store(nullptr, core::mo_release);  // release: see (2)
          return p;
        }
        h.store(static_cast<core::retired_node*>(p.get()), core::mo_release);  // (2)
        // seq_cst fence (X): the hazard is visible before the re-read; pairs with fence Y in
        // scan(), (1) above.
        core::fence(core::mo_seq_cst);
        // acquire: pairs with the release that published the node.
        const core::marked_ptr<T> q = src.load(core::mo_acquire);
        if (q == p) return q;
        h_->tc().stats().protect_retries.add();
        p = q;
      }
    }

    template <class T>
    void hold(unsigned i, T* p) {
      h_->hold(i, static_cast<core::retired_node*>(p));
    }

    void retire(node_base* n) { h_->retire(n); }

   private:
    handle* h_;
  };

  handle attach() { return handle(*this); }
};

using hp = basic_hp<>;

}  // namespace smr
