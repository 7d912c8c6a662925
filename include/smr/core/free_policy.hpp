// Free policies: what a reclaimer does with nodes it has proven safe to free.
//
// Reclaimers decide *which* nodes are safe; a free policy decides *when* their memory goes
// back to the allocator. `batch_free` frees a whole safe batch at once (the classic behaviour
// of every batch reclaimer). A policy is instantiated per thread inside the reclaimer's handle,
// so it needs no synchronization. Interface:
//   release(limbo_bag&& safe, thread_core&)  -- nodes that no thread can reach any more
//   on_operation(thread_core&)               -- called at the start of every operation
//   flush(thread_core&)                      -- free everything pending (thread exit)
//   pending()                                -- safe nodes not yet freed
#pragma once

#include <cstddef>
#include <string_view>

#include "smr/core/limbo_bag.hpp"
#include "smr/core/thread_core.hpp"

namespace smr::core {

class batch_free {
 public:
  static constexpr std::string_view suffix = "";

  void release(limbo_bag&& safe, thread_core& tc) { tc.free_now(std::move(safe)); }
  void on_operation(thread_core&) {}
  void flush(thread_core&) {}
  std::size_t pending() const { return 0; }
};

}  // namespace smr::core
