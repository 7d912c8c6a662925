// A set shared by four threads: any reclaimer, any compatible data structure.
#include <cstdio>
#include <thread>
#include <vector>

#include "smr/smr.hpp"

int main() {
  smr::hp domain;                                 // any reclaimer (docs/guide.md lists them),
                                                  // and each one's amortized-free variant (smr::debra_af, ...)
  smr::hm_list<long, smr::hp> set(domain);        // any compatible data structure

  std::vector<std::thread> workers;
  for (long t = 0; t < 4; ++t) {
    workers.emplace_back([&domain, &set, t] {
      auto h = domain.attach();                   // per-thread registration (RAII)
      for (long k = t; k < 1000; k += 4) set.insert(h, k);
      for (long k = t; k < 1000; k += 8) set.remove(h, k);  // removed nodes are retired
    });
  }
  for (auto& w : workers) w.join();               // handles must be gone before the domain

  auto h = domain.attach();
  for (long k = 0; k < 1000; ++k) {
    if (set.contains(h, k) != (k % 8 >= 4)) {     // thread t removed the keys k % 8 == t
      std::fprintf(stderr, "key %ld: wrong membership\n", k);
      return 1;
    }
  }
  std::puts("500 keys present, 500 removed");
}
