// Shared parts of the Relacy model tests: the checked payload, a handle holder, and the runner
// that drives each model through a random search and a context-bound (bounded-preemption)
// search and decides whether the outcome is the expected one.
//
// Every model runs as is, where every search must succeed, and with a known bug planted, where
// some search must report it as a memory-safety failure (access to freed memory, data race on a
// node field, double free, or a failed value check). A planted run that ends in a livelock,
// deadlock or an exhausted search counts as *not caught*: only a detection makes it pass.
// A plant that is a different type (a broken reclaimer of tests/support/broken_reclaimers.hpp)
// is a second program, built with SMR_MODEL_PLANTED (tests/relacy/CMakeLists.txt); a plant that
// is a switch in the same code (a model's own, or the library's relacy_plant switches of
// core/atomic.hpp) is a command-line option of the one program, `--<name>`, as are the
// variants of a model that change its roles but not its types. Most of a model's compilation is
// Relacy's simulator instantiated for the model's test type, so a switch costs no compilation
// and a second program costs all of it again.
#pragma once

#if !defined(SMR_RELACY)
#error "the model tests are built with SMR_RELACY (see tests/relacy/CMakeLists.txt)"
#endif

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "smr/core/atomic.hpp"

namespace smr::model {

// This program is the model's planted type (a broken reclaimer in place of the real one).
#if defined(SMR_MODEL_PLANTED)
inline constexpr bool planted = true;
#else
inline constexpr bool planted = false;
#endif

// A command-line switch of a model: `--<name>` sets *flag before the searches. A plant switch
// plants a bug, and the run must then catch it; a variant switch changes what the model runs.
struct model_switch {
  const char* name;
  bool* flag;
  bool plants;
};
inline model_switch plant_switch(const char* name, bool& flag) { return {name, &flag, true}; }
inline model_switch variant_switch(const char* name, bool& flag) { return {name, &flag, false}; }
// core/atomic.hpp's weak seq_cst fences, a plant for every model of an announcement-based scheme.
inline model_switch weak_fence_switch() { return plant_switch("weak-fence", smr::core::relacy_plant::weak_fence); }

// A node's non-atomic contents. rl::var reports a read that is not ordered after the write (a
// node published without release/acquire, or memory recycled under a reader) as a data race,
// and a read after the node's destructor ran as an access to freed memory.
class payload {
 public:
  explicit payload(int v) : v_(v) {}
  payload(const payload& o) : v_(o.get()) {}
  payload& operator=(const payload&) = delete;
  int get() const { return v_($).load(); }

 private:
  rl::var<int> v_;
};

// Handles are neither copyable nor movable; this holder receives attach()'s prvalue directly
// (guaranteed copy elision) so that a model can keep handles in std::optional members.
template <class R>
struct holder {
  explicit holder(R& d) : h(d.attach()) {}
  typename R::handle h;
};

// What a model of a data structure keeps across one schedule: a domain, the structure on it and
// one handle per model thread, built in the test's before() and torn down in its after(), plus
// the counts the runner reports (schedules run, schedules that freed a node before teardown).
// A model derives from it and from rl::test_suite.
template <class R, class DS, unsigned Threads>
struct structure_fixture {
  std::optional<R> domain;
  std::optional<DS> ds;
  std::optional<holder<R>> handles[Threads];

  static inline unsigned long long freeing_iterations = 0;
  static inline unsigned long long iterations = 0;

  void build(const typename R::config& config) {
    domain.emplace(config);
    ds.emplace(*domain);
    for (auto& h : handles) h.emplace(*domain);
  }
  typename R::handle& handle(unsigned t) { return handles[t]->h; }
  // Counts the schedule, then destroys handles, structure and domain (a handle a thread already
  // gave back stays empty).
  void tear_down() {
    ++iterations;
    if (domain->stats().freed > 0) ++freeing_iterations;
    for (auto& h : handles) h.reset();
    ds.reset();
    domain.reset();
  }
};

struct search {
  rl::scheduler_type_e type;
  rl::iteration_t iterations;  // random search only; the tree search stops when exhausted
  unsigned context_bound;      // context-bound search only
};

// SMR_MODEL_SCALE (environment) scales the random searches, e.g. 0.01 for a smoke run or 10
// for a long one; the context-bound searches are exhaustive and not scaled.
inline search random_search(rl::iteration_t iterations) {
  if (const char* s = std::getenv("SMR_MODEL_SCALE")) {
    const double f = std::atof(s);
    if (f > 0) iterations = static_cast<rl::iteration_t>(static_cast<double>(iterations) * f) + 1;
  }
  return {rl::sched_random, iterations, 0};
}
inline search bounded_search(unsigned preemptions) {
  return {rl::sched_bound, 0, preemptions};
}

inline bool is_detection(rl::test_result_e r) {
  switch (r) {
    case rl::test_result_access_to_freed_memory:
    case rl::test_result_data_race:
    case rl::test_result_double_free:
    case rl::test_result_user_assert_failed:
    case rl::test_result_user_invariant_failed:
    case rl::test_result_unitialized_access:
      return true;
    default:
      return false;
  }
}

// Prints at most `lines` lines of a Relacy report (histories can run to thousands of lines).
inline void print_head(const std::string& text, int lines) {
  std::istringstream in(text);
  std::string line;
  for (int i = 0; i < lines && std::getline(in, line); ++i) std::printf("    %s\n", line.c_str());
}

// Runs one search of Test and prints a line about it; returns Relacy's verdict.
template <class Test>
rl::test_result_e run_search(const search& s, bool expect_detection) {
  rl::test_params p;
  p.search_type = s.type;
  p.iteration_count = s.iterations;
  p.context_bound = s.context_bound;
  // Building a domain (a 64-slot registry chunk) alone takes hundreds of scheduling points.
  p.execution_depth_limit = 50000;
  // Relacy writes its report while its replacement operator new/delete is active: the streams
  // must allocate with malloc (rl::raw_allocator), or their buffers' frees look invalid to it.
  rl::ostringstream out, progress;
  p.output_stream = &out;
  // SMR_MODEL_PROGRESS=1 shows Relacy's progress lines (long searches).
  p.progress_stream = std::getenv("SMR_MODEL_PROGRESS") != nullptr ? &std::cerr : &progress;
  if constexpr (requires { Test::freeing_iterations; }) {
    Test::freeing_iterations = 0;
    Test::iterations = 0;
  }
  const auto t0 = std::chrono::steady_clock::now();
  rl::simulate<Test>(p);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const bool ok = p.test_result == rl::test_result_success;
  if (s.type == rl::sched_bound)
    std::printf("  context-bound %u:", s.context_bound);
  else
    std::printf("  random         :");
  std::printf(" %10llu iterations  %6.1f s  %s\n",
              static_cast<unsigned long long>(p.stop_iteration + (ok ? 0 : 1)), secs,
              rl::test_result_str(p.test_result));
  if constexpr (requires { Test::freeing_iterations; }) {
    if (ok)
      std::printf("                   nodes freed before teardown in %llu of %llu iterations\n",
                  Test::freeing_iterations, Test::iterations);
  }
  if constexpr (requires { Test::report(); }) {
    if (ok) Test::report();  // the model's own evidence of coverage
  }
  if (!ok) print_head(out.str().c_str(), expect_detection ? 12 : 400);
  return p.test_result;
}

// Runs Test under each search. Real model: every search must succeed. Planted model (the planted
// type, or a plant switch given): at least one search must detect the bug (the searches stop at
// the first detection, so the log shows which one catches it). Returns the process exit code.
// Arguments: the model's switches first, then searches that replace the default ones:
//   <model> [--<switch>]... [random <iterations> | bound <preemptions>]...
template <class Test>
int run(const char* model, std::initializer_list<search> defaults, int argc, char** argv,
        std::initializer_list<model_switch> switches = {}) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress stays visible under ctest's time-out
  auto usage = [&] {
    std::string names;
    for (const model_switch& w : switches) names += std::string(" [--") + w.name + "]";
    std::fprintf(stderr, "usage: %s%s [random <iterations> | bound <preemptions>]...\n", argv[0], names.c_str());
    return 2;
  };
  bool expect_detection = planted;
  std::string active;
  int i = 1;
  for (; i < argc && std::string(argv[i]).rfind("--", 0) == 0; ++i) {
    const model_switch* found = nullptr;
    for (const model_switch& w : switches)
      if (argv[i] + 2 == std::string(w.name)) found = &w;
    if (found == nullptr) {
      std::fprintf(stderr, "%s: unknown switch %s\n", argv[0], argv[i]);
      return usage();
    }
    *found->flag = true;
    expect_detection = expect_detection || found->plants;
    active += std::string(" ") + argv[i];
  }
  std::vector<search> searches(defaults);
  if (i < argc) {
    searches.clear();
    for (; i + 1 < argc; i += 2) {
      const std::string kind = argv[i];
      const unsigned long long n = std::strtoull(argv[i + 1], nullptr, 10);
      if (kind == "random") searches.push_back({rl::sched_random, n, 0});
      else if (kind == "bound") searches.push_back({rl::sched_bound, 0, static_cast<unsigned>(n)});
      else return usage();
    }
    if (i < argc) return usage();
  }
  std::printf("%s%s (%s)\n", model, active.c_str(), expect_detection ? "planted bug: must be caught" : "must pass");
  bool all_passed = true;
  bool caught = false;
  for (const search& s : searches) {
    const rl::test_result_e r = run_search<Test>(s, expect_detection);
    if (r != rl::test_result_success) all_passed = false;
    if (is_detection(r)) caught = true;
    // A planted run's verdict is settled by its first detection; the searches after it would
    // only spend time (run them alone through the arguments to see what each finds).
    if (expect_detection && caught) break;
  }
  if (expect_detection) {
    std::printf(caught ? "planted bug caught\n" : "FAIL: planted bug NOT caught\n");
    return caught ? 0 : 1;
  }
  std::printf(all_passed ? "all searches passed\n" : "FAIL: the model found a bug\n");
  return all_passed ? 0 : 1;
}

}  // namespace smr::model
