// LLX/SCX (detail/llx_scx.hpp) by one thread, on a two-node chain: a root whose one link holds
// a child, each SCX replacing the child by a new one (V = {root, child}, R = {child}). What is
// checked is the tags: an SCX's tag is never one an earlier SCX had. With the sequence numbers
// cut to two bits (three per record), a record is used up after three SCXs; a sequence number
// that wrapped back to an old one would let a stale tag in a node's info look current again,
// and two SCXs could then both freeze that node.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "smr/detail/llx_scx.hpp"
#include "smr/reclaimers/ebr.hpp"

namespace {

struct chain_node : smr::ebr::node_base {
  smr::core::atomic<std::uint64_t> info{0};
  smr::core::atomic<bool> marked{false};
  smr::ebr::atomic_ptr<chain_node> child;
  smr::ebr::atomic_ptr<chain_node>& link(unsigned) { return child; }
};

template <unsigned SequenceBits>
std::vector<std::uint64_t> tags_of_successive_scxs(int scxs) {
  using engine = smr::detail::llx_scx<chain_node, 2, SequenceBits>;
  engine scx;
  chain_node root;
  std::vector<chain_node*> nodes{new chain_node};
  root.child.store(smr::core::marked_ptr<chain_node>(nodes.back()), smr::core::mo_relaxed);
  std::vector<std::uint64_t> tags;
  for (int i = 0; i < scxs; ++i) {
    typename engine::lease lease(scx);  // one operation's lease, given back at its end
    typename engine::scx_op op;
    op.count = 2;
    for (unsigned k = 0; k < 2; ++k) {
      op.v[k] = k == 0 ? &root : nodes.back();
      typename engine::tag_t busy = 0;
      EXPECT_EQ(scx.llx(op.v[k], [] {}, op.seen[k], busy), engine::llx_result::ok);
    }
    op.field = 0;
    op.fresh = new chain_node;
    EXPECT_TRUE(scx.scx(lease, op)) << "SCX " << i;
    EXPECT_EQ(root.child.load(smr::core::mo_relaxed).get(), op.fresh);
    EXPECT_TRUE(nodes.back()->marked.load(smr::core::mo_relaxed)) << "the replaced child is finalized";
    nodes.push_back(op.fresh);
    tags.push_back(op.tag);
  }
  for (chain_node* n : nodes) delete n;
  return tags;
}

TEST(LlxScx, EveryScxHasATagNoEarlierScxHad) {
  const std::vector<std::uint64_t> tags = tags_of_successive_scxs<2>(12);
  const std::set<std::uint64_t> distinct(tags.begin(), tags.end());
  EXPECT_EQ(distinct.size(), tags.size()) << "a used-up record's tags came back";
  EXPECT_EQ(distinct.count(0), 0u) << "0 means never frozen";
}

TEST(LlxScx, TheDefaultWidthUsesOneRecord) {
  // 44 bits: the same record (one id in the tags' low bits) for every SCX of a thread.
  const std::vector<std::uint64_t> tags = tags_of_successive_scxs<44>(5);
  const std::set<std::uint64_t> ids = [&] {
    std::set<std::uint64_t> s;
    for (std::uint64_t t : tags) s.insert(t & ((std::uint64_t{1} << 20) - 1));
    return s;
  }();
  EXPECT_EQ(ids.size(), 1u);
  EXPECT_EQ(std::set<std::uint64_t>(tags.begin(), tags.end()).size(), tags.size());
}

}  // namespace
