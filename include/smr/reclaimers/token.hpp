// Token-EBR: Kim, Brown and Singh, "Are your epochs too epic?" (2024), §4, in the paper's three
// passing orders; token_af (the periodic order with amortized free) is its final algorithm.
//
// What it is: the attached threads form a ring ordered by registry id, and one token travels
// around it; one lap is one epoch (stats: epochs). A retired node goes to the thread's bag
// `current`. At the start of an operation a thread looks at its slot; if the token is there it
// takes it ("a receipt"), closes `current` (tagged with the lap), frees the bags closed at its
// earlier receipts (a lap ago: the paper's `previous`), and passes the token to the next
// attached thread. The order of the steps is the template parameter:
//   naive       free, then pass: the next thread waits for the whole free (garbage piles up,
//               Fig. 6);
//   pass_first  pass, then free (Fig. 7);
//   periodic    pass, then free, looking for the token again every `pass_check_every` frees of
//               the batch and passing it straight on (Fig. 8). With amortized free (token_af)
//               the batch is parked and freed a few nodes per operation (Fig. 9).
// Keeping the token moving (smr's addition: the paper's threads never idle, leave, or outnumber
// the cores). Passes skip ids with no owner; and a thread that did `forward_after` operations
// without receiving the token, or spent `forward_after_us` microseconds without it, looks for
// it, and takes it and passes it on its holder's behalf ("forwards" it; one process-wide
// barrier, paid only then):
//  - if the holder is between operations (or detached): it holds no reference, so the token
//    may go past it;
//  - if the token was at the same holder at the forwarder's previous look and the holder is
//    still inside the same operation (it is most likely descheduled: with more threads than
//    cores the token would otherwise wait for one such thread after another, a lap lasting the
//    sum of their time slices): the token goes past it all the same, and the forwarder records
//    a debt in the ledger the token carries (detail/token_debts.hpp): the thread, its operation
//    word and the lap. A bag is freed only once no unpaid debt could cover it; a debt is paid
//    when its thread's word has moved on. A holder found in a new operation gets its second
//    look after `clock_every` more operations of the forwarder, not a whole bound later.
// A detaching thread sets `leaving` in its slot and runs the heavy fence before it takes the
// token from its slot: passes skip it from then on, and a pass that read the flag before it was
// set checks it again after its store (the light side) and takes the token back, so the token
// never waits in a slot being given back while a thread attached before that detach began is
// still attached. (A thread that finds no other thread taking part leaves it in its own slot:
// the last to detach, or one whose scan read a thread attaching meanwhile as unowned; the first
// thread to attach after that, or the one attaching, forwards it from there.)
// One forward goes on past every following thread that is between operations or still inside
// the operation it was in at the forwarder's previous look (a debt each), since the one barrier
// covers all their words: oversubscribed, consecutive threads are often descheduled together.
// Why a time bound as well as a count: how long a count of operations takes depends on the
// structure, and a stalled lap is a matter of time. Why these bounds: a forward costs a barrier, and a lap costs a receipt at every thread (a few
// cache-line transfers and the debts' checks), so laps faster than needed cost throughput. With
// 8 threads on 2 cores (token_af, jemalloc, 3 runs), forwarding one thread at a time with 1,024
// operations or 100 us gave 1,240-1,550 laps/s on the hash map (1M and 20K keys) but 770 on the
// 2M-key ABtree; going past every stalled thread in one forward, with these bounds, gives
// 2,600-3,400 laps/s on all three and 0-11% more throughput (the ABtree the same); the same
// forward with 1,024 operations and 100 us ran 5,500-10,000 laps/s and cost 6-11%. The clock is
// read every `clock_every` operations without the token (a vDSO call, ~16 ns here), never while
// the token keeps coming by.
// With `look_every` = k > 1 (smr's tunable; the paper looks at every operation) a thread
// looks at its slot every k-th operation: the token waits there meanwhile, which slows a lap by
// at most k operations per thread and saves the cache-line transfer of a receipt at every
// operation when laps are short (few threads).
//
// Why it is safe (proof sketch). Every hand-over of the token is a release store into the
// receiver's slot and an acquire RMW (exchange or CAS) by whoever takes it, so a lap is a
// happens-before chain, and the holders of the token (and of its ledger) are ordered by it.
// Visits are ordered by (lap, id). Let T retire n between its receipts R(k-1) and R(k), in lap
// l; the bag closed at R(k) carries l. T frees n at a receipt R(j), j > k (a forward past T is
// not a receipt), at which every unpaid debt has a first lap of at least l + 2. W, n's unlink,
// happens before R(k), hence before every step from R(k) to R(j), which visit every id in ring
// order at least once. Let O be an operation of another thread U whose reads may miss W (the
// only kind that can reach n). In the lap from R(k), U's id was:
//  (a) passed by U itself, at the start of an operation O': O' and later operations read only
//      after the acquire claim, so they observe W; O precedes O' and ended before U's release
//      pass, which happens before R(j).
//  (b) forwarded by F: F read the lap in the slot of the holder, U or a thread before U in the
//      same forward (acquire: W happens before), ran the heavy fence once, then read U's
//      operation word w (and claimed the token: a CAS that fails if the holder took it
//      meanwhile). A later operation of U stores a new odd value and runs the light fence before
//      reading; F's read missed that store, so by the asymmetric pair
//      (detail/asymmetric_fence.hpp) its reads observe W. If w is even, it is the release store
//      ending U's latest operation (or the initial value): U's earlier operations happen before
//      F's pass. If w is odd, F recorded the debt (U, w); O may be the operation w itself or an
//      earlier one, which happens before the end of w. The debt's first lap L is at most this
//      lap's (l or l + 1), so it holds n back while it stays in the ledger, that is, until a
//      holder of the token (T, or one before it in the chain) reads (acquire) a word other than
//      w: a release store made at or after w's end, so w happens before T's free. (Operation w
//      began after U's visit in lap L - 1, which was not a forward past w: a bag closed in lap
//      L - 2 or earlier never waits for it.)
//  (c) skipped: after the light fence the passer read U's slot as unowned or leaving (acquire:
//      U's release of the slot, or its store of `leaving` at detach, ends its operations), or
//      beyond the high-water mark (where the lap wraps); or it stored the token there, read
//      `leaving` after the light fence and took the token back (the same read). A thread claims
//      its slot and clears `leaving`, then runs the heavy fence before its first operation, so by
//      the pair again its operations observe W (also when the passer read the flag of the
//      slot's previous owner).
// T's own operations are sequential, and R(j) starts a new one. Orphans adopted at a receipt
// were unlinked before their donation, hence before it, and wait one whole lap like n.
//
// When not to use it: a thread stalled or preempted inside an operation keeps its debt unpaid,
// so garbage is unbounded (as for every EBR), though the token keeps moving. A thread's own
// bags are freed only at its receipts, so a thread whose operations outlast the forwarding
// bound (forward_after_us, plus up to two looks' worth of the forwarder's operations) every
// time the token reaches it is forwarded past each lap and frees nothing of its own until its
// next receipt or reclaim_now(). Otherwise the token visits threads one at a time: a lap takes
// the sum of the delays of the threads it does not forward past. Batch frees of the naive
// order hold the token, and those of pass-first delay its return when it comes back during the
// free (Epochs §4): prefer token_af.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "smr/core/domain.hpp"
#include "smr/detail/asymmetric_fence.hpp"
#include "smr/detail/limbo_bag.hpp"
#include "smr/detail/token_debts.hpp"

namespace smr {

// When a thread that receives the token passes it on (see the header comment).
enum class token_order { naive, pass_first, periodic };

namespace detail {

// The operation word (detail/asymmetric_fence.hpp) tells forwarders whether the thread is
// inside an operation: odd inside, even between operations and when detached.
struct token_slot : operation_word_slot {
  // The lap number while the token waits here for this slot's thread; 0 while it is elsewhere.
  atomic<std::uint64_t> token{0};
  // Set when the thread detaches (~token_thread), cleared by the slot's next owner: passes skip
  // the slot, and a pass that stored the token here anyway takes it back (hand_to).
  atomic<bool> leaving{false};
};

// Debts is another ledger only in the tests' planted bugs (tests/support/broken_reclaimers.hpp).
template <class Base, class Pair = asymmetric_fence_pair, class Debts = token_debts>
class token_domain : public asymmetric_fence_domain<Base, Pair> {
 public:
  using asymmetric_fence_domain<Base, Pair>::asymmetric_fence_domain;

 private:
  template <class, token_order>
  friend class token_thread;
  // (c) of the proof: the barrier a thread runs once its slot is claimed, before its first
  // operation. A step of its own so that a planted bug can drop it alone (relacy_token_attach).
  template <class Fences>
  static void attach_barrier(const Fences& fences) {
    fences.heavy();
  }
  // hand_to's check, after storing the token into `to`, that its thread is not detaching: the
  // light side of the pair with ~token_thread's barrier. A step of its own so that a planted bug
  // can drop it alone (relacy_token_leave_planted).
  template <class Fences>
  static bool receiver_leaving(token_slot& to, const Fences& fences) {
    fences.light();
    return leaving(to);
  }
  // Whether the slot's thread is detaching, for a pass that goes on past it (next_visit,
  // hand_to). acquire: pairs with ~token_thread's release store; the detaching thread's
  // operations happen before that pass.
  static bool leaving(token_slot& s) { return s.leaving.load(mo_acquire); }
  atomic<bool> issued_{false};  // the first attached thread creates the token
  Debts debts_;                 // part of the token: only its holder touches it
};

template <class Base, token_order Order>
class token_thread : public operation_word_thread<Base> {
 protected:
  explicit token_thread(typename Base::domain_type& d)
      : operation_word_thread<Base>(d),
        forward_after_(d.configuration().forward_after),
        forward_after_ns_(std::uint64_t{d.configuration().forward_after_us} * 1000),
        look_every_(d.configuration().look_every),
        pass_check_every_(d.configuration().pass_check_every) {
    // relaxed: the barrier below orders it, as it orders our claim of the slot: a pass that
    // still reads the previous owner's `leaving` skips us as it would skip an unowned id.
    this->slot().leaving.store(false, mo_relaxed);
    // (c) of the proof: a pass that read this slot as unowned or leaving, or the high-water mark
    // before it grew, happened before this barrier or its reads are ordered before our first
    // operation.
    Base::domain_type::attach_barrier(this->fences());
    // relaxed: only which thread wins matters; the token itself is published by the store.
    if (!d.issued_.exchange(true, mo_relaxed)) this->slot().token.store(1, mo_release);
  }

  // Between operations (the operation word is even): pass the token on if it waits here, hand
  // the bags over. From the store of `leaving` on, passes skip this slot; one that read it
  // before the store may still put the token here, so the two sides form a store-load pair:
  // either our claim after the barrier sees its token, or its check after its store
  // (receiver_leaving) sees `leaving` and it takes the token back (hand_to). Without that the
  // token would wait in a slot nobody owns until a forward found it (forward_after_us).
  // The free policy's backlog (token_af's can be long) was freed before this, by the handle's
  // destructor (begin_detach), since a deleter may still use the handle: the token may come to
  // this slot meanwhile and wait for the claim below.
  ~token_thread() {
    // release: our operations happen before a pass that reads it (acquire) and skips us.
    this->slot().leaving.store(true, mo_release);
    this->fences().heavy();
    if (const std::uint64_t lap = claim()) pass_on(lap);
    limbo_bag all = std::move(current_);
    for (std::size_t i = 0; i < closed_count_; ++i) all.splice(std::move(closed_[i].bag));
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

  std::size_t unreclaimed() const {
    std::size_t n = current_.size();
    for (std::size_t i = 0; i < closed_count_; ++i) n += closed_[i].bag.size();
    return n;
  }

  // Outside an operation: take the token if it is here, else look for one held up elsewhere.
  // Two receipts free everything this thread holds, once the debts that cover it are paid.
  void reclaim_step() {
    if (this->slot().token.load(mo_relaxed) != 0)
      receive();
    else
      forward_held_token();
  }

 private:
  // Every look_every operations: take the token if it waits here, else count towards looking
  // for one held up elsewhere.
  void look() {
    ops_since_look_ = 0;
    if (this->slot().token.load(mo_relaxed) != 0)
      receive();
    else if (waited_too_long()) [[unlikely]]
      forward_held_token();
  }

  // Whether it is time to look for the token's holder: forward_after operations, or
  // forward_after_us microseconds, since the token last came by (or since our last look).
  bool waited_too_long() {
    if ((ops_without_token_ += look_every_) >= forward_after_) return true;
    if ((ops_since_clock_ += look_every_) < clock_every) return false;
    ops_since_clock_ = 0;
    // A holder found inside an operation at our previous look gets a second look this soon:
    // a running holder finishes an operation in far fewer than clock_every of ours.
    if (second_look_due_) return true;
    if (forward_after_ns_ == 0) return false;
    const std::uint64_t now = core::monotonic_ns();
    if (waiting_since_ns_ == 0) {  // the first reading since the token came by: start the wait
      waiting_since_ns_ = now;
      return false;
    }
    return now - waiting_since_ns_ >= forward_after_ns_;
  }

  // The token came by, or we just looked for its holder: both bounds count from here.
  void wait_anew() {
    ops_without_token_ = 0;
    ops_since_clock_ = 0;
    waiting_since_ns_ = 0;
    second_look_due_ = false;
  }

  // Takes the token from this thread's slot; 0 if it is not there (or was forwarded meanwhile).
  std::uint64_t claim() {
    // acquire: pairs with the passer's release store; the lap so far happens before this.
    return this->slot().token.exchange(0, mo_acquire);
  }

  // noexcept, as forward_held_token(): between the claim and the pass the token is in no slot,
  // so an exception there (a deleter, the ledger's or the orphan list's allocation) would stop
  // every reclamation of the domain for good; it terminates instead.
  void receive() noexcept {
    const std::uint64_t lap = claim();
    if (lap == 0) return;
    wait_anew();
    this->tc().record_instant(event_kind::garbage, unreclaimed());
    // Orphans join the bag closed now, which waits a lap like the thread's own.
    current_.splice(this->adopt_orphans());
    close(std::move(current_), lap);
    limbo_bag safe = take_safe(lap, settle_debts());
    if constexpr (Order == token_order::naive) {
      this->release_safe(std::move(safe));
      pass_on(lap);
    } else if constexpr (Order == token_order::pass_first) {
      pass_on(lap);
      this->release_safe(std::move(safe));
    } else {
      pass_on(lap);
      // A later receipt while freeing passes straight on; `current` is empty (nothing retired
      // since), so there is nothing to close, and the closed bags wait for the next receipt.
      this->release_safe(
          std::move(safe),
          [this] {
            if (this->slot().token.load(mo_relaxed) == 0) return;
            if (const std::uint64_t again = claim()) {
              wait_anew();
              pass_on(again);
            }
          },
          pass_check_every_);
    }
  }

  // Hands the token, taken from our slot, to the next owned id.
  void pass_on(std::uint64_t lap) {
    const std::size_t next = next_visit(this->thread_id(), lap);
    if (next == nobody) {  // we are detaching and see nobody else: it waits in our slot
      // release: as in hand_to.
      this->slot().token.store(lap, mo_release);
      return;
    }
    hand_to(next, lap);
  }

  // Stores the token into slot `to`; if its thread is detaching, takes it back, should nobody
  // have claimed it meanwhile, and hands it on past that thread (see ~token_thread).
  void hand_to(std::size_t to, std::uint64_t lap) {
    auto& registry = this->domain().registry();
    for (;;) {
      token_slot& s = registry.slot_at(to);
      // release: the lap's chain (header comment) continues to the receiver's claim, or to a
      // forwarder's acquire read of the lap (forward_held_token).
      s.token.store(lap, mo_release);
      if (!Base::domain_type::receiver_leaving(s, this->fences())) return;
      std::uint64_t expected = lap;
      // acquire: as claim(); fails if the detaching thread, or a forwarder, took it first.
      if (!s.token.compare_exchange_strong(expected, 0, mo_acquire, mo_relaxed)) return;
      const std::size_t next = next_visit(to, lap);
      if (next == nobody) {  // no other thread to take it: it waits here, as it would have
        s.token.store(lap, mo_release);  // release: as above
        return;
      }
      to = next;
    }
  }

  static constexpr std::size_t nobody = static_cast<std::size_t>(-1);

  // The next owned id after `from` in ring order whose thread is not detaching; `lap` grows by
  // one where the lap wraps. `nobody` (lap unchanged) if there is none: only passes from a
  // detaching thread's slot, ours or another's (hand_to), can find none.
  std::size_t next_visit(std::size_t from, std::uint64_t& lap) {
    auto& registry = this->domain().registry();
    // Light fence: (c) of the proof; orders our claim before the reads of ownership, `leaving`
    // and the high-water mark below.
    this->fences().light();
    const std::size_t ids = registry.high_water();  // acquire (in the registry): chunks built
    std::size_t next = nobody;
    for (std::size_t step = 1; step <= ids; ++step) {
      const std::size_t id = (from + step) % ids;
      // acquire (both): the owner's release of the slot, or its store of `leaving`, ends its
      // operations, which then happen before the pass that skips it.
      if (registry.owned_at(id) && !Base::domain_type::leaving(registry.slot_at(id))) {
        next = id;
        break;
      }
    }
    if (next == nobody) return nobody;
    if (next <= from) {  // the lap wraps
      ++lap;
      this->tc().stats().epochs.add();
      this->tc().record_instant(event_kind::epoch_advance, lap);
    }
    return next;
  }

  // The token has not come by for a while: pass it on for its holder if the holder looks stalled
  // (between operations, or still inside the operation it was in at our previous look; then
  // with a debt), and past every stalled thread after it; (b) of the proof. Out of line: rare.
  [[gnu::noinline]] void forward_held_token() noexcept {
    wait_anew();
    auto& registry = this->domain().registry();
    const std::size_t ids = registry.high_water();
    for (std::size_t id = 0; id < ids; ++id) {
      if (id == this->thread_id()) continue;
      token_slot& s = registry.slot_at(id);
      // acquire: pairs with the passer's release, so the lap so far (the unlinks of the bag the
      // passer closed) happens before the fence below, which comes before our claim: the
      // claim's own acquire would be too late for (b).
      std::uint64_t lap = s.token.load(mo_acquire);
      if (lap == 0) continue;
      // relaxed: a hint, checked again after the barrier. A holder inside an operation is
      // probably running and about to pass the token itself, unless the token sat here at our
      // previous look too and the holder is still in the same operation: until then skip the
      // barrier, and look again soon.
      const std::uint64_t seen = s.operations.load(mo_relaxed);
      const bool same_holder = id == holder_at_last_look_;
      holder_at_last_look_ = id;
      if (operation_word_slot::inside(seen) && !(same_holder && looks_stalled(id, seen))) {
        second_look_due_ = true;
        break;
      }
      this->fences().heavy();
      // acquire: pairs with the holder's release stores of its word: if even, its operations
      // happen before our pass.
      const std::uint64_t word = s.operations.load(mo_acquire);
      // acquire: as claim(); fails if the holder took the token itself meanwhile.
      if (s.token.compare_exchange_strong(lap, 0, mo_acquire, mo_relaxed)) forward_from(id, word, lap);
      break;
    }
    // Not seen in any slot: a thread is between taking and passing it (it may be preempted
    // there, or freeing under the naive order), or it moved between slots during this scan,
    // which reads one slot at a time. Either way there is no slot to forward it from.
    remember_words(ids);
  }

  // Passes the token, claimed from the stalled `id` (operation word `word`), on past it and past
  // every stalled thread after it: the one barrier we ran covers all their words, read after it.
  void forward_from(std::size_t id, std::uint64_t word, std::uint64_t lap) {
    auto& registry = this->domain().registry();
    std::size_t next;
    for (;;) {
      if (operation_word_slot::inside(word)) this->domain().debts_.record(id, word, lap);
      next = next_visit(id, lap);  // never `nobody`: it finds this thread at the latest
      if (next == this->thread_id()) break;  // ours: taken at our next look
      // acquire: as the holder's word in forward_held_token.
      const std::uint64_t next_word = registry.slot_at(next).operations.load(mo_acquire);
      if (!looks_stalled(next, next_word)) break;
      id = next;
      word = next_word;
    }
    hand_to(next, lap);
  }

  // Between operations, or inside the one it was in at our previous look (most likely
  // descheduled: a running thread's operation is far shorter than the wait before a look).
  bool looks_stalled(std::size_t id, std::uint64_t word) const {
    return !operation_word_slot::inside(word) || (id < last_words_.size() && last_words_[id] == word);
  }

  // Keeps every thread's operation word for looks_stalled at our next look.
  void remember_words(std::size_t ids) {
    auto& registry = this->domain().registry();
    last_words_.resize(ids);
    // relaxed: a hint only; the forward reads the words again after the barrier.
    for (std::size_t id = 0; id < ids; ++id) last_words_[id] = registry.slot_at(id).operations.load(mo_relaxed);
  }

  // Only while holding the token (the ledger is part of it): drops the paid debts and returns
  // the lowest first lap among the unpaid (token_debts::none if every debt is paid).
  std::uint64_t settle_debts() {
    auto& registry = this->domain().registry();
    return this->domain().debts_.settle([&registry](std::size_t id) {
      // acquire: pairs with the debtor's release stores of its word (publish_leave, and
      // publish_enter for the next operation): a word that moved on means the operation it was
      // forwarded in has ended, and its accesses happen before our frees.
      return registry.slot_at(id).operations.load(mo_acquire);
    });
  }

  // Closes the bag of what was retired since the previous receipt (lap: this receipt's).
  void close(limbo_bag&& bag, std::uint64_t lap) {
    if (bag.empty()) return;
    if (closed_count_ == max_closed) {
      // Full (debts hold the oldest back): the oldest two become one with the later lap, so that
      // the oldest nodes wait a little longer and the newest keep their own lap (merging into
      // the newest instead would keep moving its lap, and with debts always unpaid somewhere, as
      // when threads outnumber cores, it would never be freed).
      closed_[0].bag.splice(std::move(closed_[1].bag));
      closed_[0].lap = closed_[1].lap;
      for (std::size_t i = 2; i < max_closed; ++i) closed_[i - 1] = std::move(closed_[i]);
      --closed_count_;
    }
    closed_[closed_count_++] = {std::move(bag), lap};
  }

  // The closed bags that are safe at a receipt in lap `lap`: closed at an earlier receipt (a
  // whole lap has passed since) and older, by two laps, than every unpaid debt.
  limbo_bag take_safe(std::uint64_t lap, std::uint64_t lowest_unpaid) {
    limbo_bag safe;
    std::size_t taken = 0;
    while (taken < closed_count_ && closed_[taken].lap < lap && closed_[taken].lap + 2 <= lowest_unpaid)
      safe.splice(std::move(closed_[taken++].bag));
    if (taken != 0) {
      for (std::size_t i = taken; i < closed_count_; ++i) closed_[i - taken] = std::move(closed_[i]);
      closed_count_ -= taken;
    }
    return safe;
  }

  // Operations without the token between readings of the clock.
  static constexpr unsigned clock_every = 64;
  const unsigned forward_after_;
  const std::uint64_t forward_after_ns_;  // 0: no time bound
  const unsigned look_every_;
  const unsigned pass_check_every_;
  std::uint64_t ops_without_token_ = 0;  // 64-bit: a forward_after near UINT_MAX must not wrap it
  unsigned ops_since_clock_ = 0;
  std::uint64_t waiting_since_ns_ = 0;  // first clock reading since the token came by; 0: none
  bool second_look_due_ = false;        // look again after clock_every operations, not a whole bound
  unsigned ops_since_look_ = 0;
  // At our previous look for the token's holder: where the token was, and every thread's
  // operation word, by id.
  std::size_t holder_at_last_look_ = static_cast<std::size_t>(-1);
  std::vector<std::uint64_t> last_words_;
  limbo_bag current_;  // retired since this thread's last receipt
  // Bags closed at receipts, oldest first, each with the lap of its receipt; without debts only
  // the latest is ever here (it is freed at the next receipt).
  struct closed_bag {
    limbo_bag bag;
    std::uint64_t lap = 0;
  };
  static constexpr std::size_t max_closed = 8;
  closed_bag closed_[max_closed];
  std::size_t closed_count_ = 0;
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
    unsigned forward_after = 4096;    // operations without the token before looking for its holder
    unsigned forward_after_us = 300;  // or microseconds without it (0: operations only)
    unsigned pass_check_every = 100;  // periodic: frees between looks for the token (the paper's k)
    unsigned look_every = 1;          // operations between looks at the slot (the paper: every one)
  };
  static constexpr auto tunables = [] {
    constexpr tunable forward{"forward_after", &config::forward_after,
                              "operations without the token before a thread forwards it past a holder that is idle or still in one operation (and past the stalled threads after it)", 1u};
    constexpr tunable forward_us{"forward_after_us", &config::forward_after_us,
                                 "microseconds without the token (checked every 64 operations) before a thread forwards it, whichever of this and forward_after comes first; 0: operations only", 0u};
    constexpr tunable look{"look_every", &config::look_every,
                           "operations between looks for the token at the start of an operation (1: the paper)", 1u};
    if constexpr (Order == token_order::periodic)
      return std::tuple{forward, forward_us, look, tunable{"pass_check_every", &config::pass_check_every,
                                               "frees of a batch between looks for the token", 1u}};
    else
      return std::tuple{forward, forward_us, look};
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
