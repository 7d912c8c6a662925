// Limbo for epoch-based schemes (EBR, DEBRA, QSBR): three limbo bags tagged with an epoch.
//
// The rule every epoch scheme here uses: a node is tagged with an epoch t that is at least the
// global epoch at the moment it was unlinked, and it is safe once the global epoch reaches
// t + 2 (the advance t+1 -> t+2 needs every active thread to have announced t+1, which it can
// only do after the unlink). Every tag is at most the global epoch plus one when it is made (a
// thread's announced epoch plus one), so two tags with the same residue mod 3 differ by three
// or more and the smaller is already safe: three bags indexed by tag % 3 suffice, whatever the
// order in which tags arrive (a thread's own retirements, or the tagged bags of threads that
// detached, adopt()).
#pragma once

#include <cstdint>

#include "smr/detail/limbo_bag.hpp"

namespace smr::detail {
using namespace ::smr::core;  // the public building blocks (atomics, nodes, stats)


class epoch_limbo {
 public:
  void retire(retired_node* n, std::uint64_t tag) { bag_for(tag).push(n); }

  // A whole bag tagged `tag`, from a thread that detached (epoch_domain's orphans).
  void adopt(std::uint64_t tag, limbo_bag&& bag) {
    if (!bag.empty()) bag_for(tag).splice(std::move(bag));
  }

  // Moves every node of `from` here, each bag with its tag.
  void absorb(epoch_limbo& from) {
    ready_.splice(from.ready_.take_all());
    for (tagged& b : from.bags_) adopt(b.tag, b.bag.take_all());
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
  // Where a node tagged `tag` goes. A bag here with an older tag (<= tag - 3) is past its grace
  // period; so is `tag` itself when the bag here has a newer one (tag <= that - 3).
  limbo_bag& bag_for(std::uint64_t tag) {
    tagged& b = bags_[tag % 3];
    if (b.tag == tag) return b.bag;
    if (b.tag < tag) {
      ready_.splice(b.bag.take_all());
      b.tag = tag;
      return b.bag;
    }
    return ready_;
  }

  struct tagged {
    std::uint64_t tag = 0;
    limbo_bag bag;
  };
  tagged bags_[3];
  limbo_bag ready_;
};

}  // namespace smr::detail
