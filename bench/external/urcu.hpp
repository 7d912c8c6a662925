// External baselines: liburcu's QSBR and memb flavours (Debian: liburcu-dev, 0.13) behind smr's
// reclaimer concept, so that they run on smr's own data structures in smrbench.
//
// What they are: userspace RCU as deployed. Readers bracket operations with the flavour's read
// side (memb: rcu_read_lock/unlock, a nesting counter and a compiler barrier, the writer pays
// with membarrier; qsbr: nothing, and every `quiescent_every` operations the thread announces a
// quiescent state, like smr's qsbr). A retired node goes to call_rcu(); liburcu's call_rcu
// worker thread waits for a grace period (synchronize_rcu) and runs the callback, which frees
// the node. So the frees happen on liburcu's thread, not in the application's threads: that is
// how liburcu is used, and it differs from every smr scheme (and means there is no `_af`
// variant: the free policy of the retiring thread never sees these nodes).
//
// Why it is safe: liburcu's grace period (synchronize_rcu) waits until every registered thread
// has left the read-side critical sections (memb) or passed a quiescent state (qsbr) that were
// in progress when it began; call_rcu runs the callback only after such a grace period, which
// started after the node was unlinked.
//
// What it costs here: the read side is inlined from liburcu's static headers (its _LGPL_SOURCE
// fast path); registration, call_rcu and the barrier are calls into the shared library. Each
// node carries liburcu's rcu_head (two pointers) next to smr's header. liburcu's reader
// registry is process-wide: two domains of the same flavour share grace periods (both stay safe).
//
// When not to use it: as for smr's qsbr, a registered thread that stops passing quiescent
// states (urcu_qsbr) or stalls inside an operation (both) stops every grace period; garbage is
// unbounded, and reclaim_now reports the timeout.
#pragma once

#define _LGPL_SOURCE 1
#include <urcu/urcu-memb.h>          // the memb flavour (and the shared call_rcu types)
#include <urcu/static/urcu-qsbr.h>   // the qsbr read side, inline (its map would clash with memb's)

#include <atomic>
#include <cstdint>
#include <string_view>
#include <tuple>

#include "external/collector.hpp"
#include "external/rule_base.hpp"
#include "smr/core/domain.hpp"

// liburcu's out-of-line QSBR entry points, as urcu-qsbr.h declares them; that header cannot be
// included beside urcu-memb.h (both map the unprefixed names).
extern "C" {
void urcu_qsbr_register_thread(void);
void urcu_qsbr_unregister_thread(void);
void urcu_qsbr_call_rcu(struct rcu_head* head, void (*func)(struct rcu_head* head));
void urcu_qsbr_barrier(void);
}

namespace smr::external {

struct urcu_memb_flavour {
  static constexpr std::string_view name = "urcu_memb",
                                    summary = "liburcu's memb flavour (external baseline): read-side lock, membarrier grace periods, call_rcu worker frees";
  struct config {};
  static constexpr std::tuple<> tunables{};
  static config eager_config() { return {}; }

  static void register_thread() { urcu_memb_register_thread(); }
  static void unregister_thread() { urcu_memb_unregister_thread(); }
  static void enter(const config&, unsigned&) { _urcu_memb_read_lock(); }
  static void leave(const config&, unsigned&) { _urcu_memb_read_unlock(); }
  static void call_rcu(rcu_head* h, void (*f)(rcu_head*)) { urcu_memb_call_rcu(h, f); }
  static void quiesce() {}  // memb threads hold grace periods only inside a read side
  // Waits for every callback queued before it (liburcu's rcu_barrier); outside a read side.
  static void barrier() { urcu_memb_barrier(); }
};

struct urcu_qsbr_flavour {
  static constexpr std::string_view name = "urcu_qsbr",
                                    summary = "liburcu's QSBR flavour (external baseline): a quiescent state every k operations, call_rcu worker frees";
  struct config {
    unsigned quiescent_every = 100;  // operations per quiescent state, as smr's qsbr (Hart's k)
  };
  static constexpr std::tuple tunables{tunable{"quiescent_every", &config::quiescent_every, "operations per quiescent state", 1u}};
  static config eager_config() { return {.quiescent_every = 2}; }

  static void register_thread() { urcu_qsbr_register_thread(); }
  static void unregister_thread() { urcu_qsbr_unregister_thread(); }
  static void enter(const config&, unsigned&) {}  // QSBR's read side is empty
  static void leave(const config& c, unsigned& ops) {
    if (++ops >= c.quiescent_every) [[unlikely]] {
      ops = 0;
      _urcu_qsbr_quiescent_state();
    }
  }
  static void call_rcu(rcu_head* h, void (*f)(rcu_head*)) { urcu_qsbr_call_rcu(h, f); }
  static void quiesce() { _urcu_qsbr_quiescent_state(); }
  // rcu_barrier refuses to wait in an online QSBR thread (it would wait for itself): go offline
  // around it when this thread is registered and online.
  static void barrier() {
    const bool online = _urcu_qsbr_read_ongoing();
    if (online) _urcu_qsbr_thread_offline();
    urcu_qsbr_barrier();
    if (online) _urcu_qsbr_thread_online();
  }
};

// The node header: smr's (limbo link, destroy) and liburcu's rcu_head, as a base so that the
// callback gets from the rcu_head back to the node with a static_cast.
struct urcu_node : core::retired_node, rcu_head {};

// What the callback, running on liburcu's worker thread, updates: the domain's gauge and count of
// the frees it made (no thread's own statistics can take them).
struct urcu_accounting {
  core::unreclaimed_gauge* gauge = nullptr;
  std::atomic<std::uint64_t> freed{0};
};

// A thread's registry slot: its nodes liburcu still holds (external/collector.hpp), and the
// domain's accounting for the callback.
struct urcu_slot : pending_count {
  urcu_accounting* accounting = nullptr;
};

template <class Flavour>
struct urcu_rule_with : rule_base<Flavour> {
  using typename rule_base<Flavour>::config;
  static constexpr reclaimer_traits traits{.protects_unlinked_traversal = true};
  using node_base = urcu_node;
  using slot = urcu_slot;

  template <class Base>
  class domain_state : public pending_domain<Base> {
   public:
    domain_state(const config& c, const core::instruments& inst) : pending_domain<Base>(c, inst) { accounting_.gauge = &this->gauge(); }
    // Every callback of this domain has run before its accounting goes away. No handle of the
    // domain is left (the core refuses to die otherwise), so this thread is in no read side.
    ~domain_state() { Flavour::barrier(); }

    // The core's statistics plus the frees made on liburcu's worker thread.
    core::stats_snapshot stats() {
      core::stats_snapshot s = Base::stats();
      s.freed += accounting_.freed.load(std::memory_order_relaxed);
      return s;
    }

    // For the rule's thread state, which hands it to the callbacks through its slot.
    urcu_accounting& accounting() { return accounting_; }

   private:
    urcu_accounting accounting_;
  };

  template <class Base>
  class thread_state : public Base {
   protected:
    explicit thread_state(typename Base::domain_type& d) : Base(d), cfg_(d.configuration()) {
      this->slot().accounting = &d.accounting();  // published to the callbacks by call_rcu's queue
      thread_registration<Flavour>::acquire(&Flavour::register_thread);
    }
    // The nodes this thread retired stay queued in liburcu; the domain's barrier waits for them.
    ~thread_state() { thread_registration<Flavour>::release(&Flavour::unregister_thread); }

    void enter() { Flavour::enter(cfg_, ops_); }
    void leave() { Flavour::leave(cfg_, ops_); }

    void retire(core::retired_node* n) {
      hand_over(n, this->slot());
      this->tc().note_retired();
      Flavour::call_rcu(static_cast<urcu_node*>(n), &on_grace_period_end);
    }

    // This thread's nodes that liburcu has not freed yet.
    std::size_t unreclaimed() const { return pending_of(const_cast<thread_state&>(*this).slot()); }

    // Outside any operation. liburcu's worker frees on its own; the step only keeps this
    // thread from holding its grace periods (a QSBR quiescent state). reclaim_now repeats it
    // until unreclaimed() is 0, so it keeps its timeout, unlike liburcu's blocking rcu_barrier.
    void reclaim_step() { Flavour::quiesce(); }

   private:
    // On liburcu's call_rcu thread, a grace period after the retire.
    static void on_grace_period_end(rcu_head* h) {
      urcu_node* n = static_cast<urcu_node*>(h);
      urcu_slot& s = origin_of<urcu_slot>(n);
      core::free_node(n);
      s.accounting->freed.fetch_add(1, std::memory_order_relaxed);
      s.accounting->gauge->add(-1);
      settled(s);
    }

    const config& cfg_;
    unsigned ops_ = 0;  // qsbr: operations since the last quiescent state
  };
};

using urcu_memb_rule = urcu_rule_with<urcu_memb_flavour>;
using urcu_qsbr_rule = urcu_rule_with<urcu_qsbr_flavour>;

using urcu_memb = basic_domain<urcu_memb_rule>;
using urcu_qsbr = basic_domain<urcu_qsbr_rule>;

}  // namespace smr::external
