// What every reclaimer's per-thread handle shares: registration in the domain (a recycled
// dense id and a padded slot), the thread_core (stats, timeline, freeing) and the free policy.
// Handles are neither copyable nor movable: the slot, the timeline buffer and (for NBR) the
// signal context keep their addresses for the thread's whole registration.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include "smr/core/domain_core.hpp"
#include "smr/core/thread_core.hpp"

namespace smr::core {

template <class Slot, class FreePolicy>
class handle_base {
 public:
  handle_base(const handle_base&) = delete;
  handle_base& operator=(const handle_base&) = delete;

  std::size_t thread_id() const { return entry_->id; }

 protected:
  explicit handle_base(domain_core<Slot>& dc)
      : domain_core_(&dc),
        entry_(&dc.registry().acquire()),
        tc_(entry_->slot.stats, dc.gauge(), dc.timeline_for(entry_->id)) {}

  // The derived handle has already cleared its announcement and freed or donated its nodes.
  ~handle_base() {
    free_.flush(tc_);
    domain_core_->registry().release(*entry_);
  }

  Slot& slot() { return entry_->slot; }
  thread_core& tc() { return tc_; }
  domain_core<Slot>& domain_core_ref() { return *domain_core_; }

  // Nodes proven unreachable go to the free policy.
  void release_safe(limbo_bag&& safe) {
    if (!safe.empty()) free_.release(std::move(safe), tc_);
  }

  FreePolicy free_;

 private:
  domain_core<Slot>* domain_core_;
  typename domain_core<Slot>::entry* entry_;
  thread_core tc_;
};

// A data structure's construction-time check of the domain's protection slots.
template <class Domain>
void require_protect_slots(const Domain& d, unsigned needed, const char* ds_name) {
  if (Domain::traits.slot_based_protection && d.protect_slots() < needed)
    throw std::invalid_argument(std::string(ds_name) + " needs " + std::to_string(needed) +
                                " protection slots per thread, the domain has " +
                                std::to_string(d.protect_slots()));
}

}  // namespace smr::core
