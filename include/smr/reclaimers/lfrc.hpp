// LFRC: lock-free reference counting, Valois (1995) with the corrections of Michael and Scott
// (1995), as Hart et al. (2007) §2.4 use it.
//
// What it is: every node carries a count of the references to it, both the links that point to
// it (other nodes' links and the structure's roots) and the local references threads hold. A
// thread takes a reference before it reads a node (SafeRead: add to the target's count, then
// re-read the link; if the link moved on, give the reference back and retry) and gives it back
// when done. A node whose count reaches zero is reclaimed: its own links are released (which
// may reclaim their targets in turn) and its memory goes back to a per-domain free list.
//
// The counted link type: smr::lfrc's atomic_ptr<T> is counted_link<T>. Every write of a link
// counts the target it installs (+1 before the write) and releases the target it overwrites (-1
// after it succeeds); its destructor releases its target. So a structure written against the
// reclaimer concept counts its links without knowing it, as long as it only writes pointers to
// nodes it holds (read through protect(), or created by this operation): the trait
// reads_written_nodes says so, and structures that write unprotected pointers are refused.
//
// Type-stable memory: a reference is taken by adding to the count of a node read from a link
// *before* the validation shows that the node is still there; the node may have been reclaimed
// meanwhile, so the count must stay valid memory. Each node's storage is preceded by an
// lfrc_cell (the count and the free-list link) that lives as long as the domain: node memory
// never goes back to the allocator while the domain lives, only to the domain's free list of
// its node type (Valois' free list, itself read with SafeRead). In poison mode and under ASan the
// node part of a free block is poisoned, so a read of a reclaimed node is still caught. Blocks
// come from the node memory resource when one is installed (core/node.hpp; smrbench's bounded
// pool), which then bounds the blocks, not the free nodes.
//
// The count: 2 per reference, bit 0 the claim bit (Michael and Scott's correction). The thread
// whose decrement brings the count to 0 must also win CAS(0 -> 1) to reclaim; a SafeRead that
// added to a node already at 0 then gives its reference back itself, and exactly one of them
// reclaims. A node on the free list has the claim bit set, so the transient +2/-2 of a stale
// SafeRead never reaches 0 again; allocation clears the bit once the new node is built.
//
// Why it cannot bound memory (Hart §2.4; Michael and Scott report running out of memory): a
// node is freed only when no reference to it remains, and a thread stalled while holding one
// reference keeps alive that node, everything it links to, and so on down a chain of removed
// nodes of any length; garbage that forms a cycle is never freed at all (the data structures
// smr runs with lfrc form none: a removed list node points forward only). The unreclaimed
// statistic counts retired nodes not yet freed. Hart et al. include LFRC to reproduce Michael's
// finding (2002) that its per-node atomic increments and decrements make lockless traversals
// slower than any other scheme; that is what smr has it for, not for production use.
//
// Why it is safe (proof sketch). A reader R adds 2 to n's count (A, acq_rel) and then re-reads
// the link (L, acquire) and sees n. An unlinker U replaced n in that link (C) and then released
// the link's reference (D, acq_rel). Suppose D came before A in the count's modification order.
// A then reads from D or a later RMW, so D synchronizes with A (every RMW continues D's release
// sequence), hence C happens before L and L cannot read the value C overwrote: contradiction.
// So A comes before D, and the count includes R's reference until R's own decrement. The node is
// reclaimed only by the thread whose decrement reaches 0 and whose claim CAS (acq_rel) succeeds;
// every earlier decrement is a release that the claim reads through the release sequence, so
// every holder's accesses happen before the reclamation.
//
// Usage contract: protection goes through protection_slot / guarded_ptr objects (each slot holds
// one reference; at most `slots` at once per thread). A created node is held by the operation
// that created it until the operation ends (or dispose()). A reference a link write drops is
// given back when the thread's operation ends, so the old value of an exchange or the expected
// value of a CAS can still be retired in that operation; outside operations (a teardown) at
// once. No thread owns retired nodes: unreclaimed() and the reclaim-now barrier are the
// domain's (retired nodes still referenced by anyone). Structures must reach nodes only
// through counted_link<T> of the node's own type T (no base-class links to derived nodes), must
// write only pointers to nodes they hold, and must not free linked nodes themselves: a teardown
// releases the roots (the chain teardown in detail/sorted_list_inspection.hpp does). The trait
// counted_links tells structures and the compatibility rule (core/traits.hpp) apart. Amortized
// free does not apply: nodes are freed one at a time, when their last reference goes.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "smr/core/domain.hpp"
#include "smr/detail/type_stable_memory.hpp"

namespace smr {

namespace detail {

class lfrc_pool;

// Precedes every node's storage and lives as long as the domain (type-stable memory).
struct lfrc_cell {
  static constexpr std::uint64_t one_ref = 2, claimed = 1;

  explicit lfrc_cell(lfrc_pool* owner) : pool(owner) {}

  core::atomic<std::uint64_t> count{one_ref | claimed};  // a new block: claimed, its creator's reference
  core::atomic<lfrc_cell*> next_free{nullptr};  // the pool's free list; the reclaim worklist
  lfrc_cell* next_block = nullptr;              // every block of the pool, for the teardown
  lfrc_pool* const pool;
  // Whether the block holds a node: set when its node is built (ready()), cleared when the
  // constructor threw (give_back()), read by recycle(). Only the block's owner of the moment
  // touches it: its creator, then whoever claims it at count 0, whose acq_rel claim acquires
  // the creator's release decrement.
  bool built = false;
};

// Where the node of a cell starts: the cell, then T at the next multiple of T's alignment.
template <class T>
inline constexpr std::size_t lfrc_object_offset =
    (sizeof(lfrc_cell) + alignof(T) - 1) / alignof(T) * alignof(T);

template <class T>
lfrc_cell* lfrc_cell_of(const T* node) {
  return reinterpret_cast<lfrc_cell*>(const_cast<char*>(reinterpret_cast<const char*>(node)) - lfrc_object_offset<T>);
}

// What one thread keeps for lfrc, whatever domain or handle it goes through: the references its
// link writes dropped during the operation under way, and the worklist of blocks to reclaim.
struct lfrc_thread_context {
  // The first few inline: an operation drops one or two (no allocation on the common path, and
  // none the model checker would have to explore).
  static constexpr std::size_t inline_refs = 16;

  void defer(lfrc_cell* c) {
    if (deferred < inline_refs) first[deferred++] = c;
    else more.push_back(c);  // cannot throw after make_room()
  }
  // Called before a link write: the reference it drops is then deferred without allocating, so
  // a write that took effect never throws (its dropped reference would be lost, the structure
  // told that a successful CAS failed).
  void make_room() {
    if (deferred >= inline_refs && more.size() == more.capacity()) more.reserve(2 * more.capacity() + inline_refs);
  }
  // Gives back every deferred reference. A release may reclaim a node, whose links then give
  // their references back at once (depth is 0 by then): nothing is appended meanwhile.
  template <class Release>
  void drain(Release&& release) {
    for (std::size_t i = 0; i < deferred; ++i) release(first[i]);
    deferred = 0;
    for (lfrc_cell* c : more) release(c);
    more.clear();
  }

  unsigned depth = 0;            // outermost operations of lfrc handles in progress
  lfrc_cell* pending = nullptr;  // claimed blocks waiting to be reclaimed
  bool draining = false;         // a reclaim loop runs on this thread

 private:
  std::size_t deferred = 0;  // references given back when the last operation ends
  std::array<lfrc_cell*, inline_refs> first{};
  std::vector<lfrc_cell*> more;
};

#if defined(SMR_RELACY)
inline constexpr unsigned lfrc_model_threads = 8;

// Relacy's threads are fibers of one OS thread: one context per simulated thread. They outlive
// each explored execution, and one that Relacy cut short (a detection) leaves them half-way, so
// every new lfrc domain (each execution builds its own) starts them afresh.
inline lfrc_thread_context* lfrc_model_contexts() {
  static lfrc_thread_context contexts[lfrc_model_threads];
  return contexts;
}
inline void lfrc_reset_model_contexts() {
  for (unsigned i = 0; i < lfrc_model_threads; ++i) lfrc_model_contexts()[i] = lfrc_thread_context{};
}
#endif

inline lfrc_thread_context& lfrc_this_thread() {
#if defined(SMR_RELACY)
  return lfrc_model_contexts()[rl::ctx().current_thread()];
#else
  thread_local lfrc_thread_context context;
  return context;
#endif
}

// The node storage of one node type in one domain: Valois' free list of claimed blocks.
class lfrc_pool {
 public:
  lfrc_pool(const void* type_key, const void* domain, std::size_t object_offset, std::size_t object_size,
            std::size_t align, core::unreclaimed_gauge& gauge, core::atomic<std::uint64_t>& freed)
      : key_(type_key), domain_(domain), offset_(object_offset), object_size_(object_size),
        align_(std::max(align, alignof(lfrc_cell))), gauge_(&gauge), freed_(&freed) {}
  lfrc_pool(const lfrc_pool&) = delete;
  lfrc_pool& operator=(const lfrc_pool&) = delete;

  // Single-threaded (the domain's destruction): every block goes back to the allocator. A
  // block whose node is still alive (a structure that outlived its domain, or garbage that
  // forms a cycle) goes too, without its destructor.
  virtual ~lfrc_pool() {
    for (lfrc_cell* c = blocks_.load(core::mo_relaxed); c != nullptr;) {
      lfrc_cell* next = c->next_block;
      unpoison_object(object(c), object_size_);
      c->~lfrc_cell();
      free_block(c, align_);
      c = next;
    }
  }

  const void* key() const { return key_; }
  // The domain whose nodes live here: a node retired through another domain's handle would be
  // counted there and freed here (both barriers would then wait forever).
  const void* domain() const { return domain_; }
  void* object(lfrc_cell* c) const { return reinterpret_cast<char*>(c) + offset_; }

  // A block for a new node, claimed and with one local reference (count 3): the caller builds
  // the node, then clears the claim (ready()) or gives the block back (give_back()).
  lfrc_cell* take() {
    for (;;) {
      // acquire: pairs with push()'s release CAS (the block's next_free and its reclamation).
      lfrc_cell* c = free_.load(core::mo_acquire);
      if (c == nullptr) return fresh_block();
      // SafeRead of the free list's head: another thread may take c meanwhile (our CAS then
      // fails), but our reference keeps it from being reclaimed and pushed again, so the CAS
      // below cannot succeed on a stale `next` (no ABA). acq_rel: the file's proof.
      c->count.fetch_add(lfrc_cell::one_ref, core::mo_acq_rel);
      if (free_.load(core::mo_acquire) == c) {
        lfrc_cell* next = c->next_free.load(core::mo_relaxed);  // ordered by the acquire above
        lfrc_cell* expected = c;
        if (free_.compare_exchange_strong(expected, next, core::mo_acquire, core::mo_relaxed)) {
          unpoison_object(object(c), object_size_);
          return c;
        }
      }
      release(c);  // still claimed: the transient reference never frees it
    }
  }

  // The node is built: the block leaves the claimed state with our one reference. relaxed: the
  // node reaches other threads through the release write that links it, and its reclaimer
  // acquires our accesses from the creator's own (acq_rel) decrement at the operation's end.
  static void ready(lfrc_cell* c) {
    c->built = true;
    c->count.fetch_sub(lfrc_cell::claimed, core::mo_relaxed);
  }

  // The node could not be built (its constructor threw). The block must not go straight back
  // to the free list: a take() that read it as the list's head may still hold its transient
  // reference and a stale `next`, and its CAS would then succeed and hand out a block someone
  // else owns (two nodes in one block). So the block leaves the claimed state unbuilt and our
  // reference goes like any other; whoever drops the last one recycles it, with no destructor.
  // release() is acq_rel: the store to `built` happens before that claim.
  void give_back(lfrc_cell* c) {
#if defined(SMR_RELACY)
    if (core::relacy_plant::lfrc_give_back_at_once) {  // tests/relacy/lfrc_pool_model.cpp: the old bug
      c->count.fetch_sub(lfrc_cell::one_ref, core::mo_relaxed);
      push(c);
      return;
    }
#endif
    c->built = false;
    c->count.fetch_sub(lfrc_cell::claimed, core::mo_relaxed);
    release(c);
  }

  // A reference a link write dropped: given back when the thread's operation ends, so that a
  // pointer the write returned (exchange) or expected (CAS) stays valid for the rest of the
  // operation, as under every other reclaimer (retire() reads the node). Outside operations (a
  // teardown), at once.
  static void release_after_op(lfrc_cell* c) {
    if (c == nullptr) return;
    lfrc_thread_context& t = lfrc_this_thread();
    if (t.depth != 0) t.defer(c);
    else release(c);
  }

  // Gives back one reference to the node of c (null: nothing); the last one reclaims it.
  static void release(lfrc_cell* c) {
    if (c == nullptr) return;
    // acq_rel: a release, so our accesses to the node happen before its reclamation; an
    // acquire for the proof's step D -> A. Old value 2: we took the count to 0.
    if (c->count.fetch_sub(lfrc_cell::one_ref, core::mo_acq_rel) != lfrc_cell::one_ref) return;
    std::uint64_t zero = 0;
    // acq_rel: acquires every earlier holder's release decrement through the release sequence.
    // A SafeRead that added to the count since then gives its reference back and may win.
    if (!c->count.compare_exchange_strong(zero, lfrc_cell::claimed, core::mo_acq_rel, core::mo_relaxed)) return;
    reclaim(c);
  }

 protected:
  // Destroys the node of a claimed block (its links release their targets) and reports whether
  // it had been retired.
  virtual bool destroy_object(lfrc_cell* c) = 0;

 private:
  lfrc_cell* fresh_block() {
    void* mem = allocate_block(offset_ + object_size_, align_);
    auto* c = ::new (mem) lfrc_cell(this);  // published with the node, by the write that links it
    // The list of every block: a Treiber push, read only by the single-threaded teardown.
    lfrc_cell* head = blocks_.load(core::mo_relaxed);
    do {
      c->next_block = head;
    } while (!blocks_.compare_exchange_weak(head, c, core::mo_release, core::mo_relaxed));
    return c;
  }

  void push(lfrc_cell* c) {
    lfrc_cell* head = free_.load(core::mo_relaxed);
    do {
      c->next_free.store(head, core::mo_relaxed);
      // release: the destruction of the node and next_free happen before a take() of c.
    } while (!free_.compare_exchange_weak(head, c, core::mo_release, core::mo_relaxed));
  }

  // A claimed block: destroy its node, put the block on the free list. Destroying a node
  // releases its links, which may claim more blocks; those wait on this thread's worklist
  // instead of recursing, so a long chain of removed nodes cannot overflow the stack.
  static void reclaim(lfrc_cell* c) {
    lfrc_thread_context& t = lfrc_this_thread();
    c->next_free.store(t.pending, core::mo_relaxed);  // the block is ours alone now
    t.pending = c;
    if (t.draining) return;
    t.draining = true;
    while (t.pending != nullptr) {
      lfrc_cell* next = t.pending;
      t.pending = next->next_free.load(core::mo_relaxed);
      next->pool->recycle(next);
    }
    t.draining = false;
  }

  void recycle(lfrc_cell* c) {
    const bool was_retired = c->built && destroy_object(c);
    poison_object(object(c), object_size_);
    push(c);
    if (was_retired) {
      gauge_->add(-1);
      // release: the node's destruction happens before a barrier that counts it as freed.
      freed_->fetch_add(1, core::mo_release);
    }
  }

  const void* const key_;
  const void* const domain_;
  const std::size_t offset_, object_size_, align_;
  core::unreclaimed_gauge* const gauge_;
  core::atomic<std::uint64_t>* const freed_;
  core::atomic<lfrc_cell*> free_{nullptr};
  core::atomic<lfrc_cell*> blocks_{nullptr};
};

template <class T>
class lfrc_type_pool final : public lfrc_pool {
 public:
  // Its address names T. Not const: a linker that folds identical read-only data could give two
  // types one key, and so one pool.
  static inline char key = 0;
  lfrc_type_pool(const void* domain, core::unreclaimed_gauge& gauge, core::atomic<std::uint64_t>& freed)
      : lfrc_pool(&key, domain, lfrc_object_offset<T>, sizeof(T), alignof(T), gauge, freed) {}

 private:
  bool destroy_object(lfrc_cell* c) override {
    T* node = static_cast<T*>(object(c));
    const bool retired = core::is_retired(node);
    node->~T();
    return retired;
  }
};

}  // namespace detail

// The header of an lfrc node: where its cell is, for the hooks that get only the header.
struct lfrc_node_base : core::retired_node {
  detail::lfrc_cell* cell = nullptr;
};

// smr::lfrc's link: a marked pointer whose target's count includes this link (file comment).
// Mirrors core::atomic_marked_ptr; every write takes the new target's reference before it and
// gives the old target's back after it, so the pointer written must be one the writer holds.
template <class T>
class counted_link {
 public:
  static constexpr bool counted = true;

  counted_link() = default;
  explicit counted_link(core::marked_ptr<T> p) : bits_(p.bits()) { add_ref(p); }
  counted_link(const counted_link&) = delete;
  counted_link& operator=(const counted_link&) = delete;
  ~counted_link() { detail::lfrc_pool::release(cell(load(core::mo_relaxed))); }

  core::marked_ptr<T> load(core::memory_order mo) const { return core::marked_ptr<T>::from_bits(bits_.load(mo)); }

  void store(core::marked_ptr<T> p, core::memory_order mo) { (void)exchange(p, mo); }

  core::marked_ptr<T> exchange(core::marked_ptr<T> p, core::memory_order mo) {
    detail::lfrc_this_thread().make_room();
    add_ref(p);
    const auto old = core::marked_ptr<T>::from_bits(bits_.exchange(p.bits(), counting_order(mo)));
    detail::lfrc_pool::release_after_op(cell(old));
    return old;
  }

  bool compare_exchange_strong(core::marked_ptr<T>& expected, core::marked_ptr<T> desired, core::memory_order mo) {
    const bool same_target = expected.get() == desired.get();  // a mark changes: counts stay
    if (!same_target) {
      detail::lfrc_this_thread().make_room();
      add_ref(desired);
    }
    std::uintptr_t e = expected.bits();
    if (bits_.compare_exchange_strong(e, desired.bits(), same_target ? mo : counting_order(mo))) {
      if (!same_target) detail::lfrc_pool::release_after_op(cell(expected));
      return true;
    }
    if (!same_target) detail::lfrc_pool::release(cell(desired));
    expected = core::marked_ptr<T>::from_bits(e);
    return false;
  }

  // SafeRead: the link's value with one more reference to its target (none for null); the
  // caller gives it back with lfrc_pool::release. Failed validations are counted in `retries`.
  core::marked_ptr<T> acquire_ref(core::owned_counter& retries) const {
    // acquire: pairs with the release write that published the node.
    core::marked_ptr<T> p = load(core::mo_acquire);
    for (;;) {
      detail::lfrc_cell* c = cell(p);
      if (c == nullptr) return p;
      c->count.fetch_add(detail::lfrc_cell::one_ref, core::mo_acq_rel);  // A in the proof
      const core::marked_ptr<T> q = load(core::mo_acquire);              // L in the proof
      if (q == p) return p;
      detail::lfrc_pool::release(c);
      retries.add();
      p = q;
    }
  }

  // Single-threaded teardown: drops the link's reference, which frees what only it kept alive.
  void release_chain_unsafe() { store(nullptr, core::mo_relaxed); }

  static detail::lfrc_cell* cell(core::marked_ptr<T> p) {
    return p.get() == nullptr ? nullptr : detail::lfrc_cell_of(p.get());
  }

 private:
  // The writer holds p (file comment), so its count is above zero and stays valid.
  static void add_ref(core::marked_ptr<T> p) {
    detail::lfrc_cell* c = cell(p);
    if (c == nullptr) return;
    // Checked mode: the cell found by offset is the node's own (a node lfrc did not create, or a
    // link of a base type to a node whose alignment differs, would have us count in its bytes).
    if (detail::checks_on() && static_cast<const lfrc_node_base*>(p.get())->cell != c)
      detail::misuse("lfrc: a link was given a node lfrc did not create (or through a link of another node type)");
    // relaxed: the holder's reference keeps the count above 0; ordering comes from the write.
    c->count.fetch_add(detail::lfrc_cell::one_ref, core::mo_relaxed);
  }

  // A write that changes a link's target is acq_rel whatever order the structure passed. Its
  // release: the reference it added (relaxed, above) is counted before any later writer that
  // reads this value gives that reference back. Its acquire: the reference it gives back is
  // counted after the one its installer added. Weaker, a decrement could be ordered before the
  // increment it pairs with, take the count to 0 and free a node that is still held (ARM,
  // POWER); free on x86, where every RMW is a full barrier.
  static constexpr core::memory_order counting_order(core::memory_order mo) {
    return mo == core::mo_seq_cst ? mo : core::mo_acq_rel;
  }

  core::atomic<std::uintptr_t> bits_{0};
};

struct lfrc_rule {
  static constexpr std::string_view name = "lfrc", summary = "lock-free reference counting: a count per node, type-stable memory (Valois 1995; Hart et al. 2007, §2.4)";

  struct config {
    unsigned slots = 4;  // references one thread holds at once through protection slots
  };
  static constexpr std::tuple tunables{tunable{"slots", &config::slots, "references a thread holds at once (protection slots)", 1u}};
  static constexpr reclaimer_traits traits{
      .bounded_garbage = false,
      .reads_written_nodes = true,
      .slot_based_protection = true,
      .counted_links = true,
      .type_stable_memory = true,
      .batched_frees = false,
      .metrics = {.protect_retries = true},
  };
  static config eager_config() { return {.slots = 4}; }

  using node_base = lfrc_node_base;
  template <class T>
  using atomic_ptr = counted_link<T>;
  struct slot {};  // nothing is announced: the counts are in the nodes

  // Node types one domain serves (each has its own free list).
  static constexpr std::size_t max_node_types = 8;

  template <class Base>
  class domain_state : public Base {
   public:
#if defined(SMR_RELACY)
    template <class... A>
    explicit domain_state(A&&... a) : Base(std::forward<A>(a)...) {
      detail::lfrc_reset_model_contexts();
    }
#else
    using Base::Base;
#endif
    unsigned protect_slots() const { return this->configuration().slots; }

    core::stats_snapshot stats() {
      core::stats_snapshot s = Base::stats();
      s.freed += freed_.load(core::mo_relaxed);
      return s;
    }

    // Retired nodes of the whole domain not yet freed: no thread holds retired nodes of its own,
    // so this is what every handle's barrier waits for.
    std::size_t retired_not_freed() const {
      // freed first: a node is counted retired before it can be counted freed, so the
      // difference never goes below zero. acquire: pairs with the release count of each free.
      const std::uint64_t freed = freed_.load(core::mo_acquire);
      return static_cast<std::size_t>(retired_.load(core::mo_relaxed) - freed);
    }
    // A retirement, counted at once: the node may be freed by any thread right after, and that
    // free takes it off the gauge at once (a thread's batched count, thread_core::note_retired,
    // would let the gauge go below zero and the peak miss).
    void count_retired() {
      retired_.fetch_add(1, core::mo_relaxed);
      this->gauge().add(1);
    }

    // The free list of T's blocks, made on first use.
    template <class T>
    detail::lfrc_pool& pool_for() {
      return pools_.get(&detail::lfrc_type_pool<T>::key, [&](std::size_t) { return new detail::lfrc_type_pool<T>(this, this->gauge(), freed_); }, "lfrc");
    }

   private:
    core::atomic<std::uint64_t> freed_{0};    // retired nodes reclaimed (threads do not count them)
    core::atomic<std::uint64_t> retired_{0};  // the barrier's count (ordered with freed_)
    detail::pools_by_type<detail::lfrc_pool, max_node_types> pools_;  // last: deleted first
  };

  template <class Base>
  class thread_state : public Base {
   public:
    using protection = detail::lfrc_cell**;  // what a protection slot keeps: its reference

   protected:
    explicit thread_state(typename Base::domain_type& d) : Base(d), held_(d.protect_slots(), nullptr) {
      created_.reserve(4);
    }
    // Every slot was cleared with its protection_slot and every operation ended (leave()).
    ~thread_state() = default;

    void enter() { ++detail::lfrc_this_thread().depth; }
    // The operation's own references to the nodes it created go (linked ones stay alive through
    // their links), and, once no lfrc operation of this thread is left, the references its link
    // writes dropped.
    void leave() {
      for (detail::lfrc_cell* c : created_) detail::lfrc_pool::release(c);
      created_.clear();
      detail::lfrc_thread_context& t = detail::lfrc_this_thread();
      if (--t.depth == 0) t.drain(&detail::lfrc_pool::release);
    }

    protection protection_at(unsigned i) { return &held_[i]; }

    // Takes a reference to the link's target (SafeRead), then gives back the slot's previous
    // one: in that order, because the link may lie inside the node the slot held.
    template <class T>
    core::marked_ptr<T> protect(protection h, const counted_link<T>& src) {
      const core::marked_ptr<T> p = src.acquire_ref(this->tc().stats().protect_retries);
      detail::lfrc_pool::release(*h);
      *h = counted_link<T>::cell(p);
      return p;
    }

    // n is held by another slot of this thread or was created by this operation.
    void hold(protection h, const core::retired_node* n) {
      if (n == nullptr) return clear(h);  // as the other slot-based schemes: holds nothing
      detail::lfrc_cell* c = static_cast<const lfrc_node_base*>(n)->cell;
      c->count.fetch_add(detail::lfrc_cell::one_ref, core::mo_relaxed);  // we already hold it
      detail::lfrc_pool::release(*h);
      *h = c;
    }

    void clear(protection h) {
      detail::lfrc_pool::release(*h);
      *h = nullptr;
    }

    template <class T, class... Args>
    T* create(Args&&... args) {
      static_assert(!detail::has_class_operator_new<T>,
                    "lfrc allocates type-stable blocks (a count cell, then the node) itself: a node "
                    "type's class operator new cannot be honoured");
      // Room first, so that once the node is built nothing can throw before the block is recorded
      // (a throw between the two would leak the block and skip the node's destructor).
      if (created_.size() == created_.capacity()) created_.reserve(2 * created_.capacity() + 4);
      detail::lfrc_pool& pool = this->domain().template pool_for<T>();
      detail::lfrc_cell* c = pool.take();
      T* node;
      try {
        node = ::new (pool.object(c)) T(std::forward<Args>(args)...);
      } catch (...) {
        pool.give_back(c);
        throw;
      }
      node->cell = c;
      node->destroy = &refuse_direct_free;
      created_.push_back(c);  // cannot throw: room was made above
      detail::lfrc_pool::ready(c);
      return node;
    }

    // A node this operation created and never published.
    void dispose(lfrc_node_base* n) {
      const auto it = std::find(created_.begin(), created_.end(), n->cell);
      if (it == created_.end()) detail::misuse("lfrc: dispose() of a node this operation did not create");
      *it = created_.back();
      created_.pop_back();
      detail::lfrc_pool::release(n->cell);
    }

    // The node is unlinked; its last reference frees it. Marked for the double-retire check and
    // the unreclaimed statistic. The retiring thread holds the node, so the mark happens before
    // the reclamation (release decrement, claim).
    void retire(lfrc_node_base* n) {
      if (n->cell == nullptr) detail::misuse("lfrc: retire() of a node that create() did not allocate (lfrc frees only its own nodes)");
      if (n->cell->pool->domain() != &this->domain())
        detail::misuse("lfrc: retire() of a node created by another lfrc domain (retire it through a handle of its own domain)");
      core::set_retired_mark(n);
      this->tc().stats().retired.add();
      this->domain().count_retired();
    }

    // No thread holds retired nodes of its own (each is freed by whoever gives back its last
    // reference), so a handle reports, and its barrier waits for, the domain's.
    std::size_t unreclaimed() const { return this->domain().retired_not_freed(); }
    // The barrier's step. The references a thread's link writes drop are given back when its
    // last lfrc operation ends, whatever the handle or domain: inside an operation of another
    // handle the barrier would wait for them, forever.
    void reclaim_step() {
      if (detail::lfrc_this_thread().depth != 0)
        detail::misuse("lfrc: reclaim_now() while an operation of another lfrc handle of this thread is under way (the references it dropped come back only when it ends)");
    }

   private:
    [[noreturn]] static void refuse_direct_free(core::retired_node*) {
      detail::misuse("lfrc: a node was freed directly (free_node); its last reference frees it");
    }

    std::vector<detail::lfrc_cell*> held_;     // slot i's reference (null: none)
    std::vector<detail::lfrc_cell*> created_;  // references to the nodes this operation created
  };
};

using lfrc = basic_domain<lfrc_rule>;

}  // namespace smr
