// The limbo bag (detail/limbo_bag.hpp) against a std::deque model: FIFO order across block
// boundaries, splices of partly consumed bags, extract_if with every kind of predicate (nothing,
// everything, runs that cross blocks, random), and the retired mark. Under ASan and LSan a lost
// or doubly freed block is reported.
#include <gtest/gtest.h>

#include <cstddef>
#include <deque>
#include <random>
#include <vector>

#include "smr/detail/limbo_bag.hpp"

namespace {

using smr::core::retired_node;
using smr::detail::limbo_bag;

// Node storage the test owns; the bag only ever holds pointers into it.
struct arena {
  explicit arena(std::size_t n) : nodes(n) {}
  retired_node* at(std::size_t i) { return &nodes[i]; }
  std::size_t index(const retired_node* n) const { return static_cast<std::size_t>(n - nodes.data()); }
  std::vector<retired_node> nodes;
};

std::vector<std::size_t> contents(const arena& a, const limbo_bag& bag) {
  std::vector<std::size_t> out;
  bag.for_each([&](const retired_node* n) { out.push_back(a.index(n)); });
  return out;
}

std::vector<std::size_t> as_vector(const std::deque<std::size_t>& d) { return {d.begin(), d.end()}; }

TEST(LimboBag, PushMarksAndPopsInOrderAcrossBlocks) {
  arena a(1000);
  limbo_bag bag;
  EXPECT_EQ(bag.pop_front(), nullptr);
  for (std::size_t i = 0; i < 1000; ++i) {
    EXPECT_FALSE(smr::core::is_retired(a.at(i)));
    bag.push(a.at(i));
    EXPECT_TRUE(smr::core::is_retired(a.at(i)));
  }
  EXPECT_EQ(bag.size(), 1000u);
  for (std::size_t i = 0; i < 1000; ++i) {
    retired_node* n = bag.pop_front();
    ASSERT_NE(n, nullptr);
    EXPECT_EQ(a.index(n), i);
    EXPECT_EQ(bag.size(), 999 - i);
  }
  EXPECT_TRUE(bag.empty());
  EXPECT_EQ(bag.pop_front(), nullptr);
  bag.push(a.at(7));  // usable again after it emptied
  EXPECT_EQ(bag.pop_front(), a.at(7));
}

TEST(LimboBag, SpliceOfPartlyConsumedBagsKeepsOrder) {
  arena a(3000);
  limbo_bag left, right;
  std::deque<std::size_t> model;
  for (std::size_t i = 0; i < 300; ++i) left.push(a.at(i));
  for (std::size_t i = 0; i < 130; ++i) left.pop_front();  // its head block is now partial
  for (std::size_t i = 130; i < 300; ++i) model.push_back(i);
  for (std::size_t i = 1000; i < 1200; ++i) right.push(a.at(i));
  for (std::size_t i = 0; i < 50; ++i) right.pop_front();
  for (std::size_t i = 1050; i < 1200; ++i) model.push_back(i);
  left.splice(std::move(right));
  EXPECT_TRUE(right.empty());
  for (std::size_t i = 2000; i < 2010; ++i) {  // pushes after a splice go to the spliced tail
    left.push(a.at(i));
    model.push_back(i);
  }
  EXPECT_EQ(left.size(), model.size());
  EXPECT_EQ(contents(a, left), as_vector(model));
  limbo_bag empty;
  left.splice(std::move(empty));
  empty.splice(std::move(left));
  EXPECT_TRUE(left.empty());
  EXPECT_EQ(contents(a, empty), as_vector(model));
}

TEST(LimboBag, ExtractIfKeepsBothSidesInOrder) {
  std::mt19937_64 rng(42);
  for (int round = 0; round < 200; ++round) {
    arena a(1500);
    limbo_bag bag;
    std::deque<std::size_t> model;
    // A bag built from partial blocks: several pushes, pops and splices.
    std::size_t next = 0;
    const int pieces = 1 + static_cast<int>(rng() % 4);
    for (int p = 0; p < pieces; ++p) {
      limbo_bag piece;
      const std::size_t n = rng() % 300;
      const std::size_t popped = n == 0 ? 0 : rng() % n;
      for (std::size_t i = 0; i < n; ++i) piece.push(a.at(next + i));
      for (std::size_t i = 0; i < popped; ++i) ASSERT_EQ(a.index(piece.pop_front()), next + i);
      for (std::size_t i = popped; i < n; ++i) model.push_back(next + i);
      next += n;
      bag.splice(std::move(piece));
    }
    // Predicates: none, all, long runs, random.
    const int kind = round % 4;
    const std::size_t run = 1 + rng() % 200;
    std::vector<bool> take(a.nodes.size());
    for (std::size_t i = 0; i < take.size(); ++i)
      take[i] = kind == 0 ? false : kind == 1 ? true : kind == 2 ? (i / run) % 2 == 0 : rng() % 3 == 0;
    limbo_bag out = bag.extract_if([&](const retired_node* n) { return take[a.index(n)]; });
    std::deque<std::size_t> kept, taken;
    for (std::size_t i : model) (take[i] ? taken : kept).push_back(i);
    ASSERT_EQ(bag.size(), kept.size());
    ASSERT_EQ(out.size(), taken.size());
    ASSERT_EQ(contents(a, bag), as_vector(kept));
    ASSERT_EQ(contents(a, out), as_vector(taken));
    // The compacted bag still works as a FIFO: pushes land after the kept nodes.
    bag.push(a.at(1499));
    kept.push_back(1499);
    for (std::size_t expected : kept) ASSERT_EQ(a.index(bag.pop_front()), expected);
    EXPECT_TRUE(bag.empty());
  }
}

TEST(LimboBag, MovesLeaveTheSourceEmpty) {
  arena a(400);
  limbo_bag bag;
  for (std::size_t i = 0; i < 400; ++i) bag.push(a.at(i));
  limbo_bag moved(std::move(bag));
  EXPECT_TRUE(bag.empty());
  EXPECT_EQ(bag.pop_front(), nullptr);
  EXPECT_EQ(moved.size(), 400u);
  limbo_bag other;
  other.push(a.at(0));
  other.pop_front();
  other = moved.take_all();
  EXPECT_TRUE(moved.empty());
  EXPECT_EQ(other.size(), 400u);
  EXPECT_EQ(a.index(other.pop_front()), 0u);
}

}  // namespace
