// What the skeleton-level and facade tests share: a node that records its own destruction, and a
// way to hold one node protected in an operation under any reclaimer (a read phase that reserves
// it, for NBR). The lists of reclaimers they run are in support/reclaimers.hpp.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

#include "smr/smr.hpp"
#include "support/reclaimers.hpp"

namespace smr::test {

inline constexpr std::uint64_t probe_magic = 0x5EC0DE5AFEC0FFEEull;

// A node whose destructor clears its magic and counts itself in `freed` (when given).
template <class R>
struct probe : R::node_base {
  explicit probe(std::atomic<int>* freed) : freed_(freed) {}
  ~probe() {
    magic = 0;
    if (freed_ != nullptr) freed_->fetch_add(1, std::memory_order_relaxed);
  }
  std::uint64_t magic = probe_magic;
  std::atomic<int>* freed_;
};

// The same for a node on any base, a facade's CRTP obj_base included:
//   struct node : counted<smr::rcu_obj_base<node>> { using counted::counted; };
template <class Base>
struct counted : Base {
  counted(long v, std::atomic<int>* freed) : value(v), freed_(freed) {}
  ~counted() {
    magic = 0;
    if (freed_ != nullptr) freed_->fetch_add(1, std::memory_order_relaxed);
  }
  long value;
  std::uint64_t magic = probe_magic;
  std::atomic<int>* freed_;
};

using variant_name = reclaimer_name;  // support/reclaimers.hpp

inline void wait_until(const std::atomic<int>& step, int value) {
  while (step.load(std::memory_order_acquire) < value) std::this_thread::yield();
}

// Inside guard g, with slot s: reads `link` and keeps its target protected while s lives and
// the operation goes on, under every reclaimer (NBR: the read phase reserves it). A standalone
// link is a root: protect_root() is protect() for every scheme but poibr.
template <class Guard, class Slot, class Link>
auto protect_in_operation(Guard& g, Slot& s, const Link& link) {
  return g.read_phase([&] {
    auto* p = s.protect_root(link).get();
    g.reserve(p);
    return p;
  });
}

}  // namespace smr::test
