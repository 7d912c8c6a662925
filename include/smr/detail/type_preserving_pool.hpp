// TagIBR-TPA's type-preserving allocator (Wen et al. 2018, §3.2.1, "Using a Type Preserving
// Allocator"): the memory of a node, once freed, is only ever reused for a node of the same type
// in the same domain, and goes back to the system allocator only when the domain is destroyed.
// A reader may therefore read the birth era of a node that was freed (or freed and reused)
// after it loaded the pointer: the word is still there and still holds a birth era of this
// domain.
//
// The node header (tpa_node) adds two words to era_node that outlive each node in its block:
//   - preserved_birth: the node's birth era, read by protect() with an atomic load. A node
//     built in the pool never writes it in its constructor (nor does value-initialization,
//     which create() does in two steps that leave it alone; a node constructor that
//     value-initializes an intermediate base with `Base()` would zero it, and create() refuses
//     the node type at the first reuse of a block), so across reuses of one block it
//     only grows (each node's birth is read from the era after the previous one in the block
//     was freed), which is what tag_ibr.hpp's argument needs. A node built anywhere else (a
//     structure's member sentinels) writes 0, "born before every era";
//   - owner / next_free: the pool while the node lives, the next block of a free list while the
//     block is free.
// Both stay addressable under ASan and untouched by poison mode; the rest of a free block is
// poisoned (detail/type_stable_memory.hpp).
//
// Free lists. Every pool has 16 shared lists (stripes, one cache line each): a free pushes the
// block onto its thread's stripe (a Treiber push, one CAS), and a thread that runs out takes a
// whole stripe at once (one exchange), its own first. Neither suffers ABA: a push never reads a
// block it does not own, and a take never compares. Each thread keeps what it took in its own
// list (its handle's), so an allocation is a pop from a private list. In
// poison mode a freed block first waits in a FIFO quarantine, so that a late reader sees poison
// rather than the next node.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <mutex>
#include <vector>

#include "smr/core/atomic.hpp"
#include "smr/core/node.hpp"
#include "smr/detail/checks.hpp"
#include "smr/detail/era_family.hpp"
#include "smr/detail/spinlock.hpp"
#include "smr/detail/type_stable_memory.hpp"

namespace smr {

namespace detail {
class tpa_pool;
// Set while a pool builds a node in a reused block, so that tpa_node's constructor leaves the
// preserved words alone; the first tpa_node constructor that runs clears it (init()).
inline thread_local bool tpa_building_in_pool = false;
}  // namespace detail

struct tpa_node : era_node {
  tpa_node() noexcept { init(); }
  // A copy is a new node: the preserved words belong to the block, not the value.
  tpa_node(const tpa_node&) noexcept : era_node() { init(); }
  tpa_node& operator=(const tpa_node&) noexcept { return *this; }

  // The birth era as a reader that may hold a freed node's pointer sees it (relaxed: see
  // tag_ibr.hpp's argument for TPA; the era carries no data).
  std::uint64_t preserved_birth() const {
    return std::atomic_ref<std::uint64_t>(preserved_birth_).load(std::memory_order_relaxed);
  }

  // Whether the node lives in a pool block (create()), not in memory of its own: only those
  // may be retired, since a reader reads the birth from the block after the free.
  bool in_pool() const noexcept { return link_.owner != nullptr; }

 private:
  friend class detail::tpa_pool;
  // The pool's node consumes the flag (its tpa_node is its first subobject built): a node its
  // constructor builds meanwhile (a member, a `new`) is built elsewhere and initialises its words.
  void init() {
    if (detail::tpa_building_in_pool) {
      detail::tpa_building_in_pool = false;
      return;
    }
    std::atomic_ref<std::uint64_t>(preserved_birth_).store(0, std::memory_order_relaxed);
    link_.owner = nullptr;
  }
  // No initializers: a node built in the pool must not write them (see the file comment).
  mutable std::uint64_t preserved_birth_;
  union block_link {
    detail::tpa_pool* owner;  // while the node lives
    tpa_node* next_free;      // while the block is free
  } link_;
};

namespace detail {

// The blocks of one node type in one domain.
class tpa_pool {
 public:
  tpa_pool(const void* type_key, std::size_t object_size, std::size_t align, unsigned index)
      : key_(type_key), index_(index), object_size_(object_size), align_(align) {}
  tpa_pool(const tpa_pool&) = delete;
  tpa_pool& operator=(const tpa_pool&) = delete;

  // Single-threaded (the domain's destruction): every chunk goes back to the allocator. A block
  // whose node is still alive (a structure that outlived its domain) goes without its destructor.
  ~tpa_pool() {
    for (const chunk& c : chunks_) {
      unpoison_object(c.memory, c.bytes);
      free_block(c.memory, align_);
    }
  }

  const void* key() const { return key_; }
  unsigned index() const { return index_; }

  // Blocks freed since the last take, as a chain the caller now owns (null if none): the
  // calling thread's stripe first, else the first other stripe that has any.
  tpa_node* take_all() {
    const unsigned mine = this_thread_stripe();
    for (unsigned k = 0; k < stripes; ++k) {
      core::atomic<tpa_node*>& head = free_[(mine + k) % stripes].head;
      if (head.load(core::mo_relaxed) == nullptr) continue;
      // acquire: pairs with the release CAS of every push (the freed node's destruction, its
      // poisoning and next_free happen before we reuse the block).
      if (tpa_node* chain = head.exchange(nullptr, core::mo_acquire); chain != nullptr) return chain;
    }
    return nullptr;
  }

  // A chain of fresh blocks (their preserved birth 0). One block at a time while a node memory
  // resource is installed (smrbench's bounded pool counts blocks); else a chunk of about 8 KiB.
  tpa_node* fresh_chain() {
    std::size_t n = 1;
#if !defined(SMR_RELACY)
    if (node_resource().load(std::memory_order_relaxed) == nullptr) n = std::clamp<std::size_t>(8192 / object_size_, 1, 64);
#endif
    const std::size_t bytes = n * object_size_;
    char* memory = static_cast<char*>(allocate_block(bytes, align_));
    {
      std::lock_guard<spinlock> g(chunks_lock_);
      try {
        chunks_.push_back({memory, bytes});
      } catch (...) {
        free_block(memory, align_);
        throw;
      }
    }
    tpa_node* first = nullptr;
    for (std::size_t i = n; i-- > 0;) {
      auto* b = reinterpret_cast<tpa_node*>(memory + i * object_size_);
      std::atomic_ref<std::uint64_t>(b->preserved_birth_).store(0, std::memory_order_relaxed);
      b->link_.next_free = first;
      poison_free_object(b);
      first = b;
    }
    return first;
  }

  // The block at the head of `chain` (a private list of this pool's blocks) for a new node:
  // unpoisoned, the chain advanced past it.
  tpa_node* pop(tpa_node*& chain) const {
    tpa_node* b = chain;
    chain = b->link_.next_free;
    unpoison_object(b, object_size_);
    return b;
  }

  // Zeroes a popped block except its preserved words: with default-initialization after it,
  // what value-initialization does, without the store of 0 to the birth that a reader of the
  // block's previous node may be loading (see tag_ibr_tpa's create()).
  void zero_object(tpa_node* b) const {
    outside_preserved_words(b, [](char* p, std::size_t n) { std::memset(p, 0, n); });
  }

  // Call after building a node in a block popped from this pool: the node remembers its pool.
  void adopt(tpa_node* n) { n->link_.owner = this; }
  void set_birth(tpa_node* n, std::uint64_t birth) {
    // relaxed: published with the node by the release write that links it ((a) in tag_ibr.hpp);
    // a reader of the block's previous node that reads this later value only reserves more.
    std::atomic_ref<std::uint64_t>(n->preserved_birth_).store(birth, std::memory_order_relaxed);
  }

  // A private chain goes back to the shared list (a handle's, when it detaches).
  void give_back(tpa_node* chain) {
    if (chain == nullptr) return;
    tpa_node* last = chain;
    while (last->link_.next_free != nullptr) last = last->link_.next_free;
    push_chain(chain, last);
  }

  // The block of a destroyed node (its pool's, read before the destruction) goes back.
  void recycle(tpa_node* b) {
    poison_free_object(b);
#if !defined(SMR_RELACY)
    if (core::poison_on_free()) {
      tpa_node* oldest = nullptr;
      {
        std::lock_guard<std::mutex> g(quarantine_lock_);
        quarantine_.push_back(b);
        if (quarantine_.size() <= quarantine_capacity) return;
        oldest = quarantine_.front();
        quarantine_.pop_front();
      }
      b = oldest;
    }
#endif
    b->link_.next_free = nullptr;
    push_chain(b, b);
  }

  // A node's pool (the node alive).
  static tpa_pool& of(const tpa_node* n) { return *n->link_.owner; }

 private:
  static constexpr std::size_t quarantine_capacity = 4096;
  // Shared free lists per pool, each on its own cache line: a free pushes to its thread's
  // stripe, so threads freeing at once do not take turns at one line, and a thread that takes
  // blocks gets its own frees back first (warm in its cache) before it takes another's.
  static constexpr unsigned stripes = 16;

  struct chunk {
    void* memory;
    std::size_t bytes;
  };

  // Onto the calling thread's stripe.
  void push_chain(tpa_node* first, tpa_node* last) {
    core::atomic<tpa_node*>& head = free_[this_thread_stripe()].head;
    tpa_node* seen = head.load(core::mo_relaxed);
    do {
      last->link_.next_free = seen;
      // release: see take_all().
    } while (!head.compare_exchange_weak(seen, first, core::mo_release, core::mo_relaxed));
  }

  // A thread's stripe: threads numbered in order of first use, round robin. Only a spread: any
  // thread may push to or take from any stripe.
  static unsigned this_thread_stripe() {
    static std::atomic<unsigned> next{0};
    thread_local const unsigned mine = next.fetch_add(1, std::memory_order_relaxed) % stripes;
    return mine;
  }

  // Poisons a free block's node, except the two words that outlive it.
  void poison_free_object(tpa_node* b) const {
    outside_preserved_words(b, [](char* p, std::size_t n) { poison_object(p, n); });
  }

  // Calls f(start, length) for the two byte ranges of block b around its preserved words.
  template <class F>
  void outside_preserved_words(tpa_node* b, F&& f) const {
    char* const obj = reinterpret_cast<char*>(b);
    char* const words = reinterpret_cast<char*>(&b->preserved_birth_);
    char* const words_end = reinterpret_cast<char*>(&b->link_) + sizeof(b->link_);
    f(obj, static_cast<std::size_t>(words - obj));
    f(words_end, object_size_ - static_cast<std::size_t>(words_end - obj));
  }

  const void* const key_;
  const unsigned index_;
  // object_size_ is also the stride of a chunk: sizeof(T) is a multiple of alignof(T).
  const std::size_t object_size_, align_;
  struct alignas(cache_line) stripe {
    core::atomic<tpa_node*> head{nullptr};
  };
  std::array<stripe, stripes> free_{};
  spinlock chunks_lock_;
  std::vector<chunk> chunks_;
#if !defined(SMR_RELACY)
  std::mutex quarantine_lock_;
  std::deque<tpa_node*> quarantine_;
#endif
};

}  // namespace detail
}  // namespace smr
