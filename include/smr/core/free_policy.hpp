// Free policies: what a reclaimer does with nodes it has proven safe to free.
//
// Reclaimers decide *which* nodes are safe; a free policy decides *when* their memory goes
// back to the allocator. `batch_free` frees a whole safe batch at once (the classic behaviour
// of every batch reclaimer); `amortized_free` (Kim, Brown, Singh 2024, §3.3) parks the batch
// and frees a few nodes at the start of each operation, which avoids the long remote-free
// calls that large batches trigger in jemalloc and tcmalloc. A reclaimer takes either as a
// template argument (basic_debra<amortized_free<>> is debra_af) without any change. A policy
// is instantiated per thread inside the reclaimer's handle, so it needs no synchronization. Interface:
//   release(detail::limbo_bag&& safe, detail::thread_core&)  -- nodes that no thread can reach any more
//   release(safe, tc, progress, every)  -- optional: the same, calling progress() every `every`
//                                         frees if it frees now (see thread_core::free_now)
//   on_operation(detail::thread_core&)               -- called at the start of every operation
//   flush(detail::thread_core&)                      -- free everything pending (thread exit)
//   pending()                                -- safe nodes not yet freed
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "smr/detail/address_sort.hpp"
#include "smr/detail/limbo_bag.hpp"
#include "smr/detail/thread_core.hpp"

namespace smr::core {

class batch_free {
 public:
  static constexpr std::string_view suffix = "";
  static constexpr std::string_view summary_suffix = "";

  void release(detail::limbo_bag&& safe, detail::thread_core& tc) { tc.free_now(std::move(safe)); }
  template <class Progress>
  void release(detail::limbo_bag&& safe, detail::thread_core& tc, Progress&& progress, std::size_t every) {
    tc.free_now(std::move(safe), progress, every);
  }
  void on_operation(detail::thread_core&) {}
  void flush(detail::thread_core&) {}
  std::size_t pending() const { return 0; }
};

// Frees `PerOperation` parked nodes per operation, plus as many as the thread retired since it
// last freed or parked some, and faster when a large batch is parked: whatever is parked when a
// batch arrives is freed within `drain_within` operations of the thread. The paper frees them
// "one by one, each time a data structure operation is performed"; a set or queue operation
// retires at most one node, so one free per operation keeps up on average and two (the default)
// also drains what a thread adopts from exited threads. An update of a persistent tree retires a
// whole path (the Bonsai tree: about 20 nodes at 65,536 keys), and a fixed number per operation
// would fall behind without bound: matching the thread's own retire rate keeps the backlog at
// what the reclaimer holds back.
//
// Why drain_within. At two frees per operation a 32K-node batch (rcu's, nbr's) stays parked for
// 16K operations, and the nodes a thread allocates meanwhile are the ones it just freed, spread
// over the whole batch's memory instead of packed where a bulk free would have refilled the
// allocator (docs/guide.md has the counts). On a 2K-key list, whose traversals live in the
// first-level cache, that cost rcu_af, nbr_af and nbr_plus_af 6-20% against their batch
// variants at 2 threads (glibc, jemalloc, tcmalloc). Freeing each parked backlog within 1,024
// operations brought them to 0.95-1.06x in one interleaved run (3 rounds); within 256 did about
// as well except nbr_af (0.90x). A backlog of up to 2,048 nodes drains at two per operation as
// before, so the schemes whose batches are a few dozen nodes are unchanged. An operation makes
// more free calls while a large batch drains (32 for rcu's), each no longer: in the same runs
// the p99.9 of a free call was 0.36-1.16x of before (median 0.88).
//
// Freeing in groups instead (every 16 or 64 operations, that many operations' worth at once)
// was measured against two per operation on the 20K-key hash map, jemalloc, 2 and 8 threads, in
// two runs: rcu_af gained 0-7%, qsbr_af and token_af moved by at most 3% either way, inside the
// runs' spread. Not kept: bursts of frees inside operations again, for a gain that is not clear.
//
// A safe batch of sort_from nodes or more is parked in address order (detail/address_sort.hpp).
// Parked in retirement order, such a batch goes back to the allocator a node or two at a time
// from all over the heap, and a profile put the extra time in the structure's operations, not in
// the frees. In five interleaved runs (20K-key hash map, jemalloc), the sort raised rcu_af's
// ratio to rcu (32K-node batches) by 4-6 points at 2 threads in every run (medians 0.81-1.00
// unsorted, 0.87-1.04 sorted) and by 0-3 at 8. In one run of 5 rounds with glibc and tcmalloc
// too, and nbr, qsbr and token beside rcu (docs/guide.md has the table), the other cells moved
// by -5 to +8 points, most within the rounds' ranges. Smaller batches are not sorted: a first
// version that sorted every batch (std::sort into a fresh vector) cost qsbr_af and debra_af 8-9%
// at 2 threads, where their batches are a few dozen nodes. Batch frees are not sorted either:
// measured the same way, rcu gained nothing (31.4 against 31.3 Mops/s at 2 threads, 28.9
// against 29.0 at 8); a whole batch at once already refills the allocator in bulk.
template <unsigned PerOperation = 2>
class amortized_free {
  static_assert(PerOperation > 0, "amortized_free must free at least one node per operation");

 public:
  static constexpr std::string_view suffix = "_af";
  // The smallest safe batch parked in address order.
  static constexpr std::size_t sort_from = 1024;
  // Whatever is parked when a batch arrives is freed within this many operations.
  static constexpr std::size_t drain_within = 1024;
  static constexpr std::string_view summary_suffix = "; amortized free (Epochs too epic §3.3)";

  void release(detail::limbo_bag&& safe, detail::thread_core& tc) {
    // Retirements while nothing was parked owe no frees: the budget counts from here.
    const bool was_empty = parked_.empty();
    if (was_empty) retired_seen_ = tc.stats().retired.read();
    // Best effort: a failed sort leaves the batch unsorted. Its time counts as time in free.
    if (safe.size() >= sort_from) tc.free_work([&] { sorter_.sort(safe); });
    parked_.splice(std::move(safe));
    // The rate only rises while a backlog remains: a small batch arriving behind a large one
    // must not stretch the large one's drain past drain_within operations (the backlog is FIFO).
    const std::uint64_t needed = (parked_.size() + drain_within - 1) / drain_within;
    per_operation_ = std::max<std::uint64_t>(was_empty ? PerOperation : per_operation_, needed);
  }
  // Most operations find nothing parked (the backlog drains faster than a thread retires), so
  // that test is all they pay, inline. Doing the budget's bookkeeping in every operation, out
  // of line, cost the fastest schemes 10-12% of their throughput on a 20K-key hash map.
  void on_operation(detail::thread_core& tc) {
    if (parked_.empty()) [[likely]] return;
    free_some(tc);
  }
  void flush(detail::thread_core& tc) { tc.free_now(parked_.take_all()); }
  std::size_t pending() const { return parked_.size(); }

 private:
  [[gnu::noinline]] void free_some(detail::thread_core& tc) {
    // The thread's own counter (written only by it): no synchronization.
    const std::uint64_t retired = tc.stats().retired.read();
    std::uint64_t budget = per_operation_ + (retired - retired_seen_);
    retired_seen_ = retired;
    for (; budget != 0; --budget) {
      retired_node* n = parked_.pop_front();
      if (n == nullptr) return;
      tc.free_one(n);
    }
  }

  detail::limbo_bag parked_;
  detail::address_sorter sorter_;
  // The thread's retired count when it last freed parked nodes or parked a batch on an empty
  // backlog.
  std::uint64_t retired_seen_ = 0;
  // Frees per operation until the backlog is empty: PerOperation, or more for a large one.
  std::uint64_t per_operation_ = PerOperation;
};

}  // namespace smr::core
