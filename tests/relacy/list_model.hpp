// A second model for the reclaimers that the Treiber stack model cannot run (tag_ibr refuses the
// stack: its push writes a top it never protected): the library's own hm_list (Michael's
// version of the Harris list), run by two simulated threads.
//
//   before():  a fresh domain and list, both threads' handles, keys 1 and 2 inserted.
//   thread 0:  the reader. contains(2), which walks through node 1 to node 2, then detaches
//              once thread 1 has.
//   thread 1:  the reclaimer. Removes 1 and 2, then runs `churn` insert/remove pairs of key 3,
//              so that the reclaimer's thresholds are crossed and the removed nodes are freed
//              while thread 0 may still be on them; then detaches.
//   after():   the list is empty and sorted, every node was freed exactly once (Relacy's leak
//              check at the end of each iteration).
//
// A node read after it was freed is reported by Relacy as an access to freed memory: its link's
// rl::atomic members were destroyed. The reader's result is not checked (either is right).
// The detach order and the reason for it are stack_model.hpp's.
#pragma once

#include <optional>

#include "model.hpp"
#include "smr/ds/hm_list.hpp"

namespace smr::model {

// Setup provides: using reclaimer; static reclaimer::config config(); static constexpr int churn.
template <class Setup>
struct list_model : rl::test_suite<list_model<Setup>, 2> {
  using R = typename Setup::reclaimer;
  using list_t = smr::hm_list<int, R>;

  std::optional<R> domain;
  std::optional<list_t> list;
  core::atomic<bool> reclaimer_detached{false};

  static inline unsigned long long freeing_iterations = 0;
  static inline unsigned long long iterations = 0;

  std::optional<holder<R>> handles[2];

  void before() {
    domain.emplace(Setup::config());
    list.emplace(*domain);
    handles[0].emplace(*domain);
    handles[1].emplace(*domain);
    RL_ASSERT(list->insert(handles[1]->h, 1));
    RL_ASSERT(list->insert(handles[1]->h, 2));
  }

  void thread(unsigned t) {
    std::optional<holder<R>>& h = handles[t];
    if (t == 0) {
      (void)list->contains(h->h, 2);
      while (!reclaimer_detached.load(core::mo_acquire)) core::spin_pause();
      h.reset();
      return;
    }
    RL_ASSERT(list->remove(h->h, 1));
    RL_ASSERT(list->remove(h->h, 2));
    for (int i = 0; i < Setup::churn; ++i) {
      RL_ASSERT(list->insert(h->h, 3));
      RL_ASSERT(list->remove(h->h, 3));
    }
    h.reset();  // the exit path may free nodes while the reader is still inside contains()
    // release: pairs with the acquire spin above; the donation is complete.
    reclaimer_detached.store(true, core::mo_release);
  }

  void after() {
    RL_ASSERT(list->size_unsafe() == 0);
    RL_ASSERT(list->check_invariants_unsafe().empty());
    ++iterations;
    if (domain->stats().freed > 0) ++freeing_iterations;
    list.reset();
    domain.reset();
  }
};

}  // namespace smr::model
