// Registry of per-thread slots for one domain: dense, recycled ids and no fixed thread limit.
//
// Slots live in fixed-size chunks chained in a grow-only list, so a pointer to a slot stays
// valid for the domain's lifetime and scans never see a slot move. A thread claims a free slot
// with a CAS on its `owned` flag (ids are recycled, so per-thread arrays do not grow with
// thread churn), and releases it when its handle is destroyed. Scans walk every slot up to the
// high-water mark; a released slot must leave its announcement in the "protects nothing" state.
#pragma once

#include <cstddef>
#include <new>

#include "smr/core/atomic.hpp"

namespace smr::detail {
using namespace ::smr::core;  // the public building blocks (atomics, nodes, stats)

// Every slot type is aligned to a cache line so neighbours' announcements never share one.
template <class Slot>
class thread_registry {
 public:
  static constexpr std::size_t chunk_slots = 64;

  struct entry {
    alignas(cache_line) Slot slot;
    atomic<bool> owned{false};
    std::size_t id = 0;
  };

  thread_registry() = default;
  thread_registry(const thread_registry&) = delete;
  thread_registry& operator=(const thread_registry&) = delete;
  ~thread_registry() {
    chunk* c = head_.load(mo_relaxed);
    while (c != nullptr) {
      chunk* next = c->next.load(mo_relaxed);
      delete c;
      c = next;
    }
  }

  // Claims a free slot (lowest id first) or appends a chunk. Lock-free.
  entry& acquire() {
    entry& e = claim();
    active_.fetch_add(1, mo_relaxed);
    return e;
  }

  // A slot held for one operation (ds/ab_tree.hpp's SCX records), trying `preferred` first so
  // that a thread keeps getting the same one, and its cache lines. Not counted in
  // active_threads(): that shared counter would cost every lease a contended RMW. Give it back
  // with give_back().
  entry& lease(std::size_t preferred) {
    if (preferred < high_water()) {
      entry& e = entry_at(preferred);
      bool expected = false;
      // acquire: as in claim().
      if (!e.owned.load(mo_relaxed) && e.owned.compare_exchange_strong(expected, true, mo_acquire)) return e;
    }
    return claim();
  }
  // release: the holder's writes happen before the next claim of the slot (claim()'s acquire).
  void give_back(entry& e) { e.owned.store(false, mo_release); }

  // The owner is done with the slot; its announcement must already be cleared.
  void release(entry& e) {
    e.owned.store(false, mo_release);
    // release, and last: a domain's destructor that reads the count down to zero (acquire,
    // attached_for_destruction) finds this thread done with the registry and its donations.
    active_.fetch_sub(1, mo_release);
  }

  // Calls fn(slot, id) for every slot ever used (owned or not). Readers of announcements must
  // treat an unowned slot's announcement as empty, which release() guarantees.
  template <class F>
  void for_each(F&& fn) {
    std::size_t remaining = high_water_.load(mo_acquire);
    for (chunk* c = head_.load(mo_acquire); c != nullptr && remaining > 0;
         c = c->next.load(mo_acquire)) {
      for (entry& e : c->entries) {
        if (remaining == 0) break;
        --remaining;
        fn(e.slot, e.id);
      }
    }
  }

  // The slot with id `id`, for schemes that visit one slot at a time (DEBRA's round). Requires
  // id < a value high_water() returned, so the chunk holding it is published.
  Slot& slot_at(std::size_t id) { return entry_at(id).slot; }
  // Whether slot `id` has an owner now (same requirement). acquire: pairs with release(), so a
  // reader that sees the slot free also sees everything its last owner did. A caller that must
  // not miss a thread claiming the slot orders this read with fences of its own (Token-EBR).
  bool owned_at(std::size_t id) { return entry_at(id).owned.load(mo_acquire); }

  std::size_t high_water() const { return high_water_.load(mo_acquire); }
  std::size_t active_threads() const { return active_.load(mo_relaxed); }  // a size hint
  // The same, for a destructor deciding whether it may free the registry (pairs with release()).
  std::size_t attached_for_destruction() const { return active_.load(mo_acquire); }

 private:
  struct chunk {
    explicit chunk(std::size_t first_id) {
      for (std::size_t i = 0; i < chunk_slots; ++i) entries[i].id = first_id + i;
    }
    entry entries[chunk_slots];
    atomic<chunk*> next{nullptr};
  };

  entry& claim() {
    for (;;) {
      chunk* last = nullptr;
      // acquire: pairs with the release CAS that published the chunk, so its entries are built.
      for (chunk* c = head_.load(mo_acquire); c != nullptr; c = c->next.load(mo_acquire)) {
        for (entry& e : c->entries) {
          bool expected = false;
          // acquire: the previous owner's release (release(), give_back()) happens before our reuse.
          if (!e.owned.load(mo_relaxed) &&
              e.owned.compare_exchange_strong(expected, true, mo_acquire)) {
            bump_high_water(e.id + 1);
            return e;
          }
        }
        last = c;
      }
      append_chunk(last);
    }
  }

  entry& entry_at(std::size_t id) {
    chunk* c = head_.load(mo_acquire);  // acquire: as in for_each(), the chunk is built
    for (std::size_t hops = id / chunk_slots; hops > 0; --hops) c = c->next.load(mo_acquire);
    return c->entries[id % chunk_slots];
  }

  void append_chunk(chunk* last) {
    std::size_t first_id = last == nullptr ? 0 : last->entries[0].id + chunk_slots;
    chunk* fresh = new chunk(first_id);
    chunk* expected = nullptr;
    atomic<chunk*>& link = last == nullptr ? head_ : last->next;
    // release: publishes the constructed chunk to the acquire loads in acquire()/for_each().
    if (!link.compare_exchange_strong(expected, fresh, mo_release)) delete fresh;
  }

  void bump_high_water(std::size_t n) {
    std::size_t cur = high_water_.load(mo_relaxed);
    // release: a scanner that sees the new mark also sees the chunk holding the slot.
    while (cur < n && !high_water_.compare_exchange_weak(cur, n, mo_release)) {
    }
  }

  atomic<chunk*> head_{nullptr};
  atomic<std::size_t> high_water_{0};
  atomic<std::size_t> active_{0};
};

}  // namespace smr::detail
