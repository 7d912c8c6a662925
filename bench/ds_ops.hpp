// How the workload drives each kind of data structure, the per-thread accounting that
// validation checks, and the validation itself.
//
//  set   (insert/remove/contains): insert% -> insert, delete% -> remove, search% -> contains.
//  stack (push/pop):               insert% -> push, delete% -> pop; no search (refused).
//  queue (enqueue/dequeue):        insert% -> enqueue, delete% -> dequeue; no search (refused).
//
// Every successful insert/push adds its key to the thread's running sum and count, every
// successful remove/pop subtracts the removed key. After the trial the prefill plus all threads'
// sums must equal the sum of the keys found in the structure, and likewise for the counts
// (DESIGN.md, "Benchmark methodology"). Sums wrap modulo 2^64, which keeps the check exact.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workload.hpp"

namespace smrbench {

// Signed, so that a structure using numeric_limits<key>::min() as a sentinel never collides with
// a benchmark key (keys are in [0, key_range)).
using key_type = std::int64_t;

enum class ds_kind { set, stack, queue };

inline const char* ds_kind_name(ds_kind k) {
  switch (k) {
    case ds_kind::set: return "set";
    case ds_kind::stack: return "stack";
    case ds_kind::queue: return "queue";
  }
  return "?";
}

template <class DS>
concept set_like = requires(DS& d, typename DS::handle& h, key_type k) {
  { d.insert(h, k) } -> std::convertible_to<bool>;
  { d.remove(h, k) } -> std::convertible_to<bool>;
  { d.contains(h, k) } -> std::convertible_to<bool>;
};

template <class DS>
concept stack_like = requires(DS& d, typename DS::handle& h, key_type k) {
  d.push(h, k);
  { d.pop(h).has_value() } -> std::same_as<bool>;
};

template <class DS>
concept queue_like = requires(DS& d, typename DS::handle& h, key_type k) {
  d.enqueue(h, k);
  { d.dequeue(h).has_value() } -> std::same_as<bool>;
};

template <class DS>
constexpr ds_kind kind_of() {
  if constexpr (set_like<DS>) return ds_kind::set;
  else if constexpr (stack_like<DS>) return ds_kind::stack;
  else if constexpr (queue_like<DS>) return ds_kind::queue;
  else static_assert(sizeof(DS) == 0, "smrbench: a data structure must be a set, a stack or a queue");
}

struct accounting {
  std::uint64_t inserted = 0, removed = 0;          // successful inserts/pushes, removes/pops
  std::uint64_t inserted_sum = 0, removed_sum = 0;  // wrapping sums of their keys
  std::uint64_t found = 0;                          // searches that found their key

  void add_inserted(key_type k) {
    ++inserted;
    inserted_sum += static_cast<std::uint64_t>(k);
  }
  void add_removed(key_type k) {
    ++removed;
    removed_sum += static_cast<std::uint64_t>(k);
  }
};

// Adds k (prefill and insert%). Returns whether the structure changed.
template <class DS>
bool add_key(DS& ds, typename DS::handle& h, key_type k, accounting& a) {
  if constexpr (set_like<DS>) {
    if (!ds.insert(h, k)) return false;
  } else if constexpr (stack_like<DS>) {
    ds.push(h, k);
  } else {
    ds.enqueue(h, k);
  }
  a.add_inserted(k);
  return true;
}

template <class DS>
void run_op(DS& ds, typename DS::handle& h, op_kind op, key_type k, accounting& a) {
  switch (op) {
    case op_kind::insert:
      add_key(ds, h, k, a);
      break;
    case op_kind::remove:
      if constexpr (set_like<DS>) {
        if (ds.remove(h, k)) a.add_removed(k);
      } else if constexpr (stack_like<DS>) {
        if (auto v = ds.pop(h)) a.add_removed(*v);
      } else {
        if (auto v = ds.dequeue(h)) a.add_removed(*v);
      }
      break;
    case op_kind::search:
      if constexpr (set_like<DS>) a.found += ds.contains(h, k) ? 1 : 0;
      break;
  }
}

// For the tests: changes the structure without telling the accounting, so validation must fail.
template <class DS>
void corrupt(DS& ds, typename DS::handle& h) {
  accounting ignored;
  if constexpr (set_like<DS>) {
    bool any = false;
    key_type victim = 0;
    ds.for_each_unsafe([&](const key_type& k) {
      if (!any) victim = k;
      any = true;
    });
    if (any) ds.remove(h, victim);
    else ds.insert(h, 0);
  } else {
    add_key(ds, h, 0, ignored);  // one extra element: the count no longer matches
  }
}

struct validation {
  bool ok = true;
  std::string detail;
};

// What a walk of the structure found, for judge(): the walk is the structure's own, the judgement
// is the same for every instantiation and lives out of line (ds_ops.cpp).
struct structure_walk {
  std::uint64_t count = 0, sum = 0, out_of_range = 0;
  bool is_set = false;
  std::vector<key_type> keys;         // sets only: the keys visited, for the duplicate check
  std::optional<std::uint64_t> size;  // size_unsafe(), if the structure has it
  std::optional<std::string> broken;  // check_invariants_unsafe(), if it has it ("" = holds)
  // Sets: contains() asked of keys spread over the range and of walked keys, and how many answers
  // disagreed with the walk (a search that returns early would pass every other check).
  std::uint64_t search_probes = 0, search_mismatches = 0;
};

// How many keys validate() asks contains() about: at most this many spread over the key range,
// and as many taken from the walk (so that a sparse set is asked about present keys too).
inline constexpr std::uint64_t search_probes_each = 2048;

validation judge(structure_walk& walk, std::uint64_t expected_count, std::uint64_t expected_sum);

// Single-threaded: no other thread may touch the structure. contains(k): the structure's search,
// through a handle of the caller's (sets only).
template <class DS, class Contains>
validation validate(DS& ds, std::uint64_t expected_count, std::uint64_t expected_sum, std::uint64_t key_range,
                    Contains&& contains) {
  static_assert(requires(DS& d) { d.for_each_unsafe([](const key_type&) {}); },
                "smrbench: a data structure must offer for_each_unsafe(fn) for validation");
  structure_walk walk;
  walk.is_set = set_like<DS>;
  if (walk.is_set) walk.keys.reserve(static_cast<std::size_t>(expected_count));
  ds.for_each_unsafe([&](const key_type& k) {
    ++walk.count;
    walk.sum += static_cast<std::uint64_t>(k);
    if (k < 0 || static_cast<std::uint64_t>(k) >= key_range) ++walk.out_of_range;
    if (walk.is_set) walk.keys.push_back(k);
  });
  if constexpr (requires(DS& d) { d.size_unsafe(); }) walk.size = static_cast<std::uint64_t>(ds.size_unsafe());
  if constexpr (requires(DS& d) { d.check_invariants_unsafe(); }) walk.broken = ds.check_invariants_unsafe();
  if constexpr (set_like<DS>) {
    std::vector<key_type> sorted = walk.keys;
    std::sort(sorted.begin(), sorted.end());
    auto probe = [&](key_type k) {
      ++walk.search_probes;
      if (static_cast<bool>(contains(k)) != std::binary_search(sorted.begin(), sorted.end(), k)) ++walk.search_mismatches;
    };
    const std::uint64_t spread = std::min(key_range, search_probes_each);
    for (std::uint64_t i = 0; i < spread; ++i) probe(static_cast<key_type>(key_range / spread * i));
    const std::size_t stride = std::max<std::size_t>(1, sorted.size() / search_probes_each);
    for (std::size_t i = 0; i < sorted.size(); i += stride) probe(sorted[i]);
  }
  return judge(walk, expected_count, expected_sum);
}

}  // namespace smrbench
