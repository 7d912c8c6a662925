// Compile-time refusal of incompatible reclaimer x data structure pairs, with readable reasons,
// and the construction-time check of protection slots. A data structure instantiates
// check_compatible<R, its requirements> in its constructor.
#pragma once

#include <stdexcept>
#include <string>

#include "smr/core/traits.hpp"

namespace smr::detail {

template <class R, ds_requirements Req>
struct check_compatible {
  static_assert(!Req.traverses_unlinked_nodes || R::traits.protects_unlinked_traversal ||
                    (Req.persistent && R::traits.protects_persistent_traversal),
                "incompatible pair: this data structure's searches pass through unlinked nodes "
                "without validation, which this reclaimer cannot protect (NBR paper, Table 1); "
                "use an epoch-based reclaimer or nbr (or, for a persistent structure, an IBR scheme)");
  static_assert(!R::traits.requires_persistent || Req.persistent,
                "incompatible pair: this reclaimer protects only what a persistent structure's "
                "root leads to (POIBR, IBR §3.1), and this data structure changes links other "
                "than its root; use tag_ibr or ibr_2ge");
  static_assert(!Req.continues_after_write || R::traits.continues_after_write,
                "incompatible pair: this data structure continues a traversal after an "
                "auxiliary write, but this reclaimer needs every read phase to restart from the "
                "root (NBR paper, Section 6); use the restart-from-root (_rr) variant");
  static_assert(!Req.writes_unprotected_pointers || !R::traits.reads_written_nodes,
                "incompatible pair: this data structure writes pointers to nodes it has not "
                "protected, but this reclaimer reads the header of every node whose pointer is "
                "written (TagIBR's born_before tag, lfrc's reference count)");
  static_assert(!R::traits.counted_links || Req.handles_counted_links,
                "incompatible pair: this reclaimer counts references in every link (lfrc), and "
                "this data structure does not support counted links");
  static constexpr bool value = true;
};

// A data structure's construction-time check of the domain's protection slots.
template <class Domain>
void require_protect_slots(const Domain& d, unsigned needed, std::string_view ds_name) {
  if (Domain::traits.slot_based_protection && d.protect_slots() < needed)
    throw std::invalid_argument(std::string(ds_name) + " needs " + std::to_string(needed) +
                                " protection slots per thread, the domain has " +
                                std::to_string(d.protect_slots()));
}

// What every data structure's constructor calls: the compile-time refusal of an incompatible
// pair and the construction-time check of protection slots. From the constructor, not the class
// body, so that compatible_v can query `requirements` of an incompatible pair without tripping
// the refusal.
template <ds_requirements Req, class R>
void admit(const R& domain, std::string_view ds_name) {
  static_assert(check_compatible<R, Req>::value);
  require_protect_slots(domain, Req.protect_slots, ds_name);
}

}  // namespace smr::detail
