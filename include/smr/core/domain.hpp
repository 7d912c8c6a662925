// The reclaimer skeleton: one domain, handle, guard, protection slot and guarded pointer, written
// once for every reclamation algorithm. An algorithm is a *rule* (see docs/architecture.md,
// "Writing a reclaimer"): it supplies only what differs, and basic_domain<Rule, FreePolicy> is
// the reclaimer users instantiate (smr::ebr is basic_domain<ebr_rule>, smr::ebr_af the same with
// amortized_free).
//
//   smr::ebr domain;                          // a domain: no global state, many may coexist
//   auto h = domain.attach();                 // per thread: registration (RAII handle)
//   {
//     auto g = h.begin_op();                  // an operation (RAII guard)
//     auto p = g.protect(head);               // guarded_ptr: owns its protection slot
//     auto [a, b] = g.template slots<2>();    // or a group of slots, for pointers that move
//     ... g.retire(unlinked);  g.template create<Node>(args...); ...
//   }
//
// What a rule supplies (all hooks protected; the handle derives from the rule's thread state):
//   name, summary, config, tunables (with their minimum values), traits, node_base,
//   atomic_ptr<T>, slot (its per-thread announcement, padded by the registry), eager_config()
//   (the tests' shrunk configuration), optional validate(config) that throws
//   std::invalid_argument for what the minimums cannot say;
//   domain_state<Base>: domain-wide state; derives from Base (the domain core), built from
//     (config, core::instruments); may add public queries (epoch(), era()) and protect_slots();
//   thread_state<Base>: per-thread state; derives from Base (detail::thread_base); hooks
//     enter() / leave()            the outermost operation begins / ends
//     retire(node_base*)           an unlinked node (already checked by the skeleton)
//     unreclaimed() const          nodes it holds in limbo
//     protect(link)                optional: how a link is read (default: acquire load)
//     protect_root(link)           optional: how a persistent structure's root is read
//                                  (default: protect; POIBR reserves its era here)
//     protection_at(i), protect(p, link), hold(p, node), clear(p)
//                                  slot-based rules (traits.slot_based_protection) instead
//     on_create(node)              optional: stamp the header of a new node (IBR eras)
//     create<T>(args), dispose(node)
//                                  optional: allocate nodes itself, and free one that was
//                                  never published (lfrc's type-stable pool)
//     read_phase(fn), reserve(nodes, n), in_read_phase()
//                                  optional: restartable read phases (NBR)
//     reclaim_step()               outside any operation: one step toward freeing everything
//                                  the thread holds (advance, scan, round); reclaim_now()
//                                  repeats it. Required of every rule that frees.
//   Its constructor is the attach hook and its destructor the detach hook: it must leave its
//   slot protecting nothing and free or donate every node it holds.
//
// The nesting rule (every reclaimer, every build): a begin_op() on a handle that already holds
// a guard joins the outer operation, like nested RCU read-side sections. Only the outermost
// guard's construction and destruction reach the rule; an inner guard's end releases nothing
// the outer guard still uses. Protection slots are owned by protection_slot, slot_group and
// guarded_ptr objects, never by an index in the user's hands: each releases its slots when
// destroyed, and asking for more slots than the domain gives a thread throws
// smr::slots_exhausted. A slot_ref is a copyable view of a slot owned elsewhere (a group's
// element), valid while its owner lives.
//
// Misuse the skeleton refuses is listed in detail/checks.hpp and docs/guide.md.
#pragma once

#include "smr/detail/require_cpp20.hpp"

#include <array>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "smr/core/free_policy.hpp"
#include "smr/core/marked_ptr.hpp"
#include "smr/core/node.hpp"
#include "smr/core/stats.hpp"
#include "smr/core/instruments.hpp"
#include "smr/core/traits.hpp"
#include "smr/detail/checks.hpp"
#include "smr/detail/domain_core.hpp"
#include "smr/detail/thread_base.hpp"

namespace smr {

// Thrown when a thread asks for more protection slots at once than its domain gives a thread.
class slots_exhausted : public std::length_error {
 public:
  using std::length_error::length_error;
};

template <class Domain, std::size_t N>
class slot_group;

namespace detail {

// "ebr" + "_af" at compile time, so every variant has its name without writing it.
template <const std::string_view&... Parts>
struct joined_name {
  static constexpr std::size_t size = (Parts.size() + ... + 0);
  static constexpr std::array<char, size + 1> storage = [] {
    std::array<char, size + 1> a{};
    std::size_t i = 0;
    ((
         [&] {
           for (char c : Parts) a[i++] = c;
         }()),
     ...);
    return a;
  }();
  static constexpr std::string_view value{storage.data(), size};
};

// What a protection_slot keeps to reach its slot: the rule's (public) `protection` type for
// slot-based schemes, nothing otherwise.
struct no_protection {};
// A node type to ask a rule's hooks questions with.
template <class NodeBase>
struct probe_node : NodeBase {};

// Whether a rule's thread state has a protect(link) hook. The hooks are protected, so the
// question is asked from a class derived from the state.
template <class State, class Link>
struct protect_hook_probe : State {
  static constexpr bool present() {
    return requires(protect_hook_probe& p, const Link& link) { p.protect(link); };
  }
};

// What a slot_ref keeps instead of the handle's address when protecting needs no thread state.
struct no_handle {};
template <bool SlotBased, class State>
struct protection_of {
  using type = no_protection;
};
template <class State>
struct protection_of<true, State> {
  using type = typename State::protection;
};

// now + timeout on the steady clock, saturating: a timeout too long to add means no deadline
// (the default, duration::max(), must not overflow into the past).
inline std::chrono::steady_clock::time_point deadline_after(std::chrono::nanoseconds timeout) {
  using clock = std::chrono::steady_clock;
  const clock::time_point now = clock::now();
  if (timeout <= std::chrono::nanoseconds::zero()) return now;
  if (timeout >= std::chrono::duration_cast<std::chrono::nanoseconds>(clock::time_point::max() - now)) return clock::time_point::max();
  return now + std::chrono::duration_cast<clock::duration>(timeout);
}

}  // namespace detail

// What most rules share, to inherit from: plain nodes, marked links, no domain-wide state.
struct rule_defaults {
  using node_base = core::retired_node;
  template <class T>
  using atomic_ptr = core::atomic_marked_ptr<T>;
  template <class Base>
  struct domain_state : Base {
    using Base::Base;
  };
};

template <class Rule, class FreePolicy = core::batch_free>
class basic_domain : public Rule::template domain_state<detail::domain_core<Rule>> {
  using state = typename Rule::template domain_state<detail::domain_core<Rule>>;
  static_assert(std::is_base_of_v<detail::domain_core<Rule>, state>,
                "a rule's domain_state<Base> must derive from Base");
  static_assert(Rule::traits.batched_frees || std::is_same_v<FreePolicy, core::batch_free>,
                "this reclaimer frees each node when its last reference goes: no free policy applies");

 public:
  using rule = Rule;
  using free_policy = FreePolicy;
  using config = typename Rule::config;
  using node_base = typename Rule::node_base;
  template <class T>
  using atomic_ptr = typename Rule::template atomic_ptr<T>;

  static constexpr std::string_view base_name = Rule::name;
  static constexpr std::string_view name = detail::joined_name<Rule::name, FreePolicy::suffix>::value;
  static constexpr std::string_view summary = detail::joined_name<Rule::summary, FreePolicy::summary_suffix>::value;
  static constexpr reclaimer_traits traits = Rule::traits;

  // Throws std::invalid_argument for a configuration the rule cannot run with.
  // `inst`: a timeline and/or a free profile to record into (a timeline pointer converts).
  explicit basic_domain(config cfg = {}, core::instruments inst = {}) : state(validated(cfg), inst) {
    if (protect_slots() > max_slots)
      throw std::invalid_argument(std::string(Rule::name) + ": at most " + std::to_string(max_slots) +
                                  " protection slots per thread");
  }

  // Before the rule's state frees anything: a thread still attached would read freed memory.
  ~basic_domain() { this->refuse_attached_handles(); }

  // Protection slots one thread may hold at once, at most (a bit each in the handle).
  static constexpr unsigned max_slots = 64;

  class handle;
  class guard;
  class slot_ref;
  class protection_slot;
  template <std::size_t N>
  using slot_group = smr::slot_group<basic_domain, N>;
  template <class T>
  class guarded_ptr;

  // Registers the calling thread. The handle belongs to this thread only.
  handle attach() { return handle(*this); }

  // The barrier for what exited threads left behind: attaches the calling thread for the call
  // and frees every node that detached handles handed to the domain, waiting (up to `timeout`)
  // for live threads to release their protection. Returns whether none is left. Nodes retired
  // by threads still attached stay theirs: each frees its own with handle::reclaim_now(). With
  // qsbr the calling thread must not also hold an attached handle of this domain (it would be
  // online and never quiescent for the call); docs/guide.md, "Reclaiming now".
  bool reclaim_now(std::chrono::nanoseconds timeout = std::chrono::nanoseconds::max()) {
    return attach().reclaim_now(timeout);
  }

  // Protection slots each thread may hold at once (slot-based schemes); 0 means unlimited.
  unsigned protect_slots() const {
    if constexpr (traits.slot_based_protection) {
      return state::protect_slots();
    } else {
      return 0;
    }
  }

 private:
  // Every tunable at least its declared minimum, then the rule's own checks if it has any.
  static const config& validated(const config& cfg) {
    std::apply([&](const auto&... t) { (check_minimum(cfg, t), ...); }, Rule::tunables);
    if constexpr (requires { Rule::validate(cfg); }) Rule::validate(cfg);
    return cfg;
  }

  template <class T>
  static void check_minimum(const config& cfg, const tunable<config, T>& t) {
    if constexpr (!std::is_same_v<T, bool>) {
      if (cfg.*(t.member) < t.minimum) {
        std::string least;
        if constexpr (requires { t.minimum.count(); }) least = std::to_string(t.minimum.count());
        else least = std::to_string(t.minimum);
        throw std::invalid_argument(std::string(Rule::name) + ": " + std::string(t.name) + " must be at least " + least);
      }
    }
  }
};

// ---------------------------------------------------------------------------------------------
// The per-thread handle: the rule's thread state plus nesting, slots and the misuse checks.
template <class Rule, class FreePolicy>
class basic_domain<Rule, FreePolicy>::handle
    : public Rule::template thread_state<detail::thread_base<basic_domain<Rule, FreePolicy>>> {
  using state = typename Rule::template thread_state<detail::thread_base<basic_domain>>;
  static constexpr bool slot_based = traits.slot_based_protection;

 public:
  explicit handle(basic_domain& d) : state(d) {
    static_assert(rule_allocates() == Rule::traits.type_stable_memory,
                  "a rule that allocates its nodes itself (create/dispose hooks) must say so in its "
                  "traits (type_stable_memory), and only such a rule may");
    if constexpr (slot_based) {
      const unsigned n = d.protect_slots();
      free_slots_ = n == max_slots ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
    }
  }
  ~handle() {
    if (this->depth_ != 0) detail::misuse("a handle was destroyed inside an operation (a guard outlived it)");
    // Every build: the rule's thread state may keep thread-local state (NBR's signal context is
    // on its owner's list), and a destruction is rare enough for the compare to cost nothing.
    if (!this->owned_by_this_thread())
      detail::misuse("a handle was destroyed by a thread other than the one that attached it");
    // Every build for the slot-based schemes, whose slot bits are kept anyway (others: checked
    // builds): the slot would give its bits back to a dead handle, and clear a hazard that a
    // thread reusing this registry entry owns by then.
    if (live_slots() != 0) detail::misuse("a protection slot or guarded_ptr outlived its handle");
    this->begin_detach();  // before the rule's destructor runs (detail/thread_base.hpp)
  }
  handle(const handle&) = delete;
  handle& operator=(const handle&) = delete;

  // Starts an operation; nested calls join the outermost one.
  guard begin_op() { return guard(*this); }

  // Retired nodes this thread has not freed yet (limbo plus the free policy's backlog).
  std::size_t unreclaimed() const { return state::unreclaimed() + this->pending_frees(); }

  // The barrier (folly's hazptr_cleanup, liburcu's rcu_barrier, ck_epoch_barrier): frees every
  // node this thread retired, and any that exited threads left to the domain, as soon as no
  // thread protects it, waiting up to `timeout` for protections to be released. Returns true
  // when this thread holds no retired node any more, false on timeout (what is left is still
  // protected: a thread stalled in an operation, or for qsbr an online thread that declares no
  // quiescent state) or for `none`, which never frees. Outside operations only: inside one it
  // would wait for itself. What each reclaimer waits for: docs/guide.md, "Reclaiming now".
  bool reclaim_now(std::chrono::nanoseconds timeout = std::chrono::nanoseconds::max()) {
    if (detail::checks_on()) check_use();
    if (this->depth_ != 0) detail::misuse("reclaim_now() inside an operation (it would wait for the operation itself)");
    if constexpr (!traits.frees) {
      (void)timeout;
      return unreclaimed() == 0 && !this->domain().has_orphans();
    } else {
      static_assert(requires { this->state::reclaim_step(); },
                    "a rule that frees must supply reclaim_step() (core/domain.hpp)");
      const auto deadline = detail::deadline_after(timeout);
      std::uint64_t freed = this->tc().stats().freed.read();
      for (unsigned round = 0;; ++round) {
        state::reclaim_step();
        this->flush_frees();
        // Orphans count too: a step adopts them only once its rule allows (epoch rules when the
        // epoch moved), so a thread with an empty limbo must still step until they are gone.
        if (unreclaimed() == 0 && !this->domain().has_orphans()) return true;
        if (std::chrono::steady_clock::now() >= deadline) return false;
        // A step that freed something made progress: no back-off then. A list whose deleters
        // each retire the next node frees one node per step, and slept 100 us per node.
        const std::uint64_t freed_now = this->tc().stats().freed.read();
        if (freed_now != freed) round = 0;
        freed = freed_now;
        // Protections are released by other threads: yield first, then stop spinning.
        if (round < 16) std::this_thread::yield();
        else std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
    }
  }

  // Whether protecting reads thread state: slot-based rules, rules with a protect(link) hook
  // (IBR's reservation), and checked builds (protect() outside an operation). Otherwise a
  // slot_ref is empty and protecting is one acquire load: epochs and NBR pay nothing for slots.
  static constexpr bool has_protect_hook =
      detail::protect_hook_probe<state, atomic_ptr<detail::probe_node<node_base>>>::present();
  static constexpr bool protect_needs_handle = slot_based || detail::checked_build || has_protect_hook;

 private:
  friend class guard;
  friend class slot_ref;
  friend class protection_slot;
  template <class, std::size_t>
  friend class smr::slot_group;

  // What a slot_ref keeps to reach its slot quickly: the rule's handle on it (HP: the hazard's
  // address), or nothing for schemes without per-pointer protection.
  using protection_type = typename detail::protection_of<slot_based, state>::type;

  using handle_ref = std::conditional_t<protect_needs_handle, handle*, detail::no_handle>;

  void enter_op() {
    if (detail::checks_on()) check_use();
    if (this->depth_++ == 0) {
      this->run_free_policy();
      state::enter();
    }
  }

  void leave_op() {
    if (--this->depth_ != 0) return;
    if constexpr (detail::checked_build) {
      if (live_slots() != 0) detail::misuse("a protection slot or guarded_ptr outlived its operation");
    }
    state::leave();
  }

  void check_use() {
    if (!this->owned_by_this_thread())
      detail::misuse("a handle was used by a thread other than the one that attached it (attach once per thread)");
    if constexpr (requires { this->state::in_read_phase(); }) {
      if (state::in_read_phase()) detail::misuse("begin_op() inside a read phase");
    }
  }

  // ---- protection ----

  unsigned live_slots() const {
    if constexpr (slot_based) {
      return this->domain().protect_slots() - static_cast<unsigned>(std::popcount(free_slots_));
    } else {
      return counted_slots_;
    }
  }

  // Takes N free slots (lowest first) in one step: their views, and their bits in `taken`.
  // Nothing is taken if fewer than N are free; the throw stays out of line so this inlines.
  template <std::size_t N>
  std::array<slot_ref, N> take_slots(std::uint64_t& taken) {
    if constexpr (slot_based) {
      static_assert(N <= max_slots);
      // Fast path: the N lowest slots are free (no other slot is held), so the indices are
      // constants and the rule's protection_at folds.
      constexpr std::uint64_t lowest = N == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << N) - 1;
      if ((free_slots_ & lowest) == lowest) [[likely]] {
        free_slots_ &= ~lowest;
        taken = lowest;
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
          return std::array<slot_ref, N>{slot_ref(self_ref(), state::protection_at(I))...};
        }(std::make_index_sequence<N>{});
      }
      std::uint64_t free = free_slots_;
      auto next = [&] {
        if (free == 0) [[unlikely]]
          no_free_slot();
        const unsigned i = static_cast<unsigned>(std::countr_zero(free));
        free &= free - 1;
        return slot_ref(self_ref(), state::protection_at(i));
      };
      // Braced initialisers run left to right: slot i gets the i-th lowest free bit.
      std::array<slot_ref, N> refs = [&]<std::size_t... I>(std::index_sequence<I...>) {
        return std::array<slot_ref, N>{((void)I, next())...};
      }(std::make_index_sequence<N>{});
      taken = free_slots_ & ~free;
      free_slots_ = free;
      return refs;
    } else {
      if constexpr (detail::checked_build) counted_slots_ += N;
      taken = 0;
      return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return std::array<slot_ref, N>{((void)I, slot_ref(self_ref(), {}))...};
      }(std::make_index_sequence<N>{});
    }
  }

  // The slots protect nothing any more and go back to the free list.
  template <std::size_t N>
  void give_slots(std::uint64_t taken, const slot_ref* refs) {
    if constexpr (slot_based) {
      for (std::size_t i = 0; i < N; ++i) state::clear(refs[i].p_);
      free_slots_ |= taken;
    } else {
      (void)taken;
      (void)refs;
      if constexpr (detail::checked_build) counted_slots_ -= N;
    }
  }

  handle_ref self_ref() {
    if constexpr (protect_needs_handle) {
      return this;
    } else {
      return {};
    }
  }

  [[noreturn, gnu::noinline, gnu::cold]] void no_free_slot() const {
    throw slots_exhausted(std::string(name) + ": all " + std::to_string(this->domain().protect_slots()) +
                          " protection slots of this thread are in use; give the domain more "
                          "(config .slots) or release a slot first");
  }

  // Protecting without thread state (protect_needs_handle is false).
  template <class T>
  static core::marked_ptr<T> load_link(const atomic_ptr<T>& link) {
    // acquire: pairs with the release store or CAS that published the node.
    return link.load(core::mo_acquire);
  }

  template <class T>
  core::marked_ptr<T> protect_link(protection_type p, const atomic_ptr<T>& link) {
    if constexpr (detail::checked_build) {
      if (this->depth_ == 0) detail::misuse("protect() outside an operation");
    }
    if constexpr (slot_based) {
      return state::protect(p, link);
    } else if constexpr (has_protect_hook) {
      (void)p;
      return state::protect(link);
    } else {
      (void)p;
      return load_link(link);
    }
  }

  // The root of a persistent structure: the rule's protect_root(link) hook (POIBR's snapshot
  // of era and root), else an ordinary protect.
  template <class T>
  core::marked_ptr<T> protect_root_link(protection_type p, const atomic_ptr<T>& link) {
    if constexpr (requires { this->state::protect_root(link); }) {
      if constexpr (detail::checked_build) {
        if (this->depth_ == 0) detail::misuse("protect_root() outside an operation");
      }
      (void)p;
      return state::protect_root(link);
    } else {
      return protect_link(p, link);
    }
  }

  void hold_node(protection_type p, const core::retired_node* n) {
    if constexpr (slot_based) state::hold(p, n);
  }

  void announce_node(protection_type p, const core::retired_node* n) {
    if constexpr (requires { state::announce(p, n); }) state::announce(p, n);
    else hold_node(p, n);
  }

  void clear_slot(protection_type p) {
    if constexpr (slot_based) state::clear(p);
  }

  // ---- the rest of the guard's vocabulary ----

  template <class F>
  decltype(auto) run_read_phase(F& fn) {
    if constexpr (requires { this->state::read_phase(fn); }) {
      return state::read_phase(fn);
    } else {
      return fn();
    }
  }

  void reserve_nodes(const core::retired_node* const* nodes, unsigned n) {
    if constexpr (requires { this->state::reserve(nodes, n); }) state::reserve(nodes, n);
  }

  // A rule may allocate its nodes itself: then it has both create<T>(args) and dispose(n) (for a
  // node never published), and dispose's presence says so (GCC cannot ask about a member
  // template that may not exist). Otherwise the node comes from construct_node and the rule
  // may stamp it. dispose is protected, so it is asked through a handle; a function body sees
  // the handle complete, and Clang answers no for every rule while the class is incomplete.
  static constexpr bool rule_allocates() {
    return requires(handle& h, node_base* n) { h.state::dispose(n); };
  }

  template <class T, class... Args>
  T* create_node(Args&&... args) {
    // NBR: an allocation inside a read phase could be jumped out of (the allocator's lock held)
    // or leak on the restart. One bool test, every build.
    if constexpr (requires { this->in_read_phase(); }) {
      if (this->in_read_phase()) detail::misuse("nbr: create() inside a read phase (allocate in the write phase)");
    }
    if constexpr (rule_allocates()) {
      return state::template create<T>(std::forward<Args>(args)...);
    } else {
      T* n = core::construct_node<T>(std::forward<Args>(args)...);
      if constexpr (requires { this->state::on_create(n); }) state::on_create(n);
      return n;
    }
  }

  void dispose_node(node_base* n) {
    if constexpr (rule_allocates()) state::dispose(n);
    else core::free_node(n);
  }

  void retire_node(node_base* n) {
    // Checked mode: one exchange also catches two threads retiring the node at once.
    if (detail::checks_on() ? !core::claim_retired_mark(n) : core::is_retired(n))
      detail::misuse("a node was retired twice (or retired after it was freed)");
    if (n->destroy == nullptr)
      detail::misuse("retire() of a node that create() did not allocate; pass a deleter: retire(n, deleter)");
    state::retire(n);
  }

  std::uint64_t free_slots_ = 0;  // slot-based: bit i set while slot i is free
  unsigned counted_slots_ = 0;    // others, checked builds: protection_slots alive
};

// ---------------------------------------------------------------------------------------------
// An operation (RAII). Everything a data structure does to shared nodes happens inside one.
template <class Rule, class FreePolicy>
class basic_domain<Rule, FreePolicy>::guard {
 public:
  explicit guard(handle& h) : h_(&h) { h.enter_op(); }
  ~guard() { h_->leave_op(); }
  guard(const guard&) = delete;
  guard& operator=(const guard&) = delete;

  // One protection slot, released when the returned object is destroyed.
  protection_slot slot() { return protection_slot(*h_); }

  // N slots at once, released together with the group: `auto [pred, cur] =
  // g.template slots<2>();` names its elements (slot_ref views), `slots[i]` indexes them.
  template <std::size_t N>
  slot_group<N> slots() {
    return slot_group<N>(*h_);
  }

  // Reads `link` and keeps its target protected for as long as the result lives.
  template <class T>
  guarded_ptr<T> protect(const atomic_ptr<T>& link) {
    protection_slot s(*h_);
    const core::marked_ptr<T> p = s.protect(link);
    return guarded_ptr<T>(std::move(s), p);
  }

  // Runs a read phase: fn may only read shared memory and write locals; it ends with
  // reserve(...) naming every node the following write phase will touch. Only NBR restarts fn
  // (and then fn must follow the rules in reclaimers/nbr.hpp).
  template <class F>
  decltype(auto) read_phase(F&& fn) {
    return h_->run_read_phase(fn);
  }

  // Ends a read phase reserving the nodes the write phase touches (null allowed); a no-op for
  // every reclaimer but NBR.
  template <class... T>
  void reserve(T*... nodes) {
    const core::retired_node* list[sizeof...(T) + 1] = {static_cast<const core::retired_node*>(nodes)...};
    h_->reserve_nodes(list, sizeof...(T));
  }

  // Allocates a node through the reclaimer (IBR-family schemes stamp its birth era, lfrc takes
  // it from its type-stable pool).
  template <class T, class... Args>
  T* create(Args&&... args) {
    static_assert(std::is_base_of_v<node_base, T>, "a node type must derive from its reclaimer's node_base");
    return h_->template create_node<T>(std::forward<Args>(args)...);
  }

  // An unlinked node: freed once no thread can reach it. Must come from create().
  template <class T>
  void retire(T* n) {
    static_assert(std::is_base_of_v<node_base, T>, "a node type must derive from its reclaimer's node_base");
    h_->retire_node(n);
  }

  // An unlinked node allocated by the user: freed with Deleter{}(n) once no thread can reach it.
  // The deleter must be stateless (it is rebuilt at free time).
  template <class T, class Deleter>
  void retire(T* n, Deleter) {
    static_assert(std::is_base_of_v<node_base, T>, "a node type must derive from its reclaimer's node_base");
    static_assert(std::is_empty_v<Deleter> && std::is_default_constructible_v<Deleter>,
                  "retire(n, deleter): the deleter must be stateless and default-constructible");
    static_assert(!handle::rule_allocates(),
                  "retire(n, deleter): this reclaimer allocates its nodes itself (type-stable memory: "
                  "lfrc, tag_ibr_tpa), so nodes the user allocated cannot be retired");
    if (!core::is_retired(n)) n->destroy = &core::destroy_with_deleter<T, Deleter>;
    h_->retire_node(n);
  }

  // Frees a node that no other thread ever saw (e.g. the node of a failed insert).
  template <class T>
  void dispose(T* n) {
    if (core::is_retired(n)) detail::misuse("dispose() of a node that was already retired");
    if constexpr (!handle::rule_allocates()) {
      if (n->destroy == nullptr) detail::misuse("dispose() of a node that create() did not allocate; delete it yourself");
    }
    h_->dispose_node(n);
  }

 private:
  handle* h_;
};

// ---------------------------------------------------------------------------------------------
// A view of one protection slot of the thread: what protects. Copyable; valid while the
// protection_slot or slot_group that owns the slot lives. For schemes without per-pointer
// protection (epochs, IBR intervals, NBR) it is the handle's address and nothing else.
template <class Rule, class FreePolicy>
class basic_domain<Rule, FreePolicy>::slot_ref {
  using protection = typename handle::protection_type;

 public:
  // Reads `link` and protects its target until the slot protects something else or is
  // released. Slot-based schemes validate: the result was still in `link` after the
  // protection was visible, mark bit included.
  template <class T>
  core::marked_ptr<T> protect(const atomic_ptr<T>& link) {
    if constexpr (handle::protect_needs_handle) {
      return h_->protect_link(p_, link);
    } else {
      return handle::load_link(link);
    }
  }

  // Reads the root of a persistent structure (ds_requirements::persistent), as every attempt of
  // its operations begins: POIBR reserves the era in which the root was read, which covers every
  // node reachable from it until the operation ends; every other reclaimer protects the root as
  // protect() does.
  template <class T>
  core::marked_ptr<T> protect_root(const atomic_ptr<T>& link) {
    if constexpr (handle::protect_needs_handle) {
      return h_->protect_root_link(p_, link);
    } else {
      return handle::load_link(link);
    }
  }

  // Protects `n`, which the caller already protects through another slot of this thread (or
  // which no other thread has seen yet): no validation.
  template <class T>
  void hold(T* n) {
    if constexpr (traits.slot_based_protection) h_->hold_node(p_, static_cast<const core::retired_node*>(n));
  }

  // For code that validates a protection itself (smr/hazard_pointer.hpp's try_protect): publishes
  // n as protect() does before its re-read; the caller then runs a seq_cst fence, re-reads the
  // link, and may keep n only if the link still holds it. Rules with nothing cheaper hold(n).
  template <class T>
  void announce(T* n) {
    if constexpr (traits.slot_based_protection) h_->announce_node(p_, static_cast<const core::retired_node*>(n));
  }

  // Protects nothing any more (the slot stays owned).
  void reset() {
    if constexpr (traits.slot_based_protection) h_->clear_slot(p_);
  }

 private:
  friend class handle;
  friend class protection_slot;
  template <class, std::size_t>
  friend class smr::slot_group;
  slot_ref(typename handle::handle_ref h, protection p) : h_(h), p_(p) {}

  [[no_unique_address]] typename handle::handle_ref h_;
  [[no_unique_address]] protection p_;
};

// ---------------------------------------------------------------------------------------------
// One protection slot of the thread, owned by this object (RAII, movable, swappable).
template <class Rule, class FreePolicy>
class basic_domain<Rule, FreePolicy>::protection_slot : public slot_ref {
 public:
  explicit protection_slot(handle& h) : protection_slot(h, std::uint64_t{0}) {}
  protection_slot(protection_slot&& o) noexcept : slot_ref(o), taken_(o.taken_) { o.disown(); }
  protection_slot& operator=(protection_slot&& o) noexcept {
    if (this != &o) {
      release();
      static_cast<slot_ref&>(*this) = o;
      taken_ = o.taken_;
      o.disown();
    }
    return *this;
  }
  ~protection_slot() { release(); }

  friend void swap(protection_slot& a, protection_slot& b) noexcept {
    std::swap(static_cast<slot_ref&>(a), static_cast<slot_ref&>(b));
    std::swap(a.taken_, b.taken_);
  }

 private:
  // `taken` is filled by take_slots before the member is initialised from it.
  protection_slot(handle& h, std::uint64_t taken)
      : slot_ref(h.template take_slots<1>(taken)[0]), taken_(taken) {}

  // Without a handle there is nothing to give back (give_slots would do nothing).
  void release() {
    if constexpr (handle::protect_needs_handle) {
      if (this->h_ == nullptr) return;
      this->h_->template give_slots<1>(taken_, this);
      this->h_ = nullptr;
    }
  }
  void disown() {
    if constexpr (handle::protect_needs_handle) this->h_ = nullptr;
  }

  std::uint64_t taken_;  // this slot's bit in the handle's free list (slot-based schemes)
};

// ---------------------------------------------------------------------------------------------
// A pointer read from a shared link together with the slot that protects it (RAII, move-only).
template <class Rule, class FreePolicy>
template <class T>
class basic_domain<Rule, FreePolicy>::guarded_ptr {
 public:
  guarded_ptr(protection_slot&& slot, core::marked_ptr<T> p) : slot_(std::move(slot)), ptr_(p) {}
  guarded_ptr(guarded_ptr&&) noexcept = default;
  guarded_ptr& operator=(guarded_ptr&&) noexcept = default;

  T* get() const { return ptr_.get(); }
  T* operator->() const { return ptr_.get(); }
  T& operator*() const { return *ptr_.get(); }
  bool marked() const { return ptr_.marked(); }
  core::marked_ptr<T> marked_ptr() const { return ptr_; }
  explicit operator bool() const { return ptr_.get() != nullptr; }

  // Re-reads `link` into this pointer, reusing its slot.
  guarded_ptr& protect(const atomic_ptr<T>& link) {
    ptr_ = slot_.protect(link);
    return *this;
  }

  // Drops the protection (the pointer becomes null; the slot stays owned until destruction).
  void reset() {
    slot_.reset();
    ptr_ = {};
  }

 private:
  protection_slot slot_;
  core::marked_ptr<T> ptr_;
};

// ---------------------------------------------------------------------------------------------
// N protection slots taken and released together (RAII, neither copied nor moved): what
// g.template slots<N>() returns. Its elements are slot_ref views, by index or by name:
//   auto [pred, cur] = g.template slots<2>();     auto s = g.template slots<3>(); s[i] ...
template <class Domain, std::size_t N>
class slot_group {
  using handle = typename Domain::handle;
  using slot_ref = typename Domain::slot_ref;

 public:
  explicit slot_group(handle& h) : h_(&h), refs_(h.template take_slots<N>(taken_)) {}
  ~slot_group() { h_->template give_slots<N>(taken_, refs_.data()); }
  slot_group(const slot_group&) = delete;
  slot_group& operator=(const slot_group&) = delete;

  static constexpr std::size_t size() { return N; }

  // Without per-pointer protection every view is the same (the handle, or nothing), so it is
  // made from the group's handle and no element is read: a lookup by a position that changes
  // at run time (hm_list's rotating window) then costs no load.
  slot_ref operator[](std::size_t i) const {
    if constexpr (detail::checked_build) {
      if (i >= N) detail::misuse("slot_group index out of range");
    }
    if constexpr (Domain::traits.slot_based_protection) {
      return refs_[i];
    } else {
      return slot_ref(h_->self_ref(), {});
    }
  }

  // The tuple protocol, for structured bindings.
  template <std::size_t I>
  slot_ref get() const {
    static_assert(I < N, "slot_group index out of range");
    return refs_[I];
  }

 private:
  handle* h_;
  std::uint64_t taken_ = 0;
  std::array<slot_ref, N> refs_;
};

}  // namespace smr

template <class Domain, std::size_t N>
struct std::tuple_size<smr::slot_group<Domain, N>> : std::integral_constant<std::size_t, N> {};
template <std::size_t I, class Domain, std::size_t N>
struct std::tuple_element<I, smr::slot_group<Domain, N>> {
  using type = typename Domain::slot_ref;
};
