// none: the leaky baseline. Nothing is freed while the domain lives, so it measures the cost
// of a data structure with no reclamation at all. Retired nodes are still kept (and freed when
// the domain is destroyed, when no thread can reach them) so that leak checkers stay quiet.
#pragma once

#include "smr/core/domain.hpp"

namespace smr {

struct none_rule : rule_defaults {
  static constexpr std::string_view name = "none", summary = "the leaky baseline: nothing is freed while the domain lives";

  struct config {};
  static constexpr std::tuple<> tunables{};
  static constexpr reclaimer_traits traits{.protects_unlinked_traversal = true, .frees = false};
  static config eager_config() { return {}; }

  struct slot {};

  template <class Base>
  class thread_state : public Base {
   protected:
    using Base::Base;
    ~thread_state() { this->donate(std::move(leaked_)); }

    void enter() {}
    void leave() {}
    void retire(core::retired_node* n) {
      leaked_.push(n);
      this->tc().note_retired();
    }
    std::size_t unreclaimed() const { return leaked_.size(); }

   private:
    detail::limbo_bag leaked_;
  };
};

using none = basic_domain<none_rule>;

}  // namespace smr
