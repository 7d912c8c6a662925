// Harris-Michael ordered list set: Michael, "High performance dynamic lock-free hash tables and
// list-based sets" (SPAA 2002), after Harris (DISC 2001). The restart-from-root variant
// (`hm_list_rr`) is the form the NBR paper uses in its experiment E4 (Singh et al. 2021, §5.2).
//
// Algorithm: a sorted, null-terminated singly linked list. remove marks the low bit of the
// victim's next link (logical deletion, the linearization point), then unlinks it with a CAS
// on its predecessor's link. search unlinks every marked node it meets (an auxiliary write) and
// retires it; Michael's search then continues from the same predecessor, the _rr variant
// restarts from the head instead. Whoever's unlink CAS succeeds retires the node, once.
//
// Meeting the reclaimer: every traversal is one read phase that ends in reserve(pred, cur,
// next); the CASes (insert, mark, unlink) form the write phase that follows it, and after an
// auxiliary unlink a new read phase starts (from pred, or from the head for _rr). An operation
// owns a group of three protection slots (made before any read phase, so a restart skips no
// destructor); the window names them by their position in the group (0-2), and the positions
// rotate as the window moves, with no copies of nodes. (Positions, not slot views, because a
// window of three 16-byte HP views costs hash_map about 40% in store-forwarding stalls when
// search() returns it; measured in the note of issue 9.) protect() of a
// link validates that the link still holds the value read, mark included, so a successor read
// unmarked from a protected node was reachable at that moment (a node is always marked before
// it is unlinked). A marked successor is only used as a CAS operand, never dereferenced, and a
// CAS expecting an unmarked `cur` fails if pred was marked meanwhile; every failed CAS restarts
// from the head.
//
// Requirements: keys are copyable and ordered by operator<; three protection slots; searches
// only pass through validated nodes; continues_after_write unless restart-from-root, so only
// the _rr variant is accepted by NBR. Handles counted links (lfrc): it writes only pointers to
// nodes it holds (cur and next are protected, fresh is its own) and its teardown releases the
// head.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "smr/detail/chain_set.hpp"
#include "smr/detail/chaos.hpp"
#include "smr/detail/compat_check.hpp"
#include "smr/detail/sorted_list_inspection.hpp"
#include "smr/core/concepts.hpp"
#include "smr/core/marked_ptr.hpp"
#include "smr/core/node.hpp"
#include "smr/core/traits.hpp"

namespace smr {

namespace detail {

// One Harris-Michael list on its own head link: the algorithm, shared by hm_list (one chain)
// and hash_map (one chain per bucket). Every operation runs inside the caller's guard.
template <class K, reclaimer R, bool RestartFromRoot>
class hm_chain {
 public:
  using key_type = K;
  using domain_type = R;
  static constexpr std::string_view set_name = RestartFromRoot ? "hm_list_rr" : "hm_list",
                                    map_name = RestartFromRoot ? "hash_map_rr" : "hash_map";
  static constexpr ds_requirements requirements{
      .traverses_unlinked_nodes = false,
      .continues_after_write = !RestartFromRoot,
      .protect_slots = 3,
      .handles_counted_links = true,
  };

  hm_chain() = default;
  hm_chain(const hm_chain&) = delete;
  hm_chain& operator=(const hm_chain&) = delete;
  // Single-threaded: frees every node still linked (retired ones belong to the reclaimer).
  ~hm_chain() { free_list_nodes(head_); }

  template <class G>
  bool insert(G& g, const K& key) {
    auto slots = g.template slots<3>();
    node* fresh = nullptr;  // allocated once, kept across retries
    for (;;) {
      const window w = search(g, slots, key);
      if (w.cur != nullptr && !(key < w.cur->key)) {
        if (fresh != nullptr) g.dispose(fresh);
        return false;
      }
      if (fresh == nullptr) fresh = g.template create<node>(key);
      fresh->next.store(mptr(w.cur), core::mo_relaxed);  // published by the CAS below
      detail::chaos_point();
      mptr expected(w.cur);
      // release: publishes the new node (and, transitively, what we read to find cur).
      if (w.prev->compare_exchange_strong(expected, mptr(fresh), core::mo_release)) return true;
    }
  }

  template <class G>
  bool remove(G& g, const K& key) {
    auto slots = g.template slots<3>();
    for (;;) {
      const window w = search(g, slots, key);
      if (w.cur == nullptr || key < w.cur->key) return false;
      detail::chaos_point();
      mptr expected(w.next);
      // Logical deletion. relaxed: publishes nothing; as an RMW it extends the release sequence
      // of the write that installed `next`, so readers of the marked link still see next built.
      if (!w.cur->next.compare_exchange_strong(expected, mptr(w.next, true), core::mo_relaxed))
        continue;  // cur changed or was removed by someone else: search again
      detail::chaos_point();
      expected = mptr(w.cur);
      // release: readers that now reach `next` through pred must see it built (we acquired it).
      if (w.prev->compare_exchange_strong(expected, mptr(w.next), core::mo_release)) {
        g.retire(w.cur);
      } else {
        search(g, slots, key);  // Michael: a search unlinks it (by us or a helper) before returning
      }
      return true;
    }
  }

  template <class G>
  bool contains(G& g, const K& key) {
    auto slots = g.template slots<3>();
    const window w = search(g, slots, key);
    return w.cur != nullptr && !(key < w.cur->key);
  }

  // ---- single-threaded inspection (after a run) ----

  template <class F>
  void for_each_unsafe(F&& fn) const {
    for_each_list_key(head_, fn);
  }

  std::size_t size_unsafe() const { return count_list_nodes(head_); }

  // See detail::check_sorted_list; in_place(key) is the hash map's bucket check.
  template <class InPlace>
  std::string check_unsafe(InPlace&& in_place) const {
    return check_sorted_list(head_, in_place);
  }

 private:
  struct node : R::node_base {
    explicit node(const K& k) : key(k) {}
    const K key;
    typename R::template atomic_ptr<node> next;
  };
  using link = typename R::template atomic_ptr<node>;
  using mptr = core::marked_ptr<node>;
  using slot_trio = typename R::template slot_group<3>;
  using slot_pos = unsigned char;  // a slot's position in the operation's slot_trio

  // pred -> cur -> next, with the slots protecting each. pred is null when prev is head_.
  struct window {
    link* prev;
    node* pred;
    node* cur;
    node* next;
    slot_pos sp, sc, sn;  // which of the operation's three slots protects pred, cur, next
  };
  enum class outcome { found, unlink };

  window from_head() { return window{&head_, nullptr, nullptr, nullptr, 0, 1, 2}; }

  // Returns pred, cur with pred->key < key <= cur->key (cur null at the end), both unmarked
  // when read, unlinking marked nodes on the way. `w` is the returned object itself (NRVO) and
  // is written whole at the end of each read phase, so the caller's window is built in place.
  // Always inlined: GCC had started to keep it out of line once the limbo bag grew, which cost
  // the hash map 1-12% (debra, ebr, none; 1-2 threads; one interleaved run).
  template <class G>
  [[gnu::always_inline]] inline window search(G& g, slot_trio& slots, const K& key) {
    window w = from_head();
    bool at_head = true;
    for (;;) {
      // The read phase reads `w` and `at_head` and writes `w` only after reserve(), once it can
      // no longer be restarted: an NBR restart finds `w` as the phase began, with no copy of it.
      const outcome what = g.read_phase([&] {
        window t = w;
        const outcome o = traverse(slots, key, t, at_head);
        g.reserve(t.pred, t.cur, t.next);
        w = t;
        return o;
      });
      if (what == outcome::found) return w;
      // Write phase: help unlink the marked cur (its next is frozen by the mark).
      detail::chaos_point();
      mptr expected(w.cur);
      // release: readers that reach `next` through pred must see it built (we acquired it).
      if (w.prev->compare_exchange_strong(expected, mptr(w.next), core::mo_release)) {
        g.retire(w.cur);
        if constexpr (!RestartFromRoot) {
          // Michael: go on from pred with cur = next. next was reachable at our CAS, after its
          // protection was published, so it is still protected; cur's slot becomes free.
          w = window{w.prev, w.pred, w.next, nullptr, w.sp, w.sn, w.sc};
          at_head = false;
          continue;
        }
      }
      w = from_head();  // failed CAS (pred changed or got marked), or the _rr variant
      at_head = true;
    }
  }

  // One read phase: walks `w` from where it stands until the target window or a marked node.
  outcome traverse(slot_trio& slots, const K& key, window& w, bool at_head) {
    // head_ is never marked; a start inside the list already holds a protected cur.
    if (at_head) w.cur = slots[w.sc].protect(head_).get();
    for (;;) {
      if (w.cur == nullptr) return outcome::found;
      // cur is protected and was reachable when read unmarked from pred: deref is safe.
      const mptr next = slots[w.sn].protect(w.cur->next);
      w.next = next.get();
      if (next.marked()) return outcome::unlink;
      if (!(w.cur->key < key)) return outcome::found;
      // Advance: next was read unmarked from cur, so it was reachable when protected.
      w.prev = &w.cur->next;
      w.pred = w.cur;
      w.cur = w.next;
      const slot_pos freed = w.sp;
      w.sp = w.sc;
      w.sc = w.sn;
      w.sn = freed;
    }
  }

  link head_;
};

}  // namespace detail

template <class K, reclaimer R, bool RestartFromRoot = false>
class hm_list : public detail::chain_set<detail::hm_chain<K, R, RestartFromRoot>> {
 public:
  using detail::chain_set<detail::hm_chain<K, R, RestartFromRoot>>::chain_set;
};

// The restart-from-root variant: the only form NBR accepts.
template <class K, reclaimer R>
using hm_list_rr = hm_list<K, R, true>;

}  // namespace smr
