// Delay injection for stress tests. Builds with SMR_CHAOS defined call chaos_point() at the
// racy spots of every data structure (between a read and the CAS that depends on it); it
// yields or sleeps for a few microseconds at random, which widens race windows so that
// use-after-free and ordering bugs surface in short runs. In other builds it is nothing.
#pragma once

#if defined(SMR_CHAOS)
#include <chrono>
#include <cstdint>
#include <thread>
#endif

namespace smr::detail {


#if defined(SMR_CHAOS)
inline void chaos_point() {
  thread_local std::uint64_t state =
      0x9E3779B97F4A7C15ull ^ reinterpret_cast<std::uintptr_t>(&state);
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  const unsigned roll = static_cast<unsigned>(state % 1024);
  if (roll < 8) {
    std::this_thread::sleep_for(std::chrono::microseconds(1 + roll * 5));
  } else if (roll < 40) {
    std::this_thread::yield();
  }
}
#else
inline void chaos_point() {}
#endif

}  // namespace smr::detail
