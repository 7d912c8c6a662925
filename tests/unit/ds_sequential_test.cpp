// Every data structure against a sequential model (std::set, std::deque, std::vector) on random
// operation sequences in one thread, with the reclaimers none and ebr; plus the compile-time
// refusal of incompatible reclaimer x data structure pairs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "smr/smr.hpp"
#include "support/stress.hpp"

namespace {

// ---- compile-time compatibility (NBR paper, Table 1) ----

// Test-only reclaimers: ebr's machinery with the traits of the schemes being written, so the
// refusals can be checked before hp and nbr exist.
struct hp_like : smr::ebr {
  static constexpr smr::reclaimer_traits traits{.protects_unlinked_traversal = false,
                                                .continues_after_write = true};
  using smr::ebr::ebr;
};
struct nbr_like : smr::ebr {
  static constexpr smr::reclaimer_traits traits{.protects_unlinked_traversal = true,
                                                .continues_after_write = false};
  using smr::ebr::ebr;
};

using key = std::uint64_t;

static_assert(!smr::compatible_v<smr::lazy_list<key, hp_like>, hp_like>,
              "a list whose searches cross unlinked nodes must refuse hp-like reclaimers");
static_assert(smr::compatible_v<smr::lazy_list<key, nbr_like>, nbr_like>);
static_assert(!smr::compatible_v<smr::hm_list<key, nbr_like>, nbr_like>,
              "a list that continues after an auxiliary write must refuse nbr-like reclaimers");
static_assert(smr::compatible_v<smr::hm_list_rr<key, nbr_like>, nbr_like>);
static_assert(smr::compatible_v<smr::hm_list<key, hp_like>, hp_like>);
static_assert(!smr::compatible_v<smr::hash_map<key, nbr_like>, nbr_like>);
static_assert(smr::compatible_v<smr::hash_map_rr<key, nbr_like>, nbr_like>);
static_assert(smr::compatible_v<smr::hash_map<key, hp_like>, hp_like>);
static_assert(smr::compatible_v<smr::ms_queue<key, hp_like>, hp_like>);
static_assert(smr::compatible_v<smr::ms_queue<key, nbr_like>, nbr_like>);
static_assert(smr::compatible_v<smr::lazy_list<key, smr::ebr>, smr::ebr>);
static_assert(smr::compatible_v<smr::hm_list<key, smr::none>, smr::none>);
static_assert(!smr::compatible_v<smr::nm_tree<key, hp_like>, hp_like>,
              "the NM tree walks through unlinked nodes: hp-like reclaimers must be refused");
static_assert(smr::compatible_v<smr::nm_tree<key, nbr_like>, nbr_like>,
              "the NM tree restarts from the root after every write: nbr applies");
static_assert(!smr::compatible_v<smr::nm_tree<key, smr::he>, smr::he> &&
                  !smr::compatible_v<smr::nm_tree<key, smr::ibr_2ge>, smr::ibr_2ge> &&
                  smr::compatible_v<smr::nm_tree<key, smr::ibr_epoch>, smr::ibr_epoch>,
              "interval and era schemes cannot protect the tree's walks; IBR's epoch scheme can");
static_assert(!smr::compatible_v<smr::dgt_tree<key, hp_like>, hp_like> &&
                  !smr::compatible_v<smr::dgt_tree<key, smr::he>, smr::he> &&
                  !smr::compatible_v<smr::dgt_tree<key, smr::ibr_2ge>, smr::ibr_2ge> &&
                  smr::compatible_v<smr::dgt_tree<key, nbr_like>, nbr_like> &&
                  smr::compatible_v<smr::dgt_tree<key, smr::debra>, smr::debra>,
              "the DGT tree's searches walk through unlinked nodes (NBR paper, Table 1): NBR and "
              "the epoch schemes only");
static_assert(!smr::compatible_v<smr::ab_tree<key, hp_like>, hp_like> &&
                  !smr::compatible_v<smr::ab_tree<key, smr::he>, smr::he> &&
                  !smr::compatible_v<smr::ab_tree<key, smr::ibr_2ge>, smr::ibr_2ge> &&
                  !smr::compatible_v<smr::ab_tree<key, smr::poibr>, smr::poibr> &&
                  smr::compatible_v<smr::ab_tree<key, nbr_like>, nbr_like> &&
                  smr::compatible_v<smr::ab_tree<key, smr::debra>, smr::debra>,
              "Brown's (a,b)-tree searches through replaced nodes and restarts from the root "
              "after every write (NBR paper, Table 1, B17a): NBR and the epoch schemes only");
static_assert(!smr::compatible_v<smr::occ_avl_tree<key, hp_like>, hp_like> &&
                  !smr::compatible_v<smr::occ_avl_tree<key, smr::he>, smr::he> &&
                  !smr::compatible_v<smr::occ_avl_tree<key, smr::ibr_2ge>, smr::ibr_2ge> &&
                  !smr::compatible_v<smr::occ_avl_tree<key, smr::lfrc>, smr::lfrc> &&
                  !smr::compatible_v<smr::occ_avl_tree<key, nbr_like>, nbr_like> &&
                  !smr::compatible_v<smr::occ_avl_tree<key, smr::nbr_plus>, smr::nbr_plus> &&
                  smr::compatible_v<smr::occ_avl_tree<key, smr::debra>, smr::debra> &&
                  smr::compatible_v<smr::occ_avl_tree<key, smr::token>, smr::token>,
              "the OCC AVL tree searches through unlinked nodes and repairs upwards through parent "
              "links after its writes (NBR paper, section 6): the epoch schemes only");
static_assert(!smr::compatible_v<smr::treiber_stack<key, smr::tag_ibr>, smr::tag_ibr> &&
                  !smr::compatible_v<smr::ms_queue<key, smr::tag_ibr>, smr::tag_ibr> &&
                  smr::compatible_v<smr::hm_list<key, smr::tag_ibr_faa>, smr::tag_ibr_faa> &&
                  smr::compatible_v<smr::hash_map<key, smr::tag_ibr>, smr::tag_ibr>,
              "TagIBR reads the birth era of every written target: only structures that write "
              "pointers to protected or fresh nodes admit it");
static_assert(smr::compatible_v<smr::treiber_stack<key, smr::tag_ibr_tpa>, smr::tag_ibr_tpa> &&
                  smr::compatible_v<smr::ms_queue<key, smr::tag_ibr_tpa>, smr::tag_ibr_tpa> &&
                  smr::compatible_v<smr::cr_list<key, smr::tag_ibr_tpa>, smr::tag_ibr_tpa> &&
                  smr::compatible_v<smr::bonsai_tree<key, smr::tag_ibr_tpa>, smr::tag_ibr_tpa> &&
                  !smr::compatible_v<smr::nm_tree<key, smr::tag_ibr_tpa>, smr::tag_ibr_tpa> &&
                  !smr::compatible_v<smr::harris_list<key, smr::tag_ibr_tpa>, smr::tag_ibr_tpa>,
              "TagIBR-TPA writes plain pointers and reads the birth from the node it protects: "
              "every structure an interval scheme admits, the stack and the queue included");
static_assert(smr::compatible_v<smr::cr_list<key, hp_like>, hp_like> &&
                  smr::compatible_v<smr::cr_list<key, smr::he>, smr::he> &&
                  smr::compatible_v<smr::cr_list<key, smr::ibr_2ge>, smr::ibr_2ge> &&
                  smr::compatible_v<smr::cr_list<key, nbr_like>, nbr_like> &&
                  smr::compatible_v<smr::cr_hash_map<key, hp_like>, hp_like> &&
                  !smr::compatible_v<smr::cr_list<key, smr::tag_ibr>, smr::tag_ibr> &&
                  !smr::compatible_v<smr::cr_hash_map<key, smr::tag_ibr>, smr::tag_ibr>,
              "the concurrently readable structures validate their reads where the scheme needs "
              "it and write under a lock: every scheme but TagIBR (unprotected successor written)");
static_assert(!smr::compatible_v<smr::harris_list<key, hp_like>, hp_like> &&
                  !smr::compatible_v<smr::harris_list<key, smr::ibr_2ge>, smr::ibr_2ge> &&
                  smr::compatible_v<smr::harris_list<key, nbr_like>, nbr_like>,
              "Harris's list walks through marked, possibly unlinked nodes and restarts after writes");

static_assert(smr::compatible_v<smr::bonsai_tree<key, smr::poibr>, smr::poibr> &&
                  smr::compatible_v<smr::treiber_stack<key, smr::poibr>, smr::poibr> &&
                  !smr::compatible_v<smr::hm_list<key, smr::poibr>, smr::poibr> &&
                  !smr::compatible_v<smr::ms_queue<key, smr::poibr>, smr::poibr> &&
                  !smr::compatible_v<smr::nm_tree<key, smr::poibr>, smr::poibr>,
              "POIBR reserves only the era of the root read: persistent structures only");
static_assert(smr::compatible_v<smr::bonsai_tree<key, smr::ibr_2ge>, smr::ibr_2ge> &&
                  smr::compatible_v<smr::bonsai_tree<key, smr::tag_ibr>, smr::tag_ibr> &&
                  smr::compatible_v<smr::bonsai_tree<key, nbr_like>, nbr_like> &&
                  smr::compatible_v<smr::bonsai_tree<key, smr::ebr>, smr::ebr> &&
                  !smr::compatible_v<smr::bonsai_tree<key, hp_like>, hp_like> &&
                  !smr::compatible_v<smr::bonsai_tree<key, smr::hp>, smr::hp> &&
                  !smr::compatible_v<smr::bonsai_tree<key, smr::he>, smr::he> &&
                  !smr::compatible_v<smr::bonsai_tree<key, smr::wfe>, smr::wfe>,
              "the Bonsai tree's readers walk replaced versions: the interval schemes cover them "
              "(persistent), hp, he and wfe cannot (the IBR paper leaves them out)");

TEST(DsCompatibility, ReasonsNameTheRule) {
  const auto lazy = smr::incompatibility(hp_like::traits, smr::lazy_list<key, hp_like>::requirements);
  EXPECT_NE(lazy.find("unlinked"), std::string_view::npos) << lazy;
  const auto hm = smr::incompatibility(nbr_like::traits, smr::hm_list<key, nbr_like>::requirements);
  EXPECT_NE(hm.find("_rr"), std::string_view::npos) << hm;
  EXPECT_TRUE(smr::incompatibility(nbr_like::traits, smr::hm_list_rr<key, nbr_like>::requirements).empty());
  const auto poibr = smr::incompatibility(smr::poibr::traits, smr::hm_list<key, smr::poibr>::requirements);
  EXPECT_NE(poibr.find("persistent"), std::string_view::npos) << poibr;
  const auto bonsai_he = smr::incompatibility(smr::he::traits, smr::bonsai_tree<key, smr::he>::requirements);
  EXPECT_NE(bonsai_he.find("versions already replaced"), std::string_view::npos) << bonsai_he;
}

// ---- sets against std::set ----

template <class R>
class DsSequential : public ::testing::Test {};
using seq_reclaimers = ::testing::Types<smr::none, smr::ebr>;
struct reclaimer_name {
  template <class R>
  static std::string GetName(int) {
    return std::string(R::base_name);
  }
};
TYPED_TEST_SUITE(DsSequential, seq_reclaimers, reclaimer_name);

// Random insert/remove/contains over [0, key_range); every result must match the model, and
// the contents and invariants are compared along the way and at the end.
template <class Set, class R, class... Args>
void check_set_against_model(std::uint64_t key_range, unsigned ops, std::uint64_t seed,
                             Args&&... args) {
  R domain;
  Set set(domain, std::forward<Args>(args)...);
  auto h = domain.attach();
  std::set<typename Set::key_type> model;
  smr::test::rng rng(seed);
  for (unsigned i = 0; i < ops; ++i) {
    const auto k = static_cast<typename Set::key_type>(rng.below(key_range));
    switch (rng.below(3)) {
      case 0:
        ASSERT_EQ(set.insert(h, k), model.insert(k).second) << "insert " << k << " at op " << i;
        break;
      case 1:
        ASSERT_EQ(set.remove(h, k), model.erase(k) == 1) << "remove " << k << " at op " << i;
        break;
      default:
        ASSERT_EQ(set.contains(h, k), model.count(k) == 1) << "contains " << k << " at op " << i;
    }
    if (i % 256 == 0) {
      ASSERT_EQ(set.check_invariants_unsafe(), "") << "after op " << i;
    }
  }
  std::vector<typename Set::key_type> present;
  set.for_each_unsafe([&](const auto& k) { present.push_back(k); });
  std::sort(present.begin(), present.end());  // hash_map iterates bucket by bucket
  EXPECT_EQ(present, std::vector<typename Set::key_type>(model.begin(), model.end()));
  EXPECT_EQ(set.size_unsafe(), model.size());
  EXPECT_EQ(set.check_invariants_unsafe(), "");
  // Removing the whole content must work too.
  for (const auto& k : model) ASSERT_TRUE(set.remove(h, k));
  EXPECT_EQ(set.size_unsafe(), 0u);
  EXPECT_EQ(set.check_invariants_unsafe(), "");
}

TYPED_TEST(DsSequential, HmListMatchesModel) {
  check_set_against_model<smr::hm_list<key, TypeParam>, TypeParam>(64, 6000, 1);
  check_set_against_model<smr::hm_list<key, TypeParam>, TypeParam>(1024, 4000, 2);
}

TYPED_TEST(DsSequential, HmListRrMatchesModel) {
  check_set_against_model<smr::hm_list_rr<key, TypeParam>, TypeParam>(64, 6000, 3);
}

TYPED_TEST(DsSequential, LazyListMatchesModel) {
  check_set_against_model<smr::lazy_list<key, TypeParam>, TypeParam>(64, 6000, 4);
  check_set_against_model<smr::lazy_list<key, TypeParam>, TypeParam>(1024, 4000, 5);
}

TYPED_TEST(DsSequential, HarrisListMatchesModel) {
  check_set_against_model<smr::harris_list<key, TypeParam>, TypeParam>(64, 6000, 11);
  check_set_against_model<smr::harris_list<key, TypeParam>, TypeParam>(1024, 4000, 12);
}

TYPED_TEST(DsSequential, NmTreeMatchesModel) {
  check_set_against_model<smr::nm_tree<key, TypeParam>, TypeParam>(64, 6000, 9);
  check_set_against_model<smr::nm_tree<key, TypeParam>, TypeParam>(1024, 4000, 10);
}

TYPED_TEST(DsSequential, BonsaiTreeMatchesModel) {
  check_set_against_model<smr::bonsai_tree<key, TypeParam>, TypeParam>(64, 6000, 21);
  check_set_against_model<smr::bonsai_tree<key, TypeParam>, TypeParam>(4096, 12000, 22);
}

// Sorted runs, then emptying from the middle out, with the invariant checked along the way:
// the worst case of the balancing trees. Ascending and descending inserts rotate (Bonsai, AVL)
// or split the rightmost and leftmost leaves (ABtree) over and over; removing from the middle
// out rebalances, merges and redistributes on both sides of the hole until the tree is empty.
template <class Tree, class R>
void check_sorted_runs(key half) {
  R domain;
  Tree tree(domain);
  auto h = domain.attach();
  for (key k = 0; k < half; ++k) {
    ASSERT_TRUE(tree.insert(h, 2 * k));
    if (k % 97 == 0) {
      ASSERT_EQ(tree.check_invariants_unsafe(), "") << "ascending, after " << k;
    }
  }
  for (key k = half; k-- > 0;) ASSERT_TRUE(tree.insert(h, 2 * k + 1));
  ASSERT_EQ(tree.size_unsafe(), 2 * half);
  ASSERT_EQ(tree.check_invariants_unsafe(), "");
  for (key k = 0; k < half; ++k) {
    ASSERT_TRUE(tree.remove(h, half + k));
    ASSERT_TRUE(tree.remove(h, half - 1 - k));
    if (k % 89 == 0) {
      ASSERT_EQ(tree.check_invariants_unsafe(), "") << "emptying, after " << k;
    }
  }
  EXPECT_EQ(tree.size_unsafe(), 0u);
  EXPECT_EQ(tree.check_invariants_unsafe(), "");
}

// The Bonsai tree's invariant checks the weights at every node.
TYPED_TEST(DsSequential, BonsaiTreeStaysBalancedOnSortedRuns) {
  check_sorted_runs<smr::bonsai_tree<key, TypeParam>, TypeParam>(3000);
}

TYPED_TEST(DsSequential, CrListMatchesModel) {
  check_set_against_model<smr::cr_list<key, TypeParam>, TypeParam>(64, 6000, 15);
  check_set_against_model<smr::cr_list<key, TypeParam>, TypeParam>(1024, 4000, 16);
}

TYPED_TEST(DsSequential, CrHashMapMatchesModel) {
  check_set_against_model<smr::cr_hash_map<key, TypeParam>, TypeParam>(256, 8000, 17, std::size_t{7});
}

// none and ebr take the plain walk of the concurrently readable structures' lookups; a
// per-pointer scheme takes the validating one (Hart Listing 3).
TEST(DsSequentialValidated, CrListAndHashMapUnderHpMatchModel) {
  check_set_against_model<smr::cr_list<key, smr::hp>, smr::hp>(64, 6000, 18);
  check_set_against_model<smr::cr_hash_map<key, smr::hp>, smr::hp>(256, 8000, 19, std::size_t{7});
}

// Keys 0 and the largest key sit next to the inf0 sentinel, and the first insert and the last
// remove change S's own link: the edges of an external BST's key space.
template <template <class, class> class Tree, class R>
void check_tree_key_bounds() {
  R domain;
  Tree<key, R> tree(domain);
  auto h = domain.attach();
  const key top = ~key{0};
  EXPECT_FALSE(tree.contains(h, 0));
  EXPECT_FALSE(tree.remove(h, 0));
  EXPECT_TRUE(tree.insert(h, top));
  EXPECT_TRUE(tree.insert(h, 0));
  EXPECT_FALSE(tree.insert(h, top));
  EXPECT_TRUE(tree.contains(h, top));
  EXPECT_EQ(tree.check_invariants_unsafe(), "");
  EXPECT_TRUE(tree.remove(h, top));
  EXPECT_FALSE(tree.remove(h, top));
  EXPECT_TRUE(tree.remove(h, 0));
  EXPECT_EQ(tree.size_unsafe(), 0u);
  EXPECT_EQ(tree.check_invariants_unsafe(), "");
}

TYPED_TEST(DsSequential, AbTreeMatchesModel) {
  check_set_against_model<smr::ab_tree<key, TypeParam>, TypeParam>(64, 6000, 23);
  check_set_against_model<smr::ab_tree<key, TypeParam>, TypeParam>(4096, 20000, 24);
}

TYPED_TEST(DsSequential, SmallDegreeAbTreeMatchesModel) {
  check_set_against_model<smr::basic_ab_tree<key, TypeParam, 3, 2>, TypeParam>(64, 6000, 25);
  check_set_against_model<smr::basic_ab_tree<key, TypeParam, 4, 2>, TypeParam>(1024, 20000, 26);
}

TYPED_TEST(DsSequential, AbTreeKeyBounds) { check_tree_key_bounds<smr::ab_tree, TypeParam>(); }

// The ABtree's invariant: a strict (a,b)-tree (no tag or underfull node left, leaves at one depth).
TYPED_TEST(DsSequential, AbTreeStaysStrictOnSortedRuns) {
  check_sorted_runs<smr::ab_tree<key, TypeParam>, TypeParam>(5000);
}

TYPED_TEST(DsSequential, OccAvlTreeMatchesModel) {
  check_set_against_model<smr::occ_avl_tree<key, TypeParam>, TypeParam>(64, 6000, 27);
  check_set_against_model<smr::occ_avl_tree<key, TypeParam>, TypeParam>(4096, 20000, 28);
}

TYPED_TEST(DsSequential, OccAvlTreeKeyBounds) { check_tree_key_bounds<smr::occ_avl_tree, TypeParam>(); }

// The AVL tree's invariant: exact heights, balance within one at every node, no routing node
// with fewer than two children. A strict AVL tree of 10,000 keys is at most 18 levels high.
TYPED_TEST(DsSequential, OccAvlTreeStaysStrictOnSortedRuns) {
  check_sorted_runs<smr::occ_avl_tree<key, TypeParam>, TypeParam>(5000);
  TypeParam domain;
  smr::occ_avl_tree<key, TypeParam> tree(domain);
  auto h = domain.attach();
  for (key k = 0; k < 10000; ++k) ASSERT_TRUE(tree.insert(h, k));
  EXPECT_LE(tree.height_unsafe(), 18);
  EXPECT_GE(tree.height_unsafe(), 14);  // ceil(log2(10,001))
}

TYPED_TEST(DsSequential, NmTreeKeyBounds) { check_tree_key_bounds<smr::nm_tree, TypeParam>(); }

TYPED_TEST(DsSequential, DgtTreeMatchesModel) {
  check_set_against_model<smr::dgt_tree<key, TypeParam>, TypeParam>(64, 6000, 13);
  check_set_against_model<smr::dgt_tree<key, TypeParam>, TypeParam>(1024, 4000, 14);
}

TYPED_TEST(DsSequential, DgtTreeKeyBounds) { check_tree_key_bounds<smr::dgt_tree, TypeParam>(); }

TYPED_TEST(DsSequential, HashMapMatchesModel) {
  // 7 buckets: chains of several nodes, so the list code inside each bucket is exercised.
  check_set_against_model<smr::hash_map<key, TypeParam>, TypeParam>(256, 8000, 6, std::size_t{7});
  check_set_against_model<smr::hash_map_rr<key, TypeParam>, TypeParam>(256, 8000, 7, std::size_t{7});
  check_set_against_model<smr::hash_map<key, TypeParam>, TypeParam>(4096, 4000, 8);
}

// Keys with a non-trivial destructor: nodes must be destroyed properly (ASan/LSan check it).
TYPED_TEST(DsSequential, StringKeysAreReclaimed) {
  using R = TypeParam;
  R domain;
  smr::hash_map<std::string, R> map(domain, 5);
  smr::lazy_list<std::string, R> lazy(domain);
  smr::hm_list<std::string, R> hm(domain);
  smr::nm_tree<std::string, R> tree(domain);
  smr::dgt_tree<std::string, R> dgt(domain);
  smr::ab_tree<std::string, R> ab(domain);
  smr::occ_avl_tree<std::string, R> avl(domain);
  smr::harris_list<std::string, R> harris(domain);
  smr::cr_list<std::string, R> cr(domain);
  smr::cr_hash_map<std::string, R> cr_map(domain, 5);
  auto h = domain.attach();
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 50; ++i) {
      const std::string k = "a rather long key that does not fit SSO #" + std::to_string(i);
      EXPECT_TRUE(map.insert(h, k));
      EXPECT_TRUE(lazy.insert(h, k));
      EXPECT_TRUE(hm.insert(h, k));
      EXPECT_TRUE(tree.insert(h, k));
      EXPECT_TRUE(dgt.insert(h, k));
      EXPECT_TRUE(ab.insert(h, k));
      EXPECT_TRUE(avl.insert(h, k));
      EXPECT_TRUE(harris.insert(h, k));
      EXPECT_TRUE(cr.insert(h, k));
      EXPECT_TRUE(cr_map.insert(h, k));
      EXPECT_FALSE(map.insert(h, k));
      EXPECT_FALSE(cr.insert(h, k));
    }
    for (int i = 0; i < 50; i += 2) {
      const std::string k = "a rather long key that does not fit SSO #" + std::to_string(i);
      EXPECT_TRUE(map.remove(h, k));
      EXPECT_TRUE(lazy.remove(h, k));
      EXPECT_TRUE(hm.remove(h, k));
      EXPECT_TRUE(tree.remove(h, k));
      EXPECT_TRUE(dgt.remove(h, k));
      EXPECT_TRUE(ab.remove(h, k));
      EXPECT_TRUE(avl.remove(h, k));
      EXPECT_TRUE(harris.remove(h, k));
      EXPECT_TRUE(cr.remove(h, k));
      EXPECT_TRUE(cr_map.remove(h, k));
      EXPECT_FALSE(lazy.contains(h, k));
      EXPECT_FALSE(cr.contains(h, k));
    }
    EXPECT_EQ(map.size_unsafe(), 25u);
    EXPECT_EQ(lazy.size_unsafe(), 25u);
    EXPECT_EQ(hm.size_unsafe(), 25u);
    EXPECT_EQ(tree.size_unsafe(), 25u);
    EXPECT_EQ(dgt.size_unsafe(), 25u);
    EXPECT_EQ(ab.size_unsafe(), 25u);
    EXPECT_EQ(avl.size_unsafe(), 25u);
    EXPECT_EQ(harris.size_unsafe(), 25u);
    EXPECT_EQ(cr.size_unsafe(), 25u);
    EXPECT_EQ(cr_map.size_unsafe(), 25u);
    for (int i = 1; i < 50; i += 2) {
      const std::string k = "a rather long key that does not fit SSO #" + std::to_string(i);
      EXPECT_TRUE(map.contains(h, k));
      EXPECT_TRUE(map.remove(h, k));
      EXPECT_TRUE(lazy.remove(h, k));
      EXPECT_TRUE(hm.remove(h, k));
      EXPECT_TRUE(tree.remove(h, k));
      EXPECT_TRUE(dgt.remove(h, k));
      EXPECT_TRUE(ab.remove(h, k));
      EXPECT_TRUE(avl.remove(h, k));
      EXPECT_TRUE(harris.remove(h, k));
      EXPECT_TRUE(cr.contains(h, k));
      EXPECT_TRUE(cr.remove(h, k));
      EXPECT_TRUE(cr_map.remove(h, k));
    }
    EXPECT_EQ(cr.check_invariants_unsafe(), "");
    EXPECT_EQ(cr_map.check_invariants_unsafe(), "");
    EXPECT_EQ(tree.check_invariants_unsafe(), "");
    EXPECT_EQ(dgt.check_invariants_unsafe(), "");
    EXPECT_EQ(ab.check_invariants_unsafe(), "");
    EXPECT_EQ(avl.check_invariants_unsafe(), "");
    EXPECT_EQ(harris.check_invariants_unsafe(), "");
    EXPECT_EQ(map.check_invariants_unsafe(), "");
    EXPECT_EQ(lazy.check_invariants_unsafe(), "");
    EXPECT_EQ(hm.check_invariants_unsafe(), "");
  }
}

// ---- queue and stack against std::deque / std::vector ----

TYPED_TEST(DsSequential, MsQueueMatchesModel) {
  using R = TypeParam;
  R domain;
  // std::string values: the dequeued value is moved out of the new sentinel, and the
  // moved-from remains must still be destroyed when the node is freed.
  smr::ms_queue<std::string, R> queue(domain);
  auto h = domain.attach();
  std::deque<std::string> model;
  smr::test::rng rng(9);
  for (unsigned i = 0; i < 8000; ++i) {
    // Biased towards enqueue in the first half and dequeue in the second: the queue grows,
    // then drains past empty.
    const bool enq = rng.below(100) < (i < 4000 ? 60u : 40u);
    if (enq) {
      std::string v = "value number " + std::to_string(i) + " with a heap-allocated tail";
      model.push_back(v);
      queue.enqueue(h, std::move(v));
    } else {
      const auto got = queue.dequeue(h);
      if (model.empty()) {
        ASSERT_FALSE(got.has_value()) << "dequeue from empty at op " << i;
      } else {
        ASSERT_TRUE(got.has_value()) << "op " << i;
        ASSERT_EQ(*got, model.front()) << "op " << i;
        model.pop_front();
      }
    }
    if (i % 256 == 0) {
      ASSERT_EQ(queue.check_invariants_unsafe(), "") << "after op " << i;
    }
  }
  std::deque<std::string> inside;
  queue.for_each_unsafe([&](const std::string& v) { inside.push_back(v); });
  EXPECT_EQ(inside, model);
  EXPECT_EQ(queue.size_unsafe(), model.size());
  EXPECT_EQ(queue.check_invariants_unsafe(), "");
}

TYPED_TEST(DsSequential, TreiberStackMatchesModel) {
  using R = TypeParam;
  R domain;
  smr::treiber_stack<std::uint64_t, R> stack(domain);
  auto h = domain.attach();
  std::vector<std::uint64_t> model;
  smr::test::rng rng(10);
  for (std::uint64_t i = 0; i < 6000; ++i) {
    if (rng.below(2) == 0) {
      stack.push(h, i);
      model.push_back(i);
    } else {
      const auto got = stack.pop(h);
      ASSERT_EQ(got.has_value(), !model.empty()) << "op " << i;
      if (got) {
        ASSERT_EQ(*got, model.back());
        model.pop_back();
      }
    }
  }
  std::vector<std::uint64_t> inside;
  stack.for_each_unsafe([&](std::uint64_t v) { inside.push_back(v); });
  EXPECT_EQ(inside, std::vector<std::uint64_t>(model.rbegin(), model.rend()));
  EXPECT_EQ(stack.size_unsafe(), model.size());
  EXPECT_EQ(stack.check_invariants_unsafe(), "");
}

}  // namespace

// A value whose copy or move throws once the stack or queue holds it: the node that pop() or
// dequeue() unlinked must still be retired (it leaked before: the value was taken out first).
struct throws_when_armed {
  static inline bool armed = false;
  int v = 0;
  explicit throws_when_armed(int x) : v(x) {}
  throws_when_armed(const throws_when_armed& o) : v(o.v) { check(); }
  throws_when_armed(throws_when_armed&& o) : v(o.v) { check(); }
  throws_when_armed& operator=(const throws_when_armed&) = default;
  static void check() {
    if (armed) throw std::runtime_error("value copy failed");
  }
};

TEST(DsExceptions, APopWhoseValueThrowsStillRetiresTheNode) {
  smr::ebr domain;
  auto h = domain.attach();
  smr::treiber_stack<throws_when_armed, smr::ebr> stack(domain);
  stack.push(h, throws_when_armed(1));
  throws_when_armed::armed = true;
  EXPECT_THROW((void)stack.pop(h), std::runtime_error);
  throws_when_armed::armed = false;
  EXPECT_EQ(domain.stats().retired, 1u) << "the unlinked node was not retired";
  EXPECT_FALSE(stack.pop(h).has_value());
}

TEST(DsExceptions, ADequeueWhoseValueThrowsStillRetiresTheOldSentinel) {
  smr::ebr domain;
  auto h = domain.attach();
  smr::ms_queue<throws_when_armed, smr::ebr> queue(domain);
  queue.enqueue(h, throws_when_armed(1));
  throws_when_armed::armed = true;
  EXPECT_THROW((void)queue.dequeue(h), std::runtime_error);
  throws_when_armed::armed = false;
  EXPECT_EQ(domain.stats().retired, 1u) << "the old sentinel was not retired";
  EXPECT_FALSE(queue.dequeue(h).has_value());
}
