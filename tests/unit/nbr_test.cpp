// NBR handshake, step by step: a reader caught in a read phase is restarted before its nodes
// are freed; a writer past reserve() is not restarted and its reservations survive; a reader
// that cannot take the signal yet keeps its round pending (nothing freed under it) while the
// reclaimer goes on, until max_pending_rounds rounds are pending, where the reclaimer waits;
// signals and restarts are counted; the signal number is configurable; domains coexist;
// threads may come and go while signals fly. NBR+: a thread past its low watermark frees its
// bookmarked nodes, without signalling, once another thread completes a round begun after the
// bookmark, and neither an earlier round nor a pending one counts.
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <thread>
#include <vector>

#include "smr/smr.hpp"
#include "support/broken_reclaimers.hpp"
#include "support/stress.hpp"

namespace {

using std::chrono::milliseconds;
constexpr std::uint64_t kMagic = 0x4E42524E4F444521ull;
// For rounds that must complete: only a broken handshake waits this long (then the test fails).
constexpr milliseconds kPatient{10000};

// A round that caught a reader completes on a later look: reclaim_now looks until it has.
template <class Handle>
bool rounds_complete(Handle& h) {
  return h.reclaim_now(kPatient);
}

// A node that reports its own destruction.
struct tnode : smr::nbr::node_base {
  tnode(std::uint64_t v, std::atomic<bool>* freed_flag) : value(v), freed(freed_flag) {}
  ~tnode() {
    magic = 0;
    if (freed != nullptr) freed->store(true, std::memory_order_release);
  }
  std::uint64_t magic = kMagic;
  std::uint64_t value;
  std::atomic<bool>* freed;
};

tnode* make(std::uint64_t v, std::atomic<bool>* freed = nullptr) {
  return smr::core::construct_node<tnode>(v, freed);
}

// Waits for a flag with a deadline, so that a broken handshake fails instead of hanging.
bool wait_for(const std::atomic<bool>& flag, milliseconds limit = milliseconds(10000)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!flag.load(std::memory_order_acquire)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

void block_signal(int sig, bool block) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  pthread_sigmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, nullptr);
}

// Retires `n` in an operation of its own on `h`.
template <class Handle>
void retire_in_op(Handle& h, tnode* n) {
  auto g = h.begin_op();
  g.retire(n);
}

// A reader whose first run of a read phase parks inside it (holding the root node) until it
// is neutralized or released; later runs reserve what they read and leave.
struct parked_reader {
  std::atomic<int> runs{0};
  std::atomic<bool> parked{false};
  std::atomic<bool> release{false};
  std::atomic<bool> saw_freed_while_parked{false};
  tnode* result = nullptr;

  template <class Domain>  // smr::nbr, or the planted variant
  void run(Domain& domain, smr::nbr::atomic_ptr<tnode>& root, std::atomic<bool>* watched) {
    auto h = domain.attach();
    auto g = h.begin_op();
    auto g_slots = g.template slots<1>();
    result = g.read_phase([&] {
      tnode* p = g_slots[0].protect(root).get();
      if (runs.fetch_add(1, std::memory_order_relaxed) == 0) {
        parked.store(true, std::memory_order_release);
        while (!release.load(std::memory_order_acquire)) std::this_thread::yield();
        // Still in the first run: the node read above must not have been freed meanwhile.
        if (watched != nullptr && watched->load(std::memory_order_acquire))
          saw_freed_while_parked.store(true, std::memory_order_relaxed);
      }
      g.reserve(p);
      return p;
    });
  }
};

TEST(Nbr, ReaderInReadPhaseIsRestartedBeforeItsNodeIsFreed) {
  smr::nbr domain({.bag_threshold = 1});
  std::atomic<bool> a_freed{false};
  tnode* a = make(1, &a_freed);
  tnode* b = make(2);
  smr::nbr::atomic_ptr<tnode> root;
  root.store(a, smr::core::mo_release);

  parked_reader reader;
  std::thread t([&] { reader.run(domain, root, &a_freed); });
  {
    auto h = domain.attach();
    ASSERT_TRUE(wait_for(reader.parked));
    root.store(b, smr::core::mo_release);  // unlink a
    retire_in_op(h, a);                    // bag reaches 1: a round
    ASSERT_TRUE(rounds_complete(h));
    EXPECT_EQ(h.waited_rounds(), 0u);
    EXPECT_TRUE(a_freed.load()) << "the round should have freed the unlinked node";
    reader.release.store(true, std::memory_order_release);  // only matters if not restarted
    t.join();
  }
  EXPECT_FALSE(reader.saw_freed_while_parked.load());
  EXPECT_EQ(reader.runs.load(), 2) << "the parked read phase was not restarted";
  EXPECT_EQ(reader.result, b) << "the restarted read phase must start over from the root";
  const auto s = domain.stats();
  EXPECT_EQ(s.signals, 1u);
  EXPECT_EQ(s.restarts, 1u);
  EXPECT_EQ(s.retired, 1u);
  EXPECT_EQ(s.freed, 1u);
  smr::core::free_node(b);
}

// The late-delivery scene: a reader thread that blocks the signal parks in a read phase holding
// `a`, root's node; unlink_a() swings root to `b`, after which the test retires `a`. The reader
// leaves its read phase (reserve) once released; the scene joins it and frees `b`.
template <class Domain>
struct blocked_reader_scene {
  std::atomic<bool> a_freed{false};
  tnode* a = make(1, &a_freed);
  tnode* b = make(2);
  smr::nbr::atomic_ptr<tnode> root;
  parked_reader reader;
  std::thread thread;

  explicit blocked_reader_scene(Domain& domain) {
    root.store(a, smr::core::mo_release);
    thread = std::thread([this, &domain] {
      block_signal(SIGUSR1, true);  // delivery is late: the reader cannot react yet
      reader.run(domain, root, &a_freed);
    });
  }
  ~blocked_reader_scene() {
    release_and_join();
    smr::core::free_node(b);
  }
  bool unlink_a() {
    if (!wait_for(reader.parked)) return false;
    root.store(b, smr::core::mo_release);
    return true;
  }
  void release_and_join() {
    reader.release.store(true, std::memory_order_release);
    if (thread.joinable()) thread.join();
  }
};

// A reader that blocks the signal is the late-delivery case (and a descheduled reader's): its
// round stays pending and frees nothing under it, while the reclaimer goes on retiring and
// beginning rounds without waiting; later rounds that find the reader where the first one did
// do not signal it again. Once the reader moves on, every pending round completes.
TEST(Nbr, ARoundPendingOnABlockedReaderFreesNothingAndDoesNotBlock) {
  smr::nbr domain({.bag_threshold = 1, .max_pending_rounds = 4});
  blocked_reader_scene scene(domain);
  {
    auto h = domain.attach();
    ASSERT_TRUE(scene.unlink_a());
    retire_in_op(h, scene.a);
    retire_in_op(h, make(3));
    retire_in_op(h, make(4));
    EXPECT_EQ(h.pending_rounds(), 3u);
    EXPECT_EQ(h.waited_rounds(), 0u);
    EXPECT_FALSE(scene.a_freed.load()) << "freed a node under a reader that had not moved on";
    EXPECT_EQ(h.unreclaimed(), 3u);
    EXPECT_EQ(domain.stats().signals, 1u) << "a reader whose signal is still pending was signalled again";
    scene.release_and_join();  // the reader left its read phase (reserve) and exited
    ASSERT_TRUE(rounds_complete(h));
    EXPECT_TRUE(scene.a_freed.load());
    EXPECT_EQ(h.unreclaimed(), 0u);
    EXPECT_EQ(h.pending_rounds(), 0u);
  }
  EXPECT_FALSE(scene.reader.saw_freed_while_parked.load());
  EXPECT_EQ(scene.reader.runs.load(), 1);  // the signal stayed blocked until the thread ended
}

// The garbage bound: with max_pending_rounds rounds pending on a reader that cannot move on,
// the next round first waits for the oldest, so the reclaimer's garbage stops growing; it
// resumes once the reader moves on.
TEST(Nbr, AtMaxPendingRoundsTheNextRoundWaitsForTheOldest) {
  smr::nbr domain({.bag_threshold = 1, .max_pending_rounds = 2});
  blocked_reader_scene scene(domain);
  std::atomic<bool> released{false};
  {
    auto h = domain.attach();
    ASSERT_TRUE(scene.unlink_a());
    retire_in_op(h, scene.a);
    retire_in_op(h, make(3));
    EXPECT_EQ(h.pending_rounds(), 2u);
    EXPECT_EQ(h.unreclaimed(), 2u);
    std::thread releaser([&] {
      std::this_thread::sleep_for(milliseconds(50));
      released.store(true, std::memory_order_release);
      scene.release_and_join();
    });
    retire_in_op(h, make(4));  // a third round: waits until the reader has moved on
    EXPECT_TRUE(released.load(std::memory_order_acquire)) << "the round did not wait at the cap";
    EXPECT_EQ(h.waited_rounds(), 1u);
    EXPECT_TRUE(scene.a_freed.load());
    releaser.join();
    ASSERT_TRUE(rounds_complete(h));
    EXPECT_EQ(h.unreclaimed(), 0u);
  }
  EXPECT_FALSE(scene.reader.saw_freed_while_parked.load());
}

// The same scenario with the acknowledgement wait removed (the planted bug): the node is freed
// while the reader still holds it. This is the failure the handshake exists to prevent.
TEST(Nbr, PlantedBugWithoutAckWaitFreesUnderAReader) {
  smr::test::planted_nbr domain({.bag_threshold = 1});
  blocked_reader_scene scene(domain);
  {
    auto h = domain.attach();
    ASSERT_TRUE(scene.unlink_a());
    retire_in_op(h, scene.a);
    scene.release_and_join();
  }
  EXPECT_TRUE(scene.reader.saw_freed_while_parked.load())
      << "without the acknowledgement wait the node should have been freed under the reader";
}

class NbrWriter : public ::testing::TestWithParam<bool> {};

// A thread past reserve() is in its write phase: a round must not restart it (signalled or
// not) and must not free what it reserved.
TEST_P(NbrWriter, PastReserveIsNotRestartedAndKeepsItsReservation) {
  const bool signal_all = GetParam();
  smr::nbr domain({.bag_threshold = 1, .signal_every_thread = signal_all});
  std::atomic<bool> a_freed{false};
  tnode* a = make(1, &a_freed);
  tnode* b = make(2);
  smr::nbr::atomic_ptr<tnode> root;
  root.store(a, smr::core::mo_release);

  std::atomic<int> runs{0};
  std::atomic<bool> reserved{false}, release{false}, intact{false};
  std::thread writer([&] {
    auto h = domain.attach();
    auto g = h.begin_op();
    auto g_slots = g.template slots<1>();
    tnode* p = g.read_phase([&] {
      runs.fetch_add(1, std::memory_order_relaxed);
      tnode* n = g_slots[0].protect(root).get();
      g.reserve(n);
      return n;
    });
    reserved.store(true, std::memory_order_release);
    wait_for(release);
    // Write phase: the reserved node must still be alive.
    intact.store(p == a && p->magic == kMagic && !a_freed.load(), std::memory_order_relaxed);
  });
  {
    auto h = domain.attach();
    ASSERT_TRUE(wait_for(reserved));
    root.store(b, smr::core::mo_release);
    retire_in_op(h, a);
    EXPECT_FALSE(a_freed.load()) << "freed a node that a writer reserved";
    EXPECT_EQ(h.unreclaimed(), 1u);
    if (signal_all) std::this_thread::sleep_for(milliseconds(20));  // let the signal land
    release.store(true, std::memory_order_release);
    writer.join();  // its guard ended: the reservation is gone
    retire_in_op(h, make(3));
    EXPECT_TRUE(a_freed.load());
  }
  EXPECT_TRUE(intact.load());
  EXPECT_EQ(runs.load(), 1);
  const auto s = domain.stats();
  EXPECT_EQ(s.restarts, 0u);
  // Only a thread caught in a read phase needs the signal; signal_every_thread sends it anyway.
  EXPECT_EQ(s.signals, signal_all ? 1u : 0u);
  smr::core::free_node(b);
}

INSTANTIATE_TEST_SUITE_P(SignalMode, NbrWriter, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "SignalAll" : "ReadersOnly"; });

// A read phase that returns without reserve() is over when read_phase returns: the thread is
// not signalled afterwards, and a guard's end drops its reservations.
TEST(Nbr, ReadPhaseEndsWithoutReserveAndGuardEndClearsReservations) {
  smr::nbr domain({.bag_threshold = 1});
  std::atomic<bool> a_freed{false}, c_freed{false};
  tnode* a = make(1, &a_freed);
  tnode* c = make(3, &c_freed);
  smr::nbr::atomic_ptr<tnode> root;
  root.store(a, smr::core::mo_release);

  std::atomic<bool> step1{false}, step2{false}, go2{false}, done{false};
  std::thread t([&] {
    auto h = domain.attach();
    {
      auto g = h.begin_op();
      auto g_slots = g.template slots<1>();
      const std::uint64_t v = g.read_phase([&] { return g_slots[0].protect(root)->value; });
      EXPECT_EQ(v, 1u);
      step1.store(true, std::memory_order_release);
      wait_for(go2);  // still inside the operation, past the read phase
    }
    {
      auto g = h.begin_op();
      auto g_slots = g.template slots<1>();
      g.read_phase([&] { g.reserve(g_slots[0].protect(root).get()); });
    }  // guard end: reservation cleared, thread stays attached
    step2.store(true, std::memory_order_release);
    wait_for(done);
  });
  {
    auto h = domain.attach();
    ASSERT_TRUE(wait_for(step1));
    root.store(c, smr::core::mo_release);
    retire_in_op(h, a);
    EXPECT_TRUE(a_freed.load());
    go2.store(true, std::memory_order_release);
    ASSERT_TRUE(wait_for(step2));
    root.store(nullptr, smr::core::mo_release);
    retire_in_op(h, c);
    EXPECT_TRUE(c_freed.load()) << "a reservation outlived its guard";
    done.store(true, std::memory_order_release);
  }
  t.join();
  EXPECT_EQ(domain.stats().signals, 0u);
}

TEST(Nbr, SignalNumberIsConfigurable) {
  smr::nbr domain({.signal = SIGUSR2, .bag_threshold = 1});
  struct sigaction sa {};
  ASSERT_EQ(sigaction(SIGUSR2, nullptr, &sa), 0);
  EXPECT_TRUE((sa.sa_flags & SA_SIGINFO) != 0 && sa.sa_sigaction == &smr::nbr_detail::neutralize_handler);

  std::atomic<bool> a_freed{false};
  tnode* a = make(1, &a_freed);
  tnode* b = make(2);
  smr::nbr::atomic_ptr<tnode> root;
  root.store(a, smr::core::mo_release);
  parked_reader reader;
  std::thread t([&] {
    block_signal(SIGUSR1, true);  // only SIGUSR2 can neutralize this reader
    reader.run(domain, root, &a_freed);
  });
  {
    auto h = domain.attach();
    ASSERT_TRUE(wait_for(reader.parked));
    root.store(b, smr::core::mo_release);
    retire_in_op(h, a);
    ASSERT_TRUE(rounds_complete(h));
    EXPECT_TRUE(a_freed.load());
    reader.release.store(true, std::memory_order_release);
    t.join();
  }
  EXPECT_EQ(reader.runs.load(), 2);
  EXPECT_EQ(domain.stats().restarts, 1u);
  smr::core::free_node(b);
}

// Every NBR signal's handler blocks every NBR signal while it runs, so no handler nests in
// another (a nested one could save the outer signal as blocked and leave it so after the
// restart): installing a second signal installs the first one's handler again.
TEST(Nbr, EveryHandlerBlocksEveryNbrSignal) {
  smr::nbr first({.signal = SIGUSR1});
  smr::nbr second({.signal = SIGUSR2});
  for (int signo : {SIGUSR1, SIGUSR2}) {
    struct sigaction sa {};
    ASSERT_EQ(sigaction(signo, nullptr, &sa), 0);
    EXPECT_EQ(sigismember(&sa.sa_mask, SIGUSR1), 1) << "handler of signal " << signo;
    EXPECT_EQ(sigismember(&sa.sa_mask, SIGUSR2), 1) << "handler of signal " << signo;
  }
}

// reserve() outside a read phase would make the phase word odd with no checkpoint behind it
// (and invert its parity for good): refused in every build, as is a second reserve() in one.
TEST(Nbr, ReserveOutsideAReadPhaseIsRefused) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        smr::nbr domain;
        auto h = domain.attach();
        auto g = h.begin_op();
        g.reserve();
      },
      "smr: misuse: nbr: reserve\\(\\) outside a read phase");
  EXPECT_DEATH(
      {
        smr::nbr domain;
        auto h = domain.attach();
        auto g = h.begin_op();
        g.read_phase([&] {
          g.reserve();
          g.reserve();
        });
      },
      "smr: misuse: nbr: reserve\\(\\) outside a read phase");
}

TEST(Nbr, RefusesUnusableOrForeignSignals) {
  EXPECT_THROW(smr::nbr({.signal = 0}), std::invalid_argument);
  EXPECT_THROW(smr::nbr({.signal = SIGKILL}), std::invalid_argument);
  const int foreign = SIGRTMIN + 3;
  struct sigaction sa {}, old {};
  sa.sa_handler = +[](int) {};
  sigemptyset(&sa.sa_mask);
  ASSERT_EQ(sigaction(foreign, &sa, &old), 0);
  EXPECT_THROW(smr::nbr({.signal = foreign}), std::runtime_error);
  sigaction(foreign, &old, nullptr);
}

// Two domains at once, one thread attached to both: a round in one domain neither signals nor
// restarts a read phase of the other; each domain counts its own.
TEST(Nbr, TwoDomainsAreIndependent) {
  smr::nbr da({.bag_threshold = 1});
  smr::nbr db({.signal = SIGUSR2, .bag_threshold = 1});
  std::atomic<bool> a_freed{false}, x_freed{false};
  tnode* a = make(1, &a_freed);
  tnode* b = make(2);
  tnode* x = make(10, &x_freed);
  smr::nbr::atomic_ptr<tnode> root;
  root.store(a, smr::core::mo_release);

  parked_reader reader;
  std::atomic<bool> reader_done{false};
  std::thread t([&] {
    auto hb = db.attach();  // attached to both; in a read phase of `da` only
    reader.run(da, root, &a_freed);
    reader_done.store(true, std::memory_order_release);
  });
  {
    auto ha = da.attach();
    auto hb = db.attach();
    ASSERT_TRUE(wait_for(reader.parked));
    retire_in_op(hb, x);  // db: the reader is not in a db read phase
    EXPECT_TRUE(x_freed.load());
    EXPECT_EQ(reader.runs.load(), 1);
    root.store(b, smr::core::mo_release);
    retire_in_op(ha, a);  // da: neutralizes the reader
    ASSERT_TRUE(rounds_complete(ha));
    EXPECT_TRUE(a_freed.load());
    reader.release.store(true, std::memory_order_release);
    t.join();
  }
  EXPECT_EQ(reader.runs.load(), 2);
  EXPECT_EQ(da.stats().signals, 1u);
  EXPECT_EQ(da.stats().restarts, 1u);
  EXPECT_EQ(db.stats().signals, 0u);
  EXPECT_EQ(db.stats().restarts, 0u);
  EXPECT_EQ(db.stats().freed, 1u);
  smr::core::free_node(b);
}

// Two domains (two signals) used concurrently by the same threads, each with its own stack.
TEST(Nbr, TwoDomainsConcurrently) {
  smr::nbr da({.bag_threshold = 4});
  smr::nbr db({.signal = SIGUSR2, .bag_threshold = 4});
  std::atomic<std::uint64_t> pushed_a{0}, popped_a{0}, pushed_b{0}, popped_b{0};
  {
    smr::treiber_stack<std::uint64_t, smr::nbr> sa(da), sb(db);
    smr::test::run_threads(
        4,
        [&](unsigned t) {
          auto ha = da.attach();
          auto hb = db.attach();
          smr::test::rng r(t + 7);
          for (std::uint64_t i = 0; i < smr::test::scaled_ops(4000); ++i) {
            const std::uint64_t v = r.below(1000) + 1;
            switch (r.below(4)) {
              case 0: sa.push(ha, v); pushed_a += v; break;
              case 1: if (auto p = sa.pop(ha)) popped_a += *p; break;
              case 2: sb.push(hb, v); pushed_b += v; break;
              default: if (auto p = sb.pop(hb)) popped_b += *p; break;
            }
          }
        },
        std::chrono::seconds(120), "two NBR domains");
    std::uint64_t left_a = 0, left_b = 0;
    sa.for_each_unsafe([&](std::uint64_t v) { left_a += v; });
    sb.for_each_unsafe([&](std::uint64_t v) { left_b += v; });
    EXPECT_EQ(pushed_a.load(), popped_a.load() + left_a);
    EXPECT_EQ(pushed_b.load(), popped_b.load() + left_b);
  }
  EXPECT_GT(da.stats().freed, 0u);
  EXPECT_GT(db.stats().freed, 0u);
}

// Threads attach, work briefly and exit while another thread signals every registered thread
// on every retirement: no signal may reach a thread that is gone (ASan / crash), and the
// domain must keep reclaiming.
TEST(Nbr, ThreadChurnWhileSignalling) {
  smr::nbr domain({.bag_threshold = 1, .signal_every_thread = true});
  // Separate stacks: the reclaimer's tight loop must not starve the churning threads' CASes.
  smr::treiber_stack<std::uint64_t, smr::nbr> busy(domain), churn(domain);
  std::atomic<bool> stop{false};
  smr::test::watchdog dog(std::chrono::seconds(120), "NBR thread churn");
  std::thread reclaimer([&] {
    auto h = domain.attach();
    std::uint64_t i = 0;
    while (!stop.load(std::memory_order_acquire)) {
      busy.push(h, ++i);
      busy.pop(h);  // retires: a round that signals every registered thread
      // Throttled: Linux re-arms an interrupted nanosleep with its timer slack (~50 us) added,
      // so signals sent faster than that would keep the other threads' sleeps from ending.
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  });
  for (int round = 0; round < 40; ++round) {
    std::vector<std::thread> ts;
    for (int k = 0; k < 3; ++k)
      ts.emplace_back([&, k] {
        auto h = domain.attach();
        for (int j = 0; j < 20; ++j) {
          churn.push(h, static_cast<std::uint64_t>(k));
          churn.pop(h);
        }
      });
    for (auto& th : ts) th.join();
  }
  stop.store(true, std::memory_order_release);
  reclaimer.join();
  const auto s = domain.stats();
  EXPECT_GT(s.signals, 0u);
  EXPECT_GT(s.freed, 0u);
  EXPECT_LE(s.freed, s.retired);
}

// ---- NBR+ (Algorithm 2): piggybacking on other threads' rounds ----

// Bag 8: the low watermark is 4 (50%), and eager looks at every retirement.
smr::nbr_plus::config plus_config() {
  auto c = smr::nbr_plus::rule::eager_config();
  c.bag_threshold = 8;
  c.max_pending_rounds = 4;
  c.low_watermark_percent = 50;
  c.piggyback_check_every = 1;
  return c;
}

// Another thread attaches, retires a full bag (one round of its own, which must complete) and
// leaves.
void run_one_round_elsewhere(smr::nbr_plus& domain) {
  std::thread([&] {
    auto h = domain.attach();
    for (int i = 0; i < 8; ++i) retire_in_op(h, make(100 + i));
    EXPECT_EQ(h.pending_rounds(), 0u);
  }).join();
}

struct watched_nodes {
  std::atomic<bool> freed[4] = {};
  bool any_freed() const {
    for (const auto& f : freed) if (f.load(std::memory_order_acquire)) return true;
    return false;
  }
  bool all_freed() const {
    for (const auto& f : freed) if (!f.load(std::memory_order_acquire)) return false;
    return true;
  }
};

// Four retirements reach the low watermark: the fourth bookmarks the bag (all four nodes).
template <class Handle>
void retire_to_low_watermark(Handle& h, watched_nodes& w) {
  for (int i = 0; i < 4; ++i) retire_in_op(h, make(static_cast<std::uint64_t>(i), &w.freed[i]));
}

TEST(NbrPlus, PiggybacksOnALaterRoundWithoutSignalling) {
  smr::nbr_plus domain(plus_config());
  watched_nodes w;
  auto h = domain.attach();
  // A bookmark watches the slots that exist: let the other thread's slot exist first.
  std::thread([&] { auto other = domain.attach(); }).join();
  retire_to_low_watermark(h, w);
  run_one_round_elsewhere(domain);
  EXPECT_FALSE(w.any_freed());
  std::atomic<bool> fifth_freed{false};
  retire_in_op(h, make(4, &fifth_freed));  // looks, sees the completed round, frees the bookmark
  EXPECT_TRUE(w.all_freed());
  EXPECT_FALSE(fifth_freed.load()) << "a node retired after the bookmark was freed";
  EXPECT_EQ(h.piggybacked_rounds(), 1u);
  EXPECT_EQ(h.unreclaimed(), 1u);
  EXPECT_EQ(domain.stats().signals, 0u);  // nobody was in a read phase: no round signalled

  // The high watermark stays where it was: the node retired since the bookmark counts towards
  // it, so no round's batch exceeds bag_threshold (NBR's garbage bound). Moving it to the bag's
  // size plus bag_threshold let the next batch reach 2 x bag_threshold - 1.
  for (int i = 5; i < 11; ++i) retire_in_op(h, make(static_cast<std::uint64_t>(i)));
  EXPECT_EQ(h.unreclaimed(), 7u);
  // The bag reaches bag_threshold (8): a round begins and, nobody being in a read phase,
  // completes at once.
  retire_in_op(h, make(11));
  EXPECT_EQ(h.unreclaimed(), 0u) << "the piggyback moved the high watermark past bag_threshold";
  EXPECT_TRUE(fifth_freed.load());
}

TEST(NbrPlus, ARoundBegunBeforeTheBookmarkDoesNotCount) {
  smr::nbr_plus domain(plus_config());
  watched_nodes w;
  auto h = domain.attach();
  run_one_round_elsewhere(domain);  // completed before our bookmark
  retire_to_low_watermark(h, w);
  retire_in_op(h, make(4));
  retire_in_op(h, make(5));
  EXPECT_FALSE(w.any_freed()) << "piggybacked on a round that began before the bookmark";
  EXPECT_EQ(h.piggybacked_rounds(), 0u);
  run_one_round_elsewhere(domain);  // a new thread gets the same slot: its count goes on
  retire_in_op(h, make(6));
  EXPECT_TRUE(w.all_freed());
  EXPECT_EQ(h.piggybacked_rounds(), 1u);
}

// A round still pending (a reader could not take the signal yet) proves nothing: no piggyback,
// and the reader's node, which is also in the bookmarked bag, survives.
TEST(NbrPlus, APendingRoundDoesNotCount) {
  smr::nbr_plus domain(plus_config());
  blocked_reader_scene scene(domain);
  auto h = domain.attach();
  // The other thread's slot must exist at the bookmark to be watched (see the next test).
  std::thread([&] { auto other = domain.attach(); }).join();
  ASSERT_TRUE(scene.unlink_a());
  retire_in_op(h, scene.a);
  for (int i = 0; i < 3; ++i) retire_in_op(h, make(10 + i));  // bookmark: a and three more
  std::atomic<bool> other_done{false};
  std::thread other_thread([&] {
    auto other = domain.attach();
    for (int i = 0; i < 8; ++i) retire_in_op(other, make(100 + i));
    EXPECT_EQ(other.pending_rounds(), 1u);
    other_done.store(true, std::memory_order_release);
  });  // its exit waits for its round, which the reader holds back
  ASSERT_TRUE(wait_for(other_done));
  retire_in_op(h, make(20));
  EXPECT_FALSE(scene.a_freed.load()) << "freed under a reader after a round still pending";
  EXPECT_EQ(h.piggybacked_rounds(), 0u);
  scene.release_and_join();
  other_thread.join();
  EXPECT_FALSE(scene.reader.saw_freed_while_parked.load());
  h.reclaim_now();
  EXPECT_TRUE(scene.a_freed.load());
}

// A slot first used after the bookmark is not watched until the next one (its rounds could not
// be ordered after the bookmarked unlinks): only the following bookmark piggybacks on it.
TEST(NbrPlus, AThreadThatAttachedAfterTheBookmarkIsWatchedFromTheNextOne) {
  smr::nbr_plus domain(plus_config());
  watched_nodes w;
  auto h = domain.attach();
  retire_to_low_watermark(h, w);
  run_one_round_elsewhere(domain);
  retire_in_op(h, make(4));
  EXPECT_FALSE(w.any_freed());
  for (int i = 0; i < 3; ++i) retire_in_op(h, make(5 + i));  // the high watermark: own round
  EXPECT_TRUE(w.all_freed());
  EXPECT_EQ(h.piggybacked_rounds(), 0u);
  watched_nodes later;
  retire_to_low_watermark(h, later);  // now the other slot is watched
  run_one_round_elsewhere(domain);
  retire_in_op(h, make(20));
  EXPECT_TRUE(later.all_freed());
  EXPECT_EQ(h.piggybacked_rounds(), 1u);
}

TEST(NbrPlus, RefusesALowWatermarkAtTheHighOne) {
  auto c = plus_config();
  c.low_watermark_percent = 100;
  EXPECT_THROW(smr::nbr_plus domain(c), std::invalid_argument);
}

}  // namespace
