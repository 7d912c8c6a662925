// The concurrently readable hash table of Hart et al. (JPDC 2007), §5.5, Fig. 16: a fixed
// array of buckets, each one concurrently readable list (detail::cr_chain from cr_list.hpp:
// its own update lock, lockless reads), a key in bucket hash(key) % buckets. Updates to
// different buckets do not contend. The table is detail::chained_hash_map (chain_set.hpp),
// shared with Michael's lock-free hash_map, so the two differ only in their buckets.
//
// Requirements: those of cr_list (TagIBR refused); keys also hashed by Hash.
#pragma once

#include <functional>

#include "smr/detail/chain_set.hpp"
#include "smr/ds/cr_list.hpp"

namespace smr {

template <class K, reclaimer R, class Hash = std::hash<K>>
class cr_hash_map : public detail::chained_hash_map<detail::cr_chain<K, R>, Hash> {
 public:
  using detail::chained_hash_map<detail::cr_chain<K, R>, Hash>::chained_hash_map;
};

}  // namespace smr
