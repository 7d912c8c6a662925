// Test-only reclaimers with PLANTED BUGS. They exist to prove that the verification layers can
// fail: the expected-failure executables (tests/expected_failure) and the Relacy models
// (tests/relacy) run them and must report a use-after-free. Never use them for anything else.
//
//   free_on_retire          frees a node the moment it is retired (no grace period at all).
//   short_grace_ebr<Early>  a minimal three-epoch EBR built from core parts whose limbo is
//                           collected `Early` epochs too soon. Early = 0 is the correct scheme
//                           (the control that must pass), Early = 1 frees one epoch too early.
//   unvalidated_protect<R>  wraps a real reclaimer R; protect() reads the link and publishes
//                           the pointer with hold() but never validates it: HP's protect
//                           without the fence and re-read, IBR's without raising the reserved
//                           upper era.
//
// All three fit the reclaimer concept the data structures are written against, and they build
// under every back end of core/atomic.hpp (std, TSan, Relacy).
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>

#include "smr/core/atomic.hpp"
#include "smr/core/domain_core.hpp"
#include "smr/core/epoch_limbo.hpp"
#include "smr/core/free_policy.hpp"
#include "smr/core/guard_base.hpp"
#include "smr/core/handle_base.hpp"
#include "smr/core/limbo_bag.hpp"
#include "smr/core/marked_ptr.hpp"
#include "smr/core/node.hpp"
#include "smr/core/traits.hpp"

namespace smr::test {

// ---------------------------------------------------------------------------------------------
// PLANTED BUG: frees at retire. Any reader that still holds the node reads freed memory.
struct free_on_retire_config {
  core::timeline* timeline = nullptr;
};

class free_on_retire {
 public:
  using config = free_on_retire_config;
  using node_base = core::retired_node;
  template <class T>
  using atomic_ptr = core::atomic_marked_ptr<T>;

  static constexpr std::string_view base_name = "free_on_retire";
  // Claims every capability so that it can be paired with any data structure.
  static constexpr reclaimer_traits traits{
      .protects_unlinked_traversal = true,
      .continues_after_write = true,
      .bounded_garbage = true,
  };

  explicit free_on_retire(config cfg = {}) : core_(cfg.timeline) {}
  core::stats_snapshot stats() { return core_.stats(); }
  unsigned protect_slots() const { return 0; }

 private:
  struct slot {
    core::thread_stats stats;
  };
  core::domain_core<slot> core_;

 public:
  class guard;

  class handle : public core::handle_base<slot, core::batch_free> {
   public:
    explicit handle(free_on_retire& d) : handle_base(d.core_) {}
    guard begin_op() { return guard(*this); }

   private:
    friend class guard;
    void retire(core::retired_node* n) {
      this->tc().note_retired();
      core::limbo_bag now;
      now.push(n);
      this->release_safe(std::move(now));  // the bug: no grace period
    }
  };

  class guard : public core::guard_base<guard> {
   public:
    explicit guard(handle& h) : h_(&h) {}
    guard(const guard&) = delete;
    guard& operator=(const guard&) = delete;

    template <class T>
    core::marked_ptr<T> protect(unsigned, const atomic_ptr<T>& src) {
      return src.load(core::mo_acquire);  // pairs with the release that published the node
    }
    void retire(node_base* n) { h_->retire(n); }

   private:
    handle* h_;
  };

  handle attach() { return handle(*this); }
};

// ---------------------------------------------------------------------------------------------
// A minimal three-epoch EBR (Fraser; Hart et al. §2.2) whose grace period can be shortened.
//
// Protocol: entering an operation announces the global epoch a (store, seq_cst fence, re-read
// until stable); every operation tries to advance the epoch, which succeeds only when every
// thread inside an operation announced the current one. A node unlinked during an operation
// that announced a is tagged a + 1 (the global epoch is at most a + 1 then) and is safe once the
// global epoch reaches tag + 2 (core/epoch_limbo.hpp). With Early = 1 the limbo is collected as
// if the epoch were one higher: a node is freed at tag + 1, while a reader that announced
// tag = a + 1 before the unlink may still hold it. PLANTED BUG when Early > 0.
struct short_grace_ebr_config {
  core::timeline* timeline = nullptr;
};

template <unsigned Early>
class short_grace_ebr {
 public:
  using config = short_grace_ebr_config;
  using node_base = core::retired_node;
  template <class T>
  using atomic_ptr = core::atomic_marked_ptr<T>;

  static constexpr std::string_view base_name = Early == 0 ? "short_grace_ebr<0>" : "short_grace_ebr<1>";
  static constexpr reclaimer_traits traits{
      .protects_unlinked_traversal = true,
      .continues_after_write = true,
      .bounded_garbage = false,
      .metrics = {.epochs = true},
  };

  explicit short_grace_ebr(config cfg = {}) : core_(cfg.timeline) {}
  core::stats_snapshot stats() { return core_.stats(); }
  unsigned protect_slots() const { return 0; }

 private:
  static constexpr std::uint64_t inactive = 0;  // else (epoch << 1) | 1

  struct slot {
    core::atomic<std::uint64_t> announce{inactive};
    core::thread_stats stats;
  };

  void try_advance(std::uint64_t e, core::thread_core& tc) {
    // seq_cst fence: pairs with the one after the announcement in enter() (store-load).
    core::fence(core::mo_seq_cst);
    bool all_current = true;
    core_.registry().for_each([&](slot& s, std::size_t) {
      // acquire: an operation's exit store (release) orders its reads before our advance.
      const std::uint64_t a = s.announce.load(core::mo_acquire);
      if (a != inactive && (a >> 1) != e) all_current = false;
    });
    // acq_rel: readers of the new epoch (acquire) see everything the scan established.
    if (all_current && epoch_.compare_exchange_strong(e, e + 1, core::mo_acq_rel))
      tc.stats().epochs.add();
  }

  std::uint64_t safe_horizon() const { return epoch_.load(core::mo_acquire) + Early; }

  core::domain_core<slot> core_;
  core::atomic<std::uint64_t> epoch_{1};

 public:
  class guard;

  class handle : public core::handle_base<slot, core::batch_free> {
    using base = core::handle_base<slot, core::batch_free>;

   public:
    explicit handle(short_grace_ebr& d) : base(d.core_), d_(&d) {}
    ~handle() {
      this->release_safe(limbo_.collect(d_->safe_horizon()));
      this->domain_core_ref().donate(limbo_.take_all());
    }
    guard begin_op() { return guard(*this); }

   private:
    friend class guard;

    void enter() {
      slot& s = this->slot();
      std::uint64_t e = d_->epoch_.load(core::mo_acquire);
      for (;;) {
        s.announce.store((e << 1) | 1, core::mo_relaxed);
        // seq_cst fence: the announcement is visible before we read any node (Dekker with
        // try_advance).
        core::fence(core::mo_seq_cst);
        const std::uint64_t now = d_->epoch_.load(core::mo_acquire);
        if (now == e) break;
        e = now;
      }
      if (e != local_) {
        local_ = e;
        this->release_safe(limbo_.collect(e + Early));
        core::limbo_bag orphans = this->domain_core_ref().adopt();
        while (core::retired_node* n = orphans.pop_front()) limbo_.retire(n, e + 1);
      }
      d_->try_advance(e, this->tc());
    }

    void exit() {
      // release: this operation's reads happen before an advancer that sees us inactive.
      this->slot().announce.store(inactive, core::mo_release);
    }

    void retire(core::retired_node* n) {
      limbo_.retire(n, local_ + 1);
      this->tc().note_retired();
    }

    short_grace_ebr* d_;
    core::epoch_limbo limbo_;
    std::uint64_t local_ = 0;
  };

  class guard : public core::guard_base<guard> {
   public:
    explicit guard(handle& h) : h_(&h) { h.enter(); }
    ~guard() { h_->exit(); }
    guard(const guard&) = delete;
    guard& operator=(const guard&) = delete;

    template <class T>
    core::marked_ptr<T> protect(unsigned, const atomic_ptr<T>& src) {
      return src.load(core::mo_acquire);  // pairs with the release that published the node
    }
    void retire(node_base* n) { h_->retire(n); }

   private:
    handle* h_;
  };

  handle attach() { return handle(*this); }
};

// ---------------------------------------------------------------------------------------------
// PLANTED BUG: R with a protect() that does not validate. The pointer is read once and handed
// to hold(), which publishes it in slot i (HP: a release store, no fence, no re-read; IBR: a
// no-op, so the reserved upper era is never raised). A reclaimer scanning between the read and
// the publication, or before the publication becomes visible, misses the reader.
template <class R>
class unvalidated_protect {
 public:
  using config = typename R::config;
  using node_base = typename R::node_base;
  template <class T>
  using atomic_ptr = typename R::template atomic_ptr<T>;

  static constexpr std::string_view base_name = R::base_name;
  static constexpr reclaimer_traits traits = R::traits;

  explicit unvalidated_protect(config cfg = {}) : inner_(cfg) {}
  core::stats_snapshot stats() { return inner_.stats(); }
  unsigned protect_slots() const { return inner_.protect_slots(); }

  class guard {
   public:
    explicit guard(typename R::handle& h) : g_(h.begin_op()) {}
    guard(const guard&) = delete;
    guard& operator=(const guard&) = delete;

    template <class T>
    core::marked_ptr<T> protect(unsigned i, const atomic_ptr<T>& src) {
      const core::marked_ptr<T> p = src.load(core::mo_acquire);
      g_.hold(i, p.get());  // the bug: published, never re-read
      return p;
    }

    template <class F>
    decltype(auto) read_phase(F&& fn) {
      return g_.read_phase(std::forward<F>(fn));
    }
    template <class... T>
    void reserve(T*... p) {
      g_.reserve(p...);
    }
    template <class T>
    void hold(unsigned i, T* p) {
      g_.hold(i, p);
    }
    template <class T, class... Args>
    T* create(Args&&... args) {
      return g_.template create<T>(std::forward<Args>(args)...);
    }
    void retire(node_base* n) { g_.retire(n); }
    template <class T>
    void dispose(T* n) {
      g_.dispose(n);
    }

   private:
    typename R::guard g_;
  };

  class handle {
   public:
    explicit handle(unvalidated_protect& d) : h_(d.inner_.attach()) {}
    guard begin_op() { return guard(h_); }

   private:
    typename R::handle h_;
  };

  handle attach() { return handle(*this); }

 private:
  R inner_;
};

}  // namespace smr::test
