// Michael's lock-free hash map: Michael, "High performance dynamic lock-free hash tables and
// list-based sets" (SPAA 2002), as benchmarked in the IBR paper (Wen et al. 2018, §6).
//
// Algorithm: a fixed array of buckets, each one Harris-Michael ordered list (detail::hm_chain
// from hm_list.hpp, the same code, not a copy); a key lives in bucket hash(key) % buckets.
// The table never resizes, so the load factor is the caller's choice of bucket count.
//
// Meeting the reclaimer: exactly as hm_list, one bucket per operation: each traversal is a
// read phase ending in reserve(pred, cur, next), the CASes are the write phase, three rotating
// protection slots. `hash_map_rr` restarts every search from the bucket's head after an
// auxiliary unlink, the only form NBR accepts.
//
// Requirements: keys copyable, ordered by operator< and hashed by Hash; three protection slots;
// continues_after_write unless restart-from-root.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "smr/ds/hm_list.hpp"

namespace smr {

template <class K, reclaimer R, bool RestartFromRoot = false, class Hash = std::hash<K>>
class hash_map {
  using chain = detail::hm_chain<K, R, RestartFromRoot>;

 public:
  static constexpr std::string_view name = RestartFromRoot ? "hash_map_rr" : "hash_map";
  static constexpr ds_requirements requirements = chain::requirements;
  // 2^15 buckets: load factor ~1 for the IBR paper's workload (keys in [0, 65536), half full).
  static constexpr std::size_t default_buckets = std::size_t{1} << 15;
  using handle = typename R::handle;
  using key_type = K;

  explicit hash_map(R& domain, std::size_t buckets = default_buckets, Hash hash = Hash())
      : buckets_(buckets), hash_(std::move(hash)) {
    detail::admit<requirements>(domain, name);
    if (buckets_ == 0) throw std::invalid_argument("hash_map needs at least one bucket");
    table_ = std::make_unique<chain[]>(buckets_);
  }
  hash_map(const hash_map&) = delete;
  hash_map& operator=(const hash_map&) = delete;

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
    return detail::unpredictable(bucket(key).contains(g, key));  // before the guard closes
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
  // Each bucket is a valid list and holds only keys that hash to it.
  std::string check_invariants_unsafe() const {
    for (std::size_t i = 0; i < buckets_; ++i) {
      std::string err = table_[i].check_unsafe([&](const K& k) { return index(k) == i; });
      if (!err.empty()) return "bucket " + std::to_string(i) + ": " + err;
    }
    return {};
  }

 private:
  std::size_t index(const K& key) const { return hash_(key) % buckets_; }
  chain& bucket(const K& key) { return table_[index(key)]; }

  std::size_t buckets_;
  Hash hash_;
  std::unique_ptr<chain[]> table_;
};

template <class K, reclaimer R, class Hash = std::hash<K>>
using hash_map_rr = hash_map<K, R, true, Hash>;

}  // namespace smr
