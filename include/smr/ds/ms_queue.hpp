// The Michael-Scott lock-free queue: Michael and Scott, "Simple, fast, and practical
// non-blocking and blocking concurrent queue algorithms" (PODC 1996), with hazard pointers as
// in Michael (TPDS 2004); the queue of Hart et al. (2007), §4.
//
// Algorithm: a singly linked list from head (a sentinel whose value is already consumed) to
// tail. enqueue links a node after the last one with a CAS on its next, then swings tail;
// dequeue moves head to the sentinel's successor, takes the value from that new sentinel and
// retires the old one. Anyone who finds tail lagging (tail->next non-null) helps swing it, and
// dequeue never moves head past tail.
//
// Meeting the reclaimer: each attempt is a read phase (enqueue: tail and tail->next; dequeue:
// head, tail, head->next) ending in reserve() of the nodes the CASes touch; the CASes and the
// value's move are the write phase; a failed CAS starts a new read phase. Slot-based
// protection (2 slots) keeps the classic re-validation, after protecting head->next, that head
// is unchanged: next is retired only after head has moved past it, so an unchanged head proves
// next was still in the queue when its protection was published. (Michael reads the value
// before the CAS, where that check is what makes the read safe; here the value is read only
// after a successful CAS on head, which proves the same, so the check just skips doomed CASes.)
//
// Requirements: T move-constructible; two protection slots; compatible with every reclaimer.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "smr/detail/chaos.hpp"
#include "smr/detail/compat_check.hpp"
#include "smr/core/concepts.hpp"
#include "smr/core/marked_ptr.hpp"
#include "smr/core/node.hpp"
#include "smr/core/traits.hpp"

namespace smr {

template <class T, reclaimer R>
class ms_queue {
 public:
  static constexpr std::string_view name = "ms_queue";
  // enqueue swings tail_ to a successor it read without protection.
  static constexpr ds_requirements requirements{.writes_unprotected_pointers = true, .protect_slots = 2};
  using handle = typename R::handle;
  using value_type = T;

  explicit ms_queue(R& domain) {
    detail::admit<requirements>(domain, "ms_queue");
    // The first sentinel holds no value. It comes from the reclaimer like every other node,
    // because the first dequeue retires it: tag_ibr_tpa must keep it in its type-preserving
    // pool (a reader reads its birth from the block after the free), and the era schemes stamp
    // its birth. No other thread can reach it before the queue is shared.
    handle h = domain.attach();
    node* sentinel = h.begin_op().template create<node>();
    head_.store(mptr(sentinel), core::mo_relaxed);
    tail_.store(mptr(sentinel), core::mo_relaxed);
  }
  ms_queue(const ms_queue&) = delete;
  ms_queue& operator=(const ms_queue&) = delete;
  ~ms_queue() {
    node* n = head_.load(core::mo_relaxed).get();
    while (n != nullptr) {
      node* next = n->next.load(core::mo_relaxed).get();
      core::free_node(n);
      n = next;
    }
  }

  void enqueue(handle& h, T value) {
    auto g = h.begin_op();
    node* fresh = g.template create<node>(std::move(value));
    auto slot = g.slot();
    for (;;) {
      const snapshot s = g.read_phase([&] {
        node* t = slot.protect(tail_).get();
        // acquire: if non-null we publish next through tail_, so we must see it built. If
        // null, t is the last node and still in the queue (only nodes with a successor leave).
        node* next = t->next.load(core::mo_acquire).get();
        g.reserve(t);
        return snapshot{nullptr, t, next};
      });
      detail::chaos_point();
      if (s.next != nullptr) {
        help_tail(s.tail, s.next);
        continue;
      }
      mptr expected(nullptr);
      // release: publishes the new node to readers that acquire t->next.
      if (s.tail->next.compare_exchange_strong(expected, mptr(fresh), core::mo_release)) {
        help_tail(s.tail, fresh);  // may fail: someone already helped
        return;
      }
    }
  }

  std::optional<T> dequeue(handle& h) {
    auto g = h.begin_op();
    // Not a structured binding: the read phase's lambda uses both, and Clang before 16 cannot
    // capture one.
    auto slots = g.template slots<2>();
    auto head_slot = slots[0];
    auto next_slot = slots[1];
    for (;;) {
      const snapshot s = g.read_phase([&] {
        node* hd = head_slot.protect(head_).get();
        // relaxed: tail is compared with head and used as a CAS operand, never dereferenced.
        // Whoever installed hd read tail at or past hd before its release CAS on head_, which
        // our acquire of head_ saw; by coherence we read that tail or a later one.
        node* t = tail_.load(core::mo_relaxed).get();
        node* next = next_slot.protect(hd->next).get();
        // Head moved on: next may be dequeued already, retry. relaxed: only an early exit, the
        // CAS on head_ is what decides.
        if (head_.load(core::mo_relaxed).get() != hd) next = hd = nullptr;
        g.reserve(hd, next);
        return snapshot{hd, t, next};
      });
      if (s.head == nullptr) continue;
      if (s.next == nullptr) return std::nullopt;
      detail::chaos_point();
      if (s.head == s.tail) {  // tail lags behind: help it before head passes it
        help_tail(s.tail, s.next);
        continue;
      }
      mptr expected(s.head);
      // release: readers that acquire head_ reach next and must see it built (we acquired it).
      if (head_.compare_exchange_strong(expected, mptr(s.next), core::mo_release)) {
        // The old sentinel first: a move that throws must not leak it.
        g.retire(s.head);
        // next is the new sentinel: only we read its value. It is protected (head was still hd
        // at our CAS, so next had not been dequeued, let alone retired).
        return std::optional<T>(std::move(s.next->value));
      }
    }
  }

  // ---- single-threaded inspection (after a run) ----

  // Values from the front of the queue to the back.
  template <class F>
  void for_each_unsafe(F&& fn) const {
    node* n = head_.load(core::mo_relaxed).get()->next.load(core::mo_relaxed).get();
    for (; n != nullptr; n = n->next.load(core::mo_relaxed).get()) fn(static_cast<const T&>(*n->value));
  }

  std::size_t size_unsafe() const {
    std::size_t n = 0;
    for_each_unsafe([&](const T&) { ++n; });
    return n;
  }

  // Empty if: head and tail set, no marked link, every node after the sentinel holds a value,
  // and tail is the last node, reached from head (at quiescence tail never lags).
  std::string check_invariants_unsafe() const {
    const mptr h = head_.load(core::mo_relaxed);
    const mptr t = tail_.load(core::mo_relaxed);
    if (h.get() == nullptr || t.get() == nullptr) return "head or tail is null";
    if (h.marked() || t.marked()) return "head or tail is marked";
    const node* last = h.get();
    std::size_t index = 0;
    for (mptr next = last->next.load(core::mo_relaxed); next.get() != nullptr; ++index) {
      if (next.marked()) return "marked link at position " + std::to_string(index);
      last = next.get();
      if (!last->value.has_value()) return "node without a value at position " + std::to_string(index);
      next = last->next.load(core::mo_relaxed);
    }
    if (last != t.get()) return "tail is not the last node";
    return {};
  }

 private:
  struct node : R::node_base {
    node() = default;
    explicit node(T&& v) : value(std::move(v)) {}
    // Engaged from enqueue on; the dequeuer that makes the node the sentinel moves out of it.
    std::optional<T> value;
    typename R::template atomic_ptr<node> next;
  };
  using mptr = core::marked_ptr<node>;

  struct snapshot {
    node* head;
    node* tail;
    node* next;
  };

  void help_tail(node* from, node* to) {
    mptr expected(from);
    // release: readers that acquire tail_ dereference `to` and must see it built (we acquired it).
    tail_.compare_exchange_strong(expected, mptr(to), core::mo_release);
  }

  typename R::template atomic_ptr<node> head_;
  typename R::template atomic_ptr<node> tail_;
};

}  // namespace smr
