// LLX and SCX (Brown, Ellen, Ruppert, "Pragmatic primitives for non-blocking data structures",
// PODC 2013), with reusable per-thread SCX records (Brown, "Reuse, don't recycle", DISC 2017),
// for trees built on them (ds/ab_tree.hpp).
//
// The primitives: LLX(r) returns a snapshot of node r's mutable fields (its child links) if no
// SCX is changing r and r is not finalized; SCX(V, R, fld, new) then changes one link `fld` of a
// node of V to `new` and finalizes the nodes of R, atomically, and only if no node of V changed
// since the LLX that read it. Here R is always V minus its first node, fld is a link of V[0], and
// the link's old value is V[1] (every update of the trees replaces one child of V[0] by a new
// subtree and removes the nodes it rebuilt): the record stores V, the infos the LLXs read, the
// link's index and the new child.
//
// The SCX protocol (Help, BER13 Fig. 3): freeze every node of V in order by a CAS of its `info`
// from the value the LLX read to the SCX's tag; if one fails because another SCX got there first,
// the SCX aborts (unless all were frozen already: a helper that comes late). Once all are frozen:
// mark every node of R (finalized, for good), CAS the link from V[1] to the new child, commit.
// Any thread that finds a node frozen by an SCX in progress helps it through the same steps, so
// a thread stalled mid-SCX blocks nobody; every step is idempotent.
//
// Records are not allocated per SCX: each thread leases one record (a thread_registry slot) per
// operation, and a node's info holds a tag, (sequence number, record id), instead of a pointer.
// A tag is never made twice: a record whose sequence numbers are used up (2^44 SCXs) is kept
// leased for good and its lease takes another (a stale tag left in a node's info would
// otherwise look current again, and two SCXs could both freeze that node).
// A record's `status` word holds its current sequence number and the phase of that SCX
// (in_progress, all_frozen, committed, aborted). A tag whose sequence number is not the record's
// current one names an SCX that is over: its owner finished it (owners do every step themselves,
// so everything it did happens before the record's reuse). A helper copies a record's fields and
// validates the copy like a sequence lock; it helps only an SCX still in progress at the copy.
//
// Why helpers stay memory-safe (the tree's reclaimer must protect traversals through unlinked
// nodes): an SCX in progress at time T has retired nothing yet (its owner retires R only after
// the commit, and a node of V cannot be replaced by another SCX while frozen for this one), so
// the nodes of a copy validated in progress at T were not retired before T. An epoch scheme's
// operation that includes T keeps them; under NBR, the helper reserves them in the read phase
// that made the copy (ab_tree::help). The link CAS compares against V[1], a node the helper
// protects, so its address cannot be reused meanwhile; V[1] never returns to the link once
// finalized, so a late helper's CAS fails. This needs V closed under parents: each V[k], k >= 1,
// read by an LLX of an earlier node of V as its child (ab_tree's steps all build V so). An
// unrelated node could be replaced and retired by another SCX before this one's freeze reaches
// it, and a helper that copied this SCX after that retirement would read freed memory.
//
// Memory orders:
//  - the owner's first status store (new sequence number) is a release: a reader that finds the
//    tag stale (acquire) sees every step the owner did for that SCX (its marks, its link CAS);
//    then a release fence, so that a copy that reads any field of the new SCX also reads the new
//    sequence number after its acquire fence (the sequence-lock pair);
//  - freeze CAS: release, publishing the record's fields (written before it) to any thread that
//    reads the tag from the node's info (acquire), and from helpers' freezes onward, transitively;
//  - marks: relaxed, ordered for LLX's readers by the commit (release) they read first;
//  - link CAS: release, publishing the new nodes' fields to searches' acquire loads of the link;
//  - commit CAS: release, so a thread that reads `committed` (acquire) sees the marks and the link.
#pragma once

#include <cstddef>
#include <cstdint>

#include "smr/core/atomic.hpp"
#include "smr/core/marked_ptr.hpp"
#include "smr/detail/chaos.hpp"
#include "smr/detail/checks.hpp"
#include "smr/detail/thread_registry.hpp"

namespace smr::detail {

#if defined(SMR_RELACY)
// Model runs only: how many helpers' record copies were taken (a model's evidence that it helps).
inline unsigned long long llx_scx_copies_taken = 0;
#endif

// Node needs: core::atomic<std::uint64_t> info (0 at construction), core::atomic<bool> marked
// (false at construction), and link(i) returning its i-th child link (R::atomic_ptr<Node>).
// SequenceBits: the sequence numbers' width in a tag (fewer only in tests, to use them up).
template <class Node, unsigned MaxV, unsigned SequenceBits = 44>
class llx_scx {
 public:
  using tag_t = std::uint64_t;

 private:
  // One thread's SCX record, reused for each of its SCXs.
  struct record {
    core::atomic<std::uint64_t> status{0};  // sequence number << phase_bits | phase
    core::atomic<unsigned> count{0};
    core::atomic<Node*> v[MaxV] = {};
    core::atomic<tag_t> seen[MaxV] = {};
    core::atomic<unsigned> field{0};
    core::atomic<Node*> fresh{nullptr};
  };

 public:

  enum class llx_result {
    ok,         // the snapshot was taken and r is unchanged across it
    finalized,  // r was removed by a committed SCX: the caller's view is stale
    busy,       // an SCX is changing r (help it: busy_tag) or r changed during the snapshot
  };

  // One SCX as its record describes it (the owner's arguments, or a helper's copy).
  struct scx_op {
    tag_t tag = 0;
    unsigned count = 0;  // nodes in v
    Node* v[MaxV] = {};
    tag_t seen[MaxV] = {};  // v[i]'s info as the LLX read it
    unsigned field = 0;     // the link of v[0] that changes, from v[1] to fresh
    Node* fresh = nullptr;
  };

  // A thread's record for the length of one operation (taken at its first SCX).
  class lease {
   public:
    explicit lease(llx_scx& owner) : owner_(&owner) {}
    lease(const lease&) = delete;
    lease& operator=(const lease&) = delete;
    ~lease() {
      if (entry_ != nullptr) owner_->records_.give_back(*entry_);
    }

   private:
    friend class llx_scx;
    typename thread_registry<record>::entry& get() {
      if (entry_ == nullptr) {
        entry_ = &owner_->records_.lease(preferred_id());
        // A tag holds id + 1 in id_bits bits: refused rather than wrapped onto another record.
        if (entry_->id + 1 >= (std::size_t{1} << id_bits))
          misuse("llx_scx: more than 1,048,575 operations with an SCX at once (the tags' record ids)");
        preferred_id() = entry_->id;
      }
      return *entry_;
    }
    // The record's sequence numbers are used up: it stays leased for good (none of its tags is
    // made again), and this lease takes another record.
    typename thread_registry<record>::entry& renew() {
      entry_ = nullptr;
      return get();
    }
    // Per thread (and per Node type): the record id this thread used last.
    static std::size_t& preferred_id() {
      static thread_local std::size_t id = 0;
      return id;
    }
    llx_scx* owner_;
    typename thread_registry<record>::entry* entry_ = nullptr;
  };

  // LLX(r): `copy()` reads r's child links (acquire loads); their values are a snapshot if the
  // result is ok. On busy, busy_tag is the SCX to help (0: r only changed, retry).
  template <class Copy>
  llx_result llx(Node* r, Copy&& copy, tag_t& info, tag_t& busy_tag) {
    busy_tag = 0;
    // acquire: pairs with the freeze CAS (release) that wrote the tag, so the record's fields
    // of that SCX are visible to a later copy of it.
    info = r->info.load(core::mo_acquire);
    if (in_progress(info)) {
      busy_tag = info;
      return llx_result::busy;
    }
    // The SCX that last froze r is over; if it committed with r in R, in_progress()'s acquire
    // read of its committed (or stale) status ordered the mark before this load.
    if (r->marked.load(core::mo_relaxed)) return llx_result::finalized;
    copy();  // acquire loads: the re-read below cannot move above them
    chaos_point();
    // relaxed: ordered after copy()'s acquire loads; unchanged means no SCX froze r since the
    // first read, so no link of r changed (links change only under a freeze).
    return r->info.load(core::mo_relaxed) == info ? llx_result::ok : llx_result::busy;
  }

  // SCX by the owner: fills its leased record and runs the protocol. True if it committed
  // (op.tag is set here); false if another SCX froze a node of V first.
  bool scx(lease& l, scx_op& op) {
    auto* e = &l.get();
    // relaxed: the sequence bits are written only by the record's owner, which we are (helpers
    // CAS the phase bits only).
    std::uint64_t seq = (e->slot.status.load(core::mo_relaxed) >> phase_bits) + 1;
    // A loop: a record whose last SCX used its last sequence number was given back as any
    // other, so the renewed lease may find another used-up one (kept for good in turn).
    while (seq > seq_mask) [[unlikely]] {
      e = &l.renew();
      seq = (e->slot.status.load(core::mo_relaxed) >> phase_bits) + 1;
    }
    record& rec = e->slot;
    op.tag = make_tag(seq, e->id);
    // release: a reader that sees this sequence number (stale tag) sees the previous SCX's steps.
    rec.status.store(status_of(op.tag, in_progress_phase), core::mo_release);
    // release fence: a helper that reads any field below also reads the new status (its
    // acquire fence in copy()): the sequence lock's writer side.
    core::fence(core::mo_release);
    rec.count.store(op.count, core::mo_relaxed);
    for (unsigned i = 0; i < op.count; ++i) {
      rec.v[i].store(op.v[i], core::mo_relaxed);
      rec.seen[i].store(op.seen[i], core::mo_relaxed);
    }
    rec.field.store(op.field, core::mo_relaxed);
    rec.fresh.store(op.fresh, core::mo_relaxed);
    return help(op);
  }

  // A helper's copy of the SCX `tag` names: false if that SCX is no longer in progress.
  bool copy(tag_t tag, scx_op& op) {
#if defined(SMR_RELACY)
    ++llx_scx_copies_taken;
#endif
    record& rec = record_of(tag);
    op.tag = tag;
    op.count = rec.count.load(core::mo_relaxed);
    if (op.count > MaxV) op.count = MaxV;  // a torn read of a reused record; validated below
    for (unsigned i = 0; i < op.count; ++i) {
      op.v[i] = rec.v[i].load(core::mo_relaxed);
      op.seen[i] = rec.seen[i].load(core::mo_relaxed);
    }
    op.field = rec.field.load(core::mo_relaxed);
    op.fresh = rec.fresh.load(core::mo_relaxed);
    // acquire fence: pairs with the owner's release fence; a field of a newer SCX read above
    // implies the newer sequence number read below.
    core::fence(core::mo_acquire);
    const std::uint64_t st = rec.status.load(core::mo_relaxed);
    return same_scx(st, tag) && phase_of(st) <= all_frozen_phase;
  }

  // Help(U): the protocol's steps, by the owner or a helper. True if the SCX committed (for a
  // helper: or is over and may have).
  bool help(const scx_op& op) {
    record& rec = record_of(op.tag);
    for (unsigned i = 0; i < op.count; ++i) {
      tag_t expected = op.seen[i];
      chaos_point();
      // release: see the header (publishes the record's fields with the tag).
      if (op.v[i]->info.compare_exchange_strong(expected, op.tag, freeze_order())) continue;
      if (expected == op.tag) continue;  // a helper froze it for us
      // Another SCX holds v[i]: abort, unless every node was frozen already (we are late).
      std::uint64_t st = rec.status.load(core::mo_acquire);
      for (;;) {
        if (!same_scx(st, op.tag)) return true;  // over: its owner finished it
        const std::uint64_t phase = phase_of(st);
        if (phase == aborted_phase) return false;
        if (phase != in_progress_phase) goto frozen;  // all_frozen or committed
        // relaxed: the abort publishes nothing; a failed CAS rereads the phase.
        if (rec.status.compare_exchange_strong(st, with_phase(st, aborted_phase), core::mo_relaxed)) return false;
      }
    }
    {
      // relaxed: only the phase matters to whoever reads it next (helpers go on to the marks).
      std::uint64_t st = status_of(op.tag, in_progress_phase);
      if (!rec.status.compare_exchange_strong(st, status_of(op.tag, all_frozen_phase), core::mo_relaxed) &&
          !same_scx(st, op.tag))
        return true;  // over (no one aborts an SCX whose nodes are all frozen)
      if (checks_on() && phase_of(st) == aborted_phase) misuse("llx_scx: an SCX aborted after all its nodes were frozen (a bug in smr)");
    }
  frozen:
    // relaxed: ordered for LLX's readers by the commit CAS (release) below, or by the owner's
    // next status store (release) when they find the tag stale.
    for (unsigned i = 1; i < op.count; ++i) op.v[i]->marked.store(true, core::mo_relaxed);
    chaos_point();
    auto expected = core::marked_ptr<Node>(op.v[1]);
    // release: the new subtree's fields happen before any search that reads it from the link.
    op.v[0]->link(op.field).compare_exchange_strong(expected, core::marked_ptr<Node>(op.fresh), core::mo_release);
    std::uint64_t st = status_of(op.tag, all_frozen_phase);
    // release: see the header (marks and link before `committed`).
    rec.status.compare_exchange_strong(st, status_of(op.tag, committed_phase), core::mo_release);
    return true;
  }

  // Whether the SCX that `info` names is still in progress (0: the node was never frozen).
  bool in_progress(tag_t info) {
    if (info == 0) return false;
    // acquire: pairs with the commit CAS (release), or the owner's next status store, so the
    // marks of a finished SCX are visible to what follows.
    const std::uint64_t st = record_of(info).status.load(core::mo_acquire);
    return same_scx(st, info) && phase_of(st) <= all_frozen_phase;
  }

 private:
  static core::memory_order freeze_order() {
#if defined(SMR_RELACY)
    // Planted bug (tests/relacy/ab_tree_model.cpp only): the freeze publishes nothing.
    if (core::relacy_plant::relaxed_freeze) return core::mo_relaxed;
#endif
    return core::mo_release;
  }
  static constexpr unsigned id_bits = 20;  // up to about a million threads
  static constexpr unsigned phase_bits = 2;
  // Sequence numbers run from 1 to seq_mask and never wrap (scx() renews the lease instead): a
  // tag that came back while an old copy of it sat in a node's info would make that copy look
  // current, and an SCX of the new tag and another whose LLX read the old copy as stale could
  // both freeze the node (the first CAS from the tag to itself changes nothing).
  static_assert(SequenceBits >= 1 && SequenceBits + id_bits <= 64 && SequenceBits + phase_bits <= 64,
                "llx_scx: a tag holds the sequence number and the record id in 64 bits");
  static constexpr std::uint64_t seq_mask = (std::uint64_t{1} << SequenceBits) - 1;
  static constexpr std::uint64_t in_progress_phase = 0, all_frozen_phase = 1, committed_phase = 2,
                                 aborted_phase = 3;

  // A tag: the SCX's sequence number, then its record's id + 1 (so that no tag is 0).
  static tag_t make_tag(std::uint64_t seq, std::size_t id) {
    return seq << id_bits | static_cast<tag_t>(id + 1);
  }
  static std::uint64_t phase_of(std::uint64_t status) { return status & ((1u << phase_bits) - 1); }
  static std::uint64_t with_phase(std::uint64_t status, std::uint64_t phase) {
    return (status & ~std::uint64_t{(1u << phase_bits) - 1}) | phase;
  }
  static std::uint64_t status_of(tag_t tag, std::uint64_t phase) { return (tag >> id_bits) << phase_bits | phase; }
  // Whether the record's current SCX is the one `tag` names.
  static bool same_scx(std::uint64_t status, tag_t tag) { return (status >> phase_bits) == (tag >> id_bits); }
  record& record_of(tag_t tag) {
    return records_.slot_at(static_cast<std::size_t>((tag & ((tag_t{1} << id_bits) - 1)) - 1));
  }

  thread_registry<record> records_;
};

}  // namespace smr::detail
