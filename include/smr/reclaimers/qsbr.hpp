// QSBR: quiescent-state-based reclamation, Hart et al. (2007), §2.1 and the setup of §4.
//
// What it is: a quiescent state of a thread is a point where it holds no reference to any
// shared node. Any interval in which every thread passes a quiescent state is a grace period,
// after which nodes unlinked before the interval can be freed. Grace periods are detected with
// the epoch fuzzy barrier Hart uses for both QSBR and EBR: at a quiescent state a thread
// announces the global epoch, frees what became safe, and advances the epoch if every online
// thread has announced it. The end of every k-th operation (Listing 4: k = 100) is a quiescent
// state; h.quiescent_state() declares one explicitly. Operations themselves touch nothing
// shared (begin_op is free), so QSBR has the lowest per-operation cost of the epoch family.
// A thread is online from attach() until its handle is destroyed; offline threads never block.
//
// Why it is safe (proof sketch; lemma and theorem in detail/epoch_clock.hpp): a thread's period
// runs from one quiescent state (or attach) to the next (or detach). Each quiescent state
// announces epoch a with a release store, a seq_cst fence and a re-read, so while the period
// lasts the epoch is at most a + 1; nodes the thread unlinks in it are tagged a + 1 (adopted
// ones keep their tags) and freed once the epoch reaches a + 3. The advance to a + 3 scanned every online thread
// after a fence and found it announcing a + 2 (a period that began after the unlink) or offline
// after a release store; either way its earlier periods, the only ones that could hold the
// node, happen before the advancer's release CAS, which the freeing thread read (acquire).
// Quiescent states are only declared where the thread holds nothing: at the end of an outermost
// guard, or by the user outside any guard (refused inside one).
//
// When not to use it: one online thread that stops passing quiescent states (stalled, blocked
// in I/O, or simply idle without detaching) stops all reclamation (Hart §2.1, Fig. 3); garbage
// is unbounded. Detach idle threads, or prefer debra (only threads inside an operation block)
// or a bounded scheme (hp, ibr_2ge, nbr).
#pragma once

#include "smr/core/domain.hpp"
#include "smr/detail/epoch_family.hpp"

namespace smr {

struct qsbr_rule : detail::epoch_rule_base {
  static constexpr std::string_view name = "qsbr", summary = "quiescent-state-based reclamation: every k-th operation end is a quiescent state (Hart et al. 2007, §2.1)";
  struct config {
    unsigned quiescent_every = 100;  // operations per quiescent state (Hart's OPS_PER_LOOP)
  };
  static constexpr std::tuple tunables{tunable{"quiescent_every", &config::quiescent_every, "operations per quiescent state (also --quiescent-every)", 1u}};
  static config eager_config() { return {.quiescent_every = 2}; }

  template <class Base>
  class thread_state : public detail::epoch_thread<Base> {
   public:
    // Declares a quiescent state: the calling thread holds no reference to any shared node.
    void quiescent_state() {
      if (this->in_operation()) detail::misuse("qsbr: quiescent_state() inside an operation");
      this->check_owner("qsbr: quiescent_state() on a handle of another thread");
      declare_quiescent_state();
    }

   protected:
    // Online from here: the first period starts before the handle can be used.
    explicit thread_state(typename Base::domain_type& d)
        : detail::epoch_thread<Base>(d), quiescent_every_(d.configuration().quiescent_every) {
      this->start_period();
    }
    // Offline for good; the base then frees what is safe and donates the rest.
    ~thread_state() { detail::epoch_clock::quiesce(this->slot().announce); }

    void enter() {}
    // End of an outermost operation: every k-th one is a quiescent state (Listing 4).
    void leave() {
      if (++ops_ >= quiescent_every_) [[unlikely]]
        declare_quiescent_state();
    }

   private:
    // Hart's fuzzy barrier: enter it (announce the epoch), run the protected code (free what
    // the new epoch made safe), and advance the epoch if every online thread is in it. Out of
    // line: one operation in k gets here.
    [[gnu::noinline]] void declare_quiescent_state() {
      ops_ = 0;
      this->try_advance(this->start_period());
    }

    const unsigned quiescent_every_;  // k, copied from the configuration
    unsigned ops_ = 0;                // operations since the last quiescent state
  };
};

template <class FreePolicy = core::batch_free> using basic_qsbr = basic_domain<qsbr_rule, FreePolicy>;
using qsbr = basic_qsbr<>;
using qsbr_af = basic_qsbr<core::amortized_free<>>;

}  // namespace smr
