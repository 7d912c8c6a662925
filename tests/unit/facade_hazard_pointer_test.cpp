// The P2530-style facade (smr/hazard_pointer.hpp), one contract per test:
//  - empty(), move, swap, make_hazard_pointer(s), and the per-thread hazard limit;
//  - a protected object is not deleted until its hazard pointer is reset, re-pointed or
//    destroyed, also when the protecting thread is another one;
//  - try_protect fails (and protects nothing) when the source changed, succeeds otherwise;
//  - reset_protection(p) protects p without validation, reset_protection() ends it;
//  - retire() stores the deleter (stateful deleters get their state), copies are fresh objects;
//  - hazard_pointer_cleanup frees the calling thread's retirements and exited threads';
//  - a deleter may retire a child into a domain that is being destroyed;
//  - retire() and hazard_pointer_cleanup() work after the thread's attachments are gone: from a
//    thread_local destructor that runs after them, from a deleter run while they are destroyed,
//    and from a static destructor; a new hazard_pointer there is refused;
//  - the default domain works with the standard's signatures;
//  - concurrent readers and retiring writers on plain std::atomic<T*> (ASan: no use after free,
//    TSan: no race; every object deleted exactly once).
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <utility>
#include <vector>

#include "smr/hazard_pointer.hpp"
#include "support/probe.hpp"
#include "support/retiring_family.hpp"
#include "support/stress.hpp"

namespace {

using namespace std::chrono_literals;

using smr::test::probe_magic;
using smr::test::wait_until;

struct node : smr::test::counted<smr::hazard_pointer_obj_base<node>> {
  using counted::counted;
};

TEST(FacadeHazardPointer, EmptyMoveSwapAndMake) {
  smr::hazard_pointer_domain dom;
  smr::hazard_pointer a;
  EXPECT_TRUE(a.empty());
  smr::hazard_pointer b = smr::make_hazard_pointer(dom);
  EXPECT_FALSE(b.empty());
  a = std::move(b);
  EXPECT_FALSE(a.empty());
  EXPECT_TRUE(b.empty());
  smr::hazard_pointer c(std::move(a));
  EXPECT_TRUE(a.empty());
  EXPECT_FALSE(c.empty());
  swap(a, c);
  EXPECT_FALSE(a.empty());
  EXPECT_TRUE(c.empty());
  a.swap(c);
  EXPECT_TRUE(a.empty());
  EXPECT_FALSE(c.empty());
  auto several = smr::make_hazard_pointers<3>(dom);
  for (const auto& h : several) EXPECT_FALSE(h.empty());
}

TEST(FacadeHazardPointer, AThreadOwnsAtMostTheDomainsHazards) {
  smr::hazard_pointer_domain dom({.slots = 2});
  auto two = smr::make_hazard_pointers<2>(dom);
  EXPECT_THROW((void)smr::make_hazard_pointer(dom), smr::slots_exhausted);
  EXPECT_THROW((void)smr::make_hazard_pointers<1>(dom), smr::slots_exhausted);
  two[1] = smr::hazard_pointer();  // gives one back
  smr::hazard_pointer again = smr::make_hazard_pointer(dom);
  EXPECT_FALSE(again.empty());
  // Another thread has hazards of its own.
  std::thread([&] { EXPECT_FALSE(smr::make_hazard_pointers<2>(dom)[1].empty()); }).join();
}

TEST(FacadeHazardPointer, ProtectedObjectSurvivesUntilReset) {
  std::atomic<int> freed{0};
  smr::hazard_pointer_domain dom;
  std::atomic<node*> src{new node(42, &freed)};
  smr::hazard_pointer h = smr::make_hazard_pointer(dom);
  node* p = h.protect(src);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->value, 42);
  src.store(nullptr);
  p->retire({}, dom);
  EXPECT_FALSE(smr::hazard_pointer_cleanup(dom, 20ms)) << "the object is protected";
  EXPECT_EQ(freed.load(), 0);
  EXPECT_EQ(p->magic, probe_magic);
  h.reset_protection();
  EXPECT_TRUE(smr::hazard_pointer_cleanup(dom));
  EXPECT_EQ(freed.load(), 1);
}

TEST(FacadeHazardPointer, ProtectedObjectSurvivesUntilDestroyedOrRepointed) {
  std::atomic<int> freed{0};
  smr::hazard_pointer_domain dom;
  node* a = new node(1, &freed);
  node* b = new node(2, &freed);
  std::atomic<node*> src{a};
  {
    smr::hazard_pointer h = smr::make_hazard_pointer(dom);
    EXPECT_EQ(h.protect(src), a);
    src.store(b);
    a->retire({}, dom);
    EXPECT_FALSE(smr::hazard_pointer_cleanup(dom, 20ms));
    EXPECT_EQ(freed.load(), 0);
    EXPECT_EQ(h.protect(src), b) << "protecting b ends a's protection";
    EXPECT_TRUE(smr::hazard_pointer_cleanup(dom));
    EXPECT_EQ(freed.load(), 1);
    src.store(nullptr);
    b->retire({}, dom);
    EXPECT_FALSE(smr::hazard_pointer_cleanup(dom, 20ms));
    EXPECT_EQ(b->value, 2);
  }  // h destroyed: b is free to go
  EXPECT_TRUE(smr::hazard_pointer_cleanup(dom));
  EXPECT_EQ(freed.load(), 2);
}

// The protection is another thread's: cleanup waits for it, gives up at its timeout with the
// object intact, and frees it once the reader lets go.
TEST(FacadeHazardPointer, AnotherThreadsProtectionHoldsTheObject) {
  smr::test::watchdog dog(60s, "hazard_pointer: another thread's protection");
  std::atomic<int> freed{0};
  smr::hazard_pointer_domain dom;
  std::atomic<node*> src{new node(7, &freed)};
  std::atomic<int> step{0};
  std::atomic<long> seen{0};
  std::thread reader([&] {
    smr::hazard_pointer h = smr::make_hazard_pointer(dom);
    node* p = h.protect(src);
    step.store(1, std::memory_order_release);
    wait_until(step, 2);
    seen.store(p->magic == probe_magic ? p->value : -1);  // still whole after the writer's cleanup
    h.reset_protection();
    step.store(3, std::memory_order_release);
  });
  wait_until(step, 1);
  node* old = src.exchange(nullptr);
  old->retire({}, dom);
  EXPECT_FALSE(smr::hazard_pointer_cleanup(dom, 30ms));
  EXPECT_EQ(freed.load(), 0);
  step.store(2, std::memory_order_release);
  wait_until(step, 3);
  EXPECT_TRUE(smr::hazard_pointer_cleanup(dom));
  EXPECT_EQ(freed.load(), 1);
  reader.join();
  EXPECT_EQ(seen.load(), 7);
}

TEST(FacadeHazardPointer, TryProtectFailsWhenTheSourceChanged) {
  std::atomic<int> freed{0};
  smr::hazard_pointer_domain dom;
  node* a = new node(1, &freed);
  node* b = new node(2, &freed);
  std::atomic<node*> src{b};
  smr::hazard_pointer h = smr::make_hazard_pointer(dom);
  node* ptr = a;  // what the caller believes src holds
  EXPECT_FALSE(h.try_protect(ptr, src));
  EXPECT_EQ(ptr, b) << "a failed try_protect returns the new value";
  a->retire({}, dom);
  EXPECT_TRUE(smr::hazard_pointer_cleanup(dom)) << "a failed try_protect protects nothing";
  EXPECT_EQ(freed.load(), 1);
  EXPECT_TRUE(h.try_protect(ptr, src));
  EXPECT_EQ(ptr, b);
  src.store(nullptr);
  b->retire({}, dom);
  EXPECT_FALSE(smr::hazard_pointer_cleanup(dom, 20ms)) << "a successful try_protect protects";
  EXPECT_EQ(freed.load(), 1);
  node* none = nullptr;
  EXPECT_TRUE(h.try_protect(none, src)) << "null in src and in ptr: nothing to protect, success";
  EXPECT_EQ(none, nullptr);
  EXPECT_TRUE(smr::hazard_pointer_cleanup(dom));
  EXPECT_EQ(freed.load(), 2);
}

TEST(FacadeHazardPointer, ResetProtectionHoldsWithoutValidation) {
  std::atomic<int> freed{0};
  smr::hazard_pointer_domain dom;
  std::atomic<node*> src{new node(5, &freed)};
  auto [first, second] = smr::make_hazard_pointers<2>(dom);
  node* p = first.protect(src);
  second.reset_protection(p);  // a copy of a protection: p is protected already
  first.reset_protection(nullptr);
  src.store(nullptr);
  p->retire({}, dom);
  EXPECT_FALSE(smr::hazard_pointer_cleanup(dom, 20ms)) << "the copy protects p";
  EXPECT_EQ(p->value, 5);
  second.reset_protection(static_cast<const node*>(nullptr));  // null ends the protection
  EXPECT_TRUE(smr::hazard_pointer_cleanup(dom));
  EXPECT_EQ(freed.load(), 1);
}

// A deleter with state: retire() keeps it in the object and calls it with the object.
struct tagged;
struct counting_deleter {
  std::atomic<int>* calls = nullptr;
  long tag = 0;
  void operator()(tagged* p) const;
};
struct tagged : smr::hazard_pointer_obj_base<tagged, counting_deleter> {
  explicit tagged(long t) : tag(t) {}
  long tag;
};
void counting_deleter::operator()(tagged* p) const {
  if (p->tag == tag) calls->fetch_add(1, std::memory_order_relaxed);
  delete p;
}

TEST(FacadeHazardPointer, RetireCallsTheStoredStatefulDeleter) {
  std::atomic<int> calls{0};
  smr::hazard_pointer_domain dom;
  for (long t = 0; t < 10; ++t) (new tagged(t))->retire(counting_deleter{&calls, t}, dom);
  EXPECT_TRUE(smr::hazard_pointer_cleanup(dom));
  EXPECT_EQ(calls.load(), 10) << "each deleter called once, with its own state and its object";
}

TEST(FacadeHazardPointer, ACopyIsAFreshObject) {
  std::atomic<int> freed{0};
  smr::hazard_pointer_domain dom;
  node* a = new node(3, &freed);
  a->retire({}, dom);
  node* copy = new node(*a);  // a retired object copied: the copy is not retired
  copy->retire({}, dom);      // (a second retire of the same object would abort)
  EXPECT_TRUE(smr::hazard_pointer_cleanup(dom));
  EXPECT_EQ(freed.load(), 2);
}

TEST(FacadeHazardPointer, CleanupFreesWhatExitedThreadsRetired) {
  smr::test::watchdog dog(60s, "hazard_pointer: exited threads' retirements");
  std::atomic<int> freed{0};
  smr::hazard_pointer_domain dom;
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&] {
      smr::hazard_pointer h = smr::make_hazard_pointer(dom);
      for (int i = 0; i < 50; ++i) (new node(i, &freed))->retire({}, dom);
    });  // the thread's attachment detaches at exit and hands what is left to the domain
  }
  for (auto& t : threads) t.join();
  EXPECT_TRUE(smr::hazard_pointer_cleanup(dom));
  EXPECT_EQ(freed.load(), 150);
}

// A deleter that retires a child into the domain being destroyed: the child is deleted at once,
// since nothing of a dying domain can be protected. Before, the retire attached the thread anew
// to the dying domain, which then refused to die with a handle attached.
TEST(FacadeHazardPointer, ADeleterMayRetireIntoTheDomainBeingDestroyed) {
  bool destroying_before = true;
  EXPECT_EQ((smr::test::destroy_domain_holding_chains<smr::hazard_pointer_obj_base, smr::hazard_pointer_domain>(5, 3, destroying_before)), 15)
      << "every parent and every child they retired, once each";
  EXPECT_FALSE(destroying_before);
}

// A thread_local constructed before the thread's first facade call is destroyed after the
// thread's attachments ([basic.start.term]). Its destructor retires and cleans up through
// one-shot attachments (before, each call was refused as a use during thread exit).
TEST(FacadeHazardPointer, ALateThreadLocalDestructorMayRetireAndCleanUp) {
  struct late_user {
    std::atomic<int>* freed = nullptr;
    bool* cleaned = nullptr;
    ~late_user() {
      for (long i = 0; i < 10; ++i) (new node(i, freed))->retire();
      *cleaned = smr::hazard_pointer_cleanup();
    }
  };
  std::atomic<int> freed{0};
  bool cleaned = false;
  std::thread([&] {
    thread_local late_user user;  // constructed first, so destroyed after the attachments
    user.freed = &freed;
    user.cleaned = &cleaned;
    smr::hazard_pointer h = smr::make_hazard_pointer();  // the thread's attachment table
  }).join();
  EXPECT_TRUE(cleaned);
  EXPECT_EQ(freed.load(), 10);
}

// A deleter run while the thread's attachments are destroyed (the retirer's last scan, at exit)
// retires a child: it goes through that detaching attachment, which hands it to the domain
// (before, the retire was refused).
TEST(FacadeHazardPointer, ADeleterRunAtThreadExitMayRetire) {
  smr::hazard_pointer_domain dom;
  std::atomic<int> freed{0};
  std::thread([&] {
    for (int i = 0; i < 5; ++i) smr::test::parent_with_child<smr::hazard_pointer_obj_base>(dom, freed)->retire({}, dom);
  }).join();
  EXPECT_EQ(freed.load(), 5) << "the exiting thread's last scan freed the parents, and handed their children to the domain";
  EXPECT_TRUE(smr::hazard_pointer_cleanup(dom));
  EXPECT_EQ(freed.load(), 10) << "every parent and every child, once each";
}

// A list whose every deleter retires the next node, retired from a thread_local destructor that
// runs after the thread's attachments: each deleter that a detach runs joins that detaching
// attachment instead of making a new one inside it. Before, every node nested a one-shot
// attachment inside the previous one's last scan, and a long list overflowed the stack.
TEST(FacadeHazardPointer, ALongChainRetiredDuringThreadExitDoesNotNest) {
  struct link : smr::hazard_pointer_obj_base<link> {
    explicit link(link* n, std::atomic<int>* f) : next(n), freed(f) {}
    ~link() {
      freed->fetch_add(1, std::memory_order_relaxed);
      if (next != nullptr) next->retire();
    }
    link* next;
    std::atomic<int>* freed;
  };
  struct late_user {
    link* head = nullptr;
    bool* cleaned = nullptr;
    ~late_user() {
      head->retire();
      *cleaned = smr::hazard_pointer_cleanup();
    }
  };
  constexpr int length = 100000;
  std::atomic<int> freed{0};
  bool cleaned = false;
  std::thread([&] {
    thread_local late_user user;  // constructed first, so destroyed after the attachments
    user.cleaned = &cleaned;
    for (int i = 0; i < length; ++i) user.head = new link(user.head, &freed);
    (void)smr::make_hazard_pointer();  // the thread's attachment table
  }).join();
  EXPECT_TRUE(cleaned);
  EXPECT_EQ(freed.load(), length);
}

TEST(FacadeHazardPointer, DefaultDomainWithTheStandardSignatures) {
  std::atomic<int> freed{0};
  std::atomic<node*> src{new node(9, &freed)};
  smr::hazard_pointer h = smr::make_hazard_pointer();
  node* p = h.protect(src);
  src.store(nullptr);
  p->retire();
  EXPECT_FALSE(smr::hazard_pointer_cleanup(smr::hazard_pointer_default_domain(), 20ms));
  EXPECT_EQ(p->value, 9);
  h = smr::hazard_pointer();  // assigning an empty one releases the hazard
  EXPECT_TRUE(smr::hazard_pointer_cleanup());
  EXPECT_EQ(freed.load(), 1);
  EXPECT_EQ(&smr::hazard_pointer_default_domain(), &smr::hazard_pointer_default_domain());
}

// Readers protect the current object of a few shared std::atomic<node*> and check it is whole;
// writers replace objects and retire the old ones. Every object is deleted exactly once.
TEST(FacadeHazardPointer, ConcurrentReadersAndRetiringWriters) {
  constexpr int cells = 2;
  const std::uint64_t ops = smr::test::scaled_ops(4000);
  std::atomic<int> freed{0};
  std::atomic<int> made{0};
  std::atomic<long> bad{0};
  std::atomic<long> reads{0};
  smr::hazard_pointer_domain dom({.slots = 4, .scan_threshold = 16});
  std::array<std::atomic<node*>, cells> shared;
  for (auto& c : shared) {
    c.store(new node(0, &freed));
    made.fetch_add(1);
  }
  smr::test::run_threads(4, [&](unsigned t) {
    smr::test::rng rng(t + 1);
    auto hs = smr::make_hazard_pointers<2>(dom);
    for (std::uint64_t i = 0; i < ops; ++i) {
      auto& cell = shared[rng.below(cells)];
      if (t % 2 == 0 || rng.below(4) != 0) {
        node* p = hs[i % 2].protect(cell);
        // Hold it a while (and let writers run) so that a missing protection shows.
        for (int k = 0; k < 8; ++k) {
          if (p->magic != probe_magic || p->value < 0) bad.fetch_add(1);
          if (k == 4 && i % 8 == 0) std::this_thread::yield();
        }
        reads.fetch_add(1, std::memory_order_relaxed);
        hs[i % 2].reset_protection();
      } else {
        node* fresh = new node(static_cast<long>(i), &freed);
        made.fetch_add(1, std::memory_order_relaxed);
        cell.exchange(fresh)->retire({}, dom);
      }
    }
    hs = {};
    EXPECT_TRUE(smr::hazard_pointer_cleanup(dom));
  }, std::chrono::seconds(240), "hazard_pointer facade stress");
  for (auto& c : shared) c.exchange(nullptr)->retire({}, dom);
  EXPECT_TRUE(smr::hazard_pointer_cleanup(dom));
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GT(reads.load(), 0);
  EXPECT_EQ(freed.load(), made.load());
}

TEST(FacadeHazardPointerDeathTest, ProtectOnAnEmptyHazardPointerIsRefused) {
  EXPECT_DEATH(
      {
        std::atomic<node*> src{nullptr};
        smr::hazard_pointer h;
        (void)h.protect(src);
      },
      "smr: misuse: a call on an empty hazard_pointer");
}

// Static destructors run after the main thread's thread_locals, its attachments among them: a
// static object's destructor retires (a chain whose deleters retire again) and cleans up.
TEST(FacadeHazardPointerDeathTest, AStaticDestructorMayRetireAndCleanUp) {
  struct exit_time_user {
    std::atomic<int> freed{0};
    ~exit_time_user() {
      smr::hazard_pointer_domain& dom = smr::hazard_pointer_default_domain();
      for (int i = 0; i < 4; ++i) smr::test::parent_with_child<smr::hazard_pointer_obj_base>(dom, freed)->retire();
      (new node(0, &freed))->retire();
      const bool cleaned = smr::hazard_pointer_cleanup();
      std::fprintf(stderr, "cleaned: %d, deleted at exit: %d of 9\n", cleaned ? 1 : 0, freed.load());
    }
  };
  EXPECT_EXIT(
      {
        (void)smr::make_hazard_pointer();  // this thread's attachment table exists, and goes at exit
        static exit_time_user user;
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "cleaned: 1, deleted at exit: 9 of 9");
}

TEST(FacadeHazardPointerDeathTest, AHazardPointerAfterTheThreadsAttachmentsIsRefused) {
  struct late_maker {
    ~late_maker() { (void)smr::make_hazard_pointer(); }
  };
  EXPECT_DEATH(
      {
        (void)smr::make_hazard_pointer();
        static late_maker maker;
        std::exit(0);
      },
      "smr: misuse: a read-side section or a hazard_pointer was requested during thread exit");
}

TEST(FacadeHazardPointerDeathTest, AHazardPointerMayNotOutliveItsDomain) {
  EXPECT_DEATH(
      {
        auto* dom = new smr::hazard_pointer_domain();
        smr::hazard_pointer h = smr::make_hazard_pointer(*dom);
        delete dom;
      },
      "smr: misuse: a hazard_pointer outlived");
}

// Moved into a thread's callable, it is destroyed by that thread: it would race with its
// owner on the owner's entries and hazard.
TEST(FacadeHazardPointerDeathTest, AHazardPointerDestroyedByAnotherThreadIsRefused) {
  EXPECT_DEATH(
      {
        smr::hazard_pointer_domain dom;
        std::thread([h = smr::make_hazard_pointer(dom)] {}).join();
      },
      "smr: misuse: a hazard_pointer was destroyed or reassigned by a thread other than the one that made it");
}

}  // namespace
