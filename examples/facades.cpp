// The C++26-style facades on plain std::atomic<T*>: RCU (P2545) and hazard pointers (P2530).
// Readers check every object they reach; the writer replaces objects and retires the old ones.
#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include "smr/hazard_pointer.hpp"
#include "smr/rcu.hpp"

std::atomic<long> live{0};  // objects allocated and not yet deleted

struct limits : smr::rcu_obj_base<limits> {              // read inside RCU sections
  explicit limits(long v) : low(v), high(v + 100) { ++live; }
  ~limits() { --live; }
  long low, high;
};

struct counter : smr::hazard_pointer_obj_base<counter> {  // read through a hazard pointer
  explicit counter(long v) : value(v) { ++live; }
  ~counter() { --live; }
  long value;
};

int main() {
  std::atomic<limits*> current_limits{new limits(0)};
  std::atomic<counter*> current_counter{new counter(0)};
  std::atomic<long> errors{0};
  std::atomic<bool> done{false};

  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&] {
      smr::hazard_pointer h = smr::make_hazard_pointer();  // the thread's, reused for every read
      long last = 0;
      while (!done.load()) {
        {
          std::scoped_lock section(smr::rcu_default_domain());  // a read-side section
          limits* l = current_limits.load(std::memory_order_acquire);
          if (l->high != l->low + 100) ++errors;               // whole while the section lasts
        }
        counter* c = h.protect(current_counter);               // whole until reset
        if (c->value < last) ++errors;                         // and never older than before
        last = c->value;
        h.reset_protection();
      }
    });
  }
  for (long v = 1; v <= 20000; ++v) {  // the writer: publish a new object, retire the old one
    current_limits.exchange(new limits(v))->retire();
    current_counter.exchange(new counter(v))->retire();
  }
  done = true;
  for (auto& t : readers) t.join();

  current_limits.exchange(nullptr)->retire();
  current_counter.exchange(nullptr)->retire();
  smr::rcu_barrier();             // runs the deleters of this thread's RCU retirements
  smr::hazard_pointer_cleanup();  // the same for hazard pointers (an smr extension)
  if (errors != 0 || live != 0) {
    std::fprintf(stderr, "%ld inconsistent reads, %ld objects not deleted\n", errors.load(), live.load());
    return 1;
  }
  std::puts("20000 updates, every read consistent, every object deleted");
}
