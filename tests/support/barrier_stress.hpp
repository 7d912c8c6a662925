// Readers hold the node behind one link across yields while writers replace and retire it and
// call the reclaim-now barrier between their operations. A barrier that freed a node a reader
// holds shows up as a bad magic (poison mode), or as a use-after-free under ASan and TSan.
// Used by the reclaim-now tests and by the planted barrier (tests/expected_failure).
#pragma once

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "support/probe.hpp"

namespace smr::test {

struct barrier_stress_result {
  long bad_reads = 0;  // held nodes found freed
  long reads = 0;
};

template <class R>
barrier_stress_result run_barrier_stress(int ops_per_writer, std::chrono::milliseconds barrier_timeout) {
  constexpr int readers = 3, writers = 2;
  R domain(R::rule::eager_config());
  typename R::template atomic_ptr<probe<R>> link;
  {
    auto h = domain.attach();
    auto g = h.begin_op();
    link.store(g.template create<probe<R>>(nullptr), core::mo_release);
  }
  std::atomic<bool> stop{false};
  std::atomic<long> bad{0}, reads{0};
  std::atomic<int> readers_started{0};
  auto reader = [&] {
    auto h = domain.attach();
    bool first = true;
    do {
      {
        auto g = h.begin_op();
        auto s = g.slot();
        probe<R>* x = protect_in_operation(g, s, link);
        std::this_thread::yield();  // hold it across the writers' barriers
        if (x != nullptr && x->magic != probe_magic) bad.fetch_add(1, std::memory_order_relaxed);
        reads.fetch_add(1, std::memory_order_relaxed);
      }
      if (first) readers_started.fetch_add(1, std::memory_order_release);
      first = false;
    } while (!stop.load(std::memory_order_relaxed));
  };
  auto writer = [&] {
    auto h = domain.attach();
    wait_until(readers_started, readers);
    for (int i = 0; i < ops_per_writer; ++i) {
      {
        auto g = h.begin_op();
        probe<R>* fresh = g.template create<probe<R>>(nullptr);
        g.retire(link.exchange(fresh, core::mo_acq_rel).get());
      }
      if (i % 8 == 0) (void)h.reclaim_now(barrier_timeout);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < readers; ++t) threads.emplace_back(reader);
  for (int t = 0; t < writers; ++t) threads.emplace_back(writer);
  for (int t = readers; t < readers + writers; ++t) threads[t].join();
  stop.store(true);
  for (int t = 0; t < readers; ++t) threads[t].join();
  {
    auto h = domain.attach();
    auto g = h.begin_op();
    g.retire(link.exchange(nullptr, core::mo_acq_rel).get());
  }
  return {bad.load(), reads.load()};
}

}  // namespace smr::test
