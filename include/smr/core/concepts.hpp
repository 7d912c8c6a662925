// The reclaimer concept in code. A data structure names `smr::reclaimer R` in its template
// header, so an unsuitable type fails where the structure is instantiated, with the clause that
// does not hold, rather than deep inside an operation.
//
//   reclaimer R        a domain: config, node_base, atomic_ptr<T>, traits, name; attach()
//                      gives a handle; stats(); protect_slots()
//   reclaimer_handle   per thread: begin_op() gives a guard; unreclaimed()
//   reclaimer_guard    per operation: protection slots, protect, read_phase, reserve, create,
//                      retire, dispose (see core/domain.hpp for what each means)
#pragma once

#include "smr/detail/require_cpp20.hpp"

#include <concepts>
#include <cstddef>
#include <string_view>

#include "smr/core/marked_ptr.hpp"
#include "smr/core/node.hpp"
#include "smr/core/stats.hpp"
#include "smr/core/traits.hpp"

namespace smr {

namespace detail {
// A node type the concept checks the guard with.
template <class R>
struct concept_probe_node : R::node_base {
  typename R::template atomic_ptr<concept_probe_node> next;
};
}  // namespace detail

template <class G, class R>
concept reclaimer_guard = requires(G& g, detail::concept_probe_node<R>* n,
                                   const typename R::template atomic_ptr<detail::concept_probe_node<R>>& link) {
  g.slot();
  g.template slots<2>();
  g.protect(link);
  { g.slot().protect(link) } -> std::same_as<core::marked_ptr<detail::concept_probe_node<R>>>;
  g.read_phase([] { return 0; });
  g.reserve(n, n);
  { g.template create<detail::concept_probe_node<R>>() } -> std::same_as<detail::concept_probe_node<R>*>;
  g.retire(n);
  g.dispose(n);
};

template <class H>
concept reclaimer_handle = requires(H& h, const H& ch) {
  h.begin_op();
  { ch.unreclaimed() } -> std::convertible_to<std::size_t>;
};

template <class R>
concept reclaimer = requires {
  typename R::config;
  typename R::node_base;
  typename R::handle;
  typename R::guard;
  { R::traits } -> std::convertible_to<reclaimer_traits>;
  { R::name } -> std::convertible_to<std::string_view>;
} && std::derived_from<typename R::node_base, core::retired_node> && requires(R& r) {
  { r.attach() } -> std::same_as<typename R::handle>;
  { r.stats() } -> std::same_as<core::stats_snapshot>;
  { r.protect_slots() } -> std::convertible_to<unsigned>;
} && reclaimer_handle<typename R::handle> && reclaimer_guard<typename R::guard, R>;

}  // namespace smr
