// hp, he, wfe, ibr_2ge and ibr_epoch: a protected node survives other threads' scans until
// released, garbage stays bounded while a thread is stalled inside an operation, exiting
// threads hand their nodes over, protect() validates (HP retries, HE republishes when the era
// moved, IBR raises its interval), hold() copies protection (hp, he, wfe), eras are stamped,
// stats add up, ibr_epoch's reservation pins what retires from its era on, and wfe's protect()
// asks for help after its attempts and is answered.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "smr/detail/published_words.hpp"
#include "support/reclaimers.hpp"
#include "support/stress.hpp"

namespace {

// Ids of destroyed test nodes, so a test can tell whether a scan freed a given node.
class freed_log {
 public:
  static void clear() {
    std::lock_guard<std::mutex> g(lock());
    ids().clear();
  }
  static void add(int id) {
    std::lock_guard<std::mutex> g(lock());
    ids().insert(id);
  }
  static bool contains(int id) {
    std::lock_guard<std::mutex> g(lock());
    return ids().count(id) != 0;
  }
  static std::size_t size() {
    std::lock_guard<std::mutex> g(lock());
    return ids().size();
  }

 private:
  static std::mutex& lock() {
    static std::mutex m;
    return m;
  }
  static std::set<int>& ids() {
    static std::set<int> s;
    return s;
  }
};

template <class R>
struct tnode : R::node_base {
  explicit tnode(int i) : id(i) {}
  ~tnode() { freed_log::add(id); }
  int id;
  typename R::template atomic_ptr<tnode> next;
};

template <class R>
using link_t = typename R::template atomic_ptr<tnode<R>>;

template <class R>
tnode<R>* make_node(typename R::handle& h, int id) {
  auto g = h.begin_op();
  return g.template create<tnode<R>>(id);
}

template <class R>
void retire_node(typename R::handle& h, tnode<R>* n) {
  auto g = h.begin_op();
  g.retire(n);
}

// Per reclaimer: a configuration that reclaims at every retirement, and one with a stated
// bound on unreclaimed nodes while one thread is stalled (see StalledThreadBoundsGarbage).
template <class R>
struct cfg;

template <>
struct cfg<smr::hp> {
  static smr::hp::config eager() { return {.slots = 2, .scan_threshold = 1}; }
  static constexpr std::size_t R = 16;
  static smr::hp::config bounded() { return {.slots = 2, .scan_threshold = R}; }
  // A scan runs whenever the bag reaches R and leaves only protected nodes (at most
  // H = K x threads = 2 x 4 < R), so a bag never holds R nodes once retire() returns.
  static std::size_t per_thread_bound(unsigned) { return R - 1; }
};

template <>
struct cfg<smr::ibr_2ge> {
  static smr::ibr_2ge::config eager() {
    return {.epoch_frequency = 1, .scale_epoch_frequency = false, .empty_frequency = 1};
  }
  static constexpr unsigned f = 4, e = 8;
  static smr::ibr_2ge::config bounded() {
    return {.epoch_frequency = f, .scale_epoch_frequency = false, .empty_frequency = e};
  }
  // Every reservation [lo, hi] here has hi = lo (workers never protect, the stalled thread's
  // protect happens before the workers start). It pins nodes born by hi and retired from lo
  // on: those alive when era lo began (the linked node and one in flight per worker) plus
  // those born in era lo (each worker stamps fewer than f before advancing the era itself).
  // A bag holds what its last scan kept (at most those, P) plus fewer than max(e, kept / 4)
  // retired since (detail/era_family.hpp, amortize_scans).
  static std::size_t per_thread_bound(unsigned workers) {
    const std::size_t pinned_per_interval = workers * f + workers + 1;
    const std::size_t pinned = (workers + 1) * pinned_per_interval;
    return pinned + std::max<std::size_t>(e, pinned / 4);
  }
};

template <>
struct cfg<smr::he> {
  static smr::he::config eager() {
    return {.slots = 2, .epoch_frequency = 1, .scale_epoch_frequency = false, .empty_frequency = 1};
  }
  static smr::he::config bounded() {
    return {.slots = 2, .epoch_frequency = cfg<smr::ibr_2ge>::f, .scale_epoch_frequency = false,
            .empty_frequency = cfg<smr::ibr_2ge>::e};
  }
  // The stalled thread's one published era e pins what ibr_2ge's [lo, hi] with hi = lo pins.
  static std::size_t per_thread_bound(unsigned workers) { return cfg<smr::ibr_2ge>::per_thread_bound(workers); }
};

// WFE: HE's configuration; eager() asks for help whenever the era moved (the slow path).
template <>
struct cfg<smr::wfe> {
  static smr::wfe::config eager() {
    return {.slots = 2, .fast_path_attempts = 0, .epoch_frequency = 1, .scale_epoch_frequency = false, .empty_frequency = 1};
  }
  static smr::wfe::config bounded() {
    return {.slots = 2, .epoch_frequency = cfg<smr::ibr_2ge>::f, .scale_epoch_frequency = false,
            .empty_frequency = cfg<smr::ibr_2ge>::e};
  }
  static std::size_t per_thread_bound(unsigned workers) { return cfg<smr::he>::per_thread_bound(workers); }
};

// TagIBR runs on ibr_2ge's era clock and configuration.
template <>
struct cfg<smr::tag_ibr> : cfg<smr::ibr_2ge> {};
template <>
struct cfg<smr::tag_ibr_faa> : cfg<smr::ibr_2ge> {};
template <>
struct cfg<smr::tag_ibr_wcas> : cfg<smr::ibr_2ge> {};
template <>
struct cfg<smr::tag_ibr_tpa> : cfg<smr::ibr_2ge> {};

template <class R>
class HpIbr : public ::testing::Test {
 protected:
  void SetUp() override { freed_log::clear(); }
};
using robust_reclaimers = ::testing::Types<smr::hp, smr::he, smr::wfe, smr::ibr_2ge, smr::tag_ibr, smr::tag_ibr_faa, smr::tag_ibr_wcas, smr::tag_ibr_tpa>;
TYPED_TEST_SUITE(HpIbr, robust_reclaimers, smr::test::reclaimer_name);

TYPED_TEST(HpIbr, ProtectedNodeSurvivesOtherThreadsScans) {
  using R = TypeParam;
  R domain(cfg<R>::eager());
  link_t<R> link;
  auto ha = domain.attach();
  tnode<R>* x = make_node<R>(ha, 1);
  link.store(x, smr::core::mo_release);
  {
    auto g = ha.begin_op();
    auto g_slots = g.template slots<1>();
    tnode<R>* p = g_slots[0].protect(link).get();
    ASSERT_EQ(p, x);

    std::thread other([&] {
      auto hb = domain.attach();
      {
        auto gb = hb.begin_op();
        link.store(nullptr, smr::core::mo_release);  // unlink x, then retire it
        gb.retire(x);
      }
      // Every retirement scans; these unprotected nodes must go, x must stay.
      for (int i = 0; i < 200; ++i) retire_node<R>(hb, make_node<R>(hb, 100 + i));
      EXPECT_FALSE(freed_log::contains(1)) << "a scan freed a protected node";
      EXPECT_GE(freed_log::size(), 150u) << "scans did not reclaim unprotected nodes";
      // hb's destructor donates x to the domain.
    });
    other.join();
    EXPECT_FALSE(freed_log::contains(1)) << "thread exit freed a protected node";
    EXPECT_EQ(p->id, 1);  // still readable (ASan would report a use after free)
  }
  // Released: the next scan adopts the orphan and frees it.
  retire_node<R>(ha, make_node<R>(ha, 999));
  EXPECT_TRUE(freed_log::contains(1)) << "released node was not reclaimed after adoption";
}

TYPED_TEST(HpIbr, StalledThreadBoundsGarbage) {
  using R = TypeParam;
  constexpr unsigned workers = 3;
  const std::uint64_t ops = smr::test::scaled_ops(6000);
  const std::size_t bound = cfg<R>::per_thread_bound(workers);
  R domain(cfg<R>::bounded());
  link_t<R> link;
  auto stalled = domain.attach();
  link.store(make_node<R>(stalled, 0), smr::core::mo_release);

  auto g = stalled.begin_op();  // stalled inside an operation for the whole run
  auto held_slot = g.slot();
  tnode<R>* held = held_slot.protect(link).get();
  ASSERT_NE(held, nullptr);

  std::atomic<std::size_t> worst{0};
  smr::test::run_threads(workers, [&](unsigned t) {
    auto h = domain.attach();
    for (std::uint64_t i = 0; i < ops; ++i) {
      auto wg = h.begin_op();
      auto* n = wg.template create<tnode<R>>(static_cast<int>(1 + t * ops + i));
      // acq_rel: publishes n; the old node is ours to retire (exchange unlinked it).
      tnode<R>* old = link.exchange(n, smr::core::mo_acq_rel).get();
      if (old != nullptr) wg.retire(old);
      const std::size_t mine = h.unreclaimed();
      std::size_t w = worst.load(std::memory_order_relaxed);
      while (mine > w && !worst.compare_exchange_weak(w, mine, std::memory_order_relaxed)) {
      }
    }
  });

  const auto s = domain.stats();
  EXPECT_EQ(s.retired, workers * ops);
  EXPECT_LE(worst.load(), bound) << "a thread's unreclaimed nodes exceeded the stated bound";
  EXPECT_LE(s.retired - s.freed, workers * bound + 1) << "garbage grew with a stalled thread";
  EXPECT_FALSE(freed_log::contains(0)) << "the stalled thread's node was freed";
  EXPECT_EQ(held->id, 0);
  smr::core::free_node(link.load(smr::core::mo_relaxed).get());  // never retired
}

// All retired nodes are freed once no thread protects anything, including those left by exited
// threads (adopted by the last handle's final scan).
TYPED_TEST(HpIbr, EverythingFreedAfterThreadsExit) {
  using R = TypeParam;
  R domain(smr::test::stress_config<R>::make());
  {
    // A list, which every robust reclaimer admits (tag_ibr refuses the Treiber stack).
    smr::hm_list<int, R> set(domain);
    smr::test::run_threads(4, [&](unsigned t) {
      auto h = domain.attach();
      for (int i = 0; i < 2000; ++i) {
        const int k = static_cast<int>(t * 10000 + i);
        EXPECT_TRUE(set.insert(h, k));
        if (i % 3 != 0) {
          EXPECT_TRUE(set.remove(h, k));
        }
      }
    });
    auto h = domain.attach();
    std::vector<int> left;
    set.for_each_unsafe([&](int k) { left.push_back(k); });
    for (int k : left) EXPECT_TRUE(set.remove(h, k));
  }  // the last handle's destructor adopts every orphan and scans with no reservation left
  const auto s = domain.stats();
  EXPECT_GT(s.retired, 0u);
  EXPECT_EQ(s.freed, s.retired);
  EXPECT_EQ(s.unreclaimed, 0);
}

// ---- hp ----

TEST(Hp, ProtectRetriesWhileTheLinkChanges) {
  using R = smr::hp;
  R domain(smr::hp::config{.slots = 1, .scan_threshold = 1});
  link_t<R> link;
  auto h = domain.attach();
  tnode<R>* a = make_node<R>(h, 1);
  tnode<R>* b = make_node<R>(h, 2);
  link.store(a, smr::core::mo_release);

  std::atomic<bool> stop{false};
  std::thread flipper([&] {
    bool flag = false;
    while (!stop.load(std::memory_order_relaxed)) {
      link.store(flag ? a : b, smr::core::mo_release);
      flag = !flag;
    }
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::uint64_t calls = 0;
  while (domain.stats().protect_retries == 0 && std::chrono::steady_clock::now() < deadline) {
    for (int i = 0; i < 1000; ++i, ++calls) {
      auto g = h.begin_op();
      auto g_slots = g.template slots<1>();
      tnode<R>* p = g_slots[0].protect(link).get();
      ASSERT_TRUE(p == a || p == b);
    }
  }
  stop.store(true);
  flipper.join();
  EXPECT_GT(domain.stats().protect_retries, 0u) << "no validation failed in " << calls << " calls";
  smr::core::free_node(a);
  smr::core::free_node(b);
}

TEST(Hp, ProtectDoesNotCountRetriesOnAStableLink) {
  using R = smr::hp;
  R domain;
  link_t<R> link;
  auto h = domain.attach();
  tnode<R>* a = make_node<R>(h, 1);
  link.store(a, smr::core::mo_release);
  for (int i = 0; i < 100; ++i) {
    auto g = h.begin_op();
    auto g_slots = g.template slots<4>();
    EXPECT_EQ(g_slots[i % 4].protect(link).get(), a);
  }
  EXPECT_EQ(domain.stats().protect_retries, 0u);
  smr::core::free_node(a);
}

// ---- hold(): hp and he ----

template <class R>
class SlotHold : public ::testing::Test {
 protected:
  void SetUp() override { freed_log::clear(); }
};
using slot_reclaimers = ::testing::Types<smr::hp, smr::he, smr::wfe>;
TYPED_TEST_SUITE(SlotHold, slot_reclaimers, smr::test::reclaimer_name);

// hold() copies protection: after the source slot is reused, the copy alone keeps the node.
TYPED_TEST(SlotHold, KeepsANodeAfterItsSlotIsReused) {
  using R = TypeParam;
  R domain(cfg<R>::eager());
  link_t<R> la, lb;
  auto h = domain.attach();
  tnode<R>* x = make_node<R>(h, 1);
  tnode<R>* y = make_node<R>(h, 2);
  la.store(x, smr::core::mo_release);
  lb.store(y, smr::core::mo_release);
  {
    auto g = h.begin_op();
    auto g_slots = g.template slots<2>();
    ASSERT_EQ(g_slots[0].protect(la).get(), x);
    g_slots[1].hold(x);
    ASSERT_EQ(g_slots[0].protect(lb).get(), y);  // slot 0 now protects y only
    std::thread other([&] {
      auto h2 = domain.attach();
      la.store(nullptr, smr::core::mo_release);
      retire_node<R>(h2, x);
      for (int i = 0; i < 10; ++i) retire_node<R>(h2, make_node<R>(h2, 10 + i));
      EXPECT_FALSE(freed_log::contains(1)) << "the held copy did not protect the node";
      EXPECT_TRUE(freed_log::contains(10));
    });
    other.join();
  }
  retire_node<R>(h, make_node<R>(h, 99));
  EXPECT_TRUE(freed_log::contains(1));
  smr::core::free_node(y);
}

// Concurrent form of the test above: readers copy a node to another slot and reuse the source
// slot while writers replace and retire it with a scan at every retirement (version check).
TYPED_TEST(SlotHold, UnderConcurrentScans) {
  using R = TypeParam;
  R domain(cfg<R>::eager());
  link_t<R> la, lb;
  {
    auto h = domain.attach();
    la.store(make_node<R>(h, 7), smr::core::mo_release);
    lb.store(make_node<R>(h, 7), smr::core::mo_release);
  }
  const std::uint64_t ops = smr::test::scaled_ops(20000);
  smr::test::run_threads(4, [&](unsigned t) {
    auto h = domain.attach();
    for (std::uint64_t i = 0; i < ops; ++i) {
      if (t % 2 == 0) {
        auto g = h.begin_op();
        auto g_slots = g.template slots<2>();
        tnode<R>* x = g_slots[0].protect(la).get();
        g_slots[1].hold(x);
        smr::detail::chaos_point();
        tnode<R>* y = g_slots[0].protect(lb).get();
        smr::detail::chaos_point();
        ASSERT_EQ(x->id, 7);  // x is protected only by the copy in slot 1 now
        ASSERT_EQ(y->id, 7);
      } else {
        auto g = h.begin_op();
        link_t<R>& l = (i % 2 == 0) ? la : lb;
        tnode<R>* old = l.exchange(g.template create<tnode<R>>(7), smr::core::mo_acq_rel).get();
        g.retire(old);
      }
    }
  });
  smr::core::free_node(la.load(smr::core::mo_relaxed).get());
  smr::core::free_node(lb.load(smr::core::mo_relaxed).get());
}

TEST(Hp, ScanRunsAtTwoHPlus100) {
  using R = smr::hp;
  freed_log::clear();
  R domain;  // K = 4, R = 2H + 100
  auto h = domain.attach();
  ASSERT_EQ(domain.protect_slots(), 4u);
  ASSERT_EQ(domain.scan_threshold(), 2u * 4u * 1u + 100u);  // one registered thread
  for (int i = 0; i < 107; ++i) retire_node<R>(h, make_node<R>(h, i));
  EXPECT_EQ(domain.stats().freed, 0u) << "scanned before the bag reached R";
  EXPECT_EQ(h.unreclaimed(), 107u);
  retire_node<R>(h, make_node<R>(h, 107));
  EXPECT_EQ(domain.stats().freed, 108u);
  EXPECT_EQ(h.unreclaimed(), 0u);
  EXPECT_EQ(domain.stats().retired, 108u);
}

TEST(Hp, DataStructuresCheckTheSlotCount) {
  smr::hp two(smr::hp::config{.slots = 2});
  EXPECT_THROW((smr::hm_list<int, smr::hp>(two)), std::invalid_argument);
  smr::hp three(smr::hp::config{.slots = 3});
  EXPECT_NO_THROW((smr::hm_list<int, smr::hp>(three)));
}

// A hold() that lands while a scan reads a thread's words makes the scan read them again; only
// the attempt that saw no hold counts, so a scan keeps at most K values per thread (Hart's H).
// The "concurrent" hold is played by the first add() call, deterministically.
TEST(PublishedWords, ARetriedReadKeepsOnlyTheLastAttempt) {
  using words = smr::detail::published_words<smr::core::atomic<std::uint64_t>>;
  words::slot s;
  words::line* lines = words::claim(s, 3);
  for (unsigned i = 0; i < 3; ++i) words::at(lines, i).store(i + 1, smr::core::mo_relaxed);
  std::vector<std::uint64_t> seen;
  int retracts = 0;
  bool held = false;
  words::collect(
      s, 3,
      [&](std::uint64_t v) {
        seen.push_back(v);
        if (!held) {  // the owner copies word 2 into word 0, bumps, then clears word 2
          held = true;
          words::at(lines, 0).store(3, smr::core::mo_relaxed);
          words::bump_version(s);
          words::at(lines, 2).store(0, smr::core::mo_relaxed);
        }
      },
      [&] {
        ++retracts;
        seen.clear();
      });
  EXPECT_EQ(retracts, 1);
  EXPECT_EQ(seen, (std::vector<std::uint64_t>{3, 2, 0})) << "the retried read, and nothing of the first";
}

// ---- ibr_2ge ----

TEST(Ibr2ge, CreateAdvancesTheEraAndStampsBirthRetireStampsRetire) {
  using R = smr::ibr_2ge;
  R domain(smr::ibr_2ge::config{.epoch_frequency = 3, .scale_epoch_frequency = false,
                               .empty_frequency = 1000});
  auto h = domain.attach();
  ASSERT_EQ(domain.era(), 1u);
  std::vector<tnode<R>*> nodes;
  for (int i = 0; i < 9; ++i) nodes.push_back(make_node<R>(h, i));
  // The 3rd, 6th and 9th allocation advance the era before stamping.
  const std::vector<std::uint64_t> expected{1, 1, 2, 2, 2, 3, 3, 3, 4};
  for (int i = 0; i < 9; ++i) EXPECT_EQ(nodes[i]->birth_era, expected[i]) << "node " << i;
  EXPECT_EQ(domain.era(), 4u);
  EXPECT_EQ(domain.stats().epochs, 3u);
  // empty_frequency is large: the nodes stay in limbo and their headers can be read.
  for (tnode<R>* n : nodes) retire_node<R>(h, n);
  for (tnode<R>* n : nodes) {
    EXPECT_EQ(n->retire_era, 4u);
    EXPECT_LE(n->birth_era, n->retire_era);
  }
  EXPECT_EQ(domain.stats().freed, 0u);
}

TEST(Ibr2ge, EpochFrequencyScalesWithRegisteredThreads) {
  using R = smr::ibr_2ge;
  R domain(smr::ibr_2ge::config{.epoch_frequency = 2, .scale_epoch_frequency = true});
  auto h = domain.attach();
  auto other = domain.attach();  // two registered threads: one advance per 4 allocations
  for (int i = 0; i < 8; ++i) {
    auto g = h.begin_op();
    g.dispose(g.template create<tnode<R>>(i));
  }
  EXPECT_EQ(domain.era(), 3u);
  EXPECT_EQ(domain.stats().epochs, 2u);
}

// The reservation is an interval, not "everything since": a reader pins only nodes whose
// lifetime [birth, retire] meets its [lower, upper], and protect() raises upper to cover what
// it reads. With epoch_frequency 1 every create() advances the era, so the eras are exact.
// A retiring thread's own operation also reserves (it may still use what it retires), so each
// check runs a scan from a later operation of the writer, whose reservation pins nothing old.
TEST(Ibr2ge, ReservationPinsOnlyOverlappingLifetimes) {
  using R = smr::ibr_2ge;
  freed_log::clear();
  // A scan at every retirement (the paper's fixed period): each step below is exact.
  R domain(smr::ibr_2ge::config{.epoch_frequency = 1, .scale_epoch_frequency = false,
                               .empty_frequency = 1, .amortize_scans = false});
  auto pinner = domain.attach();
  auto reader = domain.attach();
  auto writer = domain.attach();
  std::optional<R::guard> pin, read;
  link_t<R> link;
  int scratch = 100;
  // Advances the era (create) and scans from an operation in the new era.
  auto scan_later = [&] { retire_node<R>(writer, make_node<R>(writer, scratch++)); };

  tnode<R>* early = make_node<R>(writer, 1);  // born in era 2
  pin.emplace(pinner);                        // reserves [2, 2]
  retire_node<R>(writer, early);              // lifetime [2, 2]
  scan_later();                               // era 3
  EXPECT_FALSE(freed_log::contains(1)) << "a node alive during a reservation was freed";

  tnode<R>* overlapping = make_node<R>(writer, 2);  // born in era 4
  {
    auto g = writer.begin_op();
    g.dispose(g.template create<tnode<R>>(50));  // era 5
  }
  read.emplace(reader);  // reserves [5, 5]
  pin.reset();
  retire_node<R>(writer, overlapping);  // lifetime [4, 5] meets [5, 5]
  scan_later();                         // era 6
  EXPECT_FALSE(freed_log::contains(2)) << "a node alive during the reservation was freed";
  EXPECT_TRUE(freed_log::contains(1)) << "a node retired before the reservation was pinned";

  retire_node<R>(writer, make_node<R>(writer, 3));  // lifetime [7, 7], after upper 5
  scan_later();                                     // era 8
  EXPECT_TRUE(freed_log::contains(3)) << "a node born after the reservation was pinned";

  tnode<R>* seen = make_node<R>(writer, 4);  // born in era 9: protect must raise upper to 9
  link.store(seen, smr::core::mo_release);
  ASSERT_EQ(read->slot().protect(link).get(), seen);  // IBR: the reservation outlives the slot
  link.store(nullptr, smr::core::mo_release);
  retire_node<R>(writer, seen);  // lifetime [9, 9]
  scan_later();                  // era 10
  EXPECT_FALSE(freed_log::contains(4)) << "protect() did not extend the reservation";
  EXPECT_EQ(seen->id, 4);

  read.reset();
  scan_later();  // only the writer's own operation is left, pinning the node it retires
  EXPECT_TRUE(freed_log::contains(2));
  EXPECT_TRUE(freed_log::contains(4));
  const auto s = domain.stats();
  EXPECT_EQ(s.retired - s.freed, 1u);
}

// ---- tag_ibr ----

// Every write raises the link's born_before tag to the new target's birth era; the tag never
// goes down (the two fields are written one after the other), for both ways of raising it.
template <class R>
void tag_covers_every_written_target() {
  R domain(typename R::config{.epoch_frequency = 1, .scale_epoch_frequency = false, .empty_frequency = 1});
  auto h = domain.attach();
  link_t<R> link;
  EXPECT_EQ(link.born_before(smr::core::mo_relaxed), 0u);
  tnode<R>* old_node = make_node<R>(h, 1);
  tnode<R>* young = make_node<R>(h, 2);
  ASSERT_LT(old_node->birth_era, young->birth_era);
  link.store(old_node, smr::core::mo_release);
  EXPECT_EQ(link.born_before(smr::core::mo_relaxed), old_node->birth_era);
  smr::core::marked_ptr<tnode<R>> expected(old_node);
  ASSERT_TRUE(link.compare_exchange_strong(expected, young, smr::core::mo_release));
  EXPECT_EQ(link.born_before(smr::core::mo_relaxed), young->birth_era);
  link.exchange(old_node, smr::core::mo_acq_rel);  // an older target: the tag stays
  EXPECT_EQ(link.born_before(smr::core::mo_relaxed), young->birth_era);
  (void)link.fetch_tag(smr::core::mo_acq_rel);  // bit operations keep the target and the tag
  EXPECT_EQ(link.load(smr::core::mo_relaxed).get(), old_node);
  EXPECT_EQ(link.born_before(smr::core::mo_relaxed), young->birth_era);
  retire_node<R>(h, old_node);
  retire_node<R>(h, young);
}

TEST(TagIbr, TagCoversEveryWrittenTarget) {
  tag_covers_every_written_target<smr::tag_ibr>();
  tag_covers_every_written_target<smr::tag_ibr_faa>();
}

// Concurrent raisers: the tag ends at least at the largest birth written, for both policies
// (the FAA one may overshoot: the paper's slack).
template <class R>
void concurrent_raises_cover_the_largest_birth() {
  R domain(typename R::config{.epoch_frequency = 1, .scale_epoch_frequency = false, .empty_frequency = 1000});
  link_t<R> link;
  std::atomic<std::uint64_t> largest{0};
  smr::test::run_threads(4, [&](unsigned) {
    auto h = domain.attach();
    for (int i = 0; i < 500; ++i) {
      auto g = h.begin_op();
      tnode<R>* n = g.template create<tnode<R>>(i);
      std::uint64_t seen = largest.load();
      while (seen < n->birth_era && !largest.compare_exchange_weak(seen, n->birth_era)) {
      }
      link.store(n, smr::core::mo_release);
      g.retire(n);  // never read through the link: only the tag is checked
    }
  });
  EXPECT_GE(link.born_before(smr::core::mo_relaxed), largest.load());
}

TEST(TagIbr, ConcurrentRaisesCoverTheLargestBirth) {
  concurrent_raises_cover_the_largest_birth<smr::tag_ibr>();
  concurrent_raises_cover_the_largest_birth<smr::tag_ibr_faa>();
}

// TagIBR-WCAS: the tag is the target's exact birth era, down as well as up (no monotonic
// convention), and bit operations keep it.
TEST(TagIbrWcas, TagIsTheTargetsBirth) {
  using R = smr::tag_ibr_wcas;
  R domain(R::config{.epoch_frequency = 1, .scale_epoch_frequency = false, .empty_frequency = 1});
  auto h = domain.attach();
  link_t<R> link;
  EXPECT_EQ(link.born_before(smr::core::mo_relaxed), 0u);
  tnode<R>* old_node = make_node<R>(h, 1);
  tnode<R>* young = make_node<R>(h, 2);
  ASSERT_LT(old_node->birth_era, young->birth_era);
  link.store(old_node, smr::core::mo_release);
  EXPECT_EQ(link.born_before(smr::core::mo_relaxed), old_node->birth_era);
  smr::core::marked_ptr<tnode<R>> expected(old_node);
  ASSERT_TRUE(link.compare_exchange_strong(expected, young, smr::core::mo_release));
  EXPECT_EQ(link.born_before(smr::core::mo_relaxed), young->birth_era);
  smr::core::marked_ptr<tnode<R>> stale(old_node);
  EXPECT_FALSE(link.compare_exchange_strong(stale, nullptr, smr::core::mo_release));
  EXPECT_EQ(stale.get(), young);  // a failed CAS reports the pointer it found
  EXPECT_EQ(link.exchange(old_node, smr::core::mo_acq_rel).get(), young);
  EXPECT_EQ(link.born_before(smr::core::mo_relaxed), old_node->birth_era) << "an older target lowers the tag";
  (void)link.fetch_tag(smr::core::mo_acq_rel);
  const auto [p, tag] = link.load_tagged(smr::core::mo_acquire);
  EXPECT_EQ(p.get(), old_node);
  EXPECT_TRUE(p.tagged());
  EXPECT_EQ(tag, old_node->birth_era);
  link.store(nullptr, smr::core::mo_release);
  EXPECT_EQ(link.born_before(smr::core::mo_relaxed), 0u);
  retire_node<R>(h, old_node);
  retire_node<R>(h, young);
}

// Concurrent writers and readers: every snapshot pairs a pointer with its own target's birth
// (a torn read, the pointer of one write with the tag of another, would not).
TEST(TagIbrWcas, SnapshotsPairEachPointerWithItsBirth) {
  using R = smr::tag_ibr_wcas;
  R domain(R::config{.epoch_frequency = 1, .scale_epoch_frequency = false, .empty_frequency = 1000});
  link_t<R> link;
  const int per_thread = static_cast<int>(smr::test::scaled_ops(2000));
  std::vector<tnode<R>*> unlinked[4];
  std::atomic<std::uint64_t> torn{0};
  smr::test::run_threads(4, [&](unsigned t) {
    auto h = domain.attach();
    for (int i = 0; i < per_thread; ++i) {
      {
        auto g = h.begin_op();
        // Nodes are retired only after every thread is done, so any pointer read is alive.
        tnode<R>* n = g.template create<tnode<R>>(i);
        if (tnode<R>* old = link.exchange(n, smr::core::mo_acq_rel).get()) unlinked[t].push_back(old);
      }
      const auto [p, tag] = link.load_tagged(smr::core::mo_acquire);
      if (p.get() != nullptr && tag != p.get()->birth_era) torn.fetch_add(1);
    }
  });
  EXPECT_EQ(torn.load(), 0u) << "a snapshot paired a pointer with another target's tag";
  auto h = domain.attach();
  for (auto& nodes : unlinked)
    for (tnode<R>* n : nodes) retire_node<R>(h, n);
  retire_node<R>(h, link.exchange(nullptr, smr::core::mo_acq_rel).get());
}

// What the tag buys: reading a link written long ago leaves the reservation where it was even
// though the era has moved, so a node born later is not pinned; ibr_2ge raises its upper end
// to the current era on the same read and pins it.
template <class R>
bool old_link_read_pins_a_younger_node() {
  freed_log::clear();
  R domain(typename R::config{.epoch_frequency = 1, .scale_epoch_frequency = false, .empty_frequency = 1, .amortize_scans = false});
  auto reader = domain.attach();
  auto writer = domain.attach();
  tnode<R>* old_node = make_node<R>(writer, 1);
  link_t<R> old_link;
  old_link.store(old_node, smr::core::mo_release);
  bool pinned = false;
  {
    auto read = reader.begin_op();                 // reserves [e, e]
    tnode<R>* young = make_node<R>(writer, 2);     // born after e
    tnode<R>* bystander = make_node<R>(writer, 3);  // the era moves on
    EXPECT_EQ(read.slot().protect(old_link).get(), old_node);
    retire_node<R>(writer, young);                 // lifetime after e: pinned only if upper moved
    retire_node<R>(writer, bystander);
    retire_node<R>(writer, make_node<R>(writer, 4));  // a later operation's scan
    pinned = !freed_log::contains(2);
  }
  old_link.store(nullptr, smr::core::mo_release);
  retire_node<R>(writer, old_node);
  return pinned;
}

TEST(TagIbr, ReadingAnOldLinkDoesNotRaiseTheReservation) {
  EXPECT_FALSE(old_link_read_pins_a_younger_node<smr::tag_ibr>());
  EXPECT_FALSE(old_link_read_pins_a_younger_node<smr::tag_ibr_faa>());
  EXPECT_FALSE(old_link_read_pins_a_younger_node<smr::tag_ibr_wcas>());
  EXPECT_FALSE(old_link_read_pins_a_younger_node<smr::tag_ibr_tpa>());
  EXPECT_TRUE(old_link_read_pins_a_younger_node<smr::ibr_2ge>()) << "ibr_2ge raises upper to the era";
}

// A tag past the era (what concurrent TagIBR-FAA raises can leave: each adds its own
// difference) reserves only up to the era read at the protect, so a node born after it is not
// pinned. The tag is planted by a write outside any operation, which takes the header's birth.
template <class R>
bool tag_past_the_era_pins_a_younger_node() {
  constexpr std::uint64_t planted = std::uint64_t{1} << 50;
  freed_log::clear();
  R domain(typename R::config{.epoch_frequency = 1, .scale_epoch_frequency = false, .empty_frequency = 1, .amortize_scans = false});
  auto reader = domain.attach();
  auto writer = domain.attach();
  tnode<R>* target = make_node<R>(writer, 1);
  const std::uint64_t birth = target->birth_era;
  link_t<R> link;
  target->birth_era = planted;
  // Another thread, whose cache of tags does not know the node: the birth comes from the header.
  std::thread([&] { link.store(target, smr::core::mo_release); }).join();
  target->birth_era = birth;
  EXPECT_EQ(link.born_before(smr::core::mo_relaxed), planted);
  bool pinned = false;
  {
    auto read = reader.begin_op();
    EXPECT_EQ(read.slot().protect(link).get(), target);
    tnode<R>* young = make_node<R>(writer, 2);  // born after the protect
    retire_node<R>(writer, young);
    retire_node<R>(writer, make_node<R>(writer, 3));  // a later operation's scan
    pinned = !freed_log::contains(2);
  }
  link.store(nullptr, smr::core::mo_release);
  retire_node<R>(writer, target);
  return pinned;
}

TEST(TagIbr, ATagPastTheEraReservesOnlyUpToTheEra) {
  EXPECT_FALSE(tag_past_the_era_pins_a_younger_node<smr::tag_ibr_faa>());
  EXPECT_FALSE(tag_past_the_era_pins_a_younger_node<smr::tag_ibr>());
}

// Inside an operation a write never reads its target's header (which may be freed): a target
// whose read has left the cache of read tags is covered by the era read now, one this thread
// created by the birth it noted. The header's birth is overwritten with a value no era reaches,
// so a write that read it would show it. Outside an operation the target is this thread's own
// node, and its birth is read from it.
template <class R>
void write_never_reads_its_target_inside_an_operation() {
  constexpr std::uint64_t planted = std::uint64_t{1} << 50;
  R domain(typename R::config{.epoch_frequency = 1, .scale_epoch_frequency = false, .empty_frequency = 1});
  auto h = domain.attach();
  std::vector<tnode<R>*> nodes;
  std::vector<std::unique_ptr<link_t<R>>> links;
  for (int i = 0; i < 12; ++i) {
    nodes.push_back(make_node<R>(h, 500 + i));
    links.push_back(std::make_unique<link_t<R>>());
    links.back()->store(nodes.back(), smr::core::mo_release);
  }
  link_t<R> out;
  {
    auto g = h.begin_op();
    auto slot = g.slot();
    tnode<R>* first = slot.protect(*links[0]).get();
    const std::uint64_t first_birth = first->birth_era;
    tnode<R>* mine = g.template create<tnode<R>>(600);
    const std::uint64_t mine_birth = mine->birth_era;
    for (int i = 1; i < 12; ++i) ASSERT_EQ(slot.protect(*links[i]).get(), nodes[i]);  // evicts both
    first->birth_era = planted;
    mine->birth_era = planted;
    out.store(first, smr::core::mo_release);
    EXPECT_LT(out.born_before(smr::core::mo_relaxed), planted) << "the write read the target's header";
    EXPECT_GE(out.born_before(smr::core::mo_relaxed), first_birth);
    out.store(mine, smr::core::mo_release);
    EXPECT_LT(out.born_before(smr::core::mo_relaxed), planted) << "the write read the target's header";
    EXPECT_GE(out.born_before(smr::core::mo_relaxed), mine_birth);
    first->birth_era = first_birth;
    mine->birth_era = mine_birth;
    out.store(nullptr, smr::core::mo_release);
    g.retire(mine);
  }
  link_t<R> outside;  // a structure linking its own first node, outside any operation
  const std::uint64_t birth0 = nodes[0]->birth_era;
  nodes[0]->birth_era = planted;
  outside.store(nodes[0], smr::core::mo_release);
  EXPECT_EQ(outside.born_before(smr::core::mo_relaxed), planted) << "outside an operation the birth is the node's";
  nodes[0]->birth_era = birth0;
  for (auto& l : links) l->store(nullptr, smr::core::mo_release);
  for (tnode<R>* n : nodes) retire_node<R>(h, n);
}

TEST(TagIbr, AWriteInsideAnOperationNeverReadsItsTarget) {
  write_never_reads_its_target_inside_an_operation<smr::tag_ibr>();
  write_never_reads_its_target_inside_an_operation<smr::tag_ibr_faa>();
  write_never_reads_its_target_inside_an_operation<smr::tag_ibr_wcas>();
}

// ---- tag_ibr_tpa: the type-preserving pool ----

// The word protect() reads from a node that may be freed: a reused block's word never goes
// below the birth of the node that was in it before (tag_ibr.hpp's argument for TPA), and a
// node built outside the pool (a structure's member sentinel) reads as born before every era.
TEST(TagIbrTpa, ABlockReusedForANewNodeKeepsItsBirthFromGoingDown) {
  using R = smr::tag_ibr_tpa;
  if (smr::core::poison_on_free()) GTEST_SKIP() << "poison mode parks freed blocks in the pool's quarantine";
  R domain(typename R::config{.epoch_frequency = 1, .scale_epoch_frequency = false, .empty_frequency = 1, .amortize_scans = false});
  auto h = domain.attach();
  tnode<R>* first = make_node<R>(h, 1);
  const void* const block = first;
  const std::uint64_t first_birth = first->birth_era;
  EXPECT_EQ(first->preserved_birth(), first_birth);
  retire_node<R>(h, first);
  h.reclaim_now();
  ASSERT_TRUE(freed_log::contains(1));
  EXPECT_EQ(static_cast<const smr::tpa_node*>(static_cast<const tnode<R>*>(block))->preserved_birth(), first_birth)
      << "freeing a node must leave its birth readable";
  // This thread's private list holds the rest of the first chunk: the freed block comes back
  // once that list runs out and the shared list is taken.
  std::vector<tnode<R>*> made;
  tnode<R>* reused = nullptr;
  for (int i = 0; i < 1000 && reused == nullptr; ++i) {
    tnode<R>* n = make_node<R>(h, 100 + i);
    if (n == block) reused = n;
    else made.push_back(n);
  }
  ASSERT_NE(reused, nullptr) << "a freed block was never handed out again";
  EXPECT_GT(reused->birth_era, first_birth);
  EXPECT_EQ(reused->preserved_birth(), reused->birth_era);
  for (tnode<R>* n : made) retire_node<R>(h, n);
  retire_node<R>(h, reused);

  const tnode<R> sentinel(0);  // built outside the pool
  EXPECT_EQ(sentinel.preserved_birth(), 0u);
}

// create<T>() with no arguments value-initializes T, and for a T without a user-provided
// default constructor that zero-fills the object first; in a reused block that must not drop
// the preserved birth below the previous node's (a reader of that node may be loading it). A
// member initializer reads the word in the middle of the construction; the other members
// still start at zero, as value-initialization promises.
struct birth_watcher : smr::tag_ibr_tpa::node_base {
  std::uint64_t seen_during_construction = static_cast<const smr::tpa_node*>(this)->preserved_birth();
  std::uint64_t plain;
  int small[3];
};

TEST(TagIbrTpa, ValueInitializingANodeKeepsTheBlocksBirth) {
  using R = smr::tag_ibr_tpa;
  if (smr::core::poison_on_free()) GTEST_SKIP() << "poison mode parks freed blocks in the pool's quarantine";
  R domain(typename R::config{.epoch_frequency = 1, .scale_epoch_frequency = false, .empty_frequency = 1, .amortize_scans = false});
  auto h = domain.attach();
  birth_watcher* first = nullptr;
  {
    auto g = h.begin_op();
    first = g.template create<birth_watcher>();
    first->plain = 7;
    first->small[1] = 7;
  }
  const void* const block = first;
  const std::uint64_t first_birth = first->birth_era;
  ASSERT_GT(first_birth, 0u);
  {
    auto g = h.begin_op();
    g.retire(first);
  }
  h.reclaim_now();
  std::vector<birth_watcher*> made;
  birth_watcher* reused = nullptr;
  for (int i = 0; i < 1000 && reused == nullptr; ++i) {
    auto g = h.begin_op();
    birth_watcher* n = g.template create<birth_watcher>();
    if (n == block) reused = n;
    else made.push_back(n);
  }
  ASSERT_NE(reused, nullptr) << "a freed block was never handed out again";
  EXPECT_EQ(reused->seen_during_construction, first_birth) << "the construction dropped the preserved birth";
  EXPECT_EQ(reused->plain, 0u);
  EXPECT_EQ(reused->small[1], 0);
  made.push_back(reused);
  for (birth_watcher* n : made) {
    auto g = h.begin_op();
    g.retire(n);
  }
}

// Each node type has its own blocks: memory once used for one type never holds another.
TEST(TagIbrTpa, NodeTypesDoNotShareBlocks) {
  using R = smr::tag_ibr_tpa;
  struct other : R::node_base {
    explicit other(int i) : id(i) {}
    int id;
  };
  R domain(typename R::config{.epoch_frequency = 1, .scale_epoch_frequency = false, .empty_frequency = 1, .amortize_scans = false});
  auto h = domain.attach();
  std::set<const void*> of_tnode;
  for (int round = 0; round < 3; ++round) {
    std::vector<tnode<R>*> a;
    std::vector<other*> b;
    {
      auto g = h.begin_op();
      for (int i = 0; i < 200; ++i) {
        a.push_back(g.template create<tnode<R>>(i));
        b.push_back(g.template create<other>(i));
      }
    }
    for (tnode<R>* n : a) of_tnode.insert(n);
    for (other* n : b) EXPECT_EQ(of_tnode.count(n), 0u) << "a block served two node types";
    {
      auto g = h.begin_op();
      for (tnode<R>* n : a) g.retire(n);
      for (other* n : b) g.retire(n);
    }
    h.reclaim_now();
  }
}

// A node type whose tpa_node header is not at its start would have its birth read from the
// wrong place: refused at its first node.
TEST(TagIbrTpaDeathTest, ANodeTypeWithABaseBeforeTheHeaderIsRefused) {
  using R = smr::tag_ibr_tpa;
  struct first_base {
    long payload = 0;
  };
  struct misplaced : first_base, R::node_base {};
  EXPECT_DEATH(
      {
        R domain;
        auto h = domain.attach();
        auto g = h.begin_op();
        (void)g.template create<misplaced>();
      },
      "tpa_node header does not start the object");
}

// A node built outside the pool (the Michael-Scott queue's first sentinel was, until stop 36)
// would be freed to the system while a reader may still read its birth: refused at retire().
TEST(TagIbrTpaDeathTest, RetiringANodeBuiltOutsideThePoolIsRefused) {
  using R = smr::tag_ibr_tpa;
  EXPECT_DEATH(
      {
        R domain;
        auto h = domain.attach();
        auto g = h.begin_op();
        g.retire(smr::core::construct_node<tnode<R>>(1));
      },
      "tag_ibr_tpa: retire\\(\\) of a node that create\\(\\) did not allocate from its pool");
}

// A node of one tag_ibr_tpa domain retired into another would be recycled into its pool while
// the first domain's readers, whom the second's scan does not see, may hold it.
TEST(TagIbrTpaDeathTest, RetiringANodeOfAnotherDomainIsRefused) {
  using R = smr::tag_ibr_tpa;
  EXPECT_DEATH(
      {
        R a;
        R b;
        auto ha = a.attach();
        auto hb = b.attach();
        tnode<R>* n = make_node<R>(ha, 1);
        auto g = hb.begin_op();
        g.retire(n);
      },
      "tag_ibr_tpa: retire\\(\\) of a node created in another domain");
}

// A constructor that value-initializes an intermediate base (`link_part()`, whose default
// constructor is not user-provided) zero-fills it, the preserved birth included: refused at
// the first reuse of a block.
struct link_part : smr::tag_ibr_tpa::node_base {
  long spare;
};
struct zeroing_node : link_part {
  explicit zeroing_node(int v) : link_part(), value(v) {}
  int value;
};

TEST(TagIbrTpaDeathTest, AConstructorThatZeroesThePreservedBirthIsRefused) {
  using R = smr::tag_ibr_tpa;
  if (smr::core::poison_on_free()) GTEST_SKIP() << "poison mode parks freed blocks in the pool's quarantine";
  EXPECT_DEATH(
      {
        R domain(typename R::config{.epoch_frequency = 1, .scale_epoch_frequency = false, .empty_frequency = 1, .amortize_scans = false});
        auto h = domain.attach();
        // Until a block comes back: each round frees its node before the next allocation.
        for (int i = 0; i < 1000; ++i) {
          {
            auto g = h.begin_op();
            g.retire(g.template create<zeroing_node>(i));
          }
          h.reclaim_now();
        }
      },
      "tag_ibr_tpa: a node constructor wrote the preserved birth");
}

// The tags a TagIBR operation has read are cached per thread. An operation of another TagIBR
// domain begun and ended inside it must leave the outer operation its era: the outer one's
// writes then cover their targets with that era, and never read a target's header (which may
// be freed memory by then).
TEST(TagIbr, AnOperationInsideAnotherLeavesTheOuterOneItsEra) {
  using R = smr::tag_ibr;
  constexpr std::uint64_t header_garbage = std::uint64_t{1} << 50;
  R a;
  R b;
  auto ha = a.attach();
  auto hb = b.attach();
  tnode<R>* x = make_node<R>(ha, 1);
  const std::uint64_t birth = x->birth_era;
  link_t<R> src;
  link_t<R> dst;
  src.store(x, smr::core::mo_release);
  {
    auto ga = ha.begin_op();
    EXPECT_EQ(ga.slot().protect(src).get(), x);
    { auto gb = hb.begin_op(); }
    x->birth_era = header_garbage;  // what a read of the header would find
    dst.store(x, smr::core::mo_release);
    x->birth_era = birth;
    const std::uint64_t tag = dst.born_before(smr::core::mo_relaxed);
    EXPECT_NE(tag, header_garbage) << "the outer operation's write read the target's header";
    EXPECT_GE(tag, birth);
  }
  src.store(nullptr, smr::core::mo_release);
  dst.store(nullptr, smr::core::mo_release);
  retire_node<R>(ha, x);
}

// Readers protect and read nodes that writers keep replacing and retiring with a scan at every
// retirement (and, for IBR, an era advance at every allocation, so protect() keeps retrying).
// ASan reports any read of a freed node; the id check catches a recycled one.
TYPED_TEST(HpIbr, ReadersNeverSeeFreedNodes) {
  using R = TypeParam;
  R domain(cfg<R>::eager());
  link_t<R> link;
  {
    auto h = domain.attach();
    link.store(make_node<R>(h, 7), smr::core::mo_release);
  }
  const std::uint64_t ops = smr::test::scaled_ops(20000);
  smr::test::run_threads(4, [&](unsigned t) {
    auto h = domain.attach();
    for (std::uint64_t i = 0; i < ops; ++i) {
      auto g = h.begin_op();
      auto g_slots = g.template slots<1>();
      if (t % 2 == 0) {
        tnode<R>* x = g_slots[0].protect(link).get();
        smr::detail::chaos_point();
        ASSERT_EQ(x->id, 7);
      } else {
        tnode<R>* old = link.exchange(g.template create<tnode<R>>(7), smr::core::mo_acq_rel).get();
        g.retire(old);
      }
    }
  });
  smr::core::free_node(link.load(smr::core::mo_relaxed).get());
  const auto s = domain.stats();
  EXPECT_EQ(s.retired, 2 * ops);
  EXPECT_GT(s.freed, 0u);
}

}  // namespace

// ---- he and wfe (one era per slot) ----

namespace era_slot_tests {

template <class R>
class EraSlots : public ::testing::Test {
 protected:
  void SetUp() override { freed_log::clear(); }
};
using era_slot_reclaimers = ::testing::Types<smr::he, smr::wfe>;
TYPED_TEST_SUITE(EraSlots, era_slot_reclaimers, smr::test::reclaimer_name);

// A published era pins exactly the nodes alive in it: born by it and retired from it on.
TYPED_TEST(EraSlots, PublishedEraPinsOnlyNodesAliveInIt) {
  using R = TypeParam;
  R domain(cfg<R>::eager());  // every create() advances the era: eras are exact
  auto reader = domain.attach();
  auto writer = domain.attach();
  link_t<R> link;
  tnode<R>* old_node = make_node<R>(writer, 1);  // born before the reader's era
  link.store(old_node, smr::core::mo_release);
  {
    auto g = reader.begin_op();
    auto s = g.slot();
    ASSERT_EQ(s.protect(link).get(), old_node);  // publishes era e
    tnode<R>* young = make_node<R>(writer, 2);   // born after e: never visible in era e
    retire_node<R>(writer, young);
    link.store(nullptr, smr::core::mo_release);
    retire_node<R>(writer, old_node);  // alive in e: pinned
    for (int i = 0; i < 10; ++i) retire_node<R>(writer, make_node<R>(writer, 10 + i));
    EXPECT_TRUE(freed_log::contains(2)) << "a node born after the published era was pinned";
    EXPECT_FALSE(freed_log::contains(1)) << "a node alive in the published era was freed";
    EXPECT_EQ(old_node->id, 1);
  }
  retire_node<R>(writer, make_node<R>(writer, 99));
  EXPECT_TRUE(freed_log::contains(1)) << "released: the next scan must free it";
}

// While the era stands still, protect() publishes once per slot; it republishes (and counts a
// retry) only after the era moved.
TYPED_TEST(EraSlots, ProtectRepublishesOnlyWhenTheEraMoves) {
  using R = TypeParam;
  R domain(typename R::config{.slots = 2, .epoch_frequency = 1000, .scale_epoch_frequency = false});
  link_t<R> link;
  auto h = domain.attach();
  tnode<R>* a = make_node<R>(h, 1);
  link.store(a, smr::core::mo_release);
  auto g = h.begin_op();
  auto s = g.slot();
  for (int i = 0; i < 100; ++i) EXPECT_EQ(s.protect(link).get(), a);
  EXPECT_EQ(domain.stats().protect_retries, 0u) << "republished with the era standing still";
  const std::uint64_t era = domain.era();
  auto second = domain.attach();  // outside any operation: its barrier step advances the era
  EXPECT_TRUE(second.reclaim_now());
  EXPECT_GT(domain.era(), era);
  EXPECT_EQ(s.protect(link).get(), a);
  EXPECT_EQ(domain.stats().protect_retries, 1u);
  EXPECT_EQ(s.protect(link).get(), a);
  EXPECT_EQ(domain.stats().protect_retries, 1u);
  s.reset();
  g.dispose(a);
}

}  // namespace era_slot_tests

// ---- wfe: the bounded fast path and the helped slow path ----

// A thread that allocates without pause moves the era all the time: each create() advances it
// (answering open requests first). Readers protect a link that flips between a and b, which
// are immutable and never freed here.
template <class Check>
void protect_while_the_era_moves(smr::wfe& domain, Check&& done, std::uint64_t& calls, unsigned attempts) {
  using R = smr::wfe;
  link_t<R> link;
  auto h = domain.attach();
  tnode<R>* a = make_node<R>(h, 1);
  tnode<R>* b = make_node<R>(h, 2);
  link.store(a, smr::core::mo_release);
  std::atomic<bool> stop{false};
  std::thread allocator([&] {
    auto w = domain.attach();
    bool flag = false;
    while (!stop.load(std::memory_order_relaxed)) {
      retire_node<R>(w, make_node<R>(w, 100));
      link.store(flag ? a : b, smr::core::mo_release);
      flag = !flag;
    }
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!done() && std::chrono::steady_clock::now() < deadline) {
    for (int i = 0; i < 1000; ++i, ++calls) {
      auto g = h.begin_op();
      auto s = g.slot();
      const std::uint64_t retries = domain.stats().protect_retries;
      tnode<R>* p = s.protect(link).get();
      ASSERT_TRUE(p == a || p == b);
      // A fresh slot's first publication is not a retry; the fast path counts at most
      // attempts - 1 more before it asks (the slow path counts none).
      ASSERT_LE(domain.stats().protect_retries - retries, attempts);
    }
  }
  stop.store(true);
  allocator.join();
  smr::core::free_node(a);
  smr::core::free_node(b);
}

// protect() republishes at most fast_path_attempts times, then asks for help.
TEST(Wfe, ProtectAsksForHelpAfterItsAttempts) {
  constexpr unsigned attempts = 2;
  smr::wfe domain(smr::wfe::config{.slots = 2, .fast_path_attempts = attempts, .epoch_frequency = 1,
                                   .scale_epoch_frequency = false, .empty_frequency = 1});
  std::uint64_t calls = 0;
  protect_while_the_era_moves(domain, [&] { return domain.slow_paths() >= 10; }, calls, attempts);
  EXPECT_GE(domain.slow_paths(), 10u) << "protect() never asked for help in " << calls << " calls";
}

// With no fast-path attempts, every read under a moving era asks; the allocating thread
// answers some requests before its own read settles them (the wait-free path).
TEST(Wfe, HelpersAnswerOpenRequests) {
  smr::wfe domain(smr::wfe::config{.slots = 2, .fast_path_attempts = 0, .epoch_frequency = 1,
                                   .scale_epoch_frequency = false, .empty_frequency = 1});
  std::uint64_t calls = 0;
  protect_while_the_era_moves(domain, [&] { return domain.helped() > 0; }, calls, 0);
  EXPECT_GT(domain.helped(), 0u) << "no request was answered by a helper in " << calls << " calls ("
                                 << domain.slow_paths() << " requests)";
}

// The domain counts requests only from a slow path: with the era standing still, none.
TEST(Wfe, NoSlowPathWhileTheEraStandsStill) {
  using R = smr::wfe;
  R domain(R::config{.slots = 1, .fast_path_attempts = 0, .epoch_frequency = 1000, .scale_epoch_frequency = false});
  link_t<R> link;
  auto h = domain.attach();
  tnode<R>* a = make_node<R>(h, 1);
  link.store(a, smr::core::mo_release);
  {
    auto g = h.begin_op();
    auto s = g.slot();
    EXPECT_EQ(s.protect(link).get(), a);  // the slot's first era: the era moved since "none"
    const std::uint64_t first = domain.slow_paths();
    for (int i = 0; i < 100; ++i) EXPECT_EQ(s.protect(link).get(), a);
    EXPECT_EQ(domain.slow_paths(), first);
    EXPECT_EQ(domain.helped(), 0u);
  }
  smr::core::free_node(a);
}

// ---- ibr_epoch ----

// The reservation made at the start of an operation pins every node retired from its era on
// and nothing retired before it.
TEST(IbrEpoch, ReservationPinsWhatRetiresFromItsEraOn) {
  using R = smr::ibr_epoch;
  freed_log::clear();
  R domain(smr::ibr_epoch::config{.epoch_frequency = 1, .scale_epoch_frequency = false,
                                 .empty_frequency = 1});
  auto reader = domain.attach();
  auto writer = domain.attach();
  tnode<R>* before = make_node<R>(writer, 1);
  retire_node<R>(writer, before);  // retired in era r
  retire_node<R>(writer, make_node<R>(writer, 2));  // advances the era past r
  {
    auto g = reader.begin_op();  // reserves an era > r
    tnode<R>* after = make_node<R>(writer, 3);
    retire_node<R>(writer, after);  // retired from the reservation's era on: pinned
    for (int i = 0; i < 5; ++i) retire_node<R>(writer, make_node<R>(writer, 10 + i));
    EXPECT_TRUE(freed_log::contains(1)) << "a node retired before the reservation was pinned";
    EXPECT_FALSE(freed_log::contains(3)) << "a node retired during the reservation was freed";
    EXPECT_FALSE(freed_log::contains(10)) << "ibr_epoch pins everything retired from its era on";
  }
  // Released: the next scan comes within max(empty_frequency, what the last scan kept)
  // retirements (detail/era_family.hpp), at most the bag's size here.
  const std::size_t bag = writer.unreclaimed();
  for (std::size_t i = 0; i < bag && !freed_log::contains(3); ++i) retire_node<R>(writer, make_node<R>(writer, 99));
  EXPECT_TRUE(freed_log::contains(3));
  EXPECT_TRUE(freed_log::contains(10));
}

// A scan reads every node of the bag, so with many nodes pinned the next one waits for a quarter
// as many retirements as it kept (detail/era_family.hpp): a retirement pays for at most five
// node reads, and a bag holds at most 1.25 times what is pinned plus empty_frequency.
TEST(EraFamily, ScanWaitsForAsManyRetirementsAsTheLastOneKept) {
  using R = smr::ibr_epoch;  // pins everything retired from its era on: every node is kept
  freed_log::clear();
  constexpr unsigned every = 4;
  R domain(R::config{.epoch_frequency = 1, .scale_epoch_frequency = false, .empty_frequency = every});
  auto reader = domain.attach();
  auto writer = domain.attach();
  std::size_t largest = 0;
  {
    auto g = reader.begin_op();
    for (int i = 0; i < 100; ++i) {
      retire_node<R>(writer, make_node<R>(writer, i));
      largest = std::max(largest, writer.unreclaimed());
    }
    EXPECT_FALSE(freed_log::contains(0));
  }
  // Every scan kept all it saw: at retirements 4, 8, 12, 16, 20, 25, 31, 38, 47, 58, 72 and 90
  // (each a quarter of the last, at least 4, after the one before); the next is due at 112.
  EXPECT_EQ(largest, 100u);
  retire_node<R>(writer, make_node<R>(writer, 1000));
  EXPECT_FALSE(freed_log::contains(0)) << "scanned again before a quarter of what the last scan kept";
  int more = 1;
  while (!freed_log::contains(0) && more < 100) {
    retire_node<R>(writer, make_node<R>(writer, 1000 + more));
    ++more;
  }
  EXPECT_EQ(more, 12) << "the scan is due 22 retirements after the one that kept 90";
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(freed_log::contains(i)) << i;
}
