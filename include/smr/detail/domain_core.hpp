// The domain-wide parts every reclaimer shares: its configuration, the thread registry, the
// unreclaimed gauge, the optional instruments (timeline, free profile), and the orphan bag that exiting threads hand their
// unreclaimed nodes to. Every domain owns one (it is the base of the rule's domain state);
// there is no per-type global state, so tests and trials can always start from a fresh domain.
#pragma once

#include <cstdio>
#include <mutex>
#include <string>

#include "smr/core/stats.hpp"
#include "smr/core/instruments.hpp"
#include "smr/detail/checks.hpp"
#include "smr/detail/limbo_bag.hpp"
#include "smr/detail/thread_registry.hpp"

namespace smr::detail {
using namespace ::smr::core;  // the public building blocks (atomics, nodes, stats)

// A registry slot: the rule's announcements, then the owner's statistics.
template <class Rule>
struct registry_slot : Rule::slot {
  thread_stats stats;
};

template <class Rule>
class domain_core {
 public:
  using rule = Rule;
  using config = typename Rule::config;
  using slot_type = registry_slot<Rule>;
  using entry = typename thread_registry<slot_type>::entry;

  domain_core(const config& cfg, const instruments& inst) : cfg_(cfg), instruments_(inst) {}
  domain_core(const domain_core&) = delete;
  domain_core& operator=(const domain_core&) = delete;

  // Every handle must be gone by now (refuse_attached_handles() checked, before the rule's own
  // destructor freed anything); what is left (orphans) can no longer be reached.
  ~domain_core() {
    while (retired_node* n = orphans_.pop_front()) free_node(n);
  }

  // A live handle would point into freed memory: refused in every build (one load at
  // destruction). Called first thing in the most derived destructor (basic_domain's).
  void refuse_attached_handles() const {
    if (const std::size_t live = registry_.attached_for_destruction(); live != 0) {
      const std::string what = "a " + std::string(Rule::name) + " domain was destroyed while " +
                               std::to_string(live) + " thread handle(s) were still attached";
      misuse(what.c_str());
    }
  }

  const config& configuration() const { return cfg_; }

  // The unreclaimed count's peak starts again from its current value (smrbench: at the start of
  // the timed part).
  void reset_peak_unreclaimed() { gauge_.reset_peak(); }

  stats_snapshot stats() {
    stats_snapshot s;
    registry_.for_each([&](slot_type& slot, std::size_t) { s.add(slot.stats); });
    s.unreclaimed = gauge_.value();
    s.peak_unreclaimed = gauge_.peak();
    return s;
  }

  // ---- for the skeleton and the rules ----

  thread_registry<slot_type>& registry() { return registry_; }
  unreclaimed_gauge& gauge() { return gauge_; }

  timeline_buffer* timeline_for(std::size_t id) {
    return instruments_.events == nullptr ? nullptr : instruments_.events->attach(id);
  }
  free_profile_buffer* free_profile_for(std::size_t id) {
    return instruments_.frees == nullptr ? nullptr : instruments_.frees->attach(id);
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

  // Whether exited threads left nodes that nobody adopted yet.
  bool has_orphans() const { return has_orphans_.load(mo_acquire); }

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

 private:
  const config cfg_;
  thread_registry<slot_type> registry_;
  unreclaimed_gauge gauge_;
  instruments instruments_;
  std::mutex orphan_lock_;
  limbo_bag orphans_;
  atomic<bool> has_orphans_{false};
};

}  // namespace smr::detail
