// TagIBR: tagged-pointer interval-based reclamation, Wen et al. (2018) §3.2 (Fig. 5), and its
// variants TagIBR-FAA, TagIBR-WCAS and TagIBR-TPA (§3.2.1).
//
// What it is: ibr_2ge's interval reservation [lower, upper] (detail/interval_reservation.hpp)
// with a different bound for a read: every link carries, beside the pointer, a `born_before`
// tag that is never below the birth era of the node the link points to. protect() raises the
// reservation's upper end to the tag of the link it read, not to the global era, so reading
// links written long ago (most links of a list or a tree) needs no new reservation and no fence
// even while the era moves; 2GEIBR raises whenever the era has moved. Every write of a pointer
// (store, CAS, exchange) first raises the link's tag to cover the new target (to the tag the
// target was read with, or its birth era: see the departure below), then writes the pointer; the tag only grows, since the two fields are updated one after the other, so a
// tag may overstate (the paper's "slack"), never understate. The variants differ in how the tag
// is raised:
//   tag_ibr      a CAS loop that installs the birth era if it is larger (Fig. 5, lines 7-9);
//   tag_ibr_faa  one fetch_add of the difference (§3.2.1): wait-free writes, more slack under
//                contention, as concurrent raisers add their differences up.
//   tag_ibr_wcas the pointer and its tag are one pair (core/atomic_pair.hpp), written by one
//                double-width CAS and read as one snapshot (§3.2.1, "Using Wide or Double
//                CAS"): the tag is the target's birth era (or, for a target read long before
//                in the operation, the era at the write), with no monotonic convention and no
//                slack from concurrent raises. A write is one cmpxchg16b (a loop only where
//                the paper's is: a CAS that finds its pointer with another tag); a read is one
//                16-byte load. The domain refuses to start on a CPU without cmpxchg16b.
//   tag_ibr_tpa  no tag in the link (§3.2.1, "Using a Type Preserving Allocator"): protect()
//                reads the target's birth era from the node itself, through a type-preserving
//                allocator (detail/type_preserving_pool.hpp) that keeps a freed node's memory for
//                nodes of the same type in the same domain. Links are plain pointers and writes
//                are plain writes: no extra word, no extra CAS, nothing read from the target.
//
// Why it is safe: ibr_2ge.hpp's (a)-(c) with the tag as the bound read after the link load L.
// (a) becomes: birth(B) <= tag. The writer raised the tag to birth(B) (or more) before it wrote
// B's pointer, and that write happens before L's read: L acquires it (or the release sequence it
// heads), or, for a relaxed write into a node not yet published (a new node's first link), L's
// thread acquired the later release that published the node. So the tag load after L reads
// that raise or a later one, and tags only grow. With WCAS, L reads the pointer and the tag
// that was written with it in one snapshot, and that tag is birth(B). (b) and
// (c) do not involve the bound: protect() returns only pointers read after an upper covering
// the tag was published and fenced (X), exactly as ibr_2ge's.
// TPA: the bound is the word tpa_node::preserved_birth of the block L's pointer leads to, read
// after L. By then B may be freed and its block reused: the pool keeps the block, and the word
// only grows across reuses (a later node's birth is read from the era after B was retired, so it
// is at least birth(B)). B's birth was stored before B's publication, which L acquires, so the
// load reads birth(B) or a later node's birth, which is larger: the bound is at least birth(B),
// (a). And if it lies within the fenced upper bound, so does birth(B): B was reserved before L
// read it, was never freed, and the word read was B's own.
//
// Bounds: as ibr_2ge (IBR Theorem 2): a stalled reservation pins only nodes born by its upper.
//
// Departure from Fig. 5: a write covers its target with the tag the pointer was read with in
// this operation, or the birth this thread gave it, or (for an older read or creation) the era
// read now: inside an operation it never reads the target's header (detail::read_tags). The
// paper's read of the target's header is a use-after-free when the target came from a frozen
// link of a marked node.
//
// When not to use it: as ibr_2ge (searches through unlinked nodes), and, except tag_ibr_tpa,
// with structures that write pointers they neither read through protect() in the same
// operation nor allocated (the Treiber stack's push, the Michael-Scott queue's tail swing:
// ds_requirements::writes_unprotected_pointers), whose targets may already be freed when their
// header is read. Links are twice the size of a pointer. One TagIBR operation per thread at a
// time is fastest: the cache of read tags is per thread, and an operation begun
// inside another (another handle, or another TagIBR domain) leaves the outer one its era but
// not its cached tags. tag_ibr_tpa: the memory of its nodes goes back to the system only when the
// domain is destroyed (a domain that once held a million nodes keeps their blocks); a node type
// whose tpa_node header does not start the object (another base before it) is refused when its
// first node is made; and a class operator new of a node type is not honoured (refused at
// compile time). Its node header is 16 bytes longer than ibr_2ge's.
//
// Usage contract: retire only nodes already unlinked; except with tag_ibr_tpa, write into links
// only pointers read through protect() in the same operation, or to nodes this thread allocated
// (or null).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <new>
#include <string_view>
#include <type_traits>
#include <utility>

#include "smr/core/atomic.hpp"
#include "smr/core/atomic_pair.hpp"
#include "smr/core/domain.hpp"
#include "smr/core/marked_ptr.hpp"
#include "smr/detail/era_family.hpp"
#include "smr/detail/interval_reservation.hpp"
#include "smr/detail/type_preserving_pool.hpp"

namespace smr {

// How a link's tag is raised to cover a birth era. relaxed throughout: the raise is sequenced
// before the pointer's write, and readers order their tag load after acquiring the pointer.
struct raise_tag_by_cas {  // Fig. 5, lines 7-9
  static void raise(core::atomic<std::uint64_t>& tag, std::uint64_t birth) {
    std::uint64_t seen = tag.load(core::mo_relaxed);
    while (seen < birth && !tag.compare_exchange_weak(seen, birth, core::mo_relaxed)) {
    }
  }
};
struct raise_tag_by_faa {  // §3.2.1: add the difference; concurrent raises add up (slack)
  static void raise(core::atomic<std::uint64_t>& tag, std::uint64_t birth) {
    const std::uint64_t seen = tag.load(core::mo_relaxed);
    if (seen < birth) tag.fetch_add(birth - seen, core::mo_relaxed);
  }
};

namespace detail {

// The tags that came with the pointers protect() returned in this thread's current operation
// (a few, newest first). A write covers its target with the tag it was read with: Fig. 5 reads
// the target's birth era from the node instead, which is a use-after-free when the target was
// read from a frozen link of a marked node (Michael's list unlinks a marked node's successor,
// which may already be unlinked and freed when the CAS that would fail is prepared; ASan
// caught it). A tag read with the pointer covers its birth as well ((a) in the header), and so
// does a node's birth noted when this thread creates it. A target not found here (its entry
// was overwritten by newer reads) is covered, inside an operation, by the era read now: the
// target was born before it was read or created, so the era read later is at least its birth,
// and the node itself is never read (it may be freed). Outside an operation (a structure
// building its first nodes) the target is this thread's own unpublished node: its birth era is
// read from it. Cleared when an operation begins.
class read_tags {
 public:
  // era: the operation's domain's era word, or null outside an operation.
  void clear(const core::atomic<std::uint64_t>* era) {
    for (const void*& p : ptr_) p = nullptr;
    era_ = era;
  }
  // The newest entry for p wins in find() and is overwritten last, so a node made at the
  // address of an older entry needs no removal of that entry.
  void note(const void* p, std::uint64_t tag) {
    next_ = (next_ + 1) % size;
    ptr_[next_] = p;
    tag_[next_] = tag;
  }
  bool find(const void* p, std::uint64_t& tag) const {
    for (unsigned i = 0, at = next_; i < size; ++i, at = (at + size - 1) % size) {
      if (ptr_[at] == p) {
        tag = tag_[at];
        return true;
      }
    }
    return false;
  }
  const core::atomic<std::uint64_t>* era() const { return era_; }
  // outer: null, or the era of an operation this thread still has open on another handle.
  // Null: the entries stay (the next operation clears them): outside an operation only this
  // thread's unpublished nodes are written, and a node's creation notes it anew. Otherwise the
  // outer operation goes on with no entries (this operation's are not its reads) and its era.
  void left(const core::atomic<std::uint64_t>* outer) {
    if (outer != nullptr) clear(outer);
    else era_ = nullptr;
  }

 private:
  static constexpr unsigned size = 8;
  const void* ptr_[size] = {};
  std::uint64_t tag_[size] = {};
  unsigned next_ = 0;
  const core::atomic<std::uint64_t>* era_ = nullptr;
};

inline read_tags& this_thread_read_tags() {
#if defined(SMR_RELACY)
  // Relacy's threads are fibers of one OS thread: one cache per simulated thread.
  static read_tags tags[16];
  return tags[rl::ctx().threadx_->index_];
#else
  static thread_local read_tags tags;
  return tags;
#endif
}

// The tag a write of n must cover: the one n was read or created with in this operation, else
// the era now (inside an operation) or n's birth era (outside one, where n is this thread's
// unpublished node). Why each covers birth(n): read_tags above.
inline std::uint64_t tag_to_cover(const void* n, const era_node* header) {
  const read_tags& tags = this_thread_read_tags();
  std::uint64_t tag;
  if (tags.find(n, tag)) return tag;
  // relaxed: as every era access (ibr_2ge.hpp); coherence alone makes this read no older than
  // the birth read that happened before our read or creation of n.
  if (const core::atomic<std::uint64_t>* era = tags.era()) return era->load(core::mo_relaxed);
  return header->birth_era;
}

}  // namespace detail

// TagIBR's link (Fig. 5's TPointer): a marked pointer and its born_before tag. The same
// operations as core::atomic_marked_ptr, each write raising the tag first to cover the target:
// with the tag the target was read with (detail::read_tags) or its birth era (T derives from
// era_node, the rule's node_base).
template <class T, class Raise>
class born_before_ptr {
 public:
  born_before_ptr() = default;
  explicit born_before_ptr(core::marked_ptr<T> p) { store(p, core::mo_relaxed); }

  core::marked_ptr<T> load(core::memory_order mo) const {
    return core::marked_ptr<T>::from_bits(bits_.load(mo));
  }
  std::uint64_t born_before(core::memory_order mo) const { return tag_.load(mo); }

  void store(core::marked_ptr<T> p, core::memory_order mo) {
    cover(p);
    bits_.store(p.bits(), mo);
  }
  bool compare_exchange_strong(core::marked_ptr<T>& expected, core::marked_ptr<T> desired, core::memory_order mo) {
    cover(desired);
    std::uintptr_t e = expected.bits();
    const bool ok = bits_.compare_exchange_strong(e, desired.bits(), mo);
    if (!ok) expected = core::marked_ptr<T>::from_bits(e);
    return ok;
  }
  core::marked_ptr<T> exchange(core::marked_ptr<T> p, core::memory_order mo) {
    cover(p);
    return core::marked_ptr<T>::from_bits(bits_.exchange(p.bits(), mo));
  }
  // Bit operations keep the target, so the tag already covers it.
  core::marked_ptr<T> fetch_tag(core::memory_order mo) {
    return core::marked_ptr<T>::from_bits(bits_.fetch_or(core::marked_ptr<T>::tag_bit, mo));
  }
  core::marked_ptr<T> load_latest(core::memory_order mo) {
    return core::marked_ptr<T>::from_bits(bits_.fetch_or(0, mo));
  }

 private:
  void cover(core::marked_ptr<T> p) {
    const T* n = p.get();
    if (n == nullptr) return;
    Raise::raise(tag_, detail::tag_to_cover(n, n));
  }

  core::atomic<std::uintptr_t> bits_{0};
  core::atomic<std::uint64_t> tag_{0};
};

// TagIBR-WCAS's link: {marked pointer, exact birth era of its target} as one pair. The same
// operations as core::atomic_marked_ptr; a null pointer's tag is 0.
template <class T>
class exact_tag_ptr {
 public:
  exact_tag_ptr() = default;
  explicit exact_tag_ptr(core::marked_ptr<T> p) { store(p, core::mo_relaxed); }

  core::marked_ptr<T> load(core::memory_order mo) const { return from(pair_.load_first(mo)); }
  // The pointer and its tag from one snapshot (what protect() reads).
  std::pair<core::marked_ptr<T>, std::uint64_t> load_tagged(core::memory_order mo) const {
    const core::word_pair w = pair_.load(mo);
    return {from(w.first), w.second};
  }
  std::uint64_t born_before(core::memory_order mo) const { return load_tagged(mo).second; }

  void store(core::marked_ptr<T> p, core::memory_order mo) { pair_.store(core::word_pair{p.bits(), tag_of(p)}, mo); }
  bool compare_exchange_strong(core::marked_ptr<T>& expected, core::marked_ptr<T> desired, core::memory_order mo) {
    const core::word_pair want{desired.bits(), tag_of(desired)};
    // First guess: the expected pointer with the tag it was read with. Its header is never
    // read: the expected target may be freed already (a frozen link's old value).
    std::uint64_t guess = 0;
    if (expected.get() != nullptr) (void)detail::this_thread_read_tags().find(expected.get(), guess);
    core::word_pair seen{expected.bits(), guess};
    for (;;) {
      if (pair_.compare_exchange(seen, want, mo)) return true;
      if (seen.first != expected.bits()) {
        expected = from(seen.first);
        return false;
      }
      // The pointer matched with another tag (a wrong guess, or the same address reused):
      // `seen` now holds the pair, so the next WCAS expects it.
    }
  }
  core::marked_ptr<T> exchange(core::marked_ptr<T> p, core::memory_order mo) {
    const core::word_pair want{p.bits(), tag_of(p)};
    core::word_pair seen = pair_.load(core::mo_relaxed);
    while (!pair_.compare_exchange(seen, want, mo)) {
    }
    return from(seen.first);
  }
  // Bit operations keep the target, so they keep its tag.
  core::marked_ptr<T> fetch_tag(core::memory_order mo) {
    core::word_pair seen = pair_.load(core::mo_relaxed);
    while (!pair_.compare_exchange(seen, core::word_pair{seen.first | core::marked_ptr<T>::tag_bit, seen.second}, mo)) {
    }
    return from(seen.first);
  }
  core::marked_ptr<T> load_latest(core::memory_order mo) {
    core::word_pair seen = pair_.load(core::mo_relaxed);
    while (!pair_.compare_exchange(seen, seen, mo)) {
    }
    return from(seen.first);
  }

 private:
  static core::marked_ptr<T> from(std::uint64_t bits) { return core::marked_ptr<T>::from_bits(static_cast<std::uintptr_t>(bits)); }
  static std::uint64_t tag_of(core::marked_ptr<T> p) {
    const T* n = p.get();
    return n == nullptr ? 0 : detail::tag_to_cover(n, n);
  }

  core::atomic_pair pair_;
};

namespace detail {

// The bounds whose writes cover their targets with the tag they were read with (TagIBR and
// TagIBR-WCAS): protect() notes each tag, create() each birth, an operation starts with none.
struct read_tag_hooks {
  static void returned(const void* p, std::uint64_t tag) {
    if (p != nullptr) this_thread_read_tags().note(p, tag);
  }
  // An operation of another handle (of this domain or another TagIBR domain) still open on this
  // thread gets its era back when this one ends, with the cache cleared: its later writes then
  // cover their targets with the era read then, never with a target's header.
  static const void* entered(const core::atomic<std::uint64_t>& era) {
    read_tags& tags = this_thread_read_tags();
    const void* outer = tags.era();
    tags.clear(&era);
    return outer;
  }
  static void left(const void* outer) {
    this_thread_read_tags().left(static_cast<const core::atomic<std::uint64_t>*>(outer));
  }
  static void created(const era_node* n) { this_thread_read_tags().note(n, n->birth_era); }
};

// TagIBR's bound: the tag of the link just read.
template <class Raise>
struct born_before_bound : read_tag_hooks {
  template <class T>
  using link = born_before_ptr<T, Raise>;
  template <class T, class Era>
  static bound_read<T> read(const link<T>& src, Era) {
    // acquire: (a); the tag load after it is relaxed, which is all (a) needs.
    const core::marked_ptr<T> p = src.load(core::mo_acquire);
    return {p, src.born_before(core::mo_relaxed)};
  }
};

// TagIBR-WCAS's bound: the tag read with the pointer in one snapshot.
struct exact_tag_bound : read_tag_hooks {
  template <class T>
  using link = exact_tag_ptr<T>;
  template <class T, class Era>
  static bound_read<T> read(const link<T>& src, Era) {
    // acquire: pairs with the release write that published the node, (a).
    const auto [p, tag] = src.load_tagged(core::mo_acquire);
    return {p, tag};
  }
};

// TagIBR-TPA's bound: the birth era preserved in the node, read after the pointer.
struct preserved_birth_bound : no_bound_hooks {
  template <class T>
  using link = core::atomic_marked_ptr<T>;
  template <class T, class Era>
  static bound_read<T> read(const link<T>& src, Era) {
    // acquire: pairs with the release write that published the node (and its birth), (a); the
    // birth load after it is relaxed, which is all (a) needs.
    const core::marked_ptr<T> p = src.load(core::mo_acquire);
    const tpa_node* n = p.get();
    return {p, n == nullptr ? 0 : n->preserved_birth()};
  }
};

}  // namespace detail

template <class Raise>
struct tag_ibr_rule_with : detail::interval_rule<detail::born_before_bound<Raise>> {
  static constexpr bool faa = std::is_same_v<Raise, raise_tag_by_faa>;
  static constexpr std::string_view name = faa ? "tag_ibr_faa" : "tag_ibr";
  static constexpr std::string_view summary =
      faa ? "TagIBR-FAA: TagIBR whose tags are raised by fetch_add (Wen et al. 2018, §3.2.1)"
          : "tagged-pointer interval-based reclamation: reservations raised to each link's born_before tag (Wen et al. 2018, §3.2, Fig. 5)";
  static constexpr reclaimer_traits traits{.protects_persistent_traversal = true, .bounded_garbage = true, .reads_written_nodes = true, .metrics = {.epochs = true}};
};

using tag_ibr_rule = tag_ibr_rule_with<raise_tag_by_cas>;
using tag_ibr_faa_rule = tag_ibr_rule_with<raise_tag_by_faa>;

struct tag_ibr_wcas_rule : detail::interval_rule<detail::exact_tag_bound> {
  static constexpr std::string_view name = "tag_ibr_wcas";
  static constexpr std::string_view summary =
      "TagIBR-WCAS: TagIBR whose links hold the exact birth era, written with a double-width CAS (Wen et al. 2018, §3.2.1)";
  static constexpr reclaimer_traits traits{.protects_persistent_traversal = true, .bounded_garbage = true, .reads_written_nodes = true, .metrics = {.epochs = true}};
  template <class Base>
  using domain_state = detail::wcas_era_domain<Base>;
};

struct tag_ibr_tpa_rule : detail::interval_rule<detail::preserved_birth_bound> {
  static constexpr std::string_view name = "tag_ibr_tpa";
  static constexpr std::string_view summary =
      "TagIBR-TPA: TagIBR that reads each node's birth era from the node, through a type-preserving allocator (Wen et al. 2018, §3.2.1)";
  // Writes read nothing from their targets, so structures that write unprotected pointers (the
  // Treiber stack, the Michael-Scott queue) are admitted.
  static constexpr reclaimer_traits traits{.protects_persistent_traversal = true, .bounded_garbage = true, .type_stable_memory = true, .metrics = {.epochs = true}};
  using node_base = tpa_node;
  // Node types one domain serves (each has its own pool).
  static constexpr std::size_t max_node_types = 8;

  template <class Base>
  class domain_state : public detail::era_domain<Base> {
   public:
    using detail::era_domain<Base>::era_domain;
    // What exited threads left is freed now, while the pools exist (the core would free it after
    // this destructor).
    ~domain_state() {
      detail::limbo_bag left = this->adopt();
      while (core::retired_node* n = left.pop_front()) core::free_node(n);
    }

    // The pool of T's blocks, made on first use.
    template <class T>
    detail::tpa_pool& pool_for() {
      return pools_.get(&type_key<T>, [](std::size_t i) { return new detail::tpa_pool(&type_key<T>, sizeof(T), alignof(T), static_cast<unsigned>(i)); }, name);
    }

    // Whether the pool is one of this domain's (a node created in another domain is not).
    bool owns_pool(const detail::tpa_pool& p) const { return pools_.holds(p.index(), &p); }

   private:
    template <class T>
    static inline const char type_key = 0;  // its address names T
    detail::pools_by_type<detail::tpa_pool, max_node_types> pools_;
  };

  template <class Base>
  class thread_state : public detail::interval_rule<detail::preserved_birth_bound>::thread_state<Base> {
    using interval_base = detail::interval_rule<detail::preserved_birth_bound>::thread_state<Base>;

   protected:
    using interval_base::interval_base;
    // The blocks this thread took and did not use go back to their pools.
    ~thread_state() {
      for (std::size_t i = 0; i < max_node_types; ++i)
        if (pools_[i] != nullptr) pools_[i]->give_back(free_[i]);
    }

    // A node built elsewhere (core::construct_node, a member) would go back to the system when
    // freed, and a reader that loaded its pointer would then read its birth from freed memory:
    // refused in every build (one load of the node's header, which the retirer holds).
    // A node of another tag_ibr_tpa domain would be recycled into its own pool while that
    // domain's readers, which this domain's scan does not see, may hold it: refused too (one
    // more load, of this domain's pool table).
    void retire(core::retired_node* n) {
      const auto* node = static_cast<const tpa_node*>(n);
      if (!node->in_pool())
        detail::misuse("tag_ibr_tpa: retire() of a node that create() did not allocate from its pool");
      if (!this->domain().owns_pool(detail::tpa_pool::of(node)))
        detail::misuse("tag_ibr_tpa: retire() of a node created in another domain");
      interval_base::retire(n);
    }

    // IBR's alloc() on a block of T's pool: from this thread's list, else a whole stripe of
    // freed blocks (this thread's own first), else fresh blocks.
    template <class T, class... Args>
    T* create(Args&&... args) {
      static_assert(!detail::has_class_operator_new<T>,
                    "tag_ibr_tpa allocates nodes from its type-preserving pool: a node type's class "
                    "operator new cannot be honoured");
      detail::tpa_pool& pool = this->domain().template pool_for<T>();
      const unsigned i = pool.index();
      pools_[i] = &pool;
      tpa_node*& chain = free_[i];
      if (chain == nullptr) chain = pool.take_all();
      if (chain == nullptr) chain = pool.fresh_chain();
      tpa_node* const block = pool.pop(chain);
      const std::uint64_t earlier_birth = block->preserved_birth();  // the block's last node's
      T* node;
      detail::tpa_building_in_pool = true;
      try {
        if constexpr (sizeof...(Args) == 0) {
          // T() value-initializes: for a T whose default constructor is not user-provided that
          // zero-fills the whole object first, the preserved birth included, which would drop
          // the word below the block's previous birth while a reader may load it (the bound
          // must never go down). The same object, without that store: zero the rest, then
          // default-initialize.
          pool.zero_object(block);
          node = ::new (static_cast<void*>(block)) T;
        } else {
          node = ::new (static_cast<void*>(block)) T(std::forward<Args>(args)...);
        }
      } catch (...) {
        detail::tpa_building_in_pool = false;
        pool.recycle(block);
        throw;
      }
      detail::tpa_building_in_pool = false;
      if (static_cast<tpa_node*>(node) != block)
        detail::misuse("tag_ibr_tpa: a node type whose tpa_node header does not start the object (a base class before it)");
      // A constructor that value-initializes a base between tpa_node and T (`Base()` in its
      // mem-initializer list, Base's default constructor not user-provided) zero-fills that
      // base, the preserved birth included, while a reader of the block's last node may load
      // it. Caught at the first reuse of a block (one load before, one after).
      if (block->preserved_birth() < earlier_birth)
        detail::misuse("tag_ibr_tpa: a node constructor wrote the preserved birth (a base value-initialized with Base(); write Base{} with a user-provided constructor, or leave it default-initialized)");
      pool.adopt(node);
      node->destroy = &recycle<T>;
      this->on_create(node);
      pool.set_birth(node, node->birth_era);
      return node;
    }

    // A node never published goes straight back.
    void dispose(tpa_node* n) { core::free_node(n); }

   private:
    // The nodes' destroy hook: the block goes back to its pool, never to the system.
    template <class T>
    static void recycle(core::retired_node* r) {
      T* const node = static_cast<T*>(r);
      tpa_node* const block = node;
      detail::tpa_pool& pool = detail::tpa_pool::of(block);
      node->~T();
      pool.recycle(block);
    }

    std::array<tpa_node*, max_node_types> free_{};             // this thread's blocks, per pool
    std::array<detail::tpa_pool*, max_node_types> pools_{};  // the pool of free_[i]
  };
};

template <class FreePolicy = core::batch_free> using basic_tag_ibr = basic_domain<tag_ibr_rule, FreePolicy>;
using tag_ibr = basic_tag_ibr<>;
using tag_ibr_af = basic_tag_ibr<core::amortized_free<>>;
template <class FreePolicy = core::batch_free> using basic_tag_ibr_faa = basic_domain<tag_ibr_faa_rule, FreePolicy>;
using tag_ibr_faa = basic_tag_ibr_faa<>;
using tag_ibr_faa_af = basic_tag_ibr_faa<core::amortized_free<>>;
template <class FreePolicy = core::batch_free> using basic_tag_ibr_wcas = basic_domain<tag_ibr_wcas_rule, FreePolicy>;
using tag_ibr_wcas = basic_tag_ibr_wcas<>;
using tag_ibr_wcas_af = basic_tag_ibr_wcas<core::amortized_free<>>;
template <class FreePolicy = core::batch_free> using basic_tag_ibr_tpa = basic_domain<tag_ibr_tpa_rule, FreePolicy>;
using tag_ibr_tpa = basic_tag_ibr_tpa<>;
using tag_ibr_tpa_af = basic_tag_ibr_tpa<core::amortized_free<>>;

}  // namespace smr
