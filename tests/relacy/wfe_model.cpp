// Relacy model of WFE, wait-free eras (include/smr/reclaimers/wfe.hpp): the helping protocol,
// on smr::treiber_stack (the library's code) with two simulated threads.
//
// stack_model.hpp's model checks the fast path as for HE, but its reclaimer only ever answers
// a request with a node it never pops, and the reader's wait for the reclaimer's exit makes
// its context-bound search too large to reach a helped read. This model is the smallest
// setting in which a helper answers with a node that is then freed:
//   before():  a fresh domain, both handles, one node N1 pushed.
//   thread 0:  the reader. Pops once. Its slot publishes nothing yet, so protect() takes the
//              slow path at once (fast_path_attempts = 0) and opens a request.
//   thread 1:  the reclaimer. Takes a reclaim step (reclaim_now with no wait): its era advance
//              first answers any open request, with N1 (the top). Then it pops (N1, unless the
//              reader got it; the retirement scans, empty_frequency = 1, while its own slot
//              still protects N1) and takes a second reclaim step once its slot is clear.
//   after():   conservation (N1 popped once, or left), handles, stack and domain destroyed;
//              Relacy's leak check proves every node freed once.
// The schedules include the reader answered by the helper while it is stopped between opening
// its request and reading the answer, its own completion racing the helper's (the WCAS on the
// answer, the tag on the reservation), and the reader resuming after N1 was popped.
//
// Planted bug (relacy_wfe_planted, SMR_MODEL_PLANTED): wfe_no_hand_over
// (tests/support/broken_reclaimers.hpp), whose helper answers but never hands its era over to
// the reader's reservation. Once the helper clears its own word nothing pins N1 until the
// reader resumes; the reclaimer pops and frees it, and the reader reads N1's next.
#include <chrono>
#include <optional>
#include <type_traits>

#include "model.hpp"
#include "smr/ds/treiber_stack.hpp"
#include "smr/reclaimers/wfe.hpp"
#include "support/broken_reclaimers.hpp"

namespace {

using smr::model::payload;
using R = std::conditional_t<smr::model::planted, smr::test::wfe_no_hand_over, smr::wfe>;
using stack_t = smr::treiber_stack<payload, R>;

struct wfe_help_model : rl::test_suite<wfe_help_model, 2> {
  std::optional<R> domain;
  std::optional<stack_t> stack;
  std::optional<smr::model::holder<R>> handles[2];
  int seen[2] = {};  // seen[v]: pops of value v (each thread writes its own pops, after() reads)

  static inline unsigned long long iterations = 0, helped_iterations = 0;

  void before() {
    domain.emplace(R::config{.slots = 1, .fast_path_attempts = 0, .epoch_frequency = 1,
                             .scale_epoch_frequency = false, .empty_frequency = 1});
    stack.emplace(*domain);
    handles[0].emplace(*domain);
    handles[1].emplace(*domain);
    stack->push(handles[1]->h, payload(1));
  }

  void record(const std::optional<payload>& p) {
    if (!p) return;
    const int v = p->get();
    RL_ASSERT(v == 1);
    ++seen[v];
  }

  void thread(unsigned t) {
    auto& h = handles[t]->h;
    if (t == 0) {
      record(stack->pop(h));
      return;
    }
    (void)h.reclaim_now(std::chrono::nanoseconds(0));  // advance (helping first), scan
    record(stack->pop(h));
    // Again once its own slot is clear: the pop's scan ran while the slot still protected N1.
    (void)h.reclaim_now(std::chrono::nanoseconds(0));
  }

  void after() {
    stack->for_each_unsafe([&](const payload& p) { ++seen[p.get()]; });
    RL_ASSERT(seen[1] == 1);
    ++iterations;
    if (domain->helped() > 0) ++helped_iterations;
    handles[0].reset();
    handles[1].reset();
    stack.reset();
    domain.reset();
  }

  // The runner prints this after a passing search: the helping must have been explored.
  static void report() {
    std::printf("                   a helper answered in %llu of %llu iterations\n", helped_iterations, iterations);
    helped_iterations = iterations = 0;
  }
};

}  // namespace

int main(int argc, char** argv) {
  using namespace smr::model;
  return run<wfe_help_model>("wfe helping / treiber_stack, 2 threads",
                             {random_search(100000), bounded_search(1)}, argc, argv);
}
