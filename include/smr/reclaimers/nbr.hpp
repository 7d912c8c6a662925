// NBR: neutralization-based reclamation (Singh, Brown, Mashtizadeh, PPoPP 2021, §4, Alg. 1).
//
// What it is: an operation is a read phase (only reads of shared memory, restartable) followed
// by a write phase that touches only the nodes the read phase reserved:
//   r = g.read_phase([&] { ...reads...; g.reserve(a, b); return r; });   // then write
// Retired nodes go to a per-thread limbo bag. When the bag reaches `bag_threshold`, the thread
// neutralizes the others with a POSIX signal: a thread inside a read phase jumps back to the
// start of it (siglongjmp to a sigsetjmp taken in read_phase's own frame) and so forgets every
// pointer it had; a thread in a write phase carries on, touching only its reservations. Every
// node of the bag that nobody reserves is then freed, as soon as each signalled thread has been
// seen to move on; the reclaimer never waits for that (below).
//
// The handshake, made safe under late delivery. pthread_kill returns before the target runs its
// handler (here: ~18 us median, 8 ms p99, 20 ms worst; a descheduled target runs it only when
// it is scheduled again), so a reclaimer must learn that each target has reacted. Each thread
// has a phase word (detail::operation_word_slot), written only by its owner, with release
// stores of growing values: odd on entering a read phase (the paper's CAS at line 8), the next
// even value in reserve() (line 12), and a larger odd value when a neutralized read phase
// starts over. The handler writes nothing: it restarts the read phase iff the word is odd. The
// store-load ordering between "I am in a read phase" and the phase's first reads is an
// asymmetric fence pair (detail/asymmetric_fence.hpp): a compiler barrier on the read side, and
// membarrier(2) once per round on the reclaimer's side. A round, begun by a reclaimer R in its
// write phase after the unlinks of every node in its bag:
//   1. the bag becomes the round's batch; R issues the process-wide barrier B, then loads
//      (acquire) every slot's phase word: the snapshot S;
//   2. signals the threads whose snapshot is odd (or all, with signal_every_thread), and goes
//      on with its own operations: the round is pending;
//   3. on each later retirement R looks (acquire) at the odd words of its oldest pending round;
//      once each has changed,
//   4. R scans every reservation (acquire) and frees the unreserved nodes of that batch; the
//      reserved ones go back to the bag for a later round.
// Rounds complete in order, and a round that finds a word still at the odd value an earlier
// round signalled needs no second signal (the first is still pending). The garbage bound without any
// timeout: a thread with K rounds pending waits for the oldest (yielding the processor, to the
// descheduled threads it waits for) before it begins another, so it holds at most
// (K + 1) x bag_threshold nodes plus reserved ones, whatever the scheduler does. That wait is
// the only one, and it happens only when signalled threads stay off the processor for K rounds'
// worth of retirements (waited_rounds(), the round_waits statistic). K is max_pending_rounds,
// by default enough rounds for 2,048 retirements (one round with the paper's bag of 32,768,
// so its bound is two bags; 32 with a bag of 64).
//
// Why it is safe (proof sketch). Take X unlinked before R's barrier B, and a thread T. B puts a
// full fence into T's execution at some point P (a descheduled T gets it from the context
// switch); every store of T before P is visible to S, and every load of T after P sees the
// unlinks.
//  (a) S read a value older than T's store E that enters some read phase: E is after P, so the
//      reads of that read phase (after E and its compiler barrier) see the unlink of X and
//      cannot reach it.
//  (b) S read an even value: T was outside any operation or in a write phase. Its reservations
//      were stored before that value (a release store), which S acquires: R's scan reads them
//      or later values (coherence). Every later value is a release store made after that write
//      phase, so R's acquire load orders T's accesses before R's frees: the store that cleared
//      them, or a reservation made by a read phase entered after S, which cannot name X by (a).
//      In a write phase T touches only reservations, so X is safe unless reserved.
//  (c) S read odd: R frees nothing of the batch before it read a later value. Every later value
//      is a release store by T, made after the read phase S saw ended, by reserve() (covered as
//      in (b)) or by a restart after the handler jumped (its reads before the jump happen
//      before R's frees, and its reads after it are those of a read phase entered after S, as
//      in (a)). Because every store of the word releases, R's acquire load synchronizes with
//      whichever later value it reads, whether or not it read the ones between (since C++20 a
//      release sequence no longer runs through later plain stores).
//  (d) A slot past the registry's high-water mark that R read belongs to a thread that attached
//      after it: a seq_cst fence at attach and B order that thread's reads after the unlinks.
// Nothing here depends on when R scans: a scan delayed past R's own later operations reads what
// (b) and (c) need or something later, and R's own read phases come after its unlinks. Late
// delivery only delays step 3. The snapshot also proves that threads outside any operation, or
// in a write phase, hold nothing unreserved, so they need not be signalled or waited for
// (Algorithm 1 signals every thread; signal_every_thread=true reproduces that cost). A thread
// that waits (at the cap, or at exit) is in a write phase or outside any operation, so no
// thread ever waits for a waiting thread, and a waiting thread keeps handling signals.
//
// Why stores and a barrier, not RMWs: the store of "restartable" must not be overtaken by the
// read phase's loads (x86 store buffer, the paper's §4.3 point). The paper orders them with a
// CAS per read phase, and this reclaimer did with two RMWs (~4 ns per operation here, below);
// the barrier moves that cost to the round, which is every bag_threshold retirements. Without
// membarrier (detail/asymmetric_fence.hpp's fallback) the read side pays a seq_cst fence.
//
// Thread exit. A slot's `senders` counts reclaimers inside pthread_kill for its thread, plus a
// `gone` bias while no live thread owns it. A sender adds one and backs off if it sees `gone`;
// an exiting thread adds `gone` and waits for the count to drain before it may exit, so no
// signal is ever sent to a dead thread. One RMW chain on one word: no Dekker fences needed.
//
// Rules for read-phase code (fn): it may only read shared memory and write locals it sets
// afresh on every run (it may run several times); no allocation, locks, system calls or
// exceptions (read_phase is noexcept); no objects with non-trivial destructors (a restart skips
// them; the result type must be trivially destructible), so no guard, protection_slot or
// guarded_ptr is created inside (create slots before the read phase and use them inside); no
// nested read phases, even in another NBR domain; no begin_op() (refused in checked builds).
// An allocation inside a read phase can deadlock: a signal that interrupts malloc while it holds
// its arena lock jumps out with the lock held. None of this can be checked cheaply. It ends with reserve(ptrs...) naming every node the write phase touches (at most
// reservation_slots), or returns and the read phase ends with nothing reserved.
//
// When not to use it: data structures whose traversals continue after an auxiliary write
// (traits.continues_after_write is false: every read phase must restart from the root), or that
// cannot name their write-phase nodes before writing (NBR paper, Table 1). The process must give
// NBR a signal of its own and attached threads must not keep it blocked: a thread that blocks it
// inside a read phase holds back every round begun meanwhile, and a reclaimer that has
// max_pending_rounds of them waits until it unblocks. Costs: two plain stores, a compiler
// barrier and a sigsetjmp(env, 0) per read phase (no system call, no RMW); per reclamation
// round, one membarrier, one load per registered slot, one pthread_kill per thread newly
// caught in a read phase, and while the round is pending one acquire load per retirement; a
// neutralized read phase pays one pthread_sigmask call. Measured here (hash_map_rr, 16 keys,
// one thread, -O3): an operation costs ~5 ns more than with no reclamation, against ~9 ns with
// the two RMWs this replaced and ~8 ns for DEBRA. The bag also sets how long a freed node waits
// before its memory is reused, and what that costs depends on the allocator: on a 1M-key hash
// map at one thread NBR runs at ~0.85x DEBRA under jemalloc and tcmalloc, ~0.8x under glibc
// and ~1.0x under mimalloc (an earlier run found DEBRA made to hold as many, check_every 32768,
// at ~0.85x of its default too); a bag of 1,024 gives ~0.7x, ~0.9x, ~0.9x and ~1.0x in the same
// order (docs/guide.md).
//
// NBR+ (§5, Algorithm 2; smr::nbr_plus) is the same rule with the watermark policy: a thread
// also frees without signalling, by piggybacking on a round another thread completed.
//   What it is: below its bag's high watermark (the round at `bag_threshold`) a thread passes a
//   low watermark (`low_watermark_percent` of it). There it bookmarks its bag (the nodes in it
//   now) and reads every other thread's count of rounds begun; then, every
//   `piggyback_check_every` retirements, it looks at each thread's last completed round. Once
//   one of them completed a round it began after the bookmark, the bookmarked nodes that nobody
//   reserves are freed, with no signal of its own. A round of its own (the high watermark) ends
//   the watch.
//   Why it is safe: a round whose begin follows the bookmark does for the bookmarked nodes what
//   the thread's own round would. The bookmark reads each count with a release RMW (fetch_add
//   0) after the nodes were unlinked; the round's begin is an acquire RMW on the same count
//   that comes later in its modification order, so it synchronizes with the bookmark: the
//   unlinks happen before the round's fence and snapshots, which is all (a)-(d) above need of
//   "unlinked before the round". A round counts only once every thread it caught in a read
//   phase moved on (a pending round publishes nothing; rounds complete in order, so the
//   published number only grows): its release store of the completed round's number,
//   read with acquire, orders the acknowledgements and the reservations its snapshots acquired
//   before our scan, as for our own round. The paper's timestamps are even/odd (a round in
//   progress is odd) and it accepts "at least two more than bookmarked"; with an odd bookmark
//   that is a round begun but not ended, so here a round is named by its number and must be
//   completed. Only the slots that exist at the bookmark are watched: a thread that attaches
//   later is watched from the next bookmark on (nothing would order its round's begin after the
//   bookmarked unlinks through the counter; a recycled slot's count goes on, so it stays
//   watched).
//   When not to use it: as NBR. It sends fewer signals when several threads reclaim, and frees
//   bookmarked nodes earlier than its own high watermark would; with one reclaiming thread it is
//   NBR plus a look at the other threads every `piggyback_check_every` retirements.
#pragma once

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "smr/core/domain.hpp"
#include "smr/detail/asymmetric_fence.hpp"
#include "smr/detail/protected_set.hpp"
#include "smr/reclaimers/nbr_signal.hpp"

namespace smr {

// The configuration of nbr and nbr_plus (the last two fields are NBR+'s).
struct nbr_config {
  // The neutralization signal; its handler is installed once per process and shared by every
  // domain using it. It must not be used for anything else.
  int signal = SIGUSR1;
  // Retirements per reclamation round (the paper uses 32K). Each round also keeps what is
  // reserved, so a round always processes at least this many new nodes.
  std::size_t bag_threshold = 32768;
  // Rounds of one thread that may wait for signalled threads to move on at once. A thread
  // that would begin one more first waits for its oldest; so a thread holds at most
  // (max_pending_rounds + 1) x bag_threshold retired nodes, plus reserved ones. 0 (the
  // default): enough rounds to cover `auto_pending_retirements` retirements, at least one.
  std::size_t max_pending_rounds = 0;
  // Signal every registered thread each round, as Algorithm 1 does, instead of only those
  // caught in a read phase. Safety does not need it; it reproduces the paper's signal cost
  // (including interrupted sleeps: Linux re-arms an interrupted nanosleep with its timer
  // slack added, so a thread signalled more often than every ~50 us never wakes up).
  bool signal_every_thread = false;
  // NBR+: the low watermark, in percent of bag_threshold (the paper: "one half full").
  unsigned low_watermark_percent = 50;
  // NBR+: retirements between looks at the other threads' completed rounds (the paper
  // amortizes the scan of announceTS "over many retire operations").
  unsigned piggyback_check_every = 64;
};

// The watermark policy: Algorithm 1 alone (nbr), or with NBR+'s low watermark (nbr_plus).
struct nbr_high_watermark_only {
  static constexpr std::string_view name = "nbr", summary = "neutralization-based reclamation: signals restart readers, writers reserve (Singh et al. 2021, Alg. 1)";
  static constexpr bool piggyback = false;
  static constexpr std::tuple<> tunables{};
};
struct nbr_low_watermark {
  static constexpr std::string_view name = "nbr_plus", summary = "NBR+: NBR that also frees by piggybacking on other threads' completed rounds (Singh et al. 2021, Alg. 2)";
  static constexpr bool piggyback = true;
  static constexpr std::tuple tunables{
      tunable{"low_watermark_percent", &nbr_config::low_watermark_percent, "low watermark, percent of bag_threshold, where a thread starts watching other threads' rounds", 1u},
      tunable{"piggyback_check_every", &nbr_config::piggyback_check_every, "retirements between looks at other threads' completed rounds", 1u}};
};

template <class Watermarks>
struct nbr_rule_with : rule_defaults {
  static constexpr std::string_view name = Watermarks::name, summary = Watermarks::summary;
  using watermarks = Watermarks;
  using config = nbr_config;
  static constexpr auto tunables = std::tuple_cat(
      std::tuple{tunable{"bag_threshold", &config::bag_threshold, "retirements per reclamation round", std::size_t{1}},
                 tunable{"max_pending_rounds", &config::max_pending_rounds, "rounds a thread may have waiting for signalled threads before it waits for the oldest (0: enough for 2048 retirements, at least 1)", std::size_t{0}},
                 tunable{"signal_every_thread", &config::signal_every_thread, "signal every registered thread each round, as Algorithm 1 does"}},
      Watermarks::tunables);
  static void validate(const config& c) {
    if (Watermarks::piggyback && c.low_watermark_percent >= 100)
      throw std::invalid_argument(std::string(name) + ": low_watermark_percent must be below 100 (the high watermark)");
  }
  static constexpr reclaimer_traits traits{
      .protects_unlinked_traversal = true, .continues_after_write = false, .bounded_garbage = true,
      .metrics = {.signals = true, .restarts = true, .round_waits = true}};
  // Tests: a round every 16 retirements, so neutralization signals fly constantly; NBR+ watches
  // from 8 and looks at every retirement.
  // At most two rounds pending, so the wait at the cap runs too.
  static config eager_config() {
    return {.bag_threshold = 16, .max_pending_rounds = 2, .low_watermark_percent = 50, .piggyback_check_every = 1};
  }

  // What max_pending_rounds = 0 covers: retirements a thread may make while the threads its
  // rounds caught wait for a processor. A reader descheduled in a read phase acknowledges only
  // when it runs again; here (24 readers and a writer on 2 cores) a scheduler rotation lasts
  // ~40 ms, in which a writer retires ~1,000 nodes. With the paper's bag (32,768) this is one
  // round (a bound of 2 bags per thread); with a bag of 64, 32 rounds.
  static constexpr std::size_t auto_pending_retirements = 2048;
  static std::size_t pending_round_cap(const config& c) {
    if (c.max_pending_rounds != 0) return c.max_pending_rounds;
    return std::max<std::size_t>(1, (auto_pending_retirements + c.bag_threshold - 1) / c.bag_threshold);
  }

  // Most nodes one reserve() may name (the paper's R; its structures need at most 3).
  static constexpr unsigned reservation_slots = 8;
  // Step 3 of a round. A rule derived in a test sets this false to plant the bug the handshake
  // prevents (freeing before signalled threads moved on); never false otherwise.
  static constexpr bool wait_for_acknowledgements = true;

  static constexpr std::uint32_t gone = 1u << 31;  // `senders` bias: no live owner

  // `operations` is the phase word: odd while the owner is in a read phase (see above).
  struct slot : detail::operation_word_slot {
    core::atomic<const core::retired_node*> reserved[reservation_slots] = {};
    core::atomic<std::uint32_t> senders{gone};
    pthread_t thread{};  // written while `gone` is set, read by senders that saw it clear
    // NBR+: rounds this thread began (RMWs only: bookmarks read it with fetch_add 0), and the
    // number of the last one completed (every thread it caught in a read phase moved on).
    core::atomic<std::uint64_t> rounds_begun{0};
    core::atomic<std::uint64_t> round_done{0};
  };

  // The domain owns the asymmetric fence pair (B is its heavy side) and installs the handler.
  template <class Base>
  class domain_state : public detail::asymmetric_fence_domain<Base> {
   public:
    domain_state(const config& cfg, const core::instruments& inst) : detail::asymmetric_fence_domain<Base>(cfg, inst) {
      nbr_detail::install_handler(cfg.signal);
    }
  };

  // The phase word's stores and the light side of the pair come from operation_word_thread.
  template <class Base>
  class thread_state : public detail::operation_word_thread<Base> {
    using rule = typename Base::rule_type;  // nbr_rule, or a test's planted variant of it

   public:
    // Rounds begun and not yet complete (some signalled thread has not moved on).
    std::size_t pending_rounds() const { return pending_count_; }
    // Rounds that found max_pending_rounds pending and first waited for the oldest (the price
    // of the garbage bound when signalled threads do not run for that long).
    std::uint64_t waited_rounds() const { return waited_rounds_; }
    // NBR+: frees made by piggybacking on another thread's round (no signal sent).
    std::uint64_t piggybacked_rounds() const { return piggybacked_rounds_; }

   protected:
    explicit thread_state(typename Base::domain_type& d)
        : detail::operation_word_thread<Base>(d), pending_cap_(pending_round_cap(d.configuration())) {
      auto& s = this->slot();
      s.thread = pthread_self();
      ctx_.phase = &s.operations;
      nbr_detail::link_context(ctx_);
      // seq_cst fence: pairs with the barrier B of a round (proof point (d)): a reclaimer
      // whose snapshots ended below our slot has its unlinks ordered before our reads.
      core::fence(core::mo_seq_cst);
      // release: publishes `thread` to signal_one's acquire (our signal context is this
      // thread's own: link_context's signal fence orders it for the handler).
      s.senders.fetch_sub(gone, core::mo_release);
    }

    // Frees what it can: a last round for the bag, then a wait until every thread signalled in
    // a pending round has moved on (they are running or runnable: a read phase makes no system
    // call, and one that blocks the signal is outside the rules). What stays reserved is left
    // to the domain.
    ~thread_state() {
      if (!bag_.empty()) begin_round();
      unsigned spins = 0;
      while (!complete_all_acknowledged()) back_off(spins);
      this->donate(bag_.take_all());
      auto& s = this->slot();
      // relaxed: the add and the senders' RMWs are one chain on one word; the acquire loads
      // below see every sender that got in before it leave.
      s.senders.fetch_add(gone, core::mo_relaxed);
      while (s.senders.load(core::mo_acquire) != gone) std::this_thread::yield();
      nbr_detail::unlink_context(ctx_);
    }

    void enter() {}
    void leave() {
      assert(!in_read_);
      clear_reservations();
    }

    bool in_read_phase() const { return in_read_; }

    // The frame that holds the checkpoint: kept out of line so that it stays live, and intact,
    // for as long as fn runs, whatever the caller inlines. Nothing in it changes after
    // sigsetjmp, so a restart finds its locals as they were.
    template <class F>
    [[gnu::noinline]] std::invoke_result_t<F&> read_phase(F& fn) noexcept {
      using result = std::invoke_result_t<F&>;
      static_assert(std::is_void_v<result> || std::is_trivially_destructible_v<result>,
                    "an NBR read phase may be restarted at any point, so its result must be "
                    "trivially destructible");
      if (!this->in_operation() || in_read_) detail::misuse("nbr: read_phase outside an operation, or nested");
      // Every build: a read phase on another thread's handle would have that thread's signal
      // jump into this thread's stack. The address of this thread's signal state against the
      // owner's: an address computation and a compare, no call.
      if (owner_signals_ != &nbr_detail::tls_signals)
        detail::misuse("nbr: a read phase on a handle of another thread (its signals would jump into this thread's stack)");
      sigjmp_buf checkpoint;
      // savemask 0: no system call per read phase; the rare restart path restores the mask.
      const bool restarted = sigsetjmp(checkpoint, 0) != 0;
      if (restarted) after_neutralization();
      enter_read_phase(checkpoint, restarted);
      if constexpr (std::is_void_v<result>) {
        fn();
        leave_read_phase();
      } else {
        result r = fn();
        leave_read_phase();
        return r;
      }
    }

    // Algorithm 1, endΦread: publish, then leave the read phase.
    void reserve(const core::retired_node* const* nodes, unsigned n) {
      // Outside a read phase this would make the phase word odd with no checkpoint to jump to,
      // and invert its parity from then on: refused in every build (one compare).
      if (!in_read_) detail::misuse("nbr: reserve() outside a read phase, or twice in one");
      if (n > reservation_slots) detail::misuse("nbr: more than 8 nodes reserved at once");
      auto& s = this->slot();
      reserved_count_ = n;  // first, so that a restart clears whatever got stored
      // The compiler must not sink that plain store below the slot stores: a signal between
      // them would restart with a count that misses a stored slot.
      std::atomic_signal_fence(std::memory_order_seq_cst);
      // release: a scan may read one of these values in place of the clear that ended this
      // thread's previous write phase (proof point (b)); reading it (acquire) must then order
      // that write phase's accesses before the scan's frees, which a relaxed store would not
      // (since C++20 a release sequence no longer runs through later plain stores). The same
      // instruction as relaxed on x86. A reclaimer whose snapshot or poll reads this phase's
      // later release store of the word sees these values in its scan (proof points (b), (c)).
      // One whose snapshot read an older value does not need them: the read phase that chose
      // these nodes was entered after its barrier (proof point (a)). A stale value read by a
      // scan only protects more.
      for (unsigned i = 0; i < n; ++i) s.reserved[i].store(nodes[i], core::mo_release);
      this->publish_leave();  // the next even value, release: no longer restartable
      in_read_ = false;
    }

    void retire(core::retired_node* n) {
      if (in_read_) detail::misuse("nbr: retire() inside a read phase (it belongs to the write phase)");
      bag_.push(n);
      this->tc().note_retired();
      // From a deleter that our own round or piggyback is running (a node's deleter retiring
      // its child): the node waits in the bag for the next round. Going on would re-enter the
      // completion under way, which would complete its round twice, or free by a bookmark
      // that no longer describes the bag.
      if (freeing_) return;
      if (pending_count_ != 0) complete_all_acknowledged();
      if (bag_.size() >= next_round_at_) {
        begin_round();  // the high watermark
      } else if constexpr (Watermarks::piggyback) {
        if (bag_.size() >= low_mark_) watch_rounds();
      }
    }

    std::size_t unreclaimed() const { return bag_.size() + pending_nodes_; }

    // The reclaim-now step, outside any operation (so in neither phase: no signal restarts
    // us): completes what was acknowledged, and once nothing is pending begins a round for
    // whatever is left (the bag's reserved leftovers, orphans).
    void reclaim_step() {
      if (!complete_all_acknowledged()) return;
      if (!bag_.empty() || this->domain().has_orphans()) {
        begin_round();
        complete_all_acknowledged();
      }
    }

   private:
    struct target {
      slot* s;
      std::uint64_t seen;
    };

    // A round begun and not yet complete: the nodes it covers (all unlinked before its
    // snapshots) and the threads it caught in a read phase, with the odd value each was seen at.
    struct pending_round {
      detail::limbo_bag batch;
      std::vector<target> targets;
      std::size_t acknowledged = 0;  // targets[0, acknowledged) have been seen to move on
      std::uint64_t number = 0;      // NBR+: the round's number in our rounds_begun
    };

    // Algorithm 1, beginΦread; after a neutralization, the read phase entered anew.
    void enter_read_phase(sigjmp_buf& checkpoint, bool restarted) {
      if (!restarted) {
        if (nbr_detail::thread_in_read_phase()) detail::misuse("nbr: nested read phases (in another NBR domain)");
        clear_reservations();
        in_read_ = true;
      }
      // relaxed: the handler (this thread) reads it after it read an odd phase word (acquire),
      // which the release store below publishes.
      ctx_.checkpoint.store(&checkpoint, std::memory_order_relaxed);
      // Now restartable: the next odd value (after a neutralization, an odd value above the one
      // the handler saw, which acknowledges it: proof point (c)), release, then the light side
      // of the fence pair, so that this phase's reads come after it (proof point (a)).
      if (restarted)
        this->publish_reenter();
      else
        this->publish_enter();
    }

    // The handler jumped back here: still in the read phase (odd). The caller enters it anew.
    void after_neutralization() {
      nbr_detail::restore_mask_after_restart();
      this->tc().stats().restarts.add();
      clear_reservations();  // a reserve() may have been interrupted half-way
    }

    void leave_read_phase() {
      if (in_read_) reserve(nullptr, 0);
    }

    void clear_reservations() {
      auto& s = this->slot();
      // release: a reclaimer that reads the cleared value (acquire) also sees every access the
      // reservation covered.
      const unsigned stored = reserved_count_;  // read once: the stores below do not change it
      for (unsigned i = 0; i < stored; ++i) s.reserved[i].store(nullptr, core::mo_release);
      reserved_count_ = 0;
    }

    // A round of this domain (from retire(), reclaim_now() or a handle's destruction) inside a
    // read phase of another NBR domain: that domain's signal could jump out of it half-way.
    // Checked where a round begins or completes, which is rare.
    static void refuse_inside_another_read_phase() {
      if (nbr_detail::thread_in_read_phase())
        detail::misuse("nbr: a round of one NBR domain inside a read phase of another (retire, reclaim_now or a handle's destruction there)");
    }

    // Steps 1-2 of a round, in a write phase (or outside any operation): the bag becomes the
    // round's batch. At the cap, first waits for the oldest pending round: the garbage bound.
    // noexcept (with the completion and the piggyback): a bad_alloc half-way through would leave
    // a round pending with part of its targets, or a bag with nodes twice; it terminates instead.
    void begin_round() noexcept {
      refuse_inside_another_read_phase();
      if (pending_count_ == pending_cap_) {
        ++waited_rounds_;
        this->tc().stats().round_waits.add();
        unsigned spins = 0;
        while (complete_acknowledged_rounds(1) == 0) back_off(spins);
      }
      bag_.splice(this->adopt_orphans());  // unlinked before donation: safe to include
      if (pending_count_ == pending_.size()) grow_ring();
      pending_round& r = pending_[(pending_head_ + pending_count_) % pending_.size()];
      if constexpr (Watermarks::piggyback) {
        // acquire RMW: synchronizes with every (release) bookmark RMW before it on this word,
        // so their unlinks happen before our snapshots (the seq_cst fence below would acquire
        // it too, as Relacy confirms; the RMW's own acquire is what TSan, which does not model
        // fences, sees). The only increments are ours, so the value is our round's number.
        r.number = this->slot().rounds_begun.fetch_add(1, core::mo_acquire) + 1;
      }
      r.batch = bag_.take_all();
      pending_nodes_ += r.batch.size();
      ++pending_count_;
      snapshot_and_signal(r);
      // The next round waits for bag_threshold new retirements.
      reset_watermarks();
      complete_all_acknowledged();  // nobody caught in a read phase: complete at once
    }

    // Step 1 (snapshots) and step 2 (signals) for round r.
    void snapshot_and_signal(pending_round& r) {
      const auto& cfg = this->domain().configuration();
      const std::uint64_t start = core::monotonic_ns();
      // The barrier B (the heavy side of the pair; a seq_cst fence in the fallback): the
      // unlinks of the batch before every snapshot below, for proof points (a) and (d).
      this->fences().heavy();
      r.targets.clear();
      r.acknowledged = 0;
      std::uint64_t signalled = 0;
      std::size_t position = 0;
      slot* self = &this->slot();
      this->for_each_slot([&](slot& s) {
        const std::size_t at = position++;
        if (&s == self) return;
        // acquire snapshot S: the owner's published reservations reach our scan (proof point
        // (b)); what it says about read phases comes from B (proof point (a)).
        const std::uint64_t seen = s.operations.load(core::mo_acquire);
        const bool reading = detail::operation_word_slot::inside(seen);
        if (reading) r.targets.push_back({&s, seen});
        if (at >= signalled_at_.size()) signalled_at_.resize(at + 1, 0);
        // A word still at the value we last signalled it at has not run a handler since: our
        // earlier signal is still pending (standard signals coalesce), so another one would
        // only cost a system call. Only liveness rests on signals; safety rests on the words.
        if (reading && seen == signalled_at_[at] && !cfg.signal_every_thread) return;
        if ((reading || cfg.signal_every_thread) && signal_one(s)) {
          ++signalled;
          signalled_at_[at] = seen;
        }
      });
      if constexpr (!rule::wait_for_acknowledgements) r.acknowledged = r.targets.size();  // the plant
      this->tc().stats().signals.add(signalled);
      this->tc().record(core::event_kind::signal, start, core::monotonic_ns(), signalled);
    }

    // Steps 3-4 for the pending rounds, oldest first: a round whose caught threads have all
    // moved on frees its batch, except what is reserved, which goes back to the bag. Rounds
    // complete in order: a later round's snapshot of a thread that has not moved on reads the
    // same odd value, so it waits on that thread too. Stops after `most` rounds; returns how
    // many completed.
    std::size_t complete_acknowledged_rounds(std::size_t most) noexcept {
      std::size_t completed = 0;
      while (pending_count_ != 0 && completed < most) {
        pending_round& r = pending_[pending_head_];
        for (; r.acknowledged < r.targets.size(); ++r.acknowledged) {
          const target& t = r.targets[r.acknowledged];
          // acquire: pairs with the owner's release store of whichever later value this reads
          // (reserve(), or the re-entry after its handler jumped): proof point (c).
          if (t.s->operations.load(core::mo_acquire) == t.seen) return completed;
        }
        if constexpr (Watermarks::piggyback) {
          // release: every acknowledgement acquired above happens before a piggybacking
          // thread's acquire load of this number (and its scan).
          this->slot().round_done.store(r.number, core::mo_release);
        }
        refuse_inside_another_read_phase();  // once per round completed, before it frees
        pending_nodes_ -= r.batch.size();
        collect_reservations();
        free_safe(reserved_.extract_unprotected(r.batch));
        // What stays is reserved: back to the bag, and the next round still waits for
        // bag_threshold retirements besides it.
        const std::size_t kept = r.batch.size();
        bag_.splice(std::move(r.batch));
        next_round_at_ += kept;
        if constexpr (Watermarks::piggyback) low_mark_ += kept;
        pending_head_ = (pending_head_ + 1) % pending_.size();
        --pending_count_;
        ++completed;
      }
      return completed;
    }
    // Completes every round that can be; true if none is pending any more.
    bool complete_all_acknowledged() {
      complete_acknowledged_rounds(std::numeric_limits<std::size_t>::max());
      return pending_count_ == 0;
    }

    // The ring grows on demand up to the cap (a cap of 2,048 rounds with a bag of 1 costs
    // nothing until rounds do pile up): the oldest round first, then one more.
    void grow_ring() {
      std::rotate(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(pending_head_), pending_.end());
      pending_head_ = 0;
      pending_.emplace_back();
    }

    // Between looks at signalled threads' words. We are in a write phase or outside any
    // operation, so our own handler may run at any point of this wait.
    static void back_off(unsigned& spins) {
      if (++spins <= 64) {
        core::spin_pause();
      } else if (spins <= 256) {
        std::this_thread::yield();
      } else {
        // One nanosleep, not sleep_for's EINTR loop: a signal that cuts the nap short only
        // means we look again sooner (and a re-armed nap would grow by the timer slack).
        const timespec nap{0, 50000};
        ::nanosleep(&nap, nullptr);
      }
    }

    void reset_watermarks() {
      const auto& cfg = this->domain().configuration();
      next_round_at_ = bag_.size() + cfg.bag_threshold;
      if constexpr (Watermarks::piggyback) {
        low_mark_ = bag_.size() + std::max<std::size_t>(1, cfg.bag_threshold * cfg.low_watermark_percent / 100);
        bookmark_ = 0;
      }
    }

    // NBR+ (Algorithm 2, lines 12-24), past the low watermark, in a write phase.
    void watch_rounds() {
      if (bookmark_ == 0) {  // line 13: first retirement past the low watermark
        bookmark_ = bag_.size();
        watched_.clear();
        slot* self = &this->slot();
        this->for_each_slot([&](slot& s) {
          if (&s == self) return;
          // release RMW (fetch_add 0): the bookmarked nodes' unlinks happen before any round
          // whose (acquire) begin RMW comes later on this word (header, NBR+ "Why it is safe").
          watched_.push_back({&s, s.rounds_begun.fetch_add(0, core::mo_release)});
        });
        since_look_ = 0;
        return;
      }
      if (++since_look_ < this->domain().configuration().piggyback_check_every) return;
      since_look_ = 0;
      for (const target& w : watched_) {
        // acquire: pairs with the release store of a completed round, so its acknowledgements
        // and the reservations its snapshots acquired happen before our scan.
        if (w.s->round_done.load(core::mo_acquire) > w.seen) {
          piggyback();
          return;
        }
      }
    }

    // Frees the bookmarked prefix of the bag except what is reserved (line 19).
    void piggyback() noexcept {
      std::size_t i = 0;
      detail::limbo_bag prefix = bag_.extract_if([&](const core::retired_node*) { return i++ < bookmark_; });
      collect_reservations();
      free_safe(reserved_.extract_unprotected(prefix));
      bag_.splice(std::move(prefix));  // the reserved ones wait for a later round
      ++piggybacked_rounds_;
      // The watermarks stay where they are (Algorithm 2 compares the bag's size with them): the
      // nodes retired since the bookmark count towards the next round, so no round's batch
      // exceeds bag_threshold new nodes, and the garbage bound stays NBR's. Moving the high
      // watermark to the bag's size plus bag_threshold, as a round does with an empty bag,
      // let a batch grow to almost two bags.
      bookmark_ = 0;
    }

    // The nodes go to the free policy; a retire() from one of their deleters only adds to the
    // bag (see retire()).
    void free_safe(detail::limbo_bag&& safe) {
      freeing_ = true;
      this->release_safe(std::move(safe));
      freeing_ = false;
    }

    // Sends the signal unless the slot's thread is gone or leaving; true if sent.
    bool signal_one(slot& s) {
      // acquire: pairs with the release in the constructor that cleared `gone` after writing
      // `thread`.
      const std::uint32_t before = s.senders.fetch_add(1, core::mo_acquire);
      bool sent = false;
      if ((before & gone) == 0) sent = pthread_kill(s.thread, this->domain().configuration().signal) == 0;
      // release: our pthread_kill happens before the exiting owner's drain wait ends.
      s.senders.fetch_sub(1, core::mo_release);
      return sent;
    }

    void collect_reservations() {
      reserved_.clear();
      this->for_each_slot([&](slot& s) {
        // acquire: pairs with the release stores that clear reservations (proof point (b)).
        for (auto& r : s.reserved) reserved_.add(r.load(core::mo_acquire));
      });
      reserved_.seal();
    }

    nbr_detail::signal_context ctx_;
    detail::limbo_bag bag_;
    // A ring of at most pending_cap_ rounds: pending_count_ of them from pending_head_ on.
    const std::size_t pending_cap_;
    std::vector<pending_round> pending_;
    std::size_t pending_head_ = 0;
    std::size_t pending_count_ = 0;
    std::size_t pending_nodes_ = 0;  // nodes in pending rounds' batches
    // Per slot (by its position in the registry walk), the odd phase value we last signalled.
    std::vector<std::uint64_t> signalled_at_;
    detail::protected_set reserved_;
    std::size_t next_round_at_ = this->domain().configuration().bag_threshold;
    std::uint64_t waited_rounds_ = 0;
    // NBR+ only.
    std::size_t low_mark_ = std::max<std::size_t>(1, this->domain().configuration().bag_threshold *
                                                         this->domain().configuration().low_watermark_percent / 100);
    std::size_t bookmark_ = 0;  // nodes at the front of bag_ unlinked before the watch; 0: not watching
    std::vector<target> watched_;  // every other slot and its rounds_begun at the bookmark
    std::uint64_t piggybacked_rounds_ = 0;
    unsigned since_look_ = 0;
    unsigned reserved_count_ = 0;
    bool in_read_ = false;
    const nbr_detail::thread_signal_state* const owner_signals_ = &nbr_detail::tls_signals;  // the attaching thread's
    bool freeing_ = false;  // inside free_safe(): deleters are running
  };
};

using nbr_rule = nbr_rule_with<nbr_high_watermark_only>;
using nbr_plus_rule = nbr_rule_with<nbr_low_watermark>;

template <class FreePolicy = core::batch_free> using basic_nbr = basic_domain<nbr_rule, FreePolicy>;
using nbr = basic_nbr<>;
using nbr_af = basic_nbr<core::amortized_free<>>;
template <class FreePolicy = core::batch_free> using basic_nbr_plus = basic_domain<nbr_plus_rule, FreePolicy>;
using nbr_plus = basic_nbr_plus<>;
using nbr_plus_af = basic_nbr_plus<core::amortized_free<>>;

}  // namespace smr
