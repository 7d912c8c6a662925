// Michael's lock-free hash map: Michael, "High performance dynamic lock-free hash tables and
// list-based sets" (SPAA 2002), as benchmarked in the IBR paper (Wen et al. 2018, §6).
//
// Algorithm: a fixed array of buckets, each one Harris-Michael ordered list (detail::hm_chain
// from hm_list.hpp, the same code, not a copy); a key lives in bucket hash(key) % buckets.
// The table never resizes, so the load factor is the caller's choice of bucket count. The
// table itself is detail::chained_hash_map (chain_set.hpp), shared with cr_hash_map.
//
// Meeting the reclaimer: exactly as hm_list, one bucket per operation: each traversal is a
// read phase ending in reserve(pred, cur, next), the CASes are the write phase, three rotating
// protection slots. `hash_map_rr` restarts every search from the bucket's head after an
// auxiliary unlink, the only form NBR accepts.
//
// Requirements: keys copyable, ordered by operator< and hashed by Hash; three protection slots;
// continues_after_write unless restart-from-root.
#pragma once

#include <functional>

#include "smr/detail/chain_set.hpp"
#include "smr/ds/hm_list.hpp"

namespace smr {

template <class K, reclaimer R, bool RestartFromRoot = false, class Hash = std::hash<K>>
class hash_map : public detail::chained_hash_map<detail::hm_chain<K, R, RestartFromRoot>, Hash> {
 public:
  using detail::chained_hash_map<detail::hm_chain<K, R, RestartFromRoot>, Hash>::chained_hash_map;
};

template <class K, reclaimer R, class Hash = std::hash<K>>
using hash_map_rr = hash_map<K, R, true, Hash>;

}  // namespace smr
