// smrbench's command line: the parsed options and the syntactic checks that need no registry.
// Every rejection is a usage_error whose message is one line; main prints it and exits with 2.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "node_pool.hpp"
#include "workload.hpp"

namespace smrbench {

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class pin_policy { none, compact, scatter };
enum class stall_mode { whole, periodic };

const char* pin_policy_name(pin_policy p);
const char* stall_mode_name(stall_mode m);

inline constexpr unsigned max_threads = 4096;
inline constexpr std::uint64_t max_prefill = std::uint64_t{1} << 40;  // elements

// The shortest --duration. The memory monitor samples RSS and the unreclaimed count every
// duration/200, at least every 1 ms and at most every 10 ms, so 10 ms gives it 10 samples, the
// fewest from which peak and average mean anything; a shorter trial also measures mostly the
// start-up of its threads rather than the steady state. Wake-up lateness does not bias the
// throughput (the measured interval, not the requested one, divides the operations).
inline constexpr double min_duration_s = 0.01;

struct options {
  std::string ds;
  std::string reclaimer;
  unsigned threads = 0;  // 0 until defaulted to the available cores
  double duration_s = 1.0;
  unsigned trials = 1;
  std::uint64_t seed = 1;
  std::uint64_t key_range = 65536;  // IBR §5
  workload_mix workload{};
  // Roles: the last `readers` of the `threads` workers run reader_workload instead of workload,
  // and each role's throughput is reported apart (one writer among many readers, NBR §6).
  unsigned readers = 0;
  workload_mix reader_workload{0, 0, 100};
  bool reader_workload_given = false;
  std::optional<std::uint64_t> prefill;  // default: key_range / 2 (the 50/50 steady state)
  pin_policy pin = pin_policy::none;
  std::string allocator = "system";
  // Bounded memory (Hart Fig. 14): nodes per trial, and how an allocation waits when none is free.
  std::optional<std::uint32_t> node_pool;
  smrbench::pool_wait pool_wait = smrbench::pool_wait::yield;
  bool pool_wait_given = false;
  unsigned stall = 0;
  stall_mode stall_kind = stall_mode::whole;
  std::optional<double> stall_ms;  // periodic mode only
  // Thread churn: each worker gives its handle back and attaches a new one every N operations of
  // the timed trial (a pool whose tasks attach for their length).
  std::optional<std::uint64_t> reattach_every;
  std::vector<std::pair<std::string, std::string>> params;  // --param and --quiescent-every
  std::string json_path;                                     // "" = none, "-" = stdout
  std::string timeline_path;
  std::size_t timeline_capacity = 100000;  // events per thread (Epochs §3.1)
  bool timeline_capacity_given = false;
  bool poison = false;
  bool list = false;
  bool check = false;  // check every input as for a run, then exit: nothing runs, nothing is written
  bool quiet = false;
  bool help = false;
  bool version = false;
  // Hidden, for the tests: after the trial, changes the structure behind the accounting's back
  // so that validation must fail.
  bool test_corrupt = false;
  // Hidden, for the tests: workers do no operation in the timed part, which must fail the trial.
  bool test_no_ops = false;
};

// Throws usage_error.
options parse_options(int argc, char** argv);

// Checks that need the options as a whole (after defaults); throws usage_error.
void check_options(options& o);

std::string usage_text();

}  // namespace smrbench
