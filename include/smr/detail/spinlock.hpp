// The lock of the lock-based structures (the lazy list's and the OCC AVL tree's per-node locks,
// the concurrently readable list's update lock): test-and-test-and-set, spinning a little and
// then yielding, since the holder may be preempted (oversubscription is a first-class setting).
#pragma once

#include <thread>

#include "smr/core/atomic.hpp"

namespace smr::detail {

class spinlock {
 public:
  void lock() {
    for (unsigned spins = 0;; ++spins) {
      // acquire: pairs with unlock(); the previous holder's writes happen before ours.
      if (!held_.load(core::mo_relaxed) && !held_.exchange(true, core::mo_acquire)) return;
      core::spin_pause();  // under Relacy, the model's scheduling point
      if (spins >= 64) std::this_thread::yield();
    }
  }
  void unlock() { held_.store(false, core::mo_release); }
  // Single-threaded inspection (a structure's invariant check).
  bool held() const { return held_.load(core::mo_relaxed); }

 private:
  core::atomic<bool> held_{false};
};

}  // namespace smr::detail
