// The NBR handshake restated for the Relacy models (nbr_model.cpp, nbr_plus_model.cpp): a
// Treiber stack popped in restartable read phases, simulated asynchronous signal delivery, and
// reclamation rounds that stay pending until the threads they caught move on, completed on later
// looks or at the cap (nbr.hpp), with NBR+'s round numbers. Each model supplies retire() (what a
// retirement does), thread(), max_pending_rounds, symmetric_fences (the fence pair's fallback
// instead of membarrier), and skip_ack_wait and drop_barrier (its plants, if any). See
// nbr_model.cpp for what is modelled and what is not.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>

#include "model.hpp"
#include "smr/detail/asymmetric_fence.hpp"
#include "smr/detail/limbo_bag.hpp"
#include "smr/core/node.hpp"
#include "smr/detail/protected_set.hpp"

namespace smr::model::nbr {

using namespace smr::core;
using namespace smr::detail;  // limbo_bag, protected_set
using smr::model::payload;

struct node : retired_node {
  explicit node(int v) : value(v) {}
  payload value;
  atomic<node*> next{nullptr};
};

constexpr int prefill = 2;
constexpr int max_value = prefill + 1;  // thread 1 pushes value 3

template <class Model, unsigned N>
struct nbr_protocol : rl::test_suite<Model, N> {
  struct slot {
    atomic<std::uint64_t> phase{0};  // stored only by its owner, release (nbr.hpp)
    atomic<const retired_node*> reserved{nullptr};
    atomic<bool> pending{false};  // a signal sent and not yet delivered
    // NBR+ (nbr.hpp): rounds begun (RMWs only), and the last one acknowledged by everyone.
    atomic<std::uint64_t> rounds_begun{0};
    atomic<std::uint64_t> round_done{0};
  };

  slot slots[N];
  std::uint64_t word[N] = {};  // each owner's copy of its phase word (operation_word_thread::word_)
  atomic<node*> top{nullptr};
  limbo_bag bags[N];
  protected_set reservations[N];
  int seen[N][max_value + 1] = {};

  static inline unsigned long long freeing_iterations = 0;
  static inline unsigned long long iterations = 0;
  // Evidence that the model reaches the interesting cases: iterations with a neutralized
  // (restarted) read phase, and with a signal handled outside a read phase (late delivery).
  static inline unsigned long long restart_iterations = 0;
  static inline unsigned long long late_iterations = 0;
  unsigned long long freed = 0;
  bool restarted = false;
  bool late = false;

  static void report() {
    std::printf("                   read phases neutralized in %llu, signals handled late in %llu,"
                " a round waited at the cap in %llu, of %llu iterations\n",
                restart_iterations, late_iterations, cap_wait_iterations, iterations);
    restart_iterations = late_iterations = cap_wait_iterations = 0;
  }

  void before() {
    for (int v = 1; v <= prefill; ++v) {
      node* n = construct_node<node>(v);
      n->next.store(top.load(mo_relaxed), mo_relaxed);
      top.store(n, mo_release);
    }
  }

  // A possible delivery of a pending signal: the handler runs here, or the kernel keeps the
  // signal pending a while longer. Returns whether the handler restarts the read phase.
  bool poll(unsigned t) {
    slot& s = slots[t];
    if (!s.pending.load(mo_relaxed)) return false;
    if (rl::rand(2) == 0) return false;  // late delivery: not yet
    s.pending.store(false, mo_relaxed);
    // The handler writes nothing: it reads the thread's own phase word (acquire, as
    // nbr_signal.hpp). Odd: in a read phase, which must forget all; its re-entry store is the
    // acknowledgement.
    const bool restart = (s.phase.load(mo_acquire) & 1) != 0;
    (restart ? restarted : late) = true;
    return restart;
  }

  void clear_reservation(unsigned t) {
    // release: a reclaimer that reads the cleared value also sees our accesses to the node.
    slots[t].reserved.store(nullptr, mo_release);
  }

  // pop as NBR runs it: a restartable read phase that ends in reserve(top), then a write phase
  // that touches only the reserved node. Returns the popped value.
  std::optional<int> pop(unsigned t) {
    slot& s = slots[t];
    for (;;) {
      node* cur = nullptr;
      node* next = nullptr;
      bool neutralized = false;
      for (;;) {  // the read phase; `continue` is the siglongjmp back to its checkpoint
        clear_reservation(t);
        // Now restartable (nbr.hpp, enter_read_phase): the next odd value, a release store
        // (publish_enter), or after a neutralization a larger odd one (publish_reenter). The
        // light side of the fence pair: a compiler barrier (nothing to model), or in the
        // fallback a seq_cst fence.
        if (neutralized) word[t] = (word[t] | 1) + 1;
        s.phase.store(++word[t], mo_release);
        if (Model::symmetric_fences) fence(mo_seq_cst);
        neutralized = true;  // every `continue` below is a restart
        if (poll(t)) continue;
        cur = top.load(mo_acquire);
        if (poll(t)) continue;
        if (cur != nullptr) {
          next = cur->next.load(mo_relaxed);  // a read of a node the phase has not reserved
          if (poll(t)) continue;
          (void)cur->value.get();  // and of its payload (a search would compare keys here)
          if (poll(t)) continue;
        }
        // reserve(cur): publish (release, as nbr.hpp: a scan that reads it in place of the
        // previous clear must see that write phase end; Relacy's C++11 release sequences would
        // accept relaxed too), then the release store of the next even value.
        s.reserved.store(cur, mo_release);
        if (poll(t)) continue;  // neutralized half-way through reserve(): the restart clears it
        s.phase.store(++word[t], mo_release);
        break;
      }
      // Write phase: the handler may still run, and must not restart us.
      RL_ASSERT(!poll(t));
      if (cur == nullptr) {
        clear_reservation(t);
        return std::nullopt;
      }
      node* expected = cur;
      const bool won = top.compare_exchange_strong(expected, next, mo_relaxed);
      RL_ASSERT(!poll(t));
      if (won) {
        const int v = cur->value.get();  // reserved: still safe to read
        model().retire(t, cur);
        clear_reservation(t);
        return v;
      }
      clear_reservation(t);
    }
  }

  // push needs no read phase: it never dereferences a shared node.
  void push(unsigned t, int v) {
    node* n = construct_node<node>(v);
    node* cur = top.load(mo_relaxed);
    for (;;) {
      n->next.store(cur, mo_relaxed);
      RL_ASSERT(!poll(t));
      // release: publishes the node's contents to the acquire load in pop().
      if (top.compare_exchange_strong(cur, n, mo_release)) return;
    }
  }

  Model& model() { return static_cast<Model&>(*this); }

  // A round begun and not yet complete (nbr.hpp, pending_round).
  struct target {
    unsigned u;
    std::uint64_t seen;
  };
  struct pending_round {
    limbo_bag batch;
    target targets[N];
    unsigned n_targets = 0;
    unsigned acknowledged = 0;
    std::uint64_t number = 0;
  };
  static constexpr unsigned max_pending = 2;  // per thread; Model::max_pending_rounds <= this
  pending_round pending[N][max_pending];
  unsigned pending_head[N] = {};
  unsigned pending_count[N] = {};
  static inline unsigned long long cap_wait_iterations = 0;
  bool waited_at_cap = false;

  // Steps 1-2 of a round, run by thread t in its write phase: its bag becomes the round's
  // batch; NBR+ numbers the round (its begin RMW). At Model::max_pending_rounds pending rounds
  // it first waits for the oldest (nbr.hpp, begin_round).
  void begin_round(unsigned t) {
    static_assert(Model::max_pending_rounds >= 1 && Model::max_pending_rounds <= max_pending);
    if (pending_count[t] == Model::max_pending_rounds) {
      waited_at_cap = true;
      while (complete_rounds(t, 1) == 0) {
        RL_ASSERT(!poll(t));  // our own handler runs while we wait; we are in a write phase
        spin_pause();
      }
    }
    pending_round& r = pending[t][(pending_head[t] + pending_count[t]) % Model::max_pending_rounds];
    if constexpr (Model::numbered_rounds) {
      // acquire RMW: synchronizes with the (release) bookmarks before it (nbr.hpp, NBR+).
      r.number = slots[t].rounds_begun.fetch_add(1, mo_acquire) + 1;
    }
    r.batch = bags[t].take_all();
    ++pending_count[t];
    // The barrier B (nbr.hpp: the heavy side of the fence pair, membarrier; Relacy's
    // systemwide_fence; a seq_cst fence in the fallback). The plant keeps only a seq_cst fence
    // on this side while readers have none, which cannot order their phase stores before their
    // loads.
    if (Model::drop_barrier || Model::symmetric_fences)
      fence(mo_seq_cst);
    else
      smr::detail::process_barrier::issue();
    r.n_targets = 0;
    r.acknowledged = 0;
    for (unsigned u = 0; u < N; ++u) {
      if (u == t) continue;
      // acquire snapshot S: nbr.hpp proof points (a)-(c).
      const std::uint64_t seen_phase = slots[u].phase.load(mo_acquire);
      if ((seen_phase & 1) != 0) {
        slots[u].pending.store(true, mo_relaxed);  // pthread_kill: delivery comes later
        r.targets[r.n_targets++] = {u, seen_phase};
      }
    }
    if (Model::skip_ack_wait) r.acknowledged = r.n_targets;  // the plant
    complete_rounds(t, max_pending);
  }

  // Steps 3-4, oldest round first, without waiting: a round whose caught threads all moved on
  // frees its unreserved nodes (the reserved ones go back to the bag); NBR+ publishes its
  // number. Returns how many rounds completed (at most `most`).
  unsigned complete_rounds(unsigned t, unsigned most) {
    unsigned completed = 0;
    while (pending_count[t] != 0 && completed < most) {
      pending_round& r = pending[t][pending_head[t]];
      for (; r.acknowledged < r.n_targets; ++r.acknowledged) {
        const target& g = r.targets[r.acknowledged];
        // acquire: pairs with the target's release store of whichever later value this reads.
        const bool moved_on = slots[g.u].phase.load(mo_acquire) != g.seen;
        RL_ASSERT(!poll(t));
        if (!moved_on) return completed;
      }
      if constexpr (Model::numbered_rounds) {
        // release: the acknowledgements above happen before a piggybacking thread's acquire.
        slots[t].round_done.store(r.number, mo_release);
      }
      free_unreserved(t, r.batch);
      bags[t].splice(std::move(r.batch));
      pending_head[t] = (pending_head[t] + 1) % Model::max_pending_rounds;
      --pending_count[t];
      ++completed;
    }
    return completed;
  }

  // The exit path (nbr.hpp, ~thread_state): waits until every pending round completed.
  void finish_rounds(unsigned t) {
    while (pending_count[t] != 0) {
      if (complete_rounds(t, max_pending) == 0) {
        RL_ASSERT(!poll(t));
        spin_pause();
      }
    }
  }

  // reclaimFreeable: frees the nodes of `bag` that no thread reserves.
  void free_unreserved(unsigned t, limbo_bag& bag) {
    protected_set& set = reservations[t];
    set.clear();
    // acquire: pairs with the release stores that clear reservations (proof point (b)).
    for (slot& s : slots) set.add(s.reserved.load(mo_acquire));
    set.seal();
    limbo_bag safe = set.extract_unprotected(bag);
    while (retired_node* n = safe.pop_front()) {
      free_node(n);
      ++freed;
    }
  }

  void record(unsigned t, std::optional<int> v) {
    if (!v) return;
    RL_ASSERT(*v >= 1 && *v <= max_value);
    ++seen[t][*v];
  }

  void after() {
    int total[max_value + 1] = {};
    node* n = top.load(mo_relaxed);
    while (n != nullptr) {
      ++total[n->value.get()];
      node* next = n->next.load(mo_relaxed);
      free_node(n);
      n = next;
    }
    for (int v = 1; v <= max_value; ++v) {
      int popped = 0;
      for (unsigned t = 0; t < N; ++t) popped += seen[t][v];
      RL_ASSERT(total[v] + popped == 1);
    }
    for (limbo_bag& b : bags)
      while (retired_node* r = b.pop_front()) free_node(r);
    for (unsigned t = 0; t < N; ++t)
      for (pending_round& r : pending[t]) {
        while (retired_node* n = r.batch.pop_front()) free_node(n);
        r.acknowledged = r.n_targets = 0;
      }
    for (unsigned t = 0; t < N; ++t) pending_head[t] = pending_count[t] = 0;
    if (waited_at_cap) ++cap_wait_iterations;
    waited_at_cap = false;
    ++iterations;
    if (freed > 0) ++freeing_iterations;
    if (restarted) ++restart_iterations;
    if (late) ++late_iterations;
  }
};

}  // namespace smr::model::nbr
