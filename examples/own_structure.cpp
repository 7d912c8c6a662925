// A structure of your own through the guard API: a configuration that readers use while a
// writer replaces it. A replaced configuration is freed once no reader can still hold it.
#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "smr/smr.hpp"

template <smr::reclaimer R>
class published_config {
 public:
  struct config : R::node_base {                  // a node derives from its reclaimer's node_base
    config(std::string n, long v) : name(std::move(n)), version(v) {}
    std::string name;
    long version;
  };

  // Calls fn with the current configuration (publish one first); it stays allocated meanwhile.
  template <class F>
  auto read(typename R::handle& h, F&& fn) {
    auto g = h.begin_op();                        // an operation (RAII)
    auto p = g.protect(current_);                 // guarded_ptr: protected while p lives
    return fn(*p);
  }

  void publish(typename R::handle& h, std::string name, long version) {
    auto g = h.begin_op();
    replace(g, g.template create<config>(std::move(name), version));
  }

  // Retires the current configuration; call it before the structure dies.
  void clear(typename R::handle& h) {
    auto g = h.begin_op();
    replace(g, nullptr);
  }

 private:
  void replace(typename R::guard& g, config* fresh) {
    config* old = current_.exchange(fresh, std::memory_order_acq_rel).get();
    if (old != nullptr) g.retire(old);            // unlinked: freed once no reader holds it
  }

  typename R::template atomic_ptr<config> current_;
};

// "v42": the name version 42 is published under.
std::string name_of(long version) {
  std::string name = "v";
  name += std::to_string(version);
  return name;
}

int main() {
  smr::hp domain;                                 // any reclaimer works the same way
  published_config<smr::hp> settings;
  std::atomic<bool> done{false};
  std::atomic<long> errors{0};
  {
    auto h = domain.attach();
    settings.publish(h, "v0", 0);
  }

  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&] {
      auto h = domain.attach();
      long last = 0;
      while (!done.load()) {
        // -1 for a configuration that is not whole; a smaller version went back in time.
        long seen = settings.read(h, [](const auto& c) {
          return c.name == name_of(c.version) ? c.version : -1;
        });
        if (seen < last) ++errors;
        last = seen;
      }
    });
  }
  threads.emplace_back([&] {
    auto h = domain.attach();
    for (long v = 1; v <= 10000; ++v) settings.publish(h, name_of(v), v);
    done = true;
  });
  for (auto& t : threads) t.join();

  auto h = domain.attach();
  settings.clear(h);
  if (errors != 0) {
    std::fprintf(stderr, "%ld inconsistent reads\n", errors.load());
    return 1;
  }
  std::puts("10000 configurations published, every read consistent");
}
