// The store-buffer stress shared by hp_asym_no_membarrier (planted bug) and control_hp_asym.
//
// The bug hp_asym's membarrier prevents is a store-load reordering: the reader's hazard store
// still sits in its core's store buffer when it re-reads the link, so the re-read validates a
// node that a scan, reading the hazard's old value, frees. x86 (TSO) allows exactly this, but
// a store normally leaves the buffer within a few tens of nanoseconds, less than an unlink,
// retirement and scan take. The round therefore makes the window wide:
//  - the reader stores to `noise_lines` cache lines that the scanner keeps writing, just before
//    each protect(): every such store needs the line back from the other core, stores leave the
//    buffer in program order, so the hazard store waits behind all of them while the re-read
//    (a load) goes ahead;
//  - one reader and one writer: two threads for a 2-core machine, so that they really overlap;
//  - the writer replaces a single published cell and retires the old one with R = 1: every
//    retirement scans at once, right after the unlink, and frees what no hazard names;
//  - the reader waits a little after protect() before reading the cell, so that the scan has
//    freed it by then (ASan reports the read; poison mode sees 0xDD bytes: value and check
//    disagree).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>

#include "planted.hpp"

namespace smr::test::planted {

inline constexpr unsigned noise_lines = 24;

struct alignas(64) noise_line {
  std::atomic<std::uint64_t> word{0};
};

template <class R>
void store_buffer_round(std::chrono::milliseconds duration) {
  struct cell : R::node_base {
    explicit cell(std::uint64_t v) : value(v), check(~v) {}
    std::uint64_t value, check;
  };
  R domain(typename R::config{.slots = 1, .scan_threshold = 1});
  typename R::template atomic_ptr<cell> current;
  std::array<noise_line, noise_lines> noise;
  std::atomic<bool> bad{false};
  std::atomic<std::uint64_t> bad_value{0};
  const auto end = std::chrono::steady_clock::now() + duration;
  run_threads(
      2,
      [&](unsigned t) {
        auto h = domain.attach();
        std::uint64_t i = 0;
        if (t == 0) {  // the writer: unlink, retire, scan (R = 1), free
          while (!bad.load(std::memory_order_relaxed) && (++i & 63 || std::chrono::steady_clock::now() < end)) {
            for (auto& n : noise) n.word.store(i, std::memory_order_relaxed);  // take the lines back
            auto g = h.begin_op();
            cell* fresh = g.template create<cell>(i);
            // acq_rel: publishes the new cell, and orders the old one's unlink before its scan.
            cell* old = current.exchange(core::marked_ptr<cell>(fresh), core::mo_acq_rel).get();
            if (old != nullptr) g.retire(old);
          }
        } else {  // the reader
          while (!bad.load(std::memory_order_relaxed) && (++i & 63 || std::chrono::steady_clock::now() < end)) {
            for (auto& n : noise) n.word.store(i, std::memory_order_relaxed);  // stores that miss
            auto g = h.begin_op();
            auto p = g.protect(current);
            if (!p) continue;
            for (int k = 0; k < 32; ++k) core::spin_pause();  // let a scan free it
            const std::uint64_t v = p->value, c = p->check;
            if (c != ~v) {
              bad_value.store(v, std::memory_order_relaxed);
              bad.store(true, std::memory_order_relaxed);
            }
          }
        }
      },
      std::chrono::seconds(60));
  {
    auto h = domain.attach();
    auto g = h.begin_op();
    if (cell* last = current.exchange(nullptr, core::mo_acq_rel).get()) g.retire(last);
  }
  if (bad.load()) ADD_FAILURE() << "read a freed cell: value 0x" << std::hex << bad_value.load();
}

}  // namespace smr::test::planted
