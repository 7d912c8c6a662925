// HP_ASYM: hazard pointers with asymmetric fences. The HP rule of reclaimers/hp.hpp (one rule,
// not a copy) with a different fence pair: protect() issues a compiler barrier instead of fence
// X, and scan() issues a process-wide barrier, membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED),
// instead of fence Y. The reader's per-node cost drops to that of a plain load; the price moves
// to the scanner, which runs once per R retirements (R = 2H + 100) and pays one system call
// that interrupts every running thread of the process. folly's hazptr pairs its fences the
// same way (asymmetric_thread_fence_light / _heavy), and liburcu's "memb" flavour uses the same
// system call to take the fence out of RCU's read side.
//
// Why it is safe. HP's proof (hp.hpp, (1)) needs one thing of fences X and Y: for a reader that
// stores hazard h = n (H) and then re-reads the link (L), and a scanner that unlinked n (U) and
// then reads h (R), either R observes H (or a later store to h) or L observes U (or a later
// store to the link). membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) gives the same guarantee:
//  - The kernel executes a full memory barrier in the calling thread on entry and on return,
//    and makes every other thread of the process that is running during the call execute a
//    full barrier (an IPI) between the two; a thread that is not running passes through the
//    scheduler, which is a full barrier, before it runs again (membarrier(2);
//    kernel/sched/membarrier.c). Call the calling thread's barriers B0 and B1 and the barrier
//    the reader's CPU executes B_T; B0 precedes B_T precedes B1. An interrupt is taken between
//    two instructions of the reader's program order, and a full barrier drains the store
//    buffer, so B_T falls either after H or before H; in the second case also before L, since
//    H precedes L in program order (the compiler barrier, std::atomic_signal_fence(seq_cst),
//    keeps the compiler from sinking H below L or hoisting L above H; the processor may still
//    let L overtake H, which is the reordering B_T closes).
//  - B_T after H: H is globally visible before B_T completes, hence before B1, and R follows B1
//    in the scanner's program order: R observes H or a later store to h, and n is kept.
//  - B_T before H, hence before L: U precedes B0 in the scanner's program order, so U is
//    globally visible before B_T, and L follows B_T: L observes U or later, and validation
//    fails (a retired node is never linked again, so the link cannot hold n once more).
//  In the language of the C++ model, the membarrier is a seq_cst fence executed by every thread
//  of the process at its current point (for the reader, a signal handler running
//  atomic_thread_fence(seq_cst), which atomic_signal_fence(seq_cst) orders against the
//  reader's own accesses), framed by seq_cst fences in the scanner: the reader's fence F_T and
//  the scanner's fences B0 and B1 are in the single total order S with B0 < F_T < B1, and the
//  two cases above are the two fence rules of [atomics.order] for (U, B0, F_T, L) and
//  (H, F_T, B1, R). The rest of hp.hpp's proof ((2) release/acquire on hazards, (3) hold()'s
//  version counter, adopted orphans unlinked before the scan) is unchanged: it does not use X.
//  The Relacy model tests/relacy/hp_asym_model.cpp checks the pair with Relacy's own model of a
//  process-wide barrier (rl::systemwide_fence), and the planted variant without it
//  (tests/support/broken_reclaimers.hpp) is caught by the model and by the expected-failure
//  executable hp_asym_no_membarrier (docs/verification.md).
//
// Fallback (detail/asymmetric_fence.hpp): without membarrier, or with SMR_NO_MEMBARRIER=1, both
// fences are seq_cst fences, i.e. exactly smr::hp, after one warning on stderr per process.
// The decision is made once per process and every domain and handle keeps it: readers and
// scanners always use matching halves.
//
// Cost and when not to use it: every scan interrupts every running thread of the process (a
// few microseconds each), which is wasted on threads that never touch the domain, and which
// latency-critical threads (busy-polling cores) may not tolerate; the scan threshold R
// amortizes it over at least H + 100 frees. Everything else is as for hp.
#pragma once

#include "smr/detail/asymmetric_fence.hpp"
#include "smr/reclaimers/hp.hpp"

namespace smr {

// hp_asym's fence pair (hp.hpp: hp_rule_with<Fences>): the shared asymmetric pair
// (detail/asymmetric_fence.hpp), with fence X as its light side and fence Y as its heavy side.
// Built once by the domain's constructor, which makes the process-wide decision.
class hp_asymmetric_fences : public detail::asymmetric_fence_pair {
 public:
  static constexpr std::string_view name = "hp_asym",
                                    summary = "hazard pointers with asymmetric fences: a compiler barrier per protect, membarrier per scan (folly hazptr; membarrier(2))";

  void reader() const { light(); }   // fence X
  void scanner() const { heavy(); }  // fence Y
};

using hp_asym_rule = hp_rule_with<hp_asymmetric_fences>;

template <class FreePolicy = core::batch_free>
using basic_hp_asym = basic_domain<hp_asym_rule, FreePolicy>;
using hp_asym = basic_hp_asym<>;
using hp_asym_af = basic_hp_asym<core::amortized_free<>>;

}  // namespace smr
