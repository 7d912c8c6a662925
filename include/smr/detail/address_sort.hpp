// Puts a bag of safe nodes in address order before amortized free parks it
// (core/free_policy.hpp says why it pays there and not in batch frees).
//
// An LSD radix sort on the bits in which the addresses differ: 11-bit digits, so the counts fit
// in L1 and a batch spread over a few megabytes of heap sorts in two passes over the pointers
// (never the nodes, which are cold by now). std::sort took 17% of rcu_af's time on a 20K-key
// hash map (2 threads, jemalloc; perf, cpu-clock samples); this takes 2%, about 6 ns a node.
//
// The scratch vectors are kept between sorts rather than allocated for each batch (a batch of
// 32K nodes needs 512 KiB of them). They stay at the largest batch sorted, 16 bytes a node,
// beside nodes of 32 bytes and more that the thread held back at the time.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <utility>
#include <vector>

#include "smr/core/node.hpp"
#include "smr/detail/limbo_bag.hpp"

namespace smr::detail {

class address_sorter {
 public:
  // Sorts the bag's nodes by address; returns false, with the bag untouched, if the scratch
  // could not grow or the bag is too large for the 32-bit counts (the order is an
  // optimization, never needed for safety).
  bool sort(limbo_bag& bag) noexcept {
    const std::size_t n = bag.size();
    if (n < 2) return true;
    if (n > std::numeric_limits<std::uint32_t>::max()) return false;
    try {
      nodes_.reserve(n);
      scratch_.resize(n);
    } catch (...) {  // bad_alloc, or length_error
      return false;
    }
    nodes_.clear();
    bag.for_each([this](retired_node* node) { nodes_.push_back(node); });
    radix_sort();
    std::size_t next = 0;
    bag.for_each_slot([&](retired_node*& slot) { slot = nodes_[next++]; });
    return true;
  }

 private:
  static constexpr int digit_bits = 11;
  static constexpr std::uintptr_t digit_mask = (std::uintptr_t{1} << digit_bits) - 1;

  static std::uintptr_t address(const retired_node* node) { return reinterpret_cast<std::uintptr_t>(node); }

  // Sorts nodes_ (scratch_ has its size). Keys are offsets from the lowest address, without the
  // low bits that every offset shares (the allocator's alignment), so that a batch spread over
  // 2^k bytes in blocks of 2^a takes ceil((k - a) / 11) passes.
  void radix_sort() {
    std::uintptr_t lowest = address(nodes_.front());
    std::uintptr_t highest = lowest;
    for (const retired_node* node : nodes_) {
      lowest = std::min(lowest, address(node));
      highest = std::max(highest, address(node));
    }
    std::uintptr_t differing = 0;
    for (const retired_node* node : nodes_) differing |= address(node) - lowest;
    if (differing == 0) return;
    const int first = std::countr_zero(differing);
    const int last = std::bit_width(highest - lowest);  // one past the highest differing bit
    std::uint32_t start[std::size_t{1} << digit_bits];
    for (int shift = first; shift < last; shift += digit_bits) {
      const auto digit = [&](const retired_node* node) { return ((address(node) - lowest) >> shift) & digit_mask; };
      std::fill(std::begin(start), std::end(start), 0u);
      for (const retired_node* node : nodes_) ++start[digit(node)];
      std::uint32_t sum = 0;
      for (std::uint32_t& count : start) sum += std::exchange(count, sum);
      for (retired_node* node : nodes_) scratch_[start[digit(node)]++] = node;
      nodes_.swap(scratch_);
    }
  }

  std::vector<retired_node*> nodes_;
  std::vector<retired_node*> scratch_;
};

}  // namespace smr::detail
