// The one limbo bag: a FIFO of retired nodes, kept as pointers in a chain of blocks (reordered
// only by detail::address_sorter, for amortized free).
//
// Owned by a single thread (no synchronization inside). Every reclaimer keeps its retired nodes
// in these bags; what differs between reclaimers is only *when* a node may leave one, which they
// decide with extract_if / take_all and hand the result to their free policy.
//
// Why pointers in blocks and not a list linked through the nodes: a bag is walked long after its
// nodes were retired (NBR and the pointer-based schemes scan a bag of thousands), when the nodes
// have left the cache. A list linked through them costs one serial cache miss per node, twice
// (the scan, then the free). Here the scan reads only the blocks, and the free walk knows the
// next nodes' addresses in advance and prefetches them, so their misses overlap. The cost is 8
// bytes per retired node and a block per 126 retirements, from a small per-thread cache of
// emptied blocks when it has one (else malloc).
//
// A retired node is still marked in its header (next_retired non-null, core/node.hpp) when it is
// pushed: the double-retire check reads the mark, never the bag.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>

#include "smr/core/node.hpp"

namespace smr::detail {
using namespace ::smr::core;  // the public building blocks (atomics, nodes, stats)


class limbo_bag {
  // 1 KiB: a header word pair and 126 node pointers. The live entries are [begin, end).
  struct block {
    static constexpr std::uint32_t capacity = 126;
    block* next = nullptr;
    std::uint32_t begin = 0;
    std::uint32_t end = 0;
    retired_node* nodes[capacity];
  };
  // How far ahead pop_front prefetches the node it will hand out (its header is read by the
  // free that follows): far enough to cover a miss at the rate a free loop consumes nodes.
  static constexpr std::uint32_t prefetch_distance = 8;

 public:
  limbo_bag() = default;
  limbo_bag(const limbo_bag&) = delete;
  limbo_bag& operator=(const limbo_bag&) = delete;
  limbo_bag(limbo_bag&& o) noexcept
      : head_(std::exchange(o.head_, nullptr)),
        tail_(std::exchange(o.tail_, nullptr)),
        size_(std::exchange(o.size_, 0)) {}
  // The nodes of a bag assigned over are the caller's to have freed or moved out first: a bag
  // only releases its blocks, never its nodes.
  limbo_bag& operator=(limbo_bag&& o) noexcept {
    if (this != &o) {
      release_blocks();
      head_ = std::exchange(o.head_, nullptr);
      tail_ = std::exchange(o.tail_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  ~limbo_bag() { release_blocks(); }

  void push(retired_node* n) {
    // The block first: a push that throws (no memory for a block) leaves the node unmarked, so
    // that it may be retired again rather than be refused as retired twice.
    if (tail_ == nullptr || tail_->end == block::capacity) append_block();
    set_retired_mark(n);  // core/node.hpp
    push_marked(n);
  }

  // Moves every node of `other` to the back of this bag (its blocks are linked, not copied).
  void splice(limbo_bag&& other) {
    if (other.head_ == nullptr) return;
    if (tail_ == nullptr) {
      head_ = other.head_;
    } else {
      tail_->next = other.head_;
    }
    tail_ = other.tail_;
    size_ += other.size_;
    other.head_ = other.tail_ = nullptr;
    other.size_ = 0;
  }

  limbo_bag take_all() { return std::move(*this); }

  // Moves the nodes for which pred(node) holds into the returned bag, keeping order. The kept
  // nodes are compacted in place, front to back, and the blocks they no longer need are freed.
  // noexcept: a block allocation that failed half-way would leave kept nodes twice in this
  // bag (double frees later); it terminates instead.
  template <class Pred>
  limbo_bag extract_if(Pred&& pred) noexcept {
    limbo_bag out;
    block* write = head_;  // where the next kept node goes
    std::uint32_t write_at = write != nullptr ? write->begin : 0;
    for (block* b = head_; b != nullptr; b = b->next) {
      for (std::uint32_t i = b->begin; i < b->end; ++i) {
        retired_node* n = b->nodes[i];
        if (pred(n)) {
          out.push_marked(n);
          continue;
        }
        if (write_at == block::capacity) {  // the write block is full: move on to the next one
          write->end = block::capacity;
          write = write->next;
          write_at = write->begin = 0;
        }
        write->nodes[write_at++] = n;
      }
    }
    if (write == nullptr) return out;  // the bag was empty
    size_ -= out.size_;
    if (size_ == 0) {
      release_blocks();
      return out;
    }
    write->end = write_at;
    block* rest = std::exchange(write->next, nullptr);
    tail_ = write;
    while (rest != nullptr) delete_block(std::exchange(rest, rest->next));
    return out;
  }

  retired_node* pop_front() {
    block* b = head_;
    if (b == nullptr) return nullptr;
    if (b->begin + prefetch_distance < b->end) __builtin_prefetch(b->nodes[b->begin + prefetch_distance]);
    retired_node* n = b->nodes[b->begin++];
    --size_;
    if (b->begin == b->end) {
      head_ = b->next;
      if (head_ == nullptr) tail_ = nullptr;
      delete_block(b);
    }
    return n;
  }

  template <class F>
  void for_each(F&& fn) const {
    for (const block* b = head_; b != nullptr; b = b->next)
      for (std::uint32_t i = b->begin; i < b->end; ++i) fn(b->nodes[i]);
  }

  // The same, with each slot writable: for reordering the bag's nodes (detail/address_sort.hpp).
  // The nodes written must be the bag's own, each once: the bag keeps its size and marks.
  template <class F>
  void for_each_slot(F&& fn) {
    for (block* b = head_; b != nullptr; b = b->next)
      for (std::uint32_t i = b->begin; i < b->end; ++i) fn(b->nodes[i]);
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  // push() without re-marking: the node came from a bag, so it is marked already.
  void push_marked(retired_node* n) {
    if (tail_ == nullptr || tail_->end == block::capacity) append_block();
    tail_->nodes[tail_->end++] = n;
    ++size_;
  }

  // Blocks come from malloc, not operator new: under Relacy (tests/relacy) every operator new
  // is a scheduling point of the model, and a block per bag multiplied the context-bound
  // searches' schedules by up to twenty for nothing they check. ASan and LSan see malloc too.
  // Each thread keeps a few emptied blocks for its next bags: an epoch scheme that advances
  // every few operations (DEBRA at one thread) starts a bag of a handful of nodes each time, and
  // a malloc and a free per bag cost it 9% of its throughput on a 20K-key hash map.
  // Trivially destructible, so that it stays usable until the thread ends: a bag destroyed
  // after this thread's thread_locals (a static domain at exit, or a facade's thread table)
  // still reaches it. The closer, a thread_local of its own, frees the cached blocks at thread
  // exit and leaves the cache full, so that later deletes free directly. Those stores go to an
  // object that stays alive: the same stores in the cache's own destructor would be dead stores
  // to a dying object, which GCC's lifetime DSE may delete (and did, under one set of flags:
  // the dead cache then took in the blocks of later bags, and nobody freed them).
  struct block_cache {
    static constexpr unsigned capacity = 4;
    block* head = nullptr;
    unsigned count = 0;
  };
  static_assert(std::is_trivially_destructible_v<block_cache>);
  struct block_cache_closer {
    block_cache* cache;
    ~block_cache_closer() {
      while (cache->head != nullptr) std::free(std::exchange(cache->head, cache->head->next));
      cache->count = block_cache::capacity;
    }
  };
  static block_cache& cache() {
    thread_local block_cache c;
    thread_local block_cache_closer closer{&c};
    return c;
  }
  static block* new_block() {
    block_cache& c = cache();
    if (c.head != nullptr) {
      block* b = std::exchange(c.head, c.head->next);
      --c.count;
      return ::new (b) block;
    }
    void* memory = std::malloc(sizeof(block));
    if (memory == nullptr) throw std::bad_alloc();
    return ::new (memory) block;
  }
  static_assert(std::is_trivially_destructible_v<block>, "cached and freed blocks are never destroyed");
  static void delete_block(block* b) noexcept {
    block_cache& c = cache();
    if (c.count < block_cache::capacity) {
      b->next = c.head;  // new_block() builds a fresh block over it
      c.head = b;
      ++c.count;
      return;
    }
    std::free(b);
  }

  void append_block() {
    block* b = new_block();
    if (tail_ == nullptr) {
      head_ = b;
    } else {
      tail_->next = b;
    }
    tail_ = b;
  }

  void release_blocks() {
    while (head_ != nullptr) delete_block(std::exchange(head_, head_->next));
    tail_ = nullptr;
    size_ = 0;
  }

  block* head_ = nullptr;
  block* tail_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace smr::detail
