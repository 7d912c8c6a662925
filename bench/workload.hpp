// The operation mix and the per-thread random stream that drives it.
//
// A workload is three percentages (insert, delete, search) summing to 100, given as a preset
// name from the papers (NBR §6: update-intensive 50i-50d, balanced 25i-25d-50s,
// search-intensive 5i-5d-90s) or as "I,D,S". For a stack or queue, insert means push/enqueue
// and delete means pop/dequeue; they have no search, so their search share must be 0.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace smrbench {

struct workload_mix {
  unsigned insert = 50;
  unsigned remove = 50;
  unsigned search = 0;

  // "50i-50d" style label, the canonical name used in tables.
  std::string label() const;
};

// Parses a preset or "I,D,S"; on failure returns nullopt and sets `error`, which names `flag`.
std::optional<workload_mix> parse_workload(const std::string& text, std::string& error,
                                           const std::string& flag = "--workload");

enum class op_kind : std::uint8_t { insert, remove, search };
inline constexpr unsigned op_kind_count = 3;

// The workload's percentage for one kind of operation.
inline unsigned share_of(const workload_mix& m, op_kind k) {
  return k == op_kind::insert ? m.insert : k == op_kind::remove ? m.remove : m.search;
}

// xorshift64* (Vigna): small, fast, good enough for key and operation choice, seedable per
// thread so that runs are reproducible up to thread interleaving.
class rng {
 public:
  explicit rng(std::uint64_t seed) : s_(mix(seed) | 1) {}
  std::uint64_t next() {
    s_ ^= s_ >> 12;
    s_ ^= s_ << 25;
    s_ ^= s_ >> 27;
    return s_ * 0x2545F4914F6CDD1Dull;
  }
  // Uniform in [0, n) without division (Lemire's multiply-shift; bias < n / 2^64).
  std::uint64_t below(std::uint64_t n) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }
  // splitmix64 finalizer: decorrelates nearby seeds (seed, seed+1, ...).
  static std::uint64_t mix(std::uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t s_;
};

// Chooses operations with the mix's probabilities: a 32-bit draw is mapped onto [0, 100), so the
// percentages are exact up to 2^-32.
class op_chooser {
 public:
  explicit op_chooser(const workload_mix& m) : insert_below_(m.insert), remove_below_(m.insert + m.remove) {}
  op_kind pick(std::uint32_t draw) const {
    const unsigned p = static_cast<unsigned>((static_cast<std::uint64_t>(draw) * 100) >> 32);
    if (p < insert_below_) return op_kind::insert;
    if (p < remove_below_) return op_kind::remove;
    return op_kind::search;
  }

 private:
  unsigned insert_below_;
  unsigned remove_below_;
};

}  // namespace smrbench
