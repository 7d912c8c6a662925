// Relacy model of NBR+'s piggybacking (include/smr/reclaimers/nbr.hpp, "NBR+"), on the NBR
// handshake of nbr_protocol.hpp (restartable read phases, asynchronous signal delivery).
//
// Three threads on a Treiber stack:
//   thread 0 pops a node (read phase, reserve, unlink in its write phase) and retires it without
//     a round of its own: it is past its low watermark. It bookmarks its bag, reading every
//     other thread's rounds_begun with a release RMW (fetch_add 0), then looks (acquire) at
//     their round_done twice; once one is above what it bookmarked, it frees its unreserved
//     bookmarked nodes without signalling anyone;
//   thread 1 pops twice: a reader whose read phases may hold thread 0's node;
//   thread 2 pushes a node, then runs one round (acquire begin RMW, barrier, snapshots, signals;
//     then, on its way out, the wait for the round to complete and the release store of its
//     number).
// Signals are delivered late or early at every step, as in nbr_model.cpp. The fence pair is
// its fallback, seq_cst fences on both sides (why: symmetric_fences below).
//
// Planted bug (relacy_nbr_plus_planted: --relaxed-bookmark): the bookmark reads rounds_begun with a relaxed load instead
// of the RMW. A round that begins after the bookmark is then not ordered after the unlink:
// thread 1 may enter a read phase after the round's snapshot, still read the unlinked node from
// `top`, and read it after thread 0 freed it.
//
// Explored: see docs/verification.md.
#include <optional>

#include "nbr_protocol.hpp"

namespace {

using namespace smr::core;
using smr::model::nbr::nbr_protocol;

struct nbr_plus_model : nbr_protocol<nbr_plus_model, 3> {
  static constexpr bool skip_ack_wait = false;
  static constexpr bool drop_barrier = false;
  // The fence pair's fallback (seq_cst fences on both sides), not membarrier: Relacy's
  // systemwide_fence joins every thread's view at one instant, stronger than membarrier (whose
  // per-CPU barriers fall at different times), and would order the bookmark for us, hiding the
  // plant. nbr_model.cpp checks the handshake with the barrier.
  static constexpr bool symmetric_fences = true;
  static constexpr bool numbered_rounds = true;
  static inline bool relaxed_bookmark = false;  // the plant (a switch of main)
  static constexpr unsigned max_pending_rounds = 1;

  std::uint64_t bookmarked[3] = {};
  static inline unsigned long long piggyback_iterations = 0;
  bool piggybacked = false;

  // Below the high watermark: into the bag, no round.
  void retire(unsigned t, smr::model::nbr::node* n) { bags[t].push(n); }

  // Algorithm 2, line 15: the bookmark (the whole bag: everything in it is unlinked).
  void bookmark(unsigned t) {
    for (unsigned u = 0; u < 3; ++u) {
      if (u == t) continue;
      if (relaxed_bookmark)
        bookmarked[u] = slots[u].rounds_begun.load(mo_relaxed);  // the plant
      else
        bookmarked[u] = slots[u].rounds_begun.fetch_add(0, mo_release);  // nbr.hpp, watch_rounds
      RL_ASSERT(!poll(t));
    }
  }

  // Lines 17-23: a completed round begun after the bookmark lets us free the bookmarked nodes.
  bool look(unsigned t) {
    for (unsigned u = 0; u < 3; ++u) {
      if (u == t) continue;
      // acquire: pairs with the round's release store (nbr_protocol::complete_rounds).
      const bool later_round = slots[u].round_done.load(mo_acquire) > bookmarked[u];
      RL_ASSERT(!poll(t));
      if (later_round) {
        free_unreserved(t, bags[t]);
        piggybacked = true;
        return true;
      }
    }
    return false;
  }

  void thread(unsigned t) {
    if (t == 0) {
      record(0, pop(0));
      bookmark(0);
      for (int i = 0; i < 2 && !look(0); ++i) {
      }
      return;
    }
    if (t == 1) {
      record(1, pop(1));
      record(1, pop(1));
      return;
    }
    push(2, smr::model::nbr::max_value);
    begin_round(2);
    finish_rounds(2);
  }

  void after() {
    nbr_protocol<nbr_plus_model, 3>::after();
    if (piggybacked) ++piggyback_iterations;
  }

  static void report() {
    nbr_protocol<nbr_plus_model, 3>::report();
    std::printf("                   piggybacked frees in %llu iterations\n", piggyback_iterations);
    piggyback_iterations = 0;
  }
};

}  // namespace

int main(int argc, char** argv) {
  using namespace smr::model;
  return run<nbr_plus_model>("nbr_plus piggybacking / treiber_stack, 3 threads, asynchronous signals",
                             {random_search(200000), bounded_search(1)}, argc, argv,
                             {plant_switch("relaxed-bookmark", nbr_plus_model::relaxed_bookmark)});
}
