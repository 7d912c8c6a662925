// The P2545-style facade (smr/rcu.hpp), one contract per test:
//  - rcu_domain is Lockable: std::scoped_lock on it is a read-side section, try_lock succeeds;
//  - sections nest: only the outermost unlock ends the section;
//  - a retired object is not deleted while a reader that may hold it is inside a section, and is
//    deleted once it leaves (rcu_obj_base::retire and rcu_retire, stateful deleters);
//  - rcu_synchronize waits for a section open at the call, and not for idle threads nor for
//    sections that keep starting after it;
//  - rcu_barrier runs every deleter the calling thread scheduled, and those of exited threads
//    (counted exactly);
//  - concurrent readers and writers on plain std::atomic<T*> (ASan: no use after free, TSan: no
//    race; every object deleted exactly once);
//  - a deleter may retire a child into a domain that is being destroyed;
//  - retire, rcu_synchronize and rcu_barrier work after the thread's attachments are gone: from
//    a thread_local destructor that runs after them, from a deleter run while they are
//    destroyed, and from a static destructor; a section there is refused;
//  - misuse is refused: synchronize or barrier inside a section, unlock without lock.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "smr/rcu.hpp"
#include "support/probe.hpp"
#include "support/retiring_family.hpp"
#include "support/stress.hpp"

namespace {

using namespace std::chrono_literals;

using smr::test::probe_magic;
using smr::test::wait_until;

struct node : smr::test::counted<smr::rcu_obj_base<node>> {
  using counted::counted;
};

// Runs fn on a thread and reports whether it finished within `within`; joins it either way.
class background {
 public:
  template <class F>
  explicit background(F fn) : thread_([this, fn] {
      fn();
      done_.store(true, std::memory_order_release);
    }) {}
  ~background() { thread_.join(); }
  bool done() const { return done_.load(std::memory_order_acquire); }
  bool finishes_within(std::chrono::milliseconds within) const {
    const auto deadline = std::chrono::steady_clock::now() + within;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(1ms);
    }
    return true;
  }

 private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

TEST(FacadeRcu, ScopedLockIsAReadSideSection) {
  smr::test::watchdog dog(60s, "rcu: scoped_lock");
  smr::rcu_domain dom;
  std::atomic<int> step{0};
  std::thread reader([&] {
    std::scoped_lock lock(dom);
    step.store(1, std::memory_order_release);
    wait_until(step, 2);
  });
  wait_until(step, 1);
  {
    background sync([&] { smr::rcu_synchronize(dom); });
    EXPECT_FALSE(sync.finishes_within(100ms)) << "the scoped_lock is a section synchronize waits for";
    step.store(2, std::memory_order_release);
    EXPECT_TRUE(sync.finishes_within(30000ms));
  }
  reader.join();
  EXPECT_TRUE(dom.try_lock());
  dom.unlock();
  std::scoped_lock on_default(smr::rcu_default_domain());  // the standard's example compiles and runs
}

TEST(FacadeRcu, NestedSectionsEndAtTheOutermostUnlock) {
  smr::test::watchdog dog(60s, "rcu: nesting");
  smr::rcu_domain dom;
  std::atomic<int> step{0};
  std::thread reader([&] {
    dom.lock();
    dom.lock();
    dom.unlock();  // the inner one: still inside the outer section
    step.store(1, std::memory_order_release);
    wait_until(step, 2);
    dom.unlock();
  });
  wait_until(step, 1);
  {
    background sync([&] { smr::rcu_synchronize(dom); });
    EXPECT_FALSE(sync.finishes_within(100ms)) << "the inner unlock ended the section";
    step.store(2, std::memory_order_release);
    EXPECT_TRUE(sync.finishes_within(30000ms));
  }
  reader.join();
}

TEST(FacadeRcu, RetiredObjectSurvivesWhileAReaderHoldsIt) {
  smr::test::watchdog dog(60s, "rcu: retire under a reader");
  std::atomic<int> freed{0};
  smr::rcu_domain dom;
  std::atomic<node*> src{new node(42, &freed)};
  std::atomic<int> step{0};
  std::atomic<long> seen{0};
  std::atomic<int> freed_while_inside{-1};
  std::thread reader([&] {
    std::scoped_lock lock(dom);
    node* p = src.load(std::memory_order_acquire);
    step.store(1, std::memory_order_release);
    wait_until(step, 2);
    std::this_thread::sleep_for(50ms);  // the writer's barrier is waiting meanwhile
    freed_while_inside.store(freed.load());
    seen.store(p->magic == probe_magic ? p->value : -1);
  });
  wait_until(step, 1);
  src.exchange(nullptr)->retire(std::default_delete<node>(), dom);
  step.store(2, std::memory_order_release);
  smr::rcu_barrier(dom);  // returns once the reader has left and the deleter ran
  EXPECT_EQ(freed.load(), 1);
  reader.join();
  EXPECT_EQ(freed_while_inside.load(), 0);
  EXPECT_EQ(seen.load(), 42);
}

TEST(FacadeRcu, SynchronizeWaitsOnlyForSectionsOpenAtTheCall) {
  smr::test::watchdog dog(120s, "rcu: synchronize");
  smr::rcu_domain dom;
  std::atomic<int> step{0};
  std::atomic<bool> stop{false};
  // An idle thread: it used the domain and stays attached, outside any section.
  std::thread idle([&] {
    { std::scoped_lock lock(dom); }
    step.fetch_add(1, std::memory_order_acq_rel);
    while (!stop.load(std::memory_order_acquire)) std::this_thread::sleep_for(1ms);
  });
  // A thread that keeps opening short sections: each starts after the call or ends soon.
  std::thread churn([&] {
    step.fetch_add(1, std::memory_order_acq_rel);
    while (!stop.load(std::memory_order_acquire)) {
      std::scoped_lock lock(dom);
    }
  });
  wait_until(step, 2);
  {
    background sync([&] { smr::rcu_synchronize(dom); });
    EXPECT_TRUE(sync.finishes_within(30000ms)) << "idle threads and later sections must not block it";
  }
  // A reader inside a section: now synchronize must wait for it, and return once it leaves.
  std::atomic<int> inside{0};
  std::thread reader([&] {
    std::scoped_lock lock(dom);
    inside.store(1, std::memory_order_release);
    wait_until(inside, 2);
  });
  wait_until(inside, 1);
  {
    background sync([&] { smr::rcu_synchronize(dom); });
    EXPECT_FALSE(sync.finishes_within(100ms));
    inside.store(2, std::memory_order_release);
    EXPECT_TRUE(sync.finishes_within(30000ms));
  }
  stop.store(true, std::memory_order_release);
  reader.join();
  idle.join();
  churn.join();
}

// rcu_retire on any type, with a deleter that has state: each deleter runs once, with its state
// and its pointer; the barrier leaves nothing of the calling thread pending.
struct counting_deleter {
  std::atomic<int>* calls;
  long expected;
  void operator()(long* p) const {
    if (*p == expected) calls->fetch_add(1, std::memory_order_relaxed);
    delete p;
  }
};

struct tagged;
struct tagged_deleter {
  std::atomic<int>* calls = nullptr;
  long tag = 0;
  void operator()(tagged* p) const;
};
struct tagged : smr::rcu_obj_base<tagged, tagged_deleter> {
  explicit tagged(long t) : tag(t) {}
  long tag;
};
void tagged_deleter::operator()(tagged* p) const {
  if (p->tag == tag) calls->fetch_add(1, std::memory_order_relaxed);
  delete p;
}

TEST(FacadeRcu, BarrierRunsEveryDeleterThisThreadScheduled) {
  smr::rcu_domain dom;
  std::atomic<int> calls{0};
  std::atomic<int> freed{0};
  for (long i = 0; i < 100; ++i) {
    smr::rcu_retire(new long(i), counting_deleter{&calls, i}, dom);
    (new tagged(i))->retire(tagged_deleter{&calls, i}, dom);
    (new node(i, &freed))->retire({}, dom);
  }
  smr::rcu_retire(new int(5), std::default_delete<int>(), dom);  // any T, default deleter (ASan: no leak)
  smr::rcu_barrier(dom);
  EXPECT_EQ(calls.load(), 200);
  EXPECT_EQ(freed.load(), 100);
}

// A deleter that retires a child into the domain being destroyed: the child is deleted at once,
// since nothing of a dying domain can be protected. Before, the retire attached the thread anew
// to the dying domain, which then refused to die with a handle attached.
TEST(FacadeRcu, ADeleterMayRetireIntoTheDomainBeingDestroyed) {
  bool destroying_before = true;
  EXPECT_EQ((smr::test::destroy_domain_holding_chains<smr::rcu_obj_base, smr::rcu_domain>(5, 3, destroying_before)), 15)
      << "every parent and every child they retired, once each";
  EXPECT_FALSE(destroying_before);
}

// The same through rcu_retire(p, d, dom), for a type with no base: it attached the thread anew
// to the dying domain, which then aborted with a handle attached (or, from the domain's last
// frees, left an attachment to freed memory).
TEST(FacadeRcu, ADeleterMayRcuRetireIntoTheDomainBeingDestroyed) {
  struct link {
    link* child;
  };
  struct unlink_and_delete {
    smr::rcu_domain* dom;
    std::atomic<int>* deleted;
    void operator()(link* l) const {
      deleted->fetch_add(1, std::memory_order_relaxed);
      if (l->child != nullptr) smr::rcu_retire(l->child, *this, *dom);
      delete l;
    }
  };
  std::atomic<int> deleted{0};
  {
    smr::rcu_domain dom;
    for (int i = 0; i < 5; ++i)
      smr::rcu_retire(new link{new link{new link{nullptr}}}, unlink_and_delete{&dom, &deleted}, dom);
  }
  EXPECT_EQ(deleted.load(), 15) << "every link, once each";
}

TEST(FacadeRcu, BarrierOnTheDefaultDomain) {
  std::atomic<int> freed{0};
  for (long i = 0; i < 10; ++i) (new node(i, &freed))->retire();
  smr::rcu_retire(new node(10, &freed));
  smr::rcu_barrier();
  EXPECT_EQ(freed.load(), 11);
  EXPECT_EQ(&smr::rcu_default_domain(), &smr::rcu_default_domain());
}

TEST(FacadeRcu, BarrierRunsWhatExitedThreadsScheduled) {
  smr::test::watchdog dog(60s, "rcu: exited threads' retirements");
  smr::rcu_domain dom;  // advance_every = 100: the workers' 150 sections need not move the epoch
  std::atomic<int> freed{0};
  // This thread is attached and has announced the current epoch, so its own handle would find
  // nothing new to adopt: the barrier must still collect what the exited threads left.
  { std::scoped_lock lock(dom); }
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        std::scoped_lock lock(dom);  // retire inside a section joins it
        (new node(i, &freed))->retire({}, dom);
      }
    });  // the attachment detaches at exit; what is not yet safe goes to the domain
  }
  for (auto& t : threads) t.join();
  smr::rcu_barrier(dom);
  EXPECT_EQ(freed.load(), 150);
}

// A thread_local constructed before the thread's first facade call is destroyed after the
// thread's attachments ([basic.start.term]: reverse order of construction). Its destructor
// retires, synchronizes and runs a barrier through one-shot attachments (before, each call was
// refused as a use during thread exit).
TEST(FacadeRcu, ALateThreadLocalDestructorMayRetireSynchronizeAndBarrier) {
  struct late_user {
    std::atomic<int>* freed = nullptr;
    bool* done = nullptr;
    ~late_user() {
      for (long i = 0; i < 10; ++i) (new node(i, freed))->retire();
      smr::rcu_retire(new node(10, freed));
      smr::rcu_synchronize();
      smr::rcu_barrier();
      *done = true;
    }
  };
  std::atomic<int> freed{0};
  bool done = false;
  std::thread([&] {
    thread_local late_user user;  // constructed first, so destroyed after the attachments
    user.freed = &freed;
    user.done = &done;
    std::scoped_lock lock(smr::rcu_default_domain());  // the thread's attachment table
  }).join();
  EXPECT_TRUE(done);
  EXPECT_EQ(freed.load(), 11) << "the barrier in the destructor ran every deleter it scheduled";
}

// A deleter run while the thread's attachments are destroyed (its handle's last frees, at
// exit) retires a child: it goes through that detaching attachment, which hands it to the
// domain, and is freed later like any retirement of an exited thread (before, it was refused).
TEST(FacadeRcu, ADeleterRunAtThreadExitMayRetire) {
  smr::test::watchdog dog(60s, "rcu: a deleter at thread exit");
  smr::rcu_domain dom;
  std::atomic<int> freed{0};
  std::atomic<int> step{0};
  std::thread worker([&] {
    for (int i = 0; i < 5; ++i) smr::test::parent_with_child<smr::rcu_obj_base>(dom, freed)->retire({}, dom);
    step.store(1, std::memory_order_release);
    wait_until(step, 2);
  });  // its handle frees the parents at exit (their grace period has passed); they retire the children
  wait_until(step, 1);
  smr::rcu_synchronize(dom);  // the epoch moves twice past the parents' retirement
  step.store(2, std::memory_order_release);
  worker.join();
  EXPECT_GE(freed.load(), 5) << "the parents were freed by the exiting thread";
  smr::rcu_barrier(dom);
  EXPECT_EQ(freed.load(), 10) << "every parent and every child, once each";
}

// Readers read a few shared std::atomic<node*> inside sections and check the object is whole;
// writers replace objects and retire the old ones (some with rcu_retire, some with
// rcu_synchronize then delete). Every object is deleted exactly once.
TEST(FacadeRcu, ConcurrentReadersAndWriters) {
  constexpr int cells = 2;
  const std::uint64_t ops = smr::test::scaled_ops(4000);
  std::atomic<int> freed{0};
  std::atomic<int> made{0};
  std::atomic<long> bad{0};
  std::atomic<long> reads{0};
  smr::rcu_domain dom({.advance_every = 2});
  std::array<std::atomic<node*>, cells> shared;
  for (auto& c : shared) {
    c.store(new node(0, &freed));
    made.fetch_add(1);
  }
  smr::test::run_threads(4, [&](unsigned t) {
    smr::test::rng rng(t + 1);
    for (std::uint64_t i = 0; i < ops; ++i) {
      auto& cell = shared[rng.below(cells)];
      if (t % 2 == 0 || rng.below(4) != 0) {
        std::scoped_lock outer(dom);
        node* p = cell.load(std::memory_order_acquire);
        {
          std::scoped_lock inner(dom);  // nested: joins the outer section
          if (p->magic != probe_magic || p->value < 0) bad.fetch_add(1);
        }
        // Still inside the outer section: hold p a while (and let writers run) so that a
        // section that protects nothing shows.
        for (int k = 0; k < 8; ++k) {
          if (p->magic != probe_magic) bad.fetch_add(1);
          if (k == 4 && i % 8 == 0) std::this_thread::yield();
        }
        reads.fetch_add(1, std::memory_order_relaxed);
      } else {
        node* fresh = new node(static_cast<long>(i), &freed);
        made.fetch_add(1, std::memory_order_relaxed);
        node* old = cell.exchange(fresh);
        if (i % 64 == 1) {
          smr::rcu_synchronize(dom);
          delete old;
        } else if (i % 2 == 0) {
          old->retire({}, dom);
        } else {
          smr::rcu_retire(old, std::default_delete<node>(), dom);
        }
      }
    }
    smr::rcu_barrier(dom);
  }, std::chrono::seconds(240), "rcu facade stress");
  for (auto& c : shared) c.exchange(nullptr)->retire({}, dom);
  smr::rcu_barrier(dom);
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GT(reads.load(), 0);
  EXPECT_EQ(freed.load(), made.load());
}

TEST(FacadeRcuDeathTest, SynchronizeInsideASectionIsRefused) {
  EXPECT_DEATH(
      {
        smr::rcu_domain dom;
        std::scoped_lock lock(dom);
        smr::rcu_synchronize(dom);
      },
      "smr: misuse: rcu_synchronize\\(\\) inside a read-side section");
}

TEST(FacadeRcuDeathTest, BarrierInsideASectionIsRefused) {
  EXPECT_DEATH(
      {
        std::scoped_lock lock(smr::rcu_default_domain());
        smr::rcu_barrier();
      },
      "smr: misuse: rcu_barrier\\(\\) inside a read-side section");
}

TEST(FacadeRcuDeathTest, ADeleterThatSynchronizesTheDyingDomainIsRefused) {
  EXPECT_DEATH(
      {
        smr::rcu_domain dom;
        smr::rcu_retire(new int(1), [&dom](int* p) {
          delete p;
          smr::rcu_synchronize(dom);
        }, dom);
      },
      "smr: misuse: a facade domain .* was used by a deleter it runs while being destroyed");
}

// Static destructors run after the main thread's thread_locals, its attachments among them: a
// static object's destructor retires (a chain whose deleters retire again), synchronizes and
// runs a barrier, and every deleter has run by then.
TEST(FacadeRcuDeathTest, AStaticDestructorMayRetireSynchronizeAndBarrier) {
  struct exit_time_user {
    std::atomic<int> freed{0};
    ~exit_time_user() {
      smr::rcu_domain& dom = smr::rcu_default_domain();
      for (int i = 0; i < 4; ++i) smr::test::parent_with_child<smr::rcu_obj_base>(dom, freed)->retire();
      smr::rcu_retire(new node(0, &freed));
      smr::rcu_synchronize();
      smr::rcu_barrier();
      std::fprintf(stderr, "deleted at exit: %d of 9\n", freed.load());
    }
  };
  EXPECT_EXIT(
      {
        smr::rcu_barrier();  // this thread's attachment table exists, and goes at exit
        static exit_time_user user;
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "deleted at exit: 9 of 9");
}

TEST(FacadeRcuDeathTest, ASectionAfterTheThreadsAttachmentsIsRefused) {
  struct late_reader {
    ~late_reader() { std::scoped_lock lock(smr::rcu_default_domain()); }
  };
  EXPECT_DEATH(
      {
        smr::rcu_barrier();
        static late_reader reader;
        std::exit(0);
      },
      "smr: misuse: a read-side section or a hazard_pointer was requested during thread exit");
}

// A thread exits inside a section of one domain; a deleter that the exit's detach of another
// domain runs then synchronizes the first. It is checked on the thread's attachment to that
// domain, which is still there, and refused (a new attachment would wait for the thread's own
// open section for ever).
TEST(FacadeRcuDeathTest, ASynchronizeAtThreadExitInsideALeftSectionIsRefused) {
  EXPECT_DEATH(
      {
        smr::rcu_domain held;    // attached first, so detached last
        smr::rcu_domain frees;
        std::atomic<int> step{0};
        std::thread worker([&] {
          held.lock();  // never unlocked: the thread ends inside this section
          smr::rcu_retire(new int(1), [&held](int* p) {
            delete p;
            smr::rcu_synchronize(held);
          }, frees);
          step.store(1, std::memory_order_release);
          wait_until(step, 2);
        });  // frees' attachment detaches first and runs the deleter (its grace period has passed)
        wait_until(step, 1);
        smr::rcu_synchronize(frees);
        step.store(2, std::memory_order_release);
        worker.join();
      },
      "smr: misuse: rcu_synchronize\\(\\) inside a read-side section");
}

TEST(FacadeRcuDeathTest, UnlockWithoutLockIsRefused) {
  EXPECT_DEATH(
      {
        smr::rcu_domain dom;
        dom.unlock();
      },
      "smr: misuse: rcu_domain::unlock\\(\\) without a matching lock\\(\\)");
}

}  // namespace
