// Limbo for epoch-based schemes (EBR, DEBRA, QSBR): three limbo bags tagged with an epoch.
//
// The rule every epoch scheme here uses: a node is tagged with an epoch t that is at least the
// global epoch at the moment it was unlinked, and it is safe once the global epoch reaches
// t + 2 (the advance t+1 -> t+2 needs every active thread to have announced t+1, which it can
// only do after the unlink). Tags are always within two of each other per thread, so three
// bags indexed by tag % 3 suffice; a bag whose tag is stale when reused is already safe.
#pragma once

#include <cstdint>

#include "smr/detail/limbo_bag.hpp"

namespace smr::detail {
using namespace ::smr::core;  // the public building blocks (atomics, nodes, stats)


class epoch_limbo {
 public:
  void retire(retired_node* n, std::uint64_t tag) {
    tagged& b = bags_[tag % 3];
    if (b.tag != tag) {
      // Any old tag here is <= tag - 3, so those nodes are past their grace period.
      ready_.splice(b.bag.take_all());
      b.tag = tag;
    }
    b.bag.push(n);
  }

  // Nodes safe once the global epoch is `global`.
  limbo_bag collect(std::uint64_t global) {
    limbo_bag out = ready_.take_all();
    for (tagged& b : bags_)
      if (!b.bag.empty() && b.tag + 2 <= global) out.splice(b.bag.take_all());
    return out;
  }

  limbo_bag take_all() {
    limbo_bag out = ready_.take_all();
    for (tagged& b : bags_) out.splice(b.bag.take_all());
    return out;
  }

  std::size_t size() const {
    return ready_.size() + bags_[0].bag.size() + bags_[1].bag.size() + bags_[2].bag.size();
  }

 private:
  struct tagged {
    std::uint64_t tag = 0;
    limbo_bag bag;
  };
  tagged bags_[3];
  limbo_bag ready_;
};

}  // namespace smr::detail
