// The global epoch of the epoch and quiescence schemes (ebr, debra, qsbr) and the protocol they
// share: how a thread announces the epoch it works in, and when the epoch may advance.
//
// Each thread has an announcement word, a field `announce` of its registry slot:
//   bit 0 set   -- active: the thread may hold references to shared nodes; bits 1.. hold the
//                  epoch it announced;
//   bit 0 clear -- quiescent or offline: it holds none (DEBRA keeps its epoch in bits 1..).
// A thread's *period* is the span during which one active announcement stands: an operation for
// EBR and DEBRA, the span between two quiescent states for QSBR. A period starts with announce()
// and ends with the thread's next release store to its word (quiesce() or the next announce()).
// A released registry slot is left quiescent, so scans may read unowned slots.
//
// Lemma (announcement). T announces e: it stores active(e), runs a seq_cst fence F_T, and
// re-reads the epoch until it reads e. Let C read the epoch e' > e and then run a seq_cst fence
// F_C. Then every later read of T's word by C returns active(e) or a later value.
//   T's re-read of e is coherence-ordered before the advance to e+1, which happens before F_C
//   (advances are a chain of release RMWs, C's read is acquire), so F_T precedes F_C in the
//   fences' total order; T's store precedes F_T and C's read follows F_C, so C cannot read an
//   older value. Consequence: while T's period with e lasts, the epoch is at most e + 1, since
//   the advance e+1 -> e+2 needs C to find T's word quiescent or active(e+1).
//
// Tag rule (core/epoch_limbo.hpp). While T is active with e, the advance to e + 2 happens after
// everything T does in that period: the scan for it reads T's word after reading e + 1 and a
// fence, so by the lemma it reads a release store that ends the period. A node T unlinks during
// the period is therefore tagged e + 1 (the "+1" of ebr.hpp). The rule names only the global
// epoch, so the tag stays with the node when T detaches and another thread adopts its bag
// (detail/epoch_family.hpp): whoever frees it has read an epoch of at least tag + 2.
//
// Theorem. A node X tagged t (the advance to t+1 happens after its unlink W) is freed only after
// every thread that can reach it is done with it. The data structures' contract: a period
// reaches only nodes that were still linked when it began. Let T access X in a period with
// announcement p. (i) p <= t: T read p before F_T; were p > t, that read would happen after the
// advance to t+1, hence after W, so X was unlinked before the period began. (ii) The scan for
// t+1 -> t+2 read the epoch t+1 > p, fenced, then read T's word: by the lemma active(p) (which
// does not permit the advance) or a release store ending T's period. So T's accesses to X
// happen before that check, hence before the release CAS to t+2, hence before any thread that
// reads an epoch >= t+2 (acquire) and frees X.
#pragma once

#include <cstdint>

#include "smr/core/atomic.hpp"
#include "smr/detail/thread_core.hpp"
#include "smr/detail/thread_registry.hpp"
#include "smr/core/timeline.hpp"

namespace smr::detail {
using namespace ::smr::core;  // the public building blocks (atomics, nodes, stats)


class epoch_clock {
 public:
  static constexpr std::uint64_t first_epoch = 1;  // a thread that saw no epoch has local 0

  static constexpr std::uint64_t active(std::uint64_t e) { return (e << 1) | 1; }
  static constexpr std::uint64_t quiescent(std::uint64_t e = 0) { return e << 1; }

  // Whether a thread whose word reads `word` lets the epoch advance from e.
  static constexpr bool permits_advance(std::uint64_t word, std::uint64_t e) {
    return (word & 1) == 0 || (word >> 1) == e;
  }

  // acquire: pairs with the release CAS of advance(): a thread that reads e happens after the
  // checks that allowed every advance up to e (the chain the theorem ends with).
  std::uint64_t now() const { return epoch_.load(mo_acquire); }

  // Starts a period: announces the current epoch in `word` and returns it. `e` is a value the
  // caller just read with now().
  std::uint64_t announce(atomic<std::uint64_t>& word, std::uint64_t e) const {
    for (;;) {
      // release: ends the previous period; what the thread did before happens before any check
      // that reads this word (acquire).
      word.store(active(e), mo_release);
      // seq_cst fence: F_T of the lemma; orders the store above before the re-read below and
      // before every read of shared nodes in the period.
      fence(mo_seq_cst);
      const std::uint64_t now = epoch_.load(mo_acquire);  // acquire: see now()
      if (now == e) return e;
      e = now;
    }
  }

  // Ends a period; the thread holds no references until its next announce().
  static void quiesce(atomic<std::uint64_t>& word, std::uint64_t e = 0) {
    // release: the period's accesses happen before any check that reads the quiescent word.
    word.store(quiescent(e), mo_release);
  }

  // Reads one thread's word for the scan of epoch e. The caller's current period announced e
  // with announce(), whose fence is the F_C of the lemma.
  static bool check(atomic<std::uint64_t>& word, std::uint64_t e) {
    // acquire: pairs with the release stores of announce() and quiesce().
    return permits_advance(word.load(mo_acquire), e);
  }

  // Scans every slot of `reg` and advances from e if all permit it. Same precondition as check().
  template <class Slot>
  bool try_advance(std::uint64_t e, thread_registry<Slot>& reg, thread_core& tc) {
    bool all = true;
    reg.for_each([&](Slot& s, std::size_t) {
      if (all && !check(s.announce, e)) all = false;
    });
    return all && advance(e, tc);
  }

  // Advances e -> e+1 once a scan (full or incremental) found every thread permitting it.
  bool advance(std::uint64_t e, thread_core& tc) {
    // release: the checks of the scan happen before every thread that reads e+1 or a later
    // epoch (later advances are RMWs and so continue this release sequence). Nothing is read
    // through this CAS, so no acquire.
    if (!epoch_.compare_exchange_strong(e, e + 1, mo_release)) return false;
    tc.stats().epochs.add();
    tc.record_instant(event_kind::epoch_advance, e + 1);
    return true;
  }

 private:
  // Alone on its cache line: every operation reads it, announcements must not share it.
  alignas(cache_line) atomic<std::uint64_t> epoch_{first_epoch};
};

}  // namespace smr::detail
