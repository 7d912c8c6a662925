// External baseline: Concurrency Kit's ck_epoch (Debian: libck-dev, 0.7) behind smr's reclaimer
// concept, so that it runs on smr's own data structures in smrbench.
//
// What it is: ck's epoch reclamation as its documentation prescribes it. An operation is a
// section (ck_epoch_begin / ck_epoch_end: a store, a full fence, a load of the global epoch on
// entry; a release store on exit). A retired node is deferred on the thread's record
// (ck_epoch_call, no fence), and every `poll_every` retirements the thread calls ck_epoch_poll,
// which advances the global epoch if every active record has seen it and runs the callbacks of
// buckets two epochs old. The callbacks run in the polling thread; they hand the nodes to smr's
// free path (external/collector.hpp), so frees are counted and timed like smr's own and the
// `_af` variant is not needed to compare batch sizes.
//
// Why it is safe: ck's argument (ck_epoch.c): a callback deferred in epoch e runs only once the
// global epoch reached e + 2, which needs every active record to have observed e + 1 after the
// deferral; a reader that could still hold the node was active in epoch e or earlier and has
// left its section since.
//
// What it costs here: ck's headers are C only, so begin, end, call and poll are calls into a
// small C shim (external/ck_epoch_shim.c) that is not inlined; the node carries ck's entry (two
// pointers) next to smr's header. ck_epoch_unregister drops pending callbacks, so a thread's
// detach first runs ck_epoch_barrier: it waits for every thread inside a section to leave it.
//
// When not to use it: as for smr's ebr, a thread stalled inside an operation stops every epoch
// advance (unbounded garbage), and here also every other thread's detach.
#pragma once

#include <cstddef>
#include <new>
#include <string_view>
#include <tuple>

#include "external/ck_epoch_shim.h"
#include "external/collector.hpp"
#include "smr/core/domain.hpp"

namespace smr::external {

// The node header: smr's and ck's entry, as a base so that the callback gets from the entry back
// to the node with a static_cast.
struct ck_node : core::retired_node, smr_ck_entry {};

struct ck_epoch_rule : rule_defaults {
  static constexpr std::string_view name = "ck_epoch",
                                    summary = "Concurrency Kit's ck_epoch (external baseline): sections, ck_epoch_call, ck_epoch_poll every k retirements";
  static constexpr bool external = true;
  struct config {
    unsigned poll_every = 100;  // retirements between ck_epoch_poll calls (as ebr's advance_every)
  };
  static constexpr std::tuple tunables{tunable{"poll_every", &config::poll_every, "retirements between ck_epoch_poll calls", 1u}};
  static constexpr reclaimer_traits traits{.protects_unlinked_traversal = true};
  static config eager_config() { return {.poll_every = 2}; }
  using node_base = ck_node;
  using slot = pending_count;  // the thread's nodes ck still holds (external/collector.hpp)

  template <class Base>
  class domain_state : public pending_domain<Base> {
   public:
    domain_state(const config& c, const core::instruments& inst) : pending_domain<Base>(c, inst), ck_(smr_ck_domain_create()) {
      if (ck_ == nullptr) throw std::bad_alloc();
    }
    ~domain_state() { smr_ck_domain_destroy(ck_); }

    // For the rule's thread state: the ck epoch its records register with.
    smr_ck_domain* ck_domain() { return ck_; }

   private:
    smr_ck_domain* ck_;
  };

  template <class Base>
  class thread_state : public Base {
   protected:
    explicit thread_state(typename Base::domain_type& d) : Base(d), record_(smr_ck_attach(d.ck_domain())) {
      if (record_ == nullptr) throw std::bad_alloc();
    }
    ~thread_state() {
      detail::limbo_bag safe;
      {
        collector c(safe);
        smr_ck_detach(record_);
      }
      this->release_safe(std::move(safe));
    }

    void enter() { smr_ck_begin(record_); }
    void leave() {
      smr_ck_end(record_);
      if (retired_since_poll_ >= this->domain().configuration().poll_every) poll();
    }

    void retire(core::retired_node* n) {
      hand_over(n, this->slot());
      smr_ck_call(record_, static_cast<ck_node*>(n), &on_safe);
      this->tc().note_retired();
      ++retired_since_poll_;
    }

    std::size_t unreclaimed() const { return pending_of(const_cast<thread_state&>(*this).slot()); }

    // Outside any operation: a poll advances the epoch by at most one, so reclaim_now repeats it.
    void reclaim_step() { poll(); }

   private:
    void poll() {
      retired_since_poll_ = 0;
      detail::limbo_bag safe;
      {
        collector c(safe);
        smr_ck_poll(record_);
      }
      this->release_safe(std::move(safe));
    }

    // Run by ck inside smr_ck_poll / smr_ck_detach, on this thread.
    static void on_safe(smr_ck_entry* e) {
      ck_node* n = static_cast<ck_node*>(e);
      pending_count& from = origin_of(n);
      collector::take(n);
      settled(from);
    }

    smr_ck_record* record_;
    unsigned retired_since_poll_ = 0;
  };
};

using ck_epoch = basic_domain<ck_epoch_rule>;

}  // namespace smr::external
