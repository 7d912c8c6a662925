// The address sort of a bag (detail/address_sort.hpp): the bag's nodes come out in address
// order, each once, with the bag's size unchanged, whatever the bag's layout
// (partly consumed blocks, spliced bags) and the addresses' spread (one array, separate heap
// allocations).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <random>
#include <vector>

#include "smr/detail/address_sort.hpp"
#include "smr/detail/limbo_bag.hpp"

namespace {

using smr::core::retired_node;
using smr::detail::address_sorter;
using smr::detail::limbo_bag;

std::vector<retired_node*> contents(const limbo_bag& bag) {
  std::vector<retired_node*> out;
  bag.for_each([&](retired_node* n) { out.push_back(n); });
  return out;
}

// Sorts the bag and checks that it holds the same nodes as before, in address order.
void expect_sorted_by(address_sorter& sorter, limbo_bag& bag) {
  std::vector<retired_node*> before = contents(bag);
  ASSERT_TRUE(sorter.sort(bag));
  const std::vector<retired_node*> after = contents(bag);
  EXPECT_EQ(bag.size(), before.size());
  EXPECT_TRUE(std::is_sorted(after.begin(), after.end(), std::less<>{})) << "not in address order";
  std::sort(before.begin(), before.end(), std::less<>{});
  EXPECT_EQ(after, before) << "the sort lost or duplicated nodes";
}

TEST(AddressSort, ShuffledArrayComesOutInOrderAndPopsInOrder) {
  std::vector<retired_node> arena(5000);
  std::vector<retired_node*> order;
  for (retired_node& n : arena) order.push_back(&n);
  std::shuffle(order.begin(), order.end(), std::mt19937_64{1});
  limbo_bag bag;
  for (retired_node* n : order) bag.push(n);
  address_sorter sorter;
  expect_sorted_by(sorter, bag);
  for (retired_node& n : arena) EXPECT_EQ(bag.pop_front(), &n);  // FIFO order is the new order
  EXPECT_TRUE(bag.empty());
}

// Separate allocations: addresses spread over the heap, differing in many more bits than one
// radix pass covers, and a sorter reused for bags of different sizes.
TEST(AddressSort, SpreadAllocationsAndAReusedSorter) {
  std::vector<std::unique_ptr<retired_node>> owned;
  std::vector<std::unique_ptr<char[]>> padding;
  std::mt19937_64 rng{2};
  address_sorter sorter;
  for (std::size_t n : {3000u, 40u, 7000u, 2u}) {
    limbo_bag bag;
    for (std::size_t i = 0; i < n; ++i) {
      owned.push_back(std::make_unique<retired_node>());
      // Interleave with allocations of other sizes so that neighbours are not adjacent.
      bag.push(owned.back().get());
      if (rng() % 3 == 0) padding.push_back(std::make_unique<char[]>(rng() % 200 + 1));
    }
    expect_sorted_by(sorter, bag);
    while (bag.pop_front() != nullptr) {
    }
  }
}

// A bag whose first block was partly consumed and which ends in a spliced bag: the sort covers
// exactly the live entries.
TEST(AddressSort, PartlyConsumedAndSplicedBags) {
  std::vector<retired_node> arena(1000);
  std::vector<retired_node*> order;
  for (retired_node& n : arena) order.push_back(&n);
  std::shuffle(order.begin(), order.end(), std::mt19937_64{3});
  limbo_bag left, right;
  for (std::size_t i = 0; i < 600; ++i) left.push(order[i]);
  for (std::size_t i = 600; i < 1000; ++i) right.push(order[i]);
  for (int i = 0; i < 50; ++i) left.pop_front();     // inside the first block
  for (int i = 0; i < 130; ++i) right.pop_front();   // past the first block
  left.splice(std::move(right));
  address_sorter sorter;
  expect_sorted_by(sorter, left);
  EXPECT_EQ(left.size(), 820u);
}

// Every entry at one address (nothing the domain lets through: its double-retire check reads the
// node's mark): no bit differs, and the bag stays as it was.
TEST(AddressSort, OneAddressRepeated) {
  retired_node n;
  limbo_bag bag;
  for (int i = 0; i < 3; ++i) bag.push(&n);
  address_sorter sorter;
  EXPECT_TRUE(sorter.sort(bag));
  EXPECT_EQ(contents(bag), (std::vector<retired_node*>{&n, &n, &n}));
  while (bag.pop_front() != nullptr) {
  }
}

TEST(AddressSort, EmptyAndSingleNodeBags) {
  address_sorter sorter;
  limbo_bag bag;
  EXPECT_TRUE(sorter.sort(bag));
  EXPECT_TRUE(bag.empty());
  retired_node n;
  bag.push(&n);
  EXPECT_TRUE(sorter.sort(bag));
  EXPECT_EQ(bag.pop_front(), &n);
}

}  // namespace
