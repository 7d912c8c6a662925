// The domain-wide parts every reclaimer shares: the thread registry, the unreclaimed gauge,
// the optional timeline, and the orphan bag that exiting threads hand their unreclaimed nodes
// to. A reclaimer domain owns one domain_core; there is no per-type global state, so tests and
// trials can always start from a fresh domain.
#pragma once

#include <cassert>
#include <mutex>

#include "smr/core/limbo_bag.hpp"
#include "smr/core/stats.hpp"
#include "smr/core/thread_core.hpp"
#include "smr/core/thread_registry.hpp"
#include "smr/core/timeline.hpp"

namespace smr::core {

// Slot must have a member `thread_stats stats`.
template <class Slot>
class domain_core {
 public:
  using entry = typename thread_registry<Slot>::entry;

  explicit domain_core(timeline* tl = nullptr) : timeline_(tl) {}
  domain_core(const domain_core&) = delete;
  domain_core& operator=(const domain_core&) = delete;

  // Every handle must be gone by now; what is left (orphans) can no longer be reached.
  ~domain_core() {
    assert(registry_.active_threads() == 0 && "a thread handle outlived its domain");
    while (retired_node* n = orphans_.pop_front()) free_node(n);
  }

  thread_registry<Slot>& registry() { return registry_; }
  unreclaimed_gauge& gauge() { return gauge_; }

  timeline_buffer* timeline_for(std::size_t id) {
    return timeline_ == nullptr ? nullptr : timeline_->attach(id);
  }

  // An exiting thread leaves nodes it could not yet free; the next reclaiming thread adopts
  // them and applies its own safety rule (re-retiring them now is always conservative).
  // Orphans stay counted in the unreclaimed gauge while they wait: nothing to adjust.
  void donate(limbo_bag&& bag) {
    if (bag.empty()) return;
    std::lock_guard<std::mutex> g(orphan_lock_);
    orphans_.splice(std::move(bag));
    // release: pairs with the acquire check in adopt(); the lock orders the bag itself.
    has_orphans_.store(true, mo_release);
  }

  limbo_bag adopt() {
    if (!has_orphans_.load(mo_acquire)) return {};
    limbo_bag out;
    {
      std::lock_guard<std::mutex> g(orphan_lock_);
      out = orphans_.take_all();
      has_orphans_.store(false, mo_relaxed);
    }
    return out;
  }

  stats_snapshot stats() {
    stats_snapshot s;
    registry_.for_each([&](Slot& slot, std::size_t) { s.add(slot.stats); });
    s.unreclaimed = gauge_.value();
    s.peak_unreclaimed = gauge_.peak();
    return s;
  }

 private:
  thread_registry<Slot> registry_;
  unreclaimed_gauge gauge_;
  timeline* timeline_;
  std::mutex orphan_lock_;
  limbo_bag orphans_;
  atomic<bool> has_orphans_{false};
};

}  // namespace smr::core
