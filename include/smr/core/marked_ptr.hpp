// Marked pointers: an address with its low bit used as a deletion mark (Harris-style lists) and
// the next bit as a second flag, the tag (the Natarajan-Mittal tree flags an edge to a leaf
// being deleted and tags the edge to its sibling; nodes are at least 4-byte aligned).
// `atomic_marked_ptr` is the default shared-link type; a reclaimer may substitute its own
// (e.g. TagIBR's born-before tag) through `R::template atomic_ptr<T>`.
#pragma once

#include <cstdint>

#include "smr/core/atomic.hpp"

namespace smr::core {

template <class T>
class marked_ptr {
 public:
  constexpr marked_ptr() = default;
  static constexpr std::uintptr_t mark_bit = 1, tag_bit = 2;

  constexpr marked_ptr(T* p, bool mark = false, bool tag = false)  // NOLINT: implicit from a plain pointer
      : bits_(reinterpret_cast<std::uintptr_t>(p) | (mark ? mark_bit : 0u) | (tag ? tag_bit : 0u)) {}

  static marked_ptr from_bits(std::uintptr_t b) {
    marked_ptr m;
    m.bits_ = b;
    return m;
  }

  T* get() const { return reinterpret_cast<T*>(bits_ & ~(mark_bit | tag_bit)); }
  bool marked() const { return (bits_ & mark_bit) != 0; }
  bool tagged() const { return (bits_ & tag_bit) != 0; }
  marked_ptr with_mark(bool m) const { return marked_ptr(get(), m, tagged()); }
  std::uintptr_t bits() const { return bits_; }
  T* operator->() const { return get(); }
  explicit operator bool() const { return get() != nullptr; }

  friend bool operator==(marked_ptr a, marked_ptr b) { return a.bits_ == b.bits_; }
  friend bool operator!=(marked_ptr a, marked_ptr b) { return a.bits_ != b.bits_; }

 private:
  std::uintptr_t bits_ = 0;
};

template <class T>
class atomic_marked_ptr {
 public:
  atomic_marked_ptr() = default;
  explicit atomic_marked_ptr(marked_ptr<T> p) : bits_(p.bits()) {}

  marked_ptr<T> load(memory_order mo) const { return marked_ptr<T>::from_bits(bits_.load(mo)); }
  void store(marked_ptr<T> p, memory_order mo) { bits_.store(p.bits(), mo); }
  bool compare_exchange_strong(marked_ptr<T>& expected, marked_ptr<T> desired, memory_order mo) {
    std::uintptr_t e = expected.bits();
    bool ok = bits_.compare_exchange_strong(e, desired.bits(), mo);
    if (!ok) expected = marked_ptr<T>::from_bits(e);
    return ok;
  }
  marked_ptr<T> exchange(marked_ptr<T> p, memory_order mo) {
    return marked_ptr<T>::from_bits(bits_.exchange(p.bits(), mo));
  }
  // Sets the tag bit and returns the previous value (the tree's bit-test-and-set).
  marked_ptr<T> fetch_tag(memory_order mo) {
    return marked_ptr<T>::from_bits(bits_.fetch_or(marked_ptr<T>::tag_bit, mo));
  }
  // The value last in the link's modification order (an RMW that writes what it reads), for a
  // link that no longer changes but whose last write this thread need not have seen.
  marked_ptr<T> load_latest(memory_order mo) {
    return marked_ptr<T>::from_bits(bits_.fetch_or(0, mo));
  }
  // The link as a word, for a reader that does not know T (WFE's helpers read another thread's
  // link on its behalf).
  const atomic<std::uintptr_t>& word() const { return bits_; }

 private:
  atomic<std::uintptr_t> bits_{0};
};

}  // namespace smr::core
