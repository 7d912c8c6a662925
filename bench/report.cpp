#include "report.hpp"

#include <algorithm>
#include <numeric>

#include "allocator.hpp"
#include "external/catalogue.hpp"
#include "smr/version.hpp"

namespace smrbench {

namespace {

// A statistic the reclaimer does not produce is null, never 0.
nlohmann::json if_supported(bool supported, std::uint64_t v) {
  return supported ? nlohmann::json(v) : nlohmann::json(nullptr);
}

double throughput(const trial_result& r) { return r.elapsed_s > 0 ? static_cast<double>(r.ops) / r.elapsed_s : 0.0; }

// Named as in config.workload (for a stack or queue, insert = push/enqueue, delete = pop/dequeue).
const char* workload_op_name(op_kind k) {
  return k == op_kind::insert ? "insert" : k == op_kind::remove ? "delete" : "search";
}

// [[lower, upper, count], ...]: bounds in ns, lower inclusive, upper exclusive.
nlohmann::json buckets_json(const latency_distribution& d) {
  nlohmann::json buckets = nlohmann::json::array();
  for (const latency_bucket& b : d.buckets) buckets.push_back({b.lower, b.upper, b.count});
  return buckets;
}

// {"insert": {"samples", "max", "buckets"}, ...} for each kind of operation the workload draws.
nlohmann::json latency_histograms(const trial_result& r) {
  nlohmann::json out = nlohmann::json::object();
  for (unsigned k = 0; k < op_kind_count; ++k) {
    const auto& d = r.latency_by_kind[k];
    if (!d) continue;
    out[workload_op_name(static_cast<op_kind>(k))] = {
        {"samples", d->summary.samples}, {"max", d->summary.max}, {"buckets", buckets_json(*d)}};
  }
  return out;
}

// The free profile: {"calls": ..., "batches": ...}, each {"samples", "p50", "p99", "p999", "max",
// "buckets"} or null when there was none (docs/results-format.md).
nlohmann::json free_latency(const trial_result& r) {
  const auto one = [](const std::optional<latency_distribution>& d) -> nlohmann::json {
    if (!d) return nullptr;
    const latency_summary& s = d->summary;
    return {{"samples", s.samples}, {"p50", s.p50},          {"p99", s.p99},
            {"p999", s.p999},       {"max", s.max},          {"buckets", buckets_json(*d)}};
  };
  return {{"calls", one(r.free_calls)}, {"batches", one(r.batch_frees)}};
}

// Of the workers' wall time in the timed trial, the share spent freeing (free_time_ns); null
// for a reclaimer whose frees the library does not see.
nlohmann::json free_time_share(const options& o, const trial_result& r) {
  if (!r.free_calls && !r.batch_frees) return nullptr;
  const double thread_ns = r.elapsed_s * 1e9 * static_cast<double>(o.threads);  // stallers are extra
  return thread_ns > 0 ? nlohmann::json(static_cast<double>(r.stats.free_time_ns) / thread_ns) : nlohmann::json(nullptr);
}

nlohmann::json workload_json(const workload_mix& m) {
  return {{"insert", m.insert}, {"delete", m.remove}, {"search", m.search}};
}

// With --readers: each role's threads, operations and throughput (writers are the first
// workers, readers the last); null otherwise.
nlohmann::json roles_json(const options& o, const trial_result& r) {
  if (o.readers == 0 || r.per_thread_ops.size() != o.threads) return nullptr;
  const auto writers = static_cast<std::ptrdiff_t>(o.threads - o.readers);
  const auto role = [&](auto first, auto last) {
    const std::uint64_t ops = std::accumulate(first, last, std::uint64_t{0});
    return nlohmann::json{{"threads", std::distance(first, last)},
                          {"ops", ops},
                          {"throughput_ops_s", r.elapsed_s > 0 ? static_cast<double>(ops) / r.elapsed_s : 0.0}};
  };
  return {{"writers", role(r.per_thread_ops.begin(), r.per_thread_ops.begin() + writers)},
          {"readers", role(r.per_thread_ops.begin() + writers, r.per_thread_ops.end())}};
}

}  // namespace

// With --node-pool: the pool's size and how often, and how long, allocations waited for it.
nlohmann::json pool_json(const trial_result& r) {
  if (!r.pool) return nullptr;
  const node_pool::counters& c = *r.pool;
  return {{"capacity", c.capacity}, {"exhaustions", c.exhaustions}, {"wait_s", c.wait_s}, {"abandoned", c.abandoned}, {"lost", c.lost}};
}

nlohmann::json trial_config(const options& o, const nlohmann::json& params, unsigned trial) {
  return {
      {"ds", o.ds},
      {"reclaimer", o.reclaimer},
      {"params", params},
      {"threads", o.threads},
      {"duration_s", o.duration_s},
      {"key_range", o.key_range},
      {"workload", workload_json(o.workload)},
      {"readers", o.readers},
      {"reader_workload", o.readers == 0 ? nlohmann::json(nullptr) : workload_json(o.reader_workload)},
      {"allocator", o.allocator},
      {"node_pool", o.node_pool ? nlohmann::json(*o.node_pool) : nlohmann::json(nullptr)},
      {"pool_wait", o.node_pool ? nlohmann::json(pool_wait_name(o.pool_wait)) : nlohmann::json(nullptr)},
      {"stalled_threads", o.stall},
      {"stall_mode", o.stall == 0 ? nlohmann::json(nullptr) : nlohmann::json(stall_mode_name(o.stall_kind))},
      {"stall_ms", o.stall_ms ? nlohmann::json(*o.stall_ms) : nlohmann::json(nullptr)},
      {"reattach_every", o.reattach_every ? nlohmann::json(*o.reattach_every) : nlohmann::json(nullptr)},
      {"seed", o.seed},
      {"prefill", o.prefill.value_or(0)},
      {"pin", pin_policy_name(o.pin)},
      {"poison", o.poison},
      {"trial", trial},
  };
}

nlohmann::json trial_record(const options& o, unsigned trial, const trial_result& r, const nlohmann::json& env,
                            const std::optional<timeline_counts>& timeline, const std::string& timeline_file) {
  nlohmann::json config = trial_config(o, r.params, trial);
  config.erase("trial");  // the record carries it at the top level
  // Where --pin put each worker (operating-system CPU numbers); null when not pinned.
  config["pin_cpus"] = r.worker_cpus.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.worker_cpus);
  const auto& m = r.metrics;
  const auto& s = r.stats;
  nlohmann::json metrics = {
      {"ops", r.ops},
      {"throughput_ops_s", throughput(r)},
      {"elapsed_s", r.elapsed_s},
      {"cpu_time_s", r.cpu_s},
      {"per_thread_ops", r.per_thread_ops},
      {"roles", roles_json(o, r)},
      {"pool", pool_json(r)},
      {"latency_ns", {{"p50", r.latency.p50}, {"p99", r.latency.p99}, {"p999", r.latency.p999}, {"max", r.latency.max}}},
      {"latency_samples", r.latency.samples},
      {"latency_histograms", latency_histograms(r)},
      {"peak_rss_bytes", r.peak_rss_bytes},
      {"end_rss_bytes", r.end_rss_bytes},
      {"avg_unreclaimed_per_op", r.avg_unreclaimed_per_op},
      {"avg_unreclaimed", r.avg_unreclaimed},
      {"peak_unreclaimed", r.peak_unreclaimed},
      {"retired", s.retired},
      {"freed", s.freed},
      {"epochs", if_supported(m.epochs, s.epochs)},
      {"signals", if_supported(m.signals, s.signals)},
      {"restarts", if_supported(m.restarts, s.restarts)},
      {"protect_retries", if_supported(m.protect_retries, s.protect_retries)},
      {"round_waits", if_supported(m.round_waits, s.round_waits)},
      {"free_time_ns", s.free_time_ns},
      {"free_batches", s.free_batches},
      {"free_time_share", free_time_share(o, r)},
      {"free_latency_ns", free_latency(r)},
      {"prefill_s", r.prefill_s},
      {"timeline_events", timeline ? nlohmann::json(timeline->events) : nlohmann::json(nullptr)},
      {"timeline_dropped", timeline ? nlohmann::json(timeline->dropped) : nlohmann::json(nullptr)},
  };
  return {
      {"schema", schema_id},
      {"version", SMR_VERSION_STRING},
      {"trial", trial},
      {"config", config},
      {"env", env},
      {"metrics", metrics},
      {"validation", {{"ok", r.valid}, {"detail", r.validation_detail}}},
      {"timeline_file", timeline_file.empty() ? nlohmann::json(nullptr) : nlohmann::json(timeline_file)},
  };
}

void print_table_header(std::FILE* out) {
  std::fprintf(out, "%-5s %-14s %-10s %4s %4s %10s %8s %8s %9s %11s %11s %9s %s\n", "trial", "ds", "reclaimer",
               "thr", "stl", "Mops/s", "p50_ns", "p99_ns", "peakRSS", "unrecl/op", "peak_unrec", "epochs", "valid");
}

void print_table_row(std::FILE* out, const options& o, unsigned trial, const trial_result& r) {
  char epochs[32];
  if (r.metrics.epochs) std::snprintf(epochs, sizeof epochs, "%llu", static_cast<unsigned long long>(r.stats.epochs));
  else std::snprintf(epochs, sizeof epochs, "-");
  std::fprintf(out, "%-5u %-14s %-10s %4u %4u %10.3f %8llu %8llu %7.1fMi %11.1f %11lld %9s %s\n", trial,
               o.ds.c_str(), o.reclaimer.c_str(), o.threads, o.stall, throughput(r) / 1e6,
               static_cast<unsigned long long>(r.latency.p50), static_cast<unsigned long long>(r.latency.p99),
               static_cast<double>(r.peak_rss_bytes) / (1024.0 * 1024.0), r.avg_unreclaimed_per_op,
               static_cast<long long>(r.peak_unreclaimed), epochs, r.valid ? "ok" : "FAILED");
  if (const nlohmann::json roles = roles_json(o, r); !roles.is_null()) {
    const auto& w = roles["writers"];
    const auto& rd = roles["readers"];
    std::fprintf(out, "      roles: %u writers %.3f Mops/s, %u readers %.3f Mops/s\n", w["threads"].get<unsigned>(),
                 w["throughput_ops_s"].get<double>() / 1e6, rd["threads"].get<unsigned>(),
                 rd["throughput_ops_s"].get<double>() / 1e6);
  }
  if (r.pool) {
    std::fprintf(out, "      node pool: %llu blocks, %llu operations waited (%.3f s in all), %llu still waiting at the stop\n",
                 static_cast<unsigned long long>(r.pool->capacity), static_cast<unsigned long long>(r.pool->exhaustions),
                 r.pool->wait_s, static_cast<unsigned long long>(r.pool->abandoned));
  }
  std::fflush(out);
}

void print_summary(std::FILE* out, const std::vector<trial_result>& results) {
  if (results.size() < 2) return;
  std::vector<double> t;
  for (const auto& r : results) t.push_back(throughput(r) / 1e6);
  const double mean = std::accumulate(t.begin(), t.end(), 0.0) / static_cast<double>(t.size());
  std::fprintf(out, "throughput over %zu trials: mean %.3f Mops/s, min %.3f, max %.3f\n", t.size(), mean,
               *std::min_element(t.begin(), t.end()), *std::max_element(t.begin(), t.end()));
}

nlohmann::json list_json(const registry& reg) {
  nlohmann::json ds = nlohmann::json::array(), rec = nlohmann::json::array(), alloc = nlohmann::json::array();
  nlohmann::json kinds = nlohmann::json::object(), tunables = nlohmann::json::object(),
                 libraries = nlohmann::json::object();
  nlohmann::json compatible = nlohmann::json::array(), incompatible = nlohmann::json::array();
  for (const auto& d : reg.data_structures()) {
    ds.push_back(d.name);
    kinds[d.name] = ds_kind_name(d.kind);
  }
  nlohmann::json metrics = nlohmann::json::object(), about = nlohmann::json::object();
  for (const auto& r : reg.reclaimers()) {
    rec.push_back(r.name);
    tunables[r.name] = r.tunable_names;
    about[r.name] = {{"summary", r.summary},
                     {"tunables", r.tunable_help},
                     {"bounded_garbage", r.traits.bounded_garbage},
                     {"protects_unlinked_traversal", r.traits.protects_unlinked_traversal},
                     {"protects_persistent_traversal", r.traits.protects_persistent_traversal},
                     {"requires_persistent", r.traits.requires_persistent},
                     {"continues_after_write", r.traits.continues_after_write},
                     {"slot_based_protection", r.traits.slot_based_protection},
                     {"external", r.external}};
    nlohmann::json m = nlohmann::json::array();
    const auto& ms = r.traits.metrics;
    for (auto [name, on] : {std::pair{"epochs", ms.epochs}, std::pair{"signals", ms.signals},
                            std::pair{"restarts", ms.restarts}, std::pair{"protect_retries", ms.protect_retries},
                            std::pair{"round_waits", ms.round_waits}})
      if (on) m.push_back(name);
    metrics[r.name] = m;
  }
  for (const auto& a : known_allocators()) {
    alloc.push_back(a.name);
    const std::string path = find_allocator_library(a);
    libraries[a.name] = a.files.empty() ? nlohmann::json("libc") : path.empty() ? nlohmann::json(nullptr) : nlohmann::json(path);
  }
  for (const auto& p : reg.pairs()) {
    if (p.run != nullptr) compatible.push_back({p.ds, p.reclaimer});
    else incompatible.push_back({p.ds, p.reclaimer, p.refusal});
  }
  // External baselines: the built ones are listed above too; the others say what to install.
  nlohmann::json external = nlohmann::json::array(), unbuilt = nlohmann::json::object();
  for (const auto& a : smr::external::catalogue) {
    if (a.built) external.push_back(a.reclaimer);
    else unbuilt[std::string(a.reclaimer)] = a.package;
  }
  return {{"data_structures", ds},       {"reclaimers", rec},        {"allocators", alloc},
          {"external_reclaimers", external}, {"external_unbuilt", unbuilt},
          {"compatible", compatible},    {"incompatible", incompatible}, {"kinds", kinds},
          {"tunables", tunables},        {"allocator_libraries", libraries}, {"reclaimer_metrics", metrics},
          {"reclaimer_info", about}};
}

void print_list(std::FILE* out, const registry& reg) {
  std::fprintf(out, "data structures:\n");
  for (const auto& d : reg.data_structures()) std::fprintf(out, "  %-16s %s\n", d.name.c_str(), ds_kind_name(d.kind));

  std::fprintf(out, "\nreclaimers:\n");
  for (const auto& r : reg.reclaimers()) {
    std::fprintf(out, "  %-16s %s%s\n", r.name.c_str(), r.external ? "[external] " : "", r.summary.c_str());
    std::fprintf(out, "  %-16s   bounded garbage: %s\n", "", r.traits.bounded_garbage ? "yes" : "no");
    for (const auto& t : r.tunable_help) std::fprintf(out, "  %-16s   --param %s\n", "", t.c_str());
  }

  for (const auto& a : smr::external::catalogue)
    if (!a.built)
      std::fprintf(out, "  %-16s [external] not built into this smrbench (install %s and rebuild)\n",
                   std::string(a.reclaimer).c_str(), std::string(a.package).c_str());

  std::fprintf(out, "\nallocators:\n");
  for (const auto& a : known_allocators()) {
    const std::string path = find_allocator_library(a);
    if (a.files.empty()) std::fprintf(out, "  %-16s glibc malloc\n", a.name.c_str());
    else if (path.empty()) std::fprintf(out, "  %-16s missing (install %s)\n", a.name.c_str(), a.package.c_str());
    else std::fprintf(out, "  %-16s %s\n", a.name.c_str(), path.c_str());
  }

  std::fprintf(out, "\ncompatibility (yes / no: reason below):\n  %-16s", "");
  for (const auto& r : reg.reclaimers()) std::fprintf(out, " %-10s", r.name.c_str());
  std::fprintf(out, "\n");
  const auto pairs = reg.pairs();
  std::vector<std::string> reasons;
  for (const auto& d : reg.data_structures()) {
    std::fprintf(out, "  %-16s", d.name.c_str());
    for (const auto& r : reg.reclaimers()) {
      auto it = std::find_if(pairs.begin(), pairs.end(),
                             [&](const pair_entry& p) { return p.ds == d.name && p.reclaimer == r.name; });
      const bool ok = it != pairs.end() && it->run != nullptr;
      std::fprintf(out, " %-10s", ok ? "yes" : "no");
      if (!ok && it != pairs.end()) reasons.push_back(d.name + " + " + r.name + ": " + it->refusal);
    }
    std::fprintf(out, "\n");
  }
  for (const auto& why : reasons) std::fprintf(out, "  %s\n", why.c_str());
}

}  // namespace smrbench
