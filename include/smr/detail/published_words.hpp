// The per-thread announcement of the slot-based schemes: K published words per thread (hp: node
// addresses, he: eras) on whole cache lines of their own, so no two threads share a line, and a
// version that hold() bumps so that a scan re-reads a thread whose words moved while it read
// them ((3) in reclaimers/hp.hpp).
//
// Owned by the registry slot: the lines are allocated by the slot's first owner, published with
// a release store, and kept for later owners (K is fixed per domain); null until then, when the
// slot publishes nothing.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "smr/core/atomic.hpp"
#include "smr/core/atomic_pair.hpp"
#include "smr/detail/thread_registry.hpp"

namespace smr::detail {

// The value a scan reads from a published word (acquire: pairs with the owner's release
// stores): the word itself, or the first half of a pair (WFE's {era, tag}).
template <class Word>
auto published_value(const Word& w) {
  return w.load(core::mo_acquire);
}
inline std::uint64_t published_value(const core::atomic_pair& w) { return w.load_first(core::mo_acquire); }

// Word: the atomic type of one published value, whose zero value publishes nothing.
template <class Word>
struct published_words {
  struct alignas(cache_line) line {
    static constexpr std::size_t size = std::max<std::size_t>(1, cache_line / sizeof(Word));
    Word word[size];
  };

  static Word& at(line* lines, unsigned i) { return lines[i / line::size].word[i % line::size]; }

  struct slot {
    slot() = default;
    slot(const slot&) = delete;
    slot& operator=(const slot&) = delete;
    ~slot() { delete[] lines.load(core::mo_relaxed); }

    core::atomic<line*> lines{nullptr};
    core::atomic<std::uint64_t> version{0};  // bumped by every hold()
  };

  // The owner's lines, allocated (every word zero) and published on the slot's first use.
  static line* claim(slot& s, unsigned k) {
    // relaxed: only owners write `lines`, and the new owner's acquire claim of the registry
    // slot follows the previous owner's release.
    line* lines = s.lines.load(core::mo_relaxed);
    if (lines == nullptr) {
      lines = new line[(k + line::size - 1) / line::size]{};
      // release: scanners that see the pointer (acquire in collect) see zeroed words.
      s.lines.store(lines, core::mo_release);
    }
    return lines;
  }

  // After the owner copied a protection into a word (hold()).
  static void bump_version(slot& s) {
    // release: a scanner that reads this bump (acquire) also sees the copy stored before it.
    s.version.store(s.version.load(core::mo_relaxed) + 1, core::mo_release);
  }

  // Calls add(value) for each of the k words of s. If a hold() bumped the version meanwhile it
  // calls retract() (which drops what this call added) and reads the words again: only the
  // attempt that saw no bump counts. That attempt alone is the read (3) in reclaimers/hp.hpp
  // proves safe, and it keeps a scan's set at k values per thread however often it retries
  // (Hart's bound H; a union over retries grew by k per retry). The caller ran its scan fence.
  template <class Add, class Retract>
  static void collect(slot& s, unsigned k, Add&& add, Retract&& retract) {
    // acquire: pairs with the release in claim() that published the lines.
    line* lines = s.lines.load(core::mo_acquire);
    if (lines == nullptr) return;
    for (;;) {
      // acquire: pairs with the release bump; the copies made before it are visible.
      const std::uint64_t v = s.version.load(core::mo_acquire);
      for (unsigned i = 0; i < k; ++i) add(published_value(at(lines, i)));
      // The acquire loads above keep this load after them.
      if (s.version.load(core::mo_relaxed) == v) return;
      retract();
    }
  }
};

}  // namespace smr::detail
