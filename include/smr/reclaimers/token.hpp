// Token-EBR: Kim, Brown and Singh, "Are your epochs too epic?" (2024), §4, in the paper's three
// passing orders; token_af (the periodic order with amortized free) is its final algorithm.
//
// What it is: the attached threads form a ring ordered by registry id, and one token travels
// around it; one lap is one epoch (stats: epochs). Each thread keeps two limbo bags: a retired
// node goes to `current`. At the start of an operation a thread looks at its slot; if the token
// is there it takes it, frees `previous`, moves `current` into `previous`, and passes the token
// to the next attached thread. The order of the steps is the template parameter:
//   naive       free, then pass: the next thread waits for the whole free (garbage piles up,
//               Fig. 6);
//   pass_first  pass, then free (Fig. 7);
//   periodic    pass, then free, looking for the token again every `pass_check_every` frees of
//               the batch and passing it straight on (Fig. 8). With amortized free (token_af)
//               the batch is parked and freed a few nodes per operation (Fig. 9).
// Keeping the token moving (smr's addition: the paper's threads never idle or leave). A thread
// between operations holds no reference, so the token may go past it. Passes skip ids with no
// owner; and a thread that did `forward_after` operations without receiving the token looks for
// it, and if it waits at a thread that is between operations (or detached), takes it and passes
// it on that thread's behalf ("forwards" it; the check costs one process-wide barrier, paid only
// then). With `look_every` = k > 1 (smr's tunable; the paper looks at every operation) a thread
// looks at its slot every k-th operation: the token waits there meanwhile, which slows a lap by
// at most k operations per thread and saves the cache-line transfer of a receipt at every
// operation when laps are short (few threads). A thread preempted inside an operation still holds the token up: that is what makes
// any EBR safe.
//
// Why it is safe (proof sketch). Every hand-over of the token is a release store into the
// receiver's slot and an acquire RMW (exchange or CAS) by whoever takes it, so a lap is a
// happens-before chain. Let T retire n between its receipts R(k-1) and R(k); T frees n at R(k+1)
// (a forward past T is not a receipt). W, n's unlink, happens before R(k), hence before every
// step of the lap from R(k) to R(k+1), which visits every id in ring order. Let O be an operation
// of another thread U whose reads may miss W (the only kind that can reach n). U's id was:
//  (a) passed by U itself, at the start of an operation O': O' and later operations read only
//      after the acquire claim, so they observe W; O precedes O' and ended before U's release
//      pass, which happens before R(k+1).
//  (b) forwarded by F: F claimed the token (acquire: W happens before), ran the heavy fence, and
//      read U's operation word as even. That value is the release store ending U's latest
//      operation (or the initial value), so U's earlier operations happen before F's pass. A later operation
//      stores an odd value and runs the light fence before reading; F's read missed that store, so
//      by the asymmetric pair (detail/asymmetric_fence.hpp) its reads observe W.
//  (c) skipped: after the light fence the passer read U's slot as unowned (acquire: U's release
//      of the slot, if any, ends its operations) or beyond the high-water mark (where the lap
//      wraps). A thread claims its slot and then runs the heavy fence before its first
//      operation, so by the pair again its operations observe W.
// T's own operations are sequential, and R(k+1) starts a new one. Orphans adopted at a receipt
// were unlinked before their donation, hence before it, and wait one whole lap like n.
//
// When not to use it: a thread stalled or preempted inside an operation stops the token, so
// garbage is unbounded (as for every EBR). The token visits threads one at a time: a lap takes
// the sum, not the maximum, of the threads' delays in reaching their next operation, so with
// more threads than cores a lap lasts several scheduler time slices and memory grows with it.
// Batch frees of the naive and pass-first orders hold the token (Epochs §4): prefer token_af.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <utility>

#include "smr/core/domain.hpp"
#include "smr/detail/asymmetric_fence.hpp"
#include "smr/detail/limbo_bag.hpp"

namespace smr {

// When a thread that receives the token passes it on (see the header comment).
enum class token_order { naive, pass_first, periodic };

namespace detail {

// The operation word (detail/asymmetric_fence.hpp) tells forwarders whether the thread is
// inside an operation: odd inside, even between operations and when detached.
struct token_slot : operation_word_slot {
  // The lap number while the token waits here for this slot's thread; 0 while it is elsewhere.
  atomic<std::uint64_t> token{0};
};

template <class Base, class Pair = asymmetric_fence_pair>
class token_domain : public asymmetric_fence_domain<Base, Pair> {
 public:
  using asymmetric_fence_domain<Base, Pair>::asymmetric_fence_domain;

 private:
  template <class, token_order>
  friend class token_thread;
  atomic<bool> issued_{false};  // the first attached thread creates the token
};

template <class Base, token_order Order>
class token_thread : public operation_word_thread<Base> {
 protected:
  explicit token_thread(typename Base::domain_type& d)
      : operation_word_thread<Base>(d),
        forward_after_(d.configuration().forward_after),
        look_every_(d.configuration().look_every),
        pass_check_every_(d.configuration().pass_check_every) {
    // (c) of the proof: a pass that read this slot as unowned, or the high-water mark before it
    // grew, happened before this barrier or its reads are ordered before our first operation.
    this->fences().heavy();
    // relaxed: only which thread wins matters; the token itself is published by the store.
    if (!d.issued_.exchange(true, mo_relaxed)) this->slot().token.store(1, mo_release);
  }

  // Between operations (the operation word is even): pass the token on if it waits here, hand the bags over.
  ~token_thread() {
    if (const std::uint64_t lap = claim()) pass_from(this->thread_id(), lap);
    limbo_bag all = std::move(previous_);
    all.splice(std::move(current_));
    this->donate(std::move(all));
  }

  void enter() {
    if (++ops_since_look_ >= look_every_)  // every operation with the paper's look_every = 1
      look();
    this->publish_enter();  // the light side of (b)
  }

  void leave() { this->publish_leave(); }  // release: read by forwarders (acquire)

  void retire(retired_node* n) {
    current_.push(n);
    this->tc().note_retired();
  }

  std::size_t unreclaimed() const { return current_.size() + previous_.size(); }

  // Outside an operation: take the token if it is here, else look for one held up by an idle
  // thread. Two receipts free everything this thread holds.
  void reclaim_step() {
    if (this->slot().token.load(mo_relaxed) != 0)
      receive();
    else
      forward_from_idle_thread();
  }

 private:
  // Every look_every operations: take the token if it waits here, else count towards looking
  // for one held up by an idle thread.
  void look() {
    ops_since_look_ = 0;
    if (this->slot().token.load(mo_relaxed) != 0)
      receive();
    else if ((ops_without_token_ += look_every_) >= forward_after_) [[unlikely]]
      forward_from_idle_thread();
  }

  // Takes the token from this thread's slot; 0 if it is not there (or was forwarded meanwhile).
  std::uint64_t claim() {
    // acquire: pairs with the passer's release store; the lap so far happens before this.
    return this->slot().token.exchange(0, mo_acquire);
  }

  void receive() {
    const std::uint64_t lap = claim();
    if (lap == 0) return;
    ops_without_token_ = 0;
    this->tc().record_instant(event_kind::garbage, unreclaimed());
    // A whole lap has passed since `previous` was filled; orphans join the bag that waits a lap.
    current_.splice(this->adopt_orphans());
    limbo_bag safe = std::exchange(previous_, std::move(current_));
    if constexpr (Order == token_order::naive) {
      this->release_safe(std::move(safe));
      pass_from(this->thread_id(), lap);
    } else if constexpr (Order == token_order::pass_first) {
      pass_from(this->thread_id(), lap);
      this->release_safe(std::move(safe));
    } else {
      pass_from(this->thread_id(), lap);
      // A later receipt while freeing passes straight on; `current` is empty (nothing retired
      // since), so there is nothing to move, and `previous` waits for the next receipt.
      this->release_safe(
          std::move(safe),
          [this] {
            if (this->slot().token.load(mo_relaxed) == 0) return;
            if (const std::uint64_t again = claim()) {
              ops_without_token_ = 0;
              pass_from(this->thread_id(), again);
            }
          },
          pass_check_every_);
    }
  }

  // Hands the token, taken from slot `from` (ours, or an idle thread's), to the next owned id.
  void pass_from(std::size_t from, std::uint64_t lap) {
    auto& registry = this->domain().registry();
    // Light fence: (c) of the proof; orders our claim before the reads of ownership and of the
    // high-water mark below.
    this->fences().light();
    const std::size_t ids = registry.high_water();  // acquire (in the registry): chunks built
    std::size_t next = from;
    for (std::size_t step = 1; step <= ids; ++step) {
      const std::size_t id = (from + step) % ids;
      if (registry.owned_at(id)) {
        next = id;
        break;
      }
    }
    if (next <= from) {  // the lap wraps
      ++lap;
      this->tc().stats().epochs.add();
      this->tc().record_instant(event_kind::epoch_advance, lap);
    }
    // release: the lap's chain (header comment) continues to the receiver's claim.
    registry.slot_at(next).token.store(lap, mo_release);
  }

  // The token has not come by for forward_after operations: if it waits at a thread that is
  // between operations, pass it on for that thread ((b) of the proof). Out of line: rare.
  [[gnu::noinline]] void forward_from_idle_thread() {
    ops_without_token_ = 0;
    auto& registry = this->domain().registry();
    const std::size_t ids = registry.high_water();
    for (std::size_t id = 0; id < ids; ++id) {
      if (id == this->thread_id()) continue;
      token_slot& s = registry.slot_at(id);
      // acquire: pairs with the passer's release, so the lap so far happens before the fence.
      std::uint64_t lap = s.token.load(mo_acquire);
      if (lap == 0) continue;
      // The holder is inside an operation: only it may pass the token on. Checked before the
      // barrier so that a busy holder costs nothing.
      if (operation_word_slot::inside(s.operations.load(mo_relaxed))) return;
      this->fences().heavy();
      // acquire: pairs with leave()'s release; the holder's operations happen before our pass.
      if (operation_word_slot::inside(s.operations.load(mo_acquire))) return;
      // acquire: as claim(); fails if the holder took the token itself meanwhile.
      if (s.token.compare_exchange_strong(lap, 0, mo_acquire, mo_relaxed)) pass_from(id, lap);
      return;
    }
    // Not in any slot: a thread is between taking and passing it, and is running.
  }

  const unsigned forward_after_;
  const unsigned look_every_;
  const unsigned pass_check_every_;
  unsigned ops_without_token_ = 0;
  unsigned ops_since_look_ = 0;
  limbo_bag current_;   // retired since this thread's last receipt
  limbo_bag previous_;  // retired in the lap before: freed at the next receipt
};

}  // namespace detail

template <token_order Order>
struct token_rule_with : rule_defaults {
  static constexpr std::string_view name = Order == token_order::naive        ? std::string_view{"token_naive"}
                                           : Order == token_order::pass_first ? std::string_view{"token_pass_first"}
                                                                              : std::string_view{"token"};
  static constexpr std::string_view summary =
      Order == token_order::naive        ? std::string_view{"Token-EBR, naive: free the bag, then pass the token (Epochs too epic §4.1)"}
      : Order == token_order::pass_first ? std::string_view{"Token-EBR, pass-first: pass the token, then free the bag (Epochs too epic §4.1)"}
                                         : std::string_view{"Token-EBR, periodic: pass first, and pass again while freeing (Epochs too epic §4.1)"};
  static constexpr reclaimer_traits traits{.protects_unlinked_traversal = true, .metrics = {.epochs = true}};

  struct config {
    unsigned forward_after = 1024;    // operations without the token before looking for an idle holder
    unsigned pass_check_every = 100;  // periodic: frees between looks for the token (the paper's k)
    unsigned look_every = 1;          // operations between looks at the slot (the paper: every one)
  };
  static constexpr auto tunables = [] {
    constexpr tunable forward{"forward_after", &config::forward_after,
                              "operations without the token before a thread forwards it past an idle holder", 1u};
    constexpr tunable look{"look_every", &config::look_every,
                           "operations between looks for the token at the start of an operation (1: the paper)", 1u};
    if constexpr (Order == token_order::periodic)
      return std::tuple{forward, look, tunable{"pass_check_every", &config::pass_check_every,
                                               "frees of a batch between looks for the token", 1u}};
    else
      return std::tuple{forward, look};
  }();
  static config eager_config() { return {.forward_after = 4, .pass_check_every = 2, .look_every = 2}; }

  using slot = detail::token_slot;
  template <class Base>
  using domain_state = detail::token_domain<Base>;
  template <class Base>
  using thread_state = detail::token_thread<Base, Order>;
};

using token_naive_rule = token_rule_with<token_order::naive>;
using token_pass_first_rule = token_rule_with<token_order::pass_first>;
using token_rule = token_rule_with<token_order::periodic>;

template <class FreePolicy = core::batch_free>
using basic_token_naive = basic_domain<token_naive_rule, FreePolicy>;
template <class FreePolicy = core::batch_free>
using basic_token_pass_first = basic_domain<token_pass_first_rule, FreePolicy>;
template <class FreePolicy = core::batch_free>
using basic_token = basic_domain<token_rule, FreePolicy>;
using token_naive = basic_token_naive<>;
using token_naive_af = basic_token_naive<core::amortized_free<>>;
using token_pass_first = basic_token_pass_first<>;
using token_pass_first_af = basic_token_pass_first<core::amortized_free<>>;
using token = basic_token<>;
using token_af = basic_token<core::amortized_free<>>;

}  // namespace smr
