// RCU: user-space read-copy-update with per-thread counters, the "rcu" of the Epochs-too-epic
// and IBR benchmarks: the read side of liburcu's default flavour, memb (Desnoyers, McKenney,
// Stern, Dagenais, Walpole, IEEE TPDS 2012), with call_rcu-style deferred freeing done by the
// retiring thread itself instead of a helper thread.
//
// What it is: every operation is a read-side critical section. Each thread's slot holds a
// counter, odd while the thread is inside an operation, even outside (the operation word of
// detail/asymmetric_fence.hpp, which token uses too). A retired node goes to the
// thread's batch. When the batch holds `grace_every` nodes, the thread starts a grace period for
// it at the start of its next operation: one process-wide barrier, then a snapshot of every
// other thread whose counter is odd. At the start of each later operation it re-reads the
// counters of the snapshot's threads still listed; once each has changed (that thread left the
// operation it was in), the grace period is over and the batch is freed. A grace period is one
// epoch of the statistics. Readers pay two stores and a compiler barrier per operation; the
// retiring thread pays the barrier once per batch and a few loads per operation while a grace
// period is under way. It never blocks (liburcu's synchronize_rcu would; reclaim_now() is the
// waiting barrier here).
//
// Why it is safe (proof sketch). Every node of a batch was unlinked (by this thread, or by a
// thread that donated it before it was adopted) before the grace period's barrier. Let O be an
// operation of thread U, begun with the store of odd value c, the light fence, and then reads.
// The grace period's barrier is the heavy side of the pair (detail/asymmetric_fence.hpp) and its
// read of U's counter the load after it; O's store and reads are the light side. The read
//  - returns a value older than c: then O's reads observe every unlink: O cannot reach the batch;
//  - returns c: the batch waits until the counter changes, which happens first at O's end, a
//    release store; the acquire load that sees it or any later store of U (each a release store
//    after O's end) makes O's accesses happen before the free;
//  - returns a later value: O ended before the release store read, so O happens before the
//    free the same way.
// A thread whose id is at or past the high-water mark read after the barrier is the first case:
// its registration precedes its odd store and its reads, so if the barrier's loads missed the
// registration, its reads follow the barrier and observe every unlink. Hence the mark is read
// after the barrier, never before (rcu_rule::barrier_then_ids; tests/relacy/rcu_attach_model.cpp).
// Grace periods start and end at the start of an operation, before the thread's own counter
// goes odd: the thread's own earlier operations, which might still use a node it retired, are
// over, and it never waits for itself.
//
// When not to use it: a reader stalled inside an operation keeps every grace period that
// started after it from ending, so garbage is unbounded (as for ebr). With more threads than
// cores a grace period lasts until every descheduled reader has run again. smr::rcu_domain
// (smr/rcu.hpp, the C++26 interface) is a different thing: a facade on ebr.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "smr/core/domain.hpp"
#include "smr/detail/asymmetric_fence.hpp"
#include "smr/detail/limbo_bag.hpp"

namespace smr {

namespace detail {

struct rcu_slot : operation_word_slot {};

template <class Base>
class rcu_thread : public operation_word_thread<Base> {
 protected:
  explicit rcu_thread(typename Base::domain_type& d)
      : operation_word_thread<Base>(d), grace_every_(d.configuration().grace_every) {}

  // Between operations: free what the grace period under way allows now, hand the rest over.
  ~rcu_thread() {
    if (!waiting_.empty() && grace_period_over()) this->release_safe(std::move(waiting_));
    limbo_bag all = std::move(waiting_);
    all.splice(std::move(batch_));
    this->donate(std::move(all));
  }

  // Orphans start a grace period at once, whatever the batch: under thread churn no handle may
  // live the grace_every retirements that would start one, and orphans would be handed on at
  // every detach and never freed. (acquire in has_orphans: a read of a line written only by
  // detaching threads.)
  void enter() {
    if (!waiting_.empty() || batch_.size() >= grace_every_ || this->domain().has_orphans()) [[unlikely]]
      advance(grace_every_);
    this->publish_enter();  // the light side of the proof's pair
  }

  void leave() { this->publish_leave(); }

  void retire(retired_node* n) {
    batch_.push(n);
    this->tc().note_retired();
  }

  std::size_t unreclaimed() const { return batch_.size() + waiting_.size(); }

  // Outside an operation: one step for everything the thread holds (reclaim_now() repeats it).
  void reclaim_step() { advance(1); }

 private:
  // Ends the grace period under way if its readers have moved on, then starts one if the batch
  // holds at least `start_at` nodes or exited threads left nodes. Outside an operation.
  // Out of line: inlined, it kept the skeleton's enter_op from being inlined into the
  // operations (7% of throughput on the hash map at 2 threads).
  [[gnu::noinline]] void advance(std::size_t start_at) {
    if (!waiting_.empty()) {
      if (!grace_period_over()) return;
      this->release_safe(std::move(waiting_));
    }
    if (batch_.size() >= start_at || this->domain().has_orphans()) start_grace_period();
  }

  // Takes the batch (and orphans) and snapshots the threads inside an operation.
  void start_grace_period() {
    waiting_ = std::move(batch_);
    waiting_.splice(this->adopt_orphans());
    if (waiting_.empty()) return;
    auto& registry = this->domain().registry();
    // The heavy side: every node of `waiting_` was unlinked before this point.
    const std::size_t ids = Base::rule_type::barrier_then_ids(this->fences(), registry);
    readers_.clear();
    for (std::size_t id = 0; id < ids; ++id) {
      if (id == this->thread_id()) continue;
      // acquire: pairs with leave()'s release store (an even value: that thread's operations
      // happen before the free).
      const std::uint64_t c = registry.slot_at(id).operations.load(mo_acquire);
      if (operation_word_slot::inside(c)) readers_.emplace_back(id, c);
    }
    this->tc().stats().epochs.add();
    this->tc().record_instant(event_kind::epoch_advance, ++grace_periods_);
  }

  // Whether every thread of the snapshot has left the operation it was in.
  bool grace_period_over() {
    auto& registry = this->domain().registry();
    std::erase_if(readers_, [&](const std::pair<std::size_t, std::uint64_t>& r) {
      // acquire: pairs with the release store that changed the counter (see the proof).
      return registry.slot_at(r.first).operations.load(mo_acquire) != r.second;
    });
    return readers_.empty();
  }

  const unsigned grace_every_;
  std::uint64_t grace_periods_ = 0;  // started by this thread (the timeline's epoch value)
  limbo_bag batch_;                  // retired since the grace period under way began
  limbo_bag waiting_;                // the nodes of the grace period under way
  std::vector<std::pair<std::size_t, std::uint64_t>> readers_;  // (id, odd counter) not yet moved on
};

}  // namespace detail

struct rcu_rule : rule_defaults {
  static constexpr std::string_view name = "rcu",
                                    summary = "user-space RCU: per-thread counters, a grace period per batch of retirements (liburcu memb read side; Epochs too epic, IBR benchmarks)";
  static constexpr reclaimer_traits traits{.protects_unlinked_traversal = true, .metrics = {.epochs = true}};

  struct config {
    unsigned grace_every = 32768;  // retirements per grace period (the Epochs paper's batch size)
  };
  static constexpr std::tuple tunables{
      tunable{"grace_every", &config::grace_every, "retirements a thread batches before it starts a grace period for them", 1u}};
  static config eager_config() { return {.grace_every = 2}; }

  // A grace period's barrier, then the bound of the ids its snapshot reads: read after the
  // barrier, so that a thread registered too late to be counted reads after it too (the proof).
  // A step of its own only so that a planted bug in the tests can swap the two.
  template <class Fences, class Registry>
  static std::size_t barrier_then_ids(const Fences& fences, Registry& registry) {
    fences.heavy();
    return registry.high_water();
  }

  using slot = detail::rcu_slot;
  template <class Base>
  using domain_state = detail::asymmetric_fence_domain<Base>;
  template <class Base>
  using thread_state = detail::rcu_thread<Base>;
};

template <class FreePolicy = core::batch_free>
using basic_rcu = basic_domain<rcu_rule, FreePolicy>;
using rcu = basic_rcu<>;
using rcu_af = basic_rcu<core::amortized_free<>>;

}  // namespace smr
