// smrbench: timed trials of a concurrent data structure with a memory reclaimer.
//
// Order of business: every input is checked (names, pair compatibility, tunables, allocator
// library, output paths) before any trial runs, so bad input costs nothing and leaves no file;
// then each trial runs on a fresh domain and structure, is validated, and is reported.
// A first SIGINT/SIGTERM/SIGHUP stops the run between or during trials: the records of the
// completed trials are written and the exit status is 128 + the signal (interrupt.hpp).
// Exit status: 0 ok, 1 a trial failed validation, 2 bad input, 3 a run-time failure.

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "allocator.hpp"
#include "build_commit.hpp"
#include "environment.hpp"
#include "interrupt.hpp"
#include "options.hpp"
#include "output_file.hpp"
#include "pinning.hpp"
#include "progress.hpp"
#include "registry.hpp"
#include "report.hpp"
#include "timeline_io.hpp"
#include "smr/version.hpp"
#include "workload.hpp"

namespace smrbench {
namespace {

// An output file that is checked and opened before anything runs: a failure is bad input.
void open_before_running(std::optional<output_file>& file, const std::string& path, const std::string& what) {
  output_file::check(path, what);
  try {
    file.emplace(path, what);
  } catch (const output_error& e) {
    throw usage_error(e.what());
  }
}

int run_list(const options& o) {
  const registry& reg = registry::instance();
  if (o.json_path.empty()) {
    print_list(stdout, reg);
    return 0;
  }
  std::optional<output_file> f;
  open_before_running(f, o.json_path, "--json");
  nlohmann::json list = list_json(reg);
  // The build and machine every trial's record names (its env, less the allocator's version):
  // smrlab compares them with a results directory before it runs or reuses any trial.
  nlohmann::json env = environment("");
  env.erase("allocator_version");
  list["env"] = std::move(env);
  f->write(list.dump() + "\n");
  f->commit();
  return 0;
}

// "trials 1-3", "trial 1".
std::string trial_range(unsigned completed) {
  return completed == 1 ? "trial 1" : "trials 1-" + std::to_string(completed);
}

// One line on stderr: which signal, where the run stopped, what was kept and where.
void report_interruption(const options& o, int sig, unsigned completed, bool stopped_mid_trial) {
  std::string line = "smrbench: " + signal_name(sig) + ": ";
  if (stopped_mid_trial) line += "stopped trial " + std::to_string(completed + 1) + " of " + std::to_string(o.trials) + " and discarded it; ";
  if (completed == 0) {
    line += "no trial had completed, nothing written";
  } else {
    line += "kept the " + std::string(completed == 1 ? "record of " : "records of ") + trial_range(completed);
    if (o.json_path == "-") line += " on standard output";
    else if (!o.json_path.empty()) line += " in " + o.json_path;
    else line += " (the table above)";
    if (!o.timeline_path.empty()) line += ", with " + std::string(completed == 1 ? "its timeline" : "their timelines");
  }
  std::fprintf(stderr, "%s\n", line.c_str());
}

// --json and a trial's --timeline must not name the same file (one would replace the other).
// Two names for one device, such as /dev/null, are fine.
void check_distinct_outputs(const options& o) {
  if (o.json_path.empty() || o.json_path == "-" || o.timeline_path.empty()) return;
  namespace fs = std::filesystem;
  auto identity = [](const std::string& path) {  // after symbolic links, as output_file writes
    const std::string name = output_file::written_name(path);
    std::error_code ec;
    const fs::path p = fs::weakly_canonical(fs::absolute(name, ec), ec);
    return ec ? fs::path(name) : p;
  };
  std::error_code ec;
  if (fs::is_character_file(o.json_path, ec) || fs::is_fifo(o.json_path, ec)) return;
  const fs::path json = identity(o.json_path);
  for (unsigned t = 1; t <= o.trials; ++t) {
    const std::string timeline = timeline_path_for(o.timeline_path, t, o.trials);
    if (identity(timeline) == json)
      throw usage_error("--json " + o.json_path + " and --timeline " + o.timeline_path + " name the same file (" +
                        timeline + (o.trials > 1 ? ", trial " + std::to_string(t) : "") +
                        "): give them different names");
  }
}

// A trial whose pool overflowed in the prefill did not run with the memory asked for; one whose
// pool is missing blocks after teardown leaked nodes (a data structure or reclaimer bug).
void check_pool(const node_pool::counters& c, const options& o, trial_result& r) {
  auto fail = [&](const std::string& why) {
    if (!r.valid) return;
    r.valid = false;
    r.validation_detail = why;
  };
  if (c.prefill_overflows != 0)
    fail("--node-pool " + std::to_string(c.capacity) + " ran out during the prefill of " + std::to_string(o.prefill.value_or(0)) +
         " elements (" + std::to_string(c.prefill_overflows) + " more nodes needed): use a larger pool");
  if (c.lost != 0)
    fail("the node pool has " + std::to_string(c.lost) + " of its " + std::to_string(c.capacity) +
         " blocks missing after teardown: nodes leaked");
}

// Output paths are proven writable before any trial runs (--json's by opening it).
void check_output_paths(const options& o) {
  check_distinct_outputs(o);
  if (o.timeline_path.empty()) return;
  const timeline_target target = timeline_target_of(o.timeline_path);
  if (target == timeline_target::fifo && o.trials > 1)
    throw usage_error("--timeline " + o.timeline_path + " is a FIFO, which takes one trial's timeline (its reader stops at "
                      "the end of the first): use --trials 1, a file, or a character device");
  // Each file trial's timeline waits as a temporary until the run ends (a device's is written through).
  if (target == timeline_target::file && o.trials >= static_cast<unsigned>(max_pending_outputs))
    throw usage_error("--timeline with --trials " + std::to_string(o.trials) + ": at most " +
                      std::to_string(max_pending_outputs - 1) +
                      " trials, whose timelines are kept back until the run ends; run the rest separately");
  for (unsigned t = 1; t <= o.trials; ++t) output_file::check(timeline_path_for(o.timeline_path, t, o.trials), "--timeline");
}

// The checks that need the registry: names, compatibility, tunables, workload and prefill
// against the kind of structure.
trial_fn resolve(const options& o) {
  const registry& reg = registry::instance();
  const ds_entry& ds = reg.data_structure(o.ds);
  const reclaimer_entry& rec = reg.reclaimer(o.reclaimer);
  const pair_entry& pair = reg.pair(o.ds, o.reclaimer);
  if (std::string err = rec.check_params(o.params); !err.empty()) throw usage_error(err);
  if (std::string err = pair.preflight(o); !err.empty()) throw usage_error(err);
  if (ds.kind != ds_kind::set && o.workload.search != 0)
    throw usage_error("--workload " + o.workload.label() + " has searches, but " + o.ds + " is a " +
                      ds_kind_name(ds.kind) + " with no search operation; use a search share of 0 (e.g. 50i-50d)");
  if (ds.kind != ds_kind::set && o.readers != 0 && o.reader_workload.search != 0)
    throw usage_error("--readers: the reader workload " + o.reader_workload.label() + " has searches, but " + o.ds +
                      " is a " + ds_kind_name(ds.kind) + " with no search operation; give --reader-workload "
                      "with a search share of 0");
  if (ds.kind == ds_kind::set && o.prefill.value_or(0) > o.key_range)
    throw usage_error("--prefill " + std::to_string(*o.prefill) + " exceeds --key-range " +
                      std::to_string(o.key_range) + ": a set holds distinct keys");
  return pair.run;
}

int run(int argc, char** argv) {
  options o = parse_options(argc, argv);
  if (o.help) {
    std::fputs(usage_text().c_str(), stdout);
    return 0;
  }
  if (o.version) {
    std::printf("smrbench %s (commit %s)\n", SMR_VERSION_STRING, SMRBENCH_COMMIT);
    return 0;
  }
  check_options(o);
  if (o.list) return run_list(o);

  const trial_fn run_trial = resolve(o);
  if (o.check) {
    (void)check_allocator(o.allocator);
    check_output_paths(o);
    if (!o.json_path.empty()) output_file::check(o.json_path, "--json");
    return 0;
  }
  select_allocator(o.allocator, argv);  // may re-execute under LD_PRELOAD
  const std::string allocator_version = verify_allocator(o.allocator);

  // From here on a signal stops the run gracefully; the output files exist from here on too.
  install_interrupt_handlers();
  check_output_paths(o);
  std::optional<output_file> json_file;
  if (!o.json_path.empty()) open_before_running(json_file, o.json_path, "--json");

  if (o.poison) smr::core::set_poison_on_free(true);
  const nlohmann::json env = environment(allocator_version);
  const std::vector<int> cpus = cpu_assignment(o.pin, o.threads);
  // With --json - the records own stdout; the table moves to stderr.
  std::FILE* table = o.json_path == "-" ? stderr : stdout;

  const progress prog(o.quiet);
  prog.say(o.ds + " + " + o.reclaimer + ", " + std::to_string(o.threads) + " threads, " + o.workload.label() +
           ", key range " + std::to_string(o.key_range) + ", prefill " + std::to_string(*o.prefill) + ", allocator " +
           allocator_version);
  print_table_header(table);
  std::vector<trial_result> results;
  // The timelines appear with the records that name them, at the end of the run: a run that
  // fails half-way leaves every target as it was.
  std::vector<std::unique_ptr<output_file>> timeline_files;
  bool all_valid = true;
  bool stopped_mid_trial = false;
  for (unsigned t = 1; t <= o.trials && interrupt_signal() == 0; ++t) {
    std::unique_ptr<smr::core::timeline> tl;
    if (!o.timeline_path.empty()) tl = std::make_unique<smr::core::timeline>(o.timeline_capacity);
    trial_spec spec;
    spec.opt = &o;
    spec.trial = t;
    spec.seed = rng::mix(o.seed + t);
    spec.worker_cpus = cpus;
    spec.timeline = tl.get();
    std::unique_ptr<node_pool> pool;
    if (o.node_pool) {
      pool = std::make_unique<node_pool>(*o.node_pool, o.pool_wait);
      spec.pool = pool.get();
      smr::core::set_node_memory_resource(pool.get());
    }

    trial_result r = run_trial(spec);  // the domain is gone when this returns
    if (o.poison) smr::core::drain_quarantine();
    if (pool) {
      smr::core::set_node_memory_resource(nullptr);  // every node it served is gone
      r.pool = pool->finish();
      check_pool(*r.pool, o, r);
    }
    if (r.interrupted) {
      stopped_mid_trial = true;
      break;
    }
    r.worker_cpus = cpus;

    std::optional<timeline_counts> counts;
    std::string timeline_file;
    if (tl) {
      counts = count_events(*tl);
      timeline_file = timeline_path_for(o.timeline_path, t, o.trials);
      auto& f = timeline_files.emplace_back(std::make_unique<output_file>(timeline_file, "--timeline"));
      f->write(format_timeline(*tl, trial_config(o, r.params, t)));
      f->finish();  // renamed into place with the records, at the end
    }
    if (!r.valid) {
      all_valid = false;
      std::fprintf(stderr, "smrbench: VALIDATION FAILED in trial %u: %s\n", t, r.validation_detail.c_str());
    }
    if (json_file) json_file->write(trial_record(o, t, r, env, counts, timeline_file).dump() + "\n");
    print_table_row(table, o, t, r);
    results.push_back(std::move(r));
  }
  print_summary(table, results);
  const auto completed = static_cast<unsigned>(results.size());
  // An interrupted run that completed nothing leaves the targets as they were.
  if (completed > 0) {
    for (auto& f : timeline_files) f->commit();
    if (json_file) json_file->commit();
  }
  if (const int sig = interrupt_signal(); sig != 0) {
    report_interruption(o, sig, completed, stopped_mid_trial);
    return 128 + sig;
  }
  return all_valid ? 0 : 1;
}

}  // namespace
}  // namespace smrbench

int main(int argc, char** argv) {
  try {
    return smrbench::run(argc, argv);
  } catch (const smrbench::usage_error& e) {
    std::fprintf(stderr, "smrbench: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "smrbench: error: %s\n", e.what());
    return 3;
  }
}
