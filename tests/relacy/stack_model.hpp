// The model every reclaimer family is checked on: smr::treiber_stack (the library's own code,
// not a copy) with payloads whose field is an rl::var, run by two simulated threads.
//
//   before():  a fresh domain and stack, both threads' handles, two nodes pushed.
//   thread 0:  the reader. Pops once, detaches once thread 1 has.
//   thread 1:  the reclaimer. Pops, then runs `churn` push/pop pairs so that the
//              reclaimer's thresholds are crossed and the popped nodes are freed while thread 0
//              may still be between reading `top` and dereferencing it; then detaches.
//   after():   conservation check (every pushed value popped exactly once or still in the
//              stack), then the stack and the domain are destroyed; Relacy's leak check then
//              proves that every node was freed exactly once, including donated (orphan) nodes.
//
// The bug this model is built to expose is the one safe memory reclamation exists to prevent:
// thread 1 freeing the node thread 0 is about to read. Relacy reports it as an access to freed
// memory (the node's rl::atomic `next` or rl::var payload was destroyed), or, when the memory
// was already recycled into a new node, as a data race on the payload.
//
// The domain's orphan list is guarded by a std::mutex, which Relacy cannot see: its simulated
// threads are fibers of one OS thread, so a fiber parked (at a scheduling point) while holding
// the mutex and another fiber locking it would hang the process. Two fibers can only contend
// in donate() (adopt() locks only after seeing a completed donation, and the holder releases
// before its next scheduling point), so the reader detaches only after the reclaimer has; the
// reclaimer's exit path (which frees what is already safe) still runs while the reader may be
// inside pop(), and the reader's enter may adopt the reclaimer's orphans.
#pragma once

#include <optional>

#include "model.hpp"
#include "smr/ds/treiber_stack.hpp"

namespace smr::model {

// Setup provides: using reclaimer; static reclaimer::config config(); static constexpr int churn;
// Setup::reclaimer may be an adaptor that plants a bug (tests/support/broken_reclaimers.hpp).
template <class Setup>
struct stack_model : rl::test_suite<stack_model<Setup>, 2> {
  using R = typename Setup::reclaimer;
  using stack_t = smr::treiber_stack<payload, R>;

  static constexpr int prefill = 2;
  static constexpr int max_values = prefill + Setup::churn + 1;

  std::optional<R> domain;
  std::optional<stack_t> stack;
  core::atomic<bool> reclaimer_detached{false};
  // seen[v]: how many times value v was popped (or found left in the stack at the end). Each
  // thread writes only its own pops, and after() reads them once every thread has finished.
  int seen[2][max_values + 1] = {};

  // Iterations in which the reclaimer freed at least one node (a model that never frees would
  // prove nothing); the runner prints them.
  static inline unsigned long long freeing_iterations = 0;
  static inline unsigned long long iterations = 0;

  // Both handles are attached here, before the threads start: registration is not what these
  // models check (thread_churn_test does that), and its registry scans and CASes would
  // multiply the schedules the context-bound search must enumerate. Detaching stays in the
  // threads, concurrent with the other thread's operations.
  std::optional<holder<R>> handles[2];

  void before() {
    domain.emplace(Setup::config());
    stack.emplace(*domain);
    handles[0].emplace(*domain);
    handles[1].emplace(*domain);
    for (int v = 1; v <= prefill; ++v) stack->push(handles[1]->h, payload(v));
  }

  void record(unsigned t, const std::optional<payload>& p) {
    if (!p) return;
    const int v = p->get();
    // A value out of range means the node was read after its memory changed hands.
    RL_ASSERT(v >= 1 && v <= max_values);
    ++seen[t][v];
  }

  void thread(unsigned t) {
    std::optional<holder<R>>& h = handles[t];
    if (t == 0) {
      record(0, stack->pop(h->h));
      while (!reclaimer_detached.load(core::mo_acquire)) core::spin_pause();
      h.reset();
      return;
    }
    record(1, stack->pop(h->h));
    for (int i = 0; i < Setup::churn; ++i) {
      stack->push(h->h, payload(prefill + 1 + i));
      record(1, stack->pop(h->h));
    }
    h.reset();  // the exit path may free nodes while the reader is still inside pop()
    // release: pairs with the acquire spin above; the donation is complete.
    reclaimer_detached.store(true, core::mo_release);
  }

  void after() {
    int total[max_values + 1] = {};
    stack->for_each_unsafe([&](const payload& p) {
      const int v = p.get();
      RL_ASSERT(v >= 1 && v <= max_values);
      ++total[v];
    });
    for (int v = 1; v <= max_values; ++v) {
      total[v] += seen[0][v] + seen[1][v];
      // Values 1..prefill+churn were each pushed once: each is seen exactly once.
      RL_ASSERT(total[v] == (v <= prefill + Setup::churn ? 1 : 0));
    }
    ++iterations;
    if (domain->stats().freed > 0) ++freeing_iterations;
    stack.reset();
    domain.reset();
  }
};

}  // namespace smr::model
