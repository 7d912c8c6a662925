#include "node_pool.hpp"

#include <sched.h>

#include <new>
#include <stdexcept>
#include <string>

namespace smrbench {

const char* pool_wait_name(pool_wait w) { return w == pool_wait::busy ? "busy" : "yield"; }

namespace {
constexpr std::uint64_t pack(std::uint64_t version, std::uint32_t index) { return version << 32 | index; }
constexpr std::uint32_t index_of(std::uint64_t head) { return static_cast<std::uint32_t>(head); }
constexpr std::uint64_t version_of(std::uint64_t head) { return head >> 32; }
}  // namespace

node_pool::node_pool(std::uint32_t capacity, pool_wait mode)
    : capacity_(capacity),
      mode_(mode),
      blocks_(static_cast<std::byte*>(::operator new(std::size_t{capacity} * block_size, std::align_val_t{block_size}))),
      next_(new std::atomic<std::uint32_t>[capacity]),
      head_(pack(0, capacity == 0 ? none : 0)) {
  for (std::uint32_t i = 0; i < capacity; ++i) next_[i].store(i + 1 < capacity ? i + 1 : none, std::memory_order_relaxed);
}

node_pool::~node_pool() { ::operator delete(blocks_, std::align_val_t{block_size}); }

bool node_pool::owns(const void* p) const {
  const auto* b = static_cast<const std::byte*>(p);
  return b >= blocks_ && b < blocks_ + std::size_t{capacity_} * block_size;
}

std::uint32_t node_pool::try_pop() {
  // acquire: pairs with push()'s release, so the block's last use (its free) and its link
  // happen before the new owner builds a node in it.
  std::uint64_t head = head_.load(std::memory_order_acquire);
  for (;;) {
    const std::uint32_t top = index_of(head);
    if (top == none) return none;
    // A stale read (another thread took `top` meanwhile) is harmless: the version has moved on,
    // so the CAS below fails and reloads.
    const std::uint32_t below = next_[top].load(std::memory_order_relaxed);
    if (head_.compare_exchange_weak(head, pack(version_of(head) + 1, below), std::memory_order_acquire,
                                    std::memory_order_acquire))
      return top;
  }
}

void node_pool::push(std::uint32_t index) {
  std::uint64_t head = head_.load(std::memory_order_relaxed);
  for (;;) {
    next_[index].store(index_of(head), std::memory_order_relaxed);  // published by the CAS
    // release: pairs with try_pop()'s acquire (the freed block and its link).
    if (head_.compare_exchange_weak(head, pack(version_of(head) + 1, index), std::memory_order_release,
                                    std::memory_order_relaxed))
      return;
  }
}

void* node_pool::allocate(std::size_t bytes, std::size_t alignment) {
  if (bytes > block_size || alignment > block_size)
    throw std::length_error("smrbench: a node of " + std::to_string(bytes) + " bytes does not fit a --node-pool block (" +
                            std::to_string(block_size) + " bytes)");
  if (std::uint32_t i = try_pop(); i != none) [[likely]]
    return block(i);
  if (timed_.load(std::memory_order_relaxed)) throw pool_exhausted();
  // The prefill: the same operator new the library would have used, so its delete matches.
  prefill_overflows_.fetch_add(1, std::memory_order_relaxed);
  return alignment > __STDCPP_DEFAULT_NEW_ALIGNMENT__ ? ::operator new(bytes, std::align_val_t{alignment})
                                                      : ::operator new(bytes);
}

void node_pool::pause() const {
  if (mode_ == pool_wait::yield) sched_yield();
}

void node_pool::note_wait(std::uint64_t ns, bool abandoned) {
  exhaustions_.fetch_add(1, std::memory_order_relaxed);
  wait_ns_.fetch_add(ns, std::memory_order_relaxed);
  if (abandoned) abandoned_.fetch_add(1, std::memory_order_relaxed);
}

void node_pool::deallocate(void* p) {
  push(static_cast<std::uint32_t>((static_cast<std::byte*>(p) - blocks_) / block_size));
}

node_pool::counters node_pool::finish() const {
  counters c;
  c.capacity = capacity_;
  c.exhaustions = exhaustions_.load(std::memory_order_relaxed);
  c.wait_s = static_cast<double>(wait_ns_.load(std::memory_order_relaxed)) * 1e-9;
  c.abandoned = abandoned_.load(std::memory_order_relaxed);
  c.prefill_overflows = prefill_overflows_.load(std::memory_order_relaxed);
  std::uint64_t free_blocks = 0;
  for (std::uint32_t i = index_of(head_.load(std::memory_order_acquire)); i != none && free_blocks <= capacity_;
       i = next_[i].load(std::memory_order_relaxed))
    ++free_blocks;
  c.lost = capacity_ - free_blocks;
  return c;
}

}  // namespace smrbench
