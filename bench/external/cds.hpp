// External baselines: libcds's hazard pointers (cds::gc::HP) and dynamic hazard pointers
// (cds::gc::DHP) (Debian: libcds-dev, 2.3) behind smr's reclaimer concept, so that they run on
// smr's own data structures in smrbench.
//
// What they are: Michael's hazard pointers as libcds implements them. HP gives every thread a
// fixed number of hazard pointers and a fixed-size retired array; when the array is full the
// retiring thread scans every thread's hazards and frees what nobody announced, then helps
// threads that detached with nodes left (help_scan). DHP (Herlihy, Luchangco, Moir's "pass the
// buck" style, as libcds implements it) grows both the hazards and the retired list on demand.
// protect() is libcds's own loop (Guard::protect): store the pointer in the hazard (release),
// `sync()` (an acq_rel RMW on a per-thread word: a full fence on x86), re-read the link, retry
// until it is unchanged; hold() is libcds's Guard::assign. Retirement calls HP::retire / DHP::retire
// with a callback; scans run inside those calls on the retiring thread, and the callbacks hand
// the nodes to smr's free path (external/collector.hpp), so frees are counted and timed like
// smr's own.
//
// Why it is safe: Michael's argument (reclaimers/hp.hpp, (1)-(2)) with libcds's fences: the
// reader's hazard store and re-read are separated by its sync(), the scanner's reads of the
// hazards follow its own sync() (scan() starts with one); on x86 both are locked instructions,
// so one of them sees the other's write. Under the C++ memory model alone an RMW on a
// thread-private word is not a store-load fence; that is libcds's choice, measured as it is.
//
// What it costs here, and limits: libcds's SMR objects are process-wide singletons. The first
// domain constructs it with the domain's configuration and the last one destroys it (unless the
// application had constructed it already); two domains alive at once share hazards and retired
// lists, so their unreclaimed counts are then approximate (safety is unaffected). A thread may
// hold one handle of these reclaimers at a time (libcds keeps one record per thread): a second
// is refused. HP refuses more than `max_threads` attached threads (libcds throws).
//
// When not to use it: as smr's hp (structures whose searches pass through unlinked nodes).
#pragma once

#include <cds/gc/dhp.h>
#include <cds/gc/hp.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <mutex>
#include <string_view>
#include <tuple>

#include "external/collector.hpp"
#include "external/rule_base.hpp"
#include "smr/core/domain.hpp"
#include "smr/detail/checks.hpp"

namespace smr::external {

// libcds's HP: K hazards per thread, at most `max_threads` threads, a fixed retired array.
struct cds_hp_gc {
  static constexpr std::string_view name = "cds_hp",
                                    summary = "libcds's hazard pointers, cds::gc::HP (external baseline): fixed hazards and retired array per thread";
  struct config {
    unsigned slots = 8;           // hazard pointers per thread (libcds's default)
    unsigned max_threads = 256;   // threads that may be attached at once
    std::size_t retired_capacity = 0;  // retired array per thread; 0: libcds's 2 x slots x max_threads
  };
  static constexpr std::tuple tunables{
      tunable{"slots", &config::slots, "hazard pointers per thread", 1u},
      tunable{"max_threads", &config::max_threads, "threads that may be attached at once", 1u},
      tunable{"retired_capacity", &config::retired_capacity, "retired pointers per thread before a scan; 0 = 2 x slots x max_threads"}};
  static config eager_config() { return {.slots = 8, .max_threads = 256, .retired_capacity = 0}; }

  using smr_type = cds::gc::hp::smr;
  using thread_data = cds::gc::hp::thread_data;
  using guard = cds::gc::hp::guard;
  using gc = cds::gc::HP;

  static void construct(const config& c) { smr_type::construct(c.slots, c.max_threads, c.retired_capacity); }
  static unsigned hazards_per_thread(const config& c) {
    return std::min<unsigned>(c.slots, static_cast<unsigned>(smr_type::instance().get_hazard_ptr_count()));
  }
};

// libcds's DHP: hazards and retired blocks grow on demand; no thread limit.
struct cds_dhp_gc {
  static constexpr std::string_view name = "cds_dhp",
                                    summary = "libcds's dynamic hazard pointers, cds::gc::DHP (external baseline): hazards and retired list grow on demand";
  struct config {
    unsigned slots = 8;  // hazard pointers each handle takes (libcds extends a thread's on demand)
  };
  static constexpr std::tuple tunables{tunable{"slots", &config::slots, "hazard pointers each thread takes", 1u}};
  static config eager_config() { return {.slots = 8}; }

  using smr_type = cds::gc::dhp::smr;
  using thread_data = cds::gc::dhp::thread_data;
  using guard = cds::gc::dhp::guard;
  using gc = cds::gc::DHP;

  static void construct(const config& c) { smr_type::construct(c.slots); }
  static unsigned hazards_per_thread(const config& c) { return c.slots; }
};

template <class Gc>
struct cds_rule_with : rule_base<Gc> {
  using typename rule_base<Gc>::config;
  static constexpr reclaimer_traits traits{.bounded_garbage = true, .slot_based_protection = true, .metrics = {.protect_retries = true}};
  using slot = pending_count;  // the thread's nodes libcds still holds (external/collector.hpp)

  template <class Base>
  class domain_state : public pending_domain<Base> {
   public:
    domain_state(const config& c, const core::instruments& inst) : pending_domain<Base>(c, inst) {
      acquire_singleton(c);
      slots_ = Gc::hazards_per_thread(c);
    }
    // No handle is left: the last domain destroys libcds's singleton, which frees every node
    // still retired (with no collector installed, the callback frees directly).
    ~domain_state() { release_singleton(); }

    unsigned protect_slots() const { return slots_; }

   private:
    struct singleton_use {
      std::mutex lock;
      unsigned domains = 0;
      bool ours = false;  // constructed by smr (else by the application, which destroys it)
    };
    static singleton_use& use() {
      static singleton_use u;
      return u;
    }
    static void acquire_singleton(const config& c) {
      singleton_use& u = use();
      std::lock_guard<std::mutex> g(u.lock);
      if (u.domains++ == 0 && !Gc::smr_type::isUsed()) {
        Gc::construct(c);
        u.ours = true;
      }
    }
    static void release_singleton() {
      singleton_use& u = use();
      std::lock_guard<std::mutex> g(u.lock);
      if (--u.domains == 0 && u.ours) {
        Gc::smr_type::destruct(true);
        u.ours = false;
      }
    }

    unsigned slots_ = 0;
  };

  template <class Base>
  class thread_state : public Base {
   public:
    using protection = typename Gc::guard*;  // what a protection slot keeps: its libcds hazard

   protected:
    explicit thread_state(typename Base::domain_type& d) : Base(d) {
      if (thread_registration<Gc>::count() != 0)
        detail::misuse("cds_hp/cds_dhp: a thread may hold one handle at a time (libcds keeps one record per thread)");
      thread_registration<Gc>::acquire(&Gc::smr_type::attach_thread);
      data_ = Gc::smr_type::tls();
      slots_ = d.protect_slots();
      for (unsigned i = 0; i < slots_; ++i) guards_[i] = data_->hazards_.alloc();
    }
    // Every protection_slot was released; the scan frees what nobody protects, libcds keeps the
    // rest for other threads' help_scan (or its own destruction).
    ~thread_state() {
      for (unsigned i = 0; i < slots_; ++i) data_->hazards_.free(guards_[i]);
      scan();
      thread_registration<Gc>::release(&Gc::smr_type::detach_thread);
    }

    void enter() {}
    void leave() {}

    protection protection_at(unsigned i) { return guards_[i]; }

    // libcds's Guard::protect on smr's link type.
    template <class T>
    core::marked_ptr<T> protect(protection g, const core::atomic_marked_ptr<T>& src) {
      // acquire: pairs with the release that published the node.
      core::marked_ptr<T> p = src.load(core::mo_acquire);
      for (;;) {
        if (p.get() == nullptr) {
          clear(g);
          return p;
        }
        g->set(static_cast<core::retired_node*>(p.get()));  // release store
        data_->sync();  // libcds's fence between the hazard store and the re-read
        // acquire: pairs with the release that published the node.
        const core::marked_ptr<T> q = src.load(core::mo_acquire);
        if (q == p) return q;
        this->tc().stats().protect_retries.add();
        p = q;
      }
    }
    // libcds's Guard::assign.
    void hold(protection g, const core::retired_node* n) {
      g->set(const_cast<core::retired_node*>(n));
      data_->sync();
    }
    void clear(protection g) { g->clear(); }  // release store of null

    void retire(core::retired_node* n) {
      hand_over(n, this->slot());
      this->tc().note_retired();
      detail::limbo_bag safe;
      {
        collector c(safe);  // a full retired array scans inside retire()
        Gc::gc::retire(n, &on_safe);
      }
      this->release_safe(std::move(safe));
    }

    std::size_t unreclaimed() const { return pending_of(const_cast<thread_state&>(*this).slot()); }

    void reclaim_step() { scan(); }

   private:
    void scan() {
      detail::limbo_bag safe;
      {
        collector c(safe);
        Gc::gc::scan();
      }
      this->release_safe(std::move(safe));
    }

    static void on_safe(void* p) {
      auto* n = static_cast<core::retired_node*>(p);
      pending_count& from = origin_of(n);
      collector::take(n);
      settled(from);
    }

    typename Gc::thread_data* data_;
    unsigned slots_ = 0;
    std::array<typename Gc::guard*, 64> guards_{};  // basic_domain::max_slots
  };
};

using cds_hp_rule = cds_rule_with<cds_hp_gc>;
using cds_dhp_rule = cds_rule_with<cds_dhp_gc>;

using cds_hp = basic_domain<cds_hp_rule>;
using cds_dhp = basic_domain<cds_dhp_rule>;

}  // namespace smr::external
