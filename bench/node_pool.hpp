// --node-pool N: a fixed number of node-sized blocks per trial, the bounded memory of Hart et
// al. §3.3 and Fig. 14. Installed as smr's node memory resource for the trial, so every node
// of the structure comes from it.
//
// An allocation from an empty pool fails, as malloc returns null: it throws pool_exhausted
// before the operation changed anything (the structures allocate before they publish, and free
// what they allocated if a later allocation throws). The harness then waits outside the
// operation and retries it, busy (at once) or yielding the processor first (--pool-wait;
// Hart's threads yield). Waiting outside the operation matters: a thread that waited inside
// one would hold back the very grace periods that free memory (an epoch scheme would never
// recover), whereas between attempts its critical region is closed and QSBR's operation count
// runs on. Busy-waiting threads still keep preempted ones off the processor, which is what
// Fig. 14 shows. An operation still waiting when the trial stops is abandoned (not counted).
//
// In the prefill an empty pool serves operator new instead (the trial then fails, naming the
// size it needed). Every block must be back when the structure and the domain are gone ("lost"
// counts those that are not: a leak in a data structure or a reclaimer).
//
// The free list is a lock-free stack of block indices whose head carries a 32-bit version, so
// a pop that read a stale head fails its CAS (no ABA); the links live in a side array of atomics,
// never in the blocks, so reading a link of a block that another thread just took is no race.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

#include "smr/core/node.hpp"

namespace smrbench {

enum class pool_wait { busy, yield };

const char* pool_wait_name(pool_wait w);

// Thrown by an allocation from an empty pool in the timed trial.
struct pool_exhausted : std::bad_alloc {
  const char* what() const noexcept override { return "smrbench: the node pool is empty"; }
};

class node_pool final : public smr::core::node_memory_resource {
 public:
  // Bytes per block: every node type of the library's structures fits (the largest, with the
  // era-based headers, is well below it); a larger request is refused with a message.
  static constexpr std::size_t block_size = 128;

  struct counters {
    std::uint64_t capacity = 0;
    std::uint64_t exhaustions = 0;  // operations that found the pool empty and waited
    double wait_s = 0;              // their waiting time, all threads
    std::uint64_t abandoned = 0;    // of them, those still waiting when the trial stopped
    std::uint64_t prefill_overflows = 0;  // prefill blocks that came from operator new
    std::uint64_t lost = 0;  // blocks not back after teardown (valid once the trial is over)
  };

  node_pool(std::uint32_t capacity, pool_wait mode);
  ~node_pool();
  node_pool(const node_pool&) = delete;
  node_pool& operator=(const node_pool&) = delete;

  void* allocate(std::size_t bytes, std::size_t alignment) override;
  void deallocate(void* p) override;
  bool owns(const void* p) const override;

  // The prefill is over: from now on an empty pool throws pool_exhausted.
  void begin_timed() { timed_.store(true, std::memory_order_relaxed); }

  // Between two attempts of an operation that found the pool empty: sched_yield() in yield
  // mode, nothing in busy mode (the retry is the spin).
  void pause() const;
  // An operation waited `ns` for the pool, and got its block (or was abandoned at the stop).
  void note_wait(std::uint64_t ns, bool abandoned);

  // Single-threaded, after the trial (the structure and the domain are gone).
  counters finish() const;

 private:
  static constexpr std::uint32_t none = ~std::uint32_t{0};

  std::uint32_t try_pop();
  void push(std::uint32_t index);
  std::byte* block(std::uint32_t index) const { return blocks_ + std::size_t{index} * block_size; }

  const std::uint32_t capacity_;
  const pool_wait mode_;
  std::byte* blocks_;                                   // capacity_ blocks, block_size-aligned
  std::unique_ptr<std::atomic<std::uint32_t>[]> next_;  // free-list links, by block index
  alignas(64) std::atomic<std::uint64_t> head_;         // version << 32 | top index (none: empty)
  alignas(64) std::atomic<bool> timed_{false};
  std::atomic<std::uint64_t> exhaustions_{0}, wait_ns_{0}, abandoned_{0}, prefill_overflows_{0};
};

}  // namespace smrbench
