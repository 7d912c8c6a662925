// The two sets built from a chain (one sorted list on its own head link, every operation inside
// the caller's guard): a set that is one chain (hm_list, cr_list) and a hash map that is a fixed
// array of chains (hash_map, cr_hash_map). Written once; each structure names its chain.
//
// A chain provides: key_type, domain_type, requirements, set_name, map_name; insert, remove and
// contains taking (guard, key); for_each_unsafe, size_unsafe and check_unsafe(in_place).
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "smr/core/traits.hpp"
#include "smr/detail/compat_check.hpp"
#include "smr/detail/unpredictable.hpp"

namespace smr::detail {

template <class Chain>
class chain_set {
  using R = typename Chain::domain_type;
  using K = typename Chain::key_type;

 public:
  static constexpr std::string_view name = Chain::set_name;
  static constexpr ds_requirements requirements = Chain::requirements;
  using handle = typename R::handle;
  using key_type = K;

  explicit chain_set(R& domain) { admit<requirements>(domain, name); }
  chain_set(const chain_set&) = delete;
  chain_set& operator=(const chain_set&) = delete;

  bool insert(handle& h, const K& key) {
    auto g = h.begin_op();
    return chain_.insert(g, key);
  }
  bool remove(handle& h, const K& key) {
    auto g = h.begin_op();
    return chain_.remove(g, key);
  }
  bool contains(handle& h, const K& key) {
    auto g = h.begin_op();
    return unpredictable(chain_.contains(g, key));  // before the guard closes
  }

  template <class F>
  void for_each_unsafe(F&& fn) const {
    chain_.for_each_unsafe(fn);
  }
  std::size_t size_unsafe() const { return chain_.size_unsafe(); }
  std::string check_invariants_unsafe() const {
    return chain_.check_unsafe([](const K&) { return true; });
  }

 private:
  Chain chain_;
};

// A key lives in bucket hash(key) % buckets. The table never resizes, so the load factor is the
// caller's choice of bucket count.
template <class Chain, class Hash>
class chained_hash_map {
  using R = typename Chain::domain_type;
  using K = typename Chain::key_type;

 public:
  static constexpr std::string_view name = Chain::map_name;
  static constexpr ds_requirements requirements = Chain::requirements;
  // 2^15 buckets: load factor ~1 for the IBR paper's workload (keys in [0, 65536), half full).
  static constexpr std::size_t default_buckets = std::size_t{1} << 15;
  using handle = typename R::handle;
  using key_type = K;

  explicit chained_hash_map(R& domain, std::size_t buckets = default_buckets, Hash hash = Hash())
      : buckets_(buckets), hash_(std::move(hash)) {
    admit<requirements>(domain, name);
    if (buckets_ == 0) throw std::invalid_argument(std::string(name) + " needs at least one bucket");
    table_ = std::make_unique<Chain[]>(buckets_);
  }
  chained_hash_map(const chained_hash_map&) = delete;
  chained_hash_map& operator=(const chained_hash_map&) = delete;

  bool insert(handle& h, const K& key) {
    auto g = h.begin_op();
    return bucket(key).insert(g, key);
  }
  bool remove(handle& h, const K& key) {
    auto g = h.begin_op();
    return bucket(key).remove(g, key);
  }
  bool contains(handle& h, const K& key) {
    auto g = h.begin_op();
    return unpredictable(bucket(key).contains(g, key));  // before the guard closes
  }

  std::size_t bucket_count() const { return buckets_; }

  template <class F>
  void for_each_unsafe(F&& fn) const {
    for (std::size_t i = 0; i < buckets_; ++i) table_[i].for_each_unsafe(fn);
  }
  std::size_t size_unsafe() const {
    std::size_t n = 0;
    for (std::size_t i = 0; i < buckets_; ++i) n += table_[i].size_unsafe();
    return n;
  }
  // Each bucket is a valid chain and holds only keys that hash to it.
  std::string check_invariants_unsafe() const {
    for (std::size_t i = 0; i < buckets_; ++i) {
      std::string err = table_[i].check_unsafe([&](const K& k) { return index(k) == i; });
      if (!err.empty()) return "bucket " + std::to_string(i) + ": " + err;
    }
    return {};
  }

 private:
  std::size_t index(const K& key) const { return hash_(key) % buckets_; }
  Chain& bucket(const K& key) { return table_[index(key)]; }

  std::size_t buckets_;
  Hash hash_;
  std::unique_ptr<Chain[]> table_;
};

}  // namespace smr::detail
