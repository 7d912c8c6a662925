#include "options.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <thread>


namespace smrbench {

const char* pin_policy_name(pin_policy p) {
  switch (p) {
    case pin_policy::none: return "none";
    case pin_policy::compact: return "compact";
    case pin_policy::scatter: return "scatter";
  }
  return "?";
}

const char* stall_mode_name(stall_mode m) { return m == stall_mode::whole ? "whole" : "periodic"; }

namespace {

template <class T>
T parse_unsigned(const std::string& opt, const std::string& v, T lo, T hi) {
  std::uint64_t x = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  // On overflow from_chars still consumes every digit: the value is then out of range, not malformed.
  const bool overflow = ec == std::errc::result_out_of_range;
  if (v.empty() || p != v.data() + v.size() || (ec != std::errc() && !overflow))
    throw usage_error("bad " + opt + " '" + v + "': expected a non-negative integer");
  if (overflow || x < lo || x > hi)
    throw usage_error("bad " + opt + " '" + v + "': must be between " + std::to_string(lo) +
                      " and " + std::to_string(hi));
  return static_cast<T>(x);
}

// A positive number in [lo, hi]; `why_lo` explains the lower bound when it is not just "positive".
double parse_positive_seconds(const std::string& opt, const std::string& v, double hi, double lo = 0,
                              const std::string& why_lo = "") {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(x))
    throw usage_error("bad " + opt + " '" + v + "': expected a number");
  if (x <= 0) throw usage_error("bad " + opt + " '" + v + "': must be positive");
  if (x < lo) throw usage_error("bad " + opt + " '" + v + "': " + why_lo);
  if (x > hi) {
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", hi);
    throw usage_error("bad " + opt + " '" + v + "': at most " + limit);
  }
  return x;
}

}  // namespace

std::string usage_text() {
  return R"(usage: smrbench --ds NAME --reclaimer NAME [options]
       smrbench --list [--json -|FILE]

Runs timed trials of a concurrent data structure with a memory reclaimer and reports
throughput, latency, memory and reclamation metrics; validates the structure after each trial.

  --ds NAME              data structure (see --list)
  --reclaimer NAME       reclaimer (see --list)
  --threads N            worker threads (default: available cores; 1..4096)
  --duration S           seconds per timed trial, fractions allowed (default 1); at least
                         0.01, so that the 1 ms memory monitor takes 10 samples or more
  --trials N             trials, each on a fresh structure (default 1)
  --seed N               base seed of the per-thread random streams (default 1)
  --key-range N          keys are uniform in [0, N) (default 65536)
  --workload W           50i-50d | 25i-25d-50s | 5i-5d-90s | I,D,S percentages (default 50i-50d)
  --readers N            N of the --threads workers run --reader-workload instead of
                         --workload; each role's throughput is reported (default 0)
  --reader-workload W    the readers' mix, as --workload (default 0,0,100: searches only)
  --prefill N            elements inserted before timing (default key-range/2, the 50/50
                         steady state)
  --pin P                none | compact | scatter (default none)
  --allocator A          system | jemalloc | tcmalloc | mimalloc (default system)
  --node-pool N          every node comes from a pool of N blocks (Hart et al. Fig. 14); an
                         operation that finds it empty in the timed trial is retried until it
                         gets a block
  --pool-wait W          busy | yield: retry at once, or after sched_yield() (default yield)
  --stall N              N extra threads that stall inside an operation
  --stall-mode M         whole (stalled for the whole trial, default) | periodic
  --stall-ms MS          periodic mode: milliseconds per stall (and between stalls)
  --reattach-every N     each worker detaches and attaches a new handle every N operations
                         of the timed trial (thread churn; default: never)
  --quiescent-every K    operations between quiescent states (qsbr)
  --param NAME=VALUE     reclaimer tunable, repeatable (see --list for each reclaimer's names)
  --json FILE            JSON lines, one record per trial ('-' = stdout)
  --timeline FILE        timeline of reclamation events (Epochs §3.1), CSV
  --timeline-capacity N  timeline events kept per thread (default 100000)
  --poison               poison and quarantine freed nodes (use-after-free detector)
  --list                 list data structures, reclaimers, allocators, compatible pairs
  --check                check every input as for a run, then exit (0: the run would start;
                         2: the refusal); runs nothing, writes nothing
  --quiet                no progress on stderr
  --version              print the version and the commit it was built from
  --help                 this text

--json and --timeline replace a regular file atomically (a symbolic link is followed) and write
through to a FIFO or character device (/dev/null); a directory is refused.
A first SIGINT, SIGTERM or SIGHUP (unless ignored, as under nohup) stops the run: the completed
trials' records are written, the trial under way is discarded; a second one ends it at once.

Exit status: 0 ok, 1 a trial failed validation (or did no operation), 2 bad input, 3 a run-time
failure (e.g. a write error), 128 + N stopped by signal N.
)";
}

options parse_options(int argc, char** argv) {
  options o;
  std::map<std::string, std::function<void(const std::string&)>> with_value = {
      {"--ds", [&](const std::string& v) { o.ds = v; }},
      {"--reclaimer", [&](const std::string& v) { o.reclaimer = v; }},
      {"--threads",
       [&](const std::string& v) { o.threads = parse_unsigned<unsigned>("--threads", v, 1, max_threads); }},
      {"--duration",
       [&](const std::string& v) {
         o.duration_s = parse_positive_seconds("--duration", v, 1e6, min_duration_s,
                                               "expected at least 0.01 s: a shorter trial gives the memory monitor (1 ms period) "
                                               "fewer than 10 samples and measures thread start-up, not the steady state");
       }},
      {"--trials",
       [&](const std::string& v) { o.trials = parse_unsigned<unsigned>("--trials", v, 1, 100000); }},
      {"--seed",
       [&](const std::string& v) {
         o.seed = parse_unsigned<std::uint64_t>("--seed", v, 0, ~std::uint64_t{0});
       }},
      {"--key-range",
       [&](const std::string& v) {
         o.key_range = parse_unsigned<std::uint64_t>("--key-range", v, 1, std::uint64_t{1} << 62);
       }},
      {"--workload",
       [&](const std::string& v) {
         std::string err;
         auto m = parse_workload(v, err);
         if (!m) throw usage_error(err);
         o.workload = *m;
       }},
      {"--readers",
       [&](const std::string& v) { o.readers = parse_unsigned<unsigned>("--readers", v, 0, max_threads); }},
      {"--reader-workload",
       [&](const std::string& v) {
         std::string err;
         auto m = parse_workload(v, err, "--reader-workload");
         if (!m) throw usage_error(err);
         o.reader_workload = *m;
         o.reader_workload_given = true;
       }},
      {"--prefill",
       [&](const std::string& v) {
         o.prefill = parse_unsigned<std::uint64_t>("--prefill", v, 0, max_prefill);
       }},
      {"--pin",
       [&](const std::string& v) {
         if (v == "none") o.pin = pin_policy::none;
         else if (v == "compact") o.pin = pin_policy::compact;
         else if (v == "scatter") o.pin = pin_policy::scatter;
         else throw usage_error("bad --pin '" + v + "': expected none, compact or scatter");
       }},
      {"--allocator", [&](const std::string& v) { o.allocator = v; }},
      {"--node-pool",
       [&](const std::string& v) {
         o.node_pool = parse_unsigned<std::uint32_t>("--node-pool", v, 1, std::uint32_t{1} << 31);
       }},
      {"--pool-wait",
       [&](const std::string& v) {
         if (v == "busy") o.pool_wait = pool_wait::busy;
         else if (v == "yield") o.pool_wait = pool_wait::yield;
         else throw usage_error("bad --pool-wait '" + v + "': expected busy or yield");
         o.pool_wait_given = true;
       }},
      {"--stall",
       [&](const std::string& v) { o.stall = parse_unsigned<unsigned>("--stall", v, 0, max_threads); }},
      {"--stall-mode",
       [&](const std::string& v) {
         if (v == "whole") o.stall_kind = stall_mode::whole;
         else if (v == "periodic") o.stall_kind = stall_mode::periodic;
         else throw usage_error("bad --stall-mode '" + v + "': expected whole or periodic");
       }},
      {"--stall-ms",
       [&](const std::string& v) { o.stall_ms = parse_positive_seconds("--stall-ms", v, 3.6e6); }},
      {"--reattach-every",
       [&](const std::string& v) {
         o.reattach_every = parse_unsigned<std::uint64_t>("--reattach-every", v, 1, std::uint64_t{1} << 40);
       }},
      {"--quiescent-every",
       [&](const std::string& v) {
         parse_unsigned<std::uint32_t>("--quiescent-every", v, 1, ~std::uint32_t{0});  // the tunable is 32-bit
         o.params.emplace_back("quiescent_every", v);
       }},
      {"--param",
       [&](const std::string& v) {
         const auto eq = v.find('=');
         if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
           throw usage_error("bad --param '" + v + "': expected NAME=VALUE");
         o.params.emplace_back(v.substr(0, eq), v.substr(eq + 1));
       }},
      {"--json",
       [&](const std::string& v) {
         if (v.empty()) throw usage_error("bad --json: empty file name");
         o.json_path = v;
       }},
      {"--timeline",
       [&](const std::string& v) {
         if (v.empty() || v == "-") throw usage_error("bad --timeline '" + v + "': expected a file name");
         o.timeline_path = v;
       }},
      {"--timeline-capacity",
       [&](const std::string& v) {
         o.timeline_capacity =
             parse_unsigned<std::size_t>("--timeline-capacity", v, 1, std::size_t{100000000});
         o.timeline_capacity_given = true;
       }},
  };
  std::map<std::string, std::function<void()>> flags = {
      {"--list", [&] { o.list = true; }},
      {"--check", [&] { o.check = true; }},
      {"--poison", [&] { o.poison = true; }},
      {"--quiet", [&] { o.quiet = true; }},
      {"--help", [&] { o.help = true; }},
      {"--version", [&] { o.version = true; }},
      {"-h", [&] { o.help = true; }},
      {"--test-corrupt", [&] { o.test_corrupt = true; }},
      {"--test-no-ops", [&] { o.test_no_ops = true; }},
  };

  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool inline_value = false;
    if (const auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      inline_value = true;
    }
    if (auto f = flags.find(arg); f != flags.end()) {
      if (inline_value) throw usage_error(arg + " takes no value");
      f->second();
      continue;
    }
    auto w = with_value.find(arg);
    if (w == with_value.end()) throw usage_error("unknown option '" + arg + "' (see --help)");
    if (!inline_value) {
      if (i + 1 >= argc) throw usage_error(arg + " needs a value");
      value = argv[++i];
    }
    w->second(value);
  }
  return o;
}

void check_options(options& o) {
  if (o.check && o.list) throw usage_error("--check applies to a run, not to --list");
  if (o.help || o.version || o.list) return;
  if (o.ds.empty()) throw usage_error("missing --ds NAME (see --list)");
  if (o.reclaimer.empty()) throw usage_error("missing --reclaimer NAME (see --list)");
  if (o.threads == 0) {
    const unsigned hc = std::thread::hardware_concurrency();
    o.threads = hc == 0 ? 1 : hc;
  }
  if (static_cast<unsigned long>(o.threads) + o.stall > max_threads)
    throw usage_error("--threads plus --stall is " + std::to_string(o.threads + o.stall) +
                      ", more than the limit of " + std::to_string(max_threads));
  if (o.stall == 0 && (o.stall_ms || o.stall_kind != stall_mode::whole))
    throw usage_error("--stall-mode and --stall-ms need --stall N");
  if (o.stall_kind == stall_mode::periodic && !o.stall_ms)
    throw usage_error("--stall-mode periodic needs --stall-ms MS");
  if (o.stall_kind == stall_mode::whole && o.stall_ms)
    throw usage_error("--stall-ms applies only to --stall-mode periodic");
  if (o.readers >= o.threads)
    throw usage_error("--readers " + std::to_string(o.readers) + " leaves no writer: it must be below --threads " +
                      std::to_string(o.threads) + " (the others run --workload)");
  if (o.reader_workload_given && o.readers == 0) throw usage_error("--reader-workload needs --readers N");
  if (o.timeline_capacity_given && o.timeline_path.empty())
    throw usage_error("--timeline-capacity needs --timeline FILE");
  if (o.pool_wait_given && !o.node_pool) throw usage_error("--pool-wait needs --node-pool N");
  if (!o.prefill && o.key_range / 2 > max_prefill)
    throw usage_error("--key-range " + std::to_string(o.key_range) + ": the default prefill, half of it, exceeds " +
                      std::to_string(max_prefill) + " elements; give --prefill N");
  if (!o.prefill) o.prefill = o.key_range / 2;
}

}  // namespace smrbench
