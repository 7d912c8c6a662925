// The per-thread part every reclaimer shares, and the base of every rule's thread state:
// registration in the domain (a recycled dense id and a padded registry slot), the thread_core
// (stats, timeline, freeing), the free policy, the orphan hand-over, the operation depth and
// the owning thread. The skeleton (core/domain.hpp) derives the public handle from the rule's
// thread state, which derives from this.
//
// Neither copyable nor movable: the slot, the timeline buffer and (for NBR) the signal context
// keep their addresses for the thread's whole registration.
#pragma once

#include <cstddef>
#include <thread>
#include <utility>

#include "smr/detail/checks.hpp"
#include "smr/detail/domain_core.hpp"
#include "smr/detail/limbo_bag.hpp"
#include "smr/detail/thread_core.hpp"

namespace smr::detail {

template <class Domain>
class thread_base {
 public:
  using domain_type = Domain;
  using rule_type = typename Domain::rule;
  using slot_type = registry_slot<rule_type>;

  thread_base(const thread_base&) = delete;
  thread_base& operator=(const thread_base&) = delete;

  // The registry id: dense, recycled after the handle is gone.
  std::size_t thread_id() const { return entry_->id; }
  // Inside a guard (nested guards join the outermost operation).
  bool in_operation() const { return depth_ != 0; }

 protected:
  explicit thread_base(Domain& d) : thread_base(d, d.registry().acquire()) {}

  // The rule's thread state has already made the slot protect nothing and freed or donated its
  // nodes; the free policy's backlog went at begin_detach(), and nothing was parked since.
  ~thread_base() {
    free_.flush(tc_);
    // Last write to the domain: once release() has counted this thread out, the domain's
    // destructor may run (thread_registry::release).
    tc_.flush_gauge();
    domain_->registry().release(*entry_);
  }

  Domain& domain() { return *domain_; }
  const Domain& domain() const { return *domain_; }
  slot_type& slot() { return entry_->slot; }
  thread_core& tc() { return tc_; }
  unsigned depth() const { return depth_; }

  // Nodes proven unreachable go to the free policy (freed at once while detaching).
  void release_safe(limbo_bag&& safe) {
    if (safe.empty()) return;
    if (detaching_) [[unlikely]]
      tc_.free_now(std::move(safe));
    else
      free_.release(std::move(safe), tc_);
  }
  // The same, with progress() called every `every` frees if the policy frees the batch now (a
  // policy that parks it frees a few per operation, and the rule's own per-operation hook
  // already runs between those).
  template <class Progress>
  void release_safe(limbo_bag&& safe, Progress&& progress, std::size_t every) {
    if (safe.empty()) return;
    if (detaching_) [[unlikely]]
      tc_.free_now(std::move(safe), progress, every);
    else if constexpr (requires { free_.release(std::move(safe), tc_, progress, every); })
      free_.release(std::move(safe), tc_, progress, every);
    else
      free_.release(std::move(safe), tc_);
  }
  // Nodes of exited threads (to be re-retired under the caller's own rule), and the hand-over
  // of this thread's nodes at exit.
  limbo_bag adopt_orphans() { return domain_->adopt(); }
  void donate(limbo_bag&& bag) { domain_->donate(std::move(bag)); }
  // Visits every registry slot ever used (unowned slots protect nothing).
  template <class F>
  void for_each_slot(F&& fn) {
    domain_->registry().for_each([&](slot_type& s, std::size_t) { fn(s); });
  }
  std::size_t pending_frees() const { return free_.pending(); }
  // Frees the free policy's whole backlog now (the reclaim-now barrier).
  void flush_frees() { free_.flush(tc_); }

  // First step of a detach, by the handle's destructor while the rule's thread state is whole:
  // the backlog is freed, and what the rule's destructor proves safe is freed at once. A deleter
  // may retire a child through this handle (docs/guide.md); freed any later, from
  // ~thread_base, it would reach a rule state already destroyed, and the child would be lost.
  // The flag first: a deleter run by the flush may retire, and a scan that retire starts may
  // prove more nodes safe, which must not be parked behind the flush.
  void begin_detach() {
    detaching_ = true;
    flush_frees();
  }

  // Checked mode: a rule's own call outside operations (qsbr's quiescent_state(), nebr's
  // regions) made by the thread that attached the handle; begin_op() checks the others.
  void check_owner(const char* misuse_message) const {
    if (checks_on() && !owned_by_this_thread()) misuse(misuse_message);
  }

  // ---- for the skeleton's handle ----

  // Start of an outermost operation: the free policy's share of work.
  void run_free_policy() { free_.on_operation(tc_); }
  bool owned_by_this_thread() const { return owner_ == std::this_thread::get_id(); }

  unsigned depth_ = 0;  // nested guards; the hooks see only the outermost enter and leave

 private:
  using registry_entry = typename thread_registry<slot_type>::entry;

  // The entry is claimed before the thread_core, whose instruments may allocate (a timeline's
  // buffer): if that throws, the entry goes back, or the domain would count this handle as
  // attached for good (and refuse to be destroyed).
  thread_base(Domain& d, registry_entry& e) try
      : domain_(&d),
        entry_(&e),
        tc_(e.slot.stats, d.gauge(), d.timeline_for(e.id), d.free_profile_for(e.id)),
        owner_(std::this_thread::get_id()) {
  } catch (...) {
    d.registry().release(e);
  }

  Domain* domain_;
  registry_entry* entry_;
  thread_core tc_;
  typename Domain::free_policy free_;
  std::thread::id owner_;
  bool detaching_ = false;  // set by begin_detach()
};

}  // namespace smr::detail
