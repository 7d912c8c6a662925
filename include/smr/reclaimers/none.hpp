// none: the leaky baseline. Nothing is freed while the domain lives, so it measures the cost
// of a data structure with no reclamation at all. Retired nodes are still kept (and freed when
// the domain is destroyed, when no thread can reach them) so that leak checkers stay quiet.
#pragma once

#include <string_view>

#include "smr/core/free_policy.hpp"
#include "smr/core/guard_base.hpp"
#include "smr/core/handle_base.hpp"
#include "smr/core/marked_ptr.hpp"
#include "smr/core/traits.hpp"

namespace smr {

struct none_config {
  core::timeline* timeline = nullptr;
};

class none {
 public:
  using config = none_config;
  using node_base = core::retired_node;
  template <class T>
  using atomic_ptr = core::atomic_marked_ptr<T>;

  static constexpr std::string_view base_name = "none";
  static constexpr reclaimer_traits traits{
      .protects_unlinked_traversal = true,
      .continues_after_write = true,
      .bounded_garbage = false,
  };

  explicit none(config cfg = {}) : core_(cfg.timeline) {}

  core::stats_snapshot stats() { return core_.stats(); }
  unsigned protect_slots() const { return 0; }

 private:
  struct slot {
    core::thread_stats stats;
  };
  core::domain_core<slot> core_;

 public:
  class guard;

  class handle : public core::handle_base<slot, core::batch_free> {
   public:
    explicit handle(none& d) : handle_base(d.core_) {}
    ~handle() { domain_core_ref().donate(std::move(leaked_)); }
    guard begin_op() { return guard(*this); }

   private:
    friend class guard;
    core::limbo_bag leaked_;
  };

  class guard : public core::guard_base<guard> {
   public:
    explicit guard(handle& h) : h_(&h) {}
    guard(const guard&) = delete;
    guard& operator=(const guard&) = delete;

    template <class T>
    core::marked_ptr<T> protect(unsigned, const atomic_ptr<T>& src) {
      return src.load(core::mo_acquire);  // pairs with the release that published the node
    }

    void retire(node_base* n) {
      h_->leaked_.push(n);
      h_->tc().note_retired();
    }

   private:
    handle* h_;
  };

  handle attach() { return handle(*this); }
};

}  // namespace smr
