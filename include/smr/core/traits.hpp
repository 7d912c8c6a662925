// Capabilities that reclaimers declare and requirements that data structures declare, and the
// one compatibility rule that joins them (NBR paper, Table 1). The same declarations drive the
// compile-time refusal (static_assert in each data structure), smrbench's run-time refusal, and
// the compatibility matrix in the docs.
//
// It also holds the shape of a reclaimer's metadata (tunable): every rule declares its name, a
// one-line summary, its tunables (name, member, meaning; the defaults are the config's), its
// traits and the metrics it reports in one place, and smrbench (--param, --list), the docs'
// tables and the compatibility matrix read them from there.
#pragma once

#include "smr/detail/require_cpp20.hpp"

#include <string_view>

#include "smr/core/stats.hpp"

namespace smr {

// One tunable field of a reclaimer's config: its name (as --param takes it), the member, what
// it means, and the smallest value the scheme accepts (a domain built with less throws
// std::invalid_argument naming the field). The default is a default-constructed config's value.
template <class Config, class T>
struct tunable {
  std::string_view name;
  T Config::*member;
  std::string_view help;
  T minimum{};
};
template <class Config, class T>
tunable(std::string_view, T Config::*, std::string_view) -> tunable<Config, T>;
template <class Config, class T, class M>
tunable(std::string_view, T Config::*, std::string_view, M) -> tunable<Config, T>;

struct reclaimer_traits {
  // Readers may follow links out of nodes that are already unlinked (and retired) and still be
  // safe: true for epoch and quiescence schemes and NBR, false for HP/IBR/HE/WFE, which can
  // only protect a node they validate as still reachable.
  bool protects_unlinked_traversal = false;
  // Readers of a persistent structure (ds_requirements::persistent) may follow its immutable
  // links through versions already replaced: true for the interval schemes, whose reservation
  // covers every node of the version they read (a node is never younger than the publication
  // of a version that contains it, and is retired only after that version is replaced); false
  // for hp, he and wfe, whose re-read of an immutable link validates nothing. Implied by
  // protects_unlinked_traversal.
  bool protects_persistent_traversal = false;
  // Protects only what a persistent structure's root leads to (POIBR reserves the era of the
  // root read and nothing else): refused on every structure that is not persistent.
  bool requires_persistent = false;
  // After a write inside a traversal (helping unlink a marked node), the traversal may go on
  // from where it is. False for NBR: every read phase must restart from the root.
  bool continues_after_write = true;
  // A stalled thread cannot hold back an unbounded number of retired nodes.
  bool bounded_garbage = false;
  // Writing a pointer into a link may read or update the target node's header (TagIBR raises
  // the link's born_before tag to cover the target: with the tag the pointer was read with, else
  // the target's birth era; lfrc adds to the target's reference count), so only pointers read
  // through protect() or to nodes the writer allocated may be written.
  bool reads_written_nodes = false;
  // protect() uses numbered slots that the domain's configuration sizes (hazard pointers,
  // hazard eras): a data structure checks its need against domain.protect_slots() at
  // construction.
  bool slot_based_protection = false;
  // Frees retired nodes while the domain lives (false only for the leaky baseline, which
  // therefore has no amortized-free variant).
  bool frees = true;
  // Links count references to their targets (lfrc's counted_link): a structure must leave every
  // node's lifetime to the counts, its teardown included.
  bool counted_links = false;
  // Allocates its nodes itself, from memory it keeps for the domain's lifetime (lfrc's counted
  // cells, tag_ibr_tpa's type-preserving pool): a node type's class operator new is not
  // honoured, and nodes the user allocated cannot be retired with a deleter (both refused at
  // compile time). The skeleton checks that the rule's create()/dispose() hooks agree.
  bool type_stable_memory = false;
  // Frees retired nodes in batches, which the amortized-free policy can spread out (false for
  // lfrc, which frees each node when its last reference goes: it has no _af variant).
  bool batched_frees = true;
  core::metric_support metrics{};
};

struct ds_requirements {
  // Searches pass through nodes that may already be unlinked, without validating each step.
  bool traverses_unlinked_nodes = false;
  // Traversals continue after an auxiliary write instead of restarting from the root.
  bool continues_after_write = false;
  // Some write installs a pointer to a node the writer has not protected (read with a plain
  // load, or from a frozen link), e.g. the Treiber stack's pop installing top->next.
  bool writes_unprotected_pointers = false;
  // Most protect() slots in use at once (checked at construction against the domain).
  unsigned protect_slots = 0;
  // Works with counted links (reclaimer trait counted_links): every node is reached through its
  // own type's R::atomic_ptr, only held nodes are written into links, and the teardown releases
  // the roots instead of freeing linked nodes itself.
  bool handles_counted_links = false;
  // A persistent structure (IBR §3.1): every link but the root is written only before its node
  // is published; an update builds a new version from the root it read and installs it with one
  // CAS on the root; every attempt reads the root through protect_root(). Its nodes are never
  // younger than a version that contains them, and a node left out of a version never returns.
  bool persistent = false;
};

// Why a pair cannot work, or an empty view when it can.
constexpr std::string_view incompatibility(const reclaimer_traits& r, const ds_requirements& d) {
  if (d.traverses_unlinked_nodes && !r.protects_unlinked_traversal &&
      !(d.persistent && r.protects_persistent_traversal))
    return d.persistent
               ? "the data structure's readers follow immutable links through versions already "
                 "replaced, and this reclaimer's protection cannot cover them (the IBR paper leaves "
                 "hp and he out of the Bonsai tree)"
               : "the data structure's searches pass through unlinked nodes without validation, "
                 "which this reclaimer cannot protect (NBR paper, Table 1)";
  if (r.requires_persistent && !d.persistent)
    return "this reclaimer protects only what a persistent structure's root leads to (POIBR, IBR "
           "§3.1), and the data structure changes links other than its root";
  if (d.continues_after_write && !r.continues_after_write)
    return "the data structure continues a traversal after an auxiliary write, but this "
           "reclaimer requires every read phase to restart from the root (the lists and the hash map "
           "have an _rr variant that does)";
  if (d.writes_unprotected_pointers && r.reads_written_nodes)
    return "the data structure writes pointers to nodes it has not protected, but this reclaimer "
           "reads the header of every node whose pointer is written (TagIBR's born_before tag, "
           "lfrc's reference count)";
  if (r.counted_links && !d.handles_counted_links)
    return "this reclaimer counts references in every link (lfrc), and the data structure does "
           "not support counted links (it frees linked nodes itself or links nodes of another type)";
  return {};
}

template <class DS, class R>
inline constexpr bool compatible_v = incompatibility(R::traits, DS::requirements).empty();

}  // namespace smr
