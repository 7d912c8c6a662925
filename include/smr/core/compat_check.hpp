// Compile-time refusal of incompatible reclaimer x data structure pairs, with readable reasons.
// A data structure instantiates check_compatible<R, its requirements> in its body.
#pragma once

#include "smr/core/traits.hpp"

namespace smr::core {

template <class R, ds_requirements Req>
struct check_compatible {
  static_assert(!Req.traverses_unlinked_nodes || R::traits.protects_unlinked_traversal,
                "incompatible pair: this data structure's searches pass through unlinked nodes "
                "without validation, which this reclaimer cannot protect (NBR paper, Table 1); "
                "use an epoch-based reclaimer or nbr");
  static_assert(!Req.continues_after_write || R::traits.continues_after_write,
                "incompatible pair: this data structure continues a traversal after an "
                "auxiliary write, but this reclaimer needs every read phase to restart from the "
                "root (NBR paper, Section 6); use the restart-from-root (_rr) variant");
  static constexpr bool value = true;
};

}  // namespace smr::core
