// Token-EBR's debts (reclaimers/token.hpp): the threads the token was forwarded past while
// they were inside an operation. A thread preempted inside an operation would otherwise stop
// the token for as long as it is descheduled, and with more threads than cores the token would
// wait at one such thread after another: a lap lasts the sum of their waits. Forwarded past
// them, the token keeps going; what they might still hold is kept by the debts instead: a bag
// is freed only once every debt that could cover it is paid, that is, once each such thread has
// left the operation it was forwarded in. Garbage then waits for the longest of those
// operations, as in any EBR, not for their sum.
//
// The ledger is part of the token: only the token's holder reads or writes it (the hand-over's
// release/acquire chain orders the holders), so it needs no synchronization of its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace smr::detail {

class token_debts {
 public:
  static constexpr std::uint64_t none = std::numeric_limits<std::uint64_t>::max();

  // The token, in lap `lap`, was forwarded past thread `id` whose operation word was `word` (odd:
  // inside an operation). A debt for the same operation keeps its first lap: that operation
  // began after the thread's visit in the lap before it (token.hpp's proof).
  void record(std::size_t id, std::uint64_t word, std::uint64_t lap) {
    for (debt& d : debts_) {
      if (d.id != id) continue;
      if (d.word != word) d = {id, word, lap};  // the old operation ended: its debt is paid
      return;
    }
    debts_.push_back({id, word, lap});
  }

  // Drops the paid debts, those whose thread's word moved on (word_of(id): an acquire load of
  // the thread's operation word), and returns the lowest first lap among the unpaid, or `none`.
  template <class WordOf>
  std::uint64_t settle(WordOf&& word_of) {
    std::uint64_t lowest = none;
    for (std::size_t i = 0; i < debts_.size();) {
      if (word_of(debts_[i].id) != debts_[i].word) {
        debts_[i] = debts_.back();
        debts_.pop_back();
        continue;
      }
      if (debts_[i].lap < lowest) lowest = debts_[i].lap;
      ++i;
    }
    return lowest;
  }

  std::size_t size() const { return debts_.size(); }

 private:
  struct debt {
    std::size_t id;
    std::uint64_t word;  // the operation word read when the token was forwarded past
    std::uint64_t lap;   // the lap of the first such forward
  };
  std::vector<debt> debts_;
};

}  // namespace smr::detail
