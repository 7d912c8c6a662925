"""Metric names, reading them from smrbench records, and per-configuration statistics."""

import statistics
from dataclasses import dataclass

# name -> (human label, unit shown, scale applied for display)
METRICS = {
    "throughput_ops_s": ("throughput", "Mops/s", 1e-6),
    "writer_throughput_ops_s": ("writer throughput", "Mops/s", 1e-6),
    "reader_throughput_ops_s": ("reader throughput", "Mops/s", 1e-6),
    "ns_per_op": ("time per operation", "ns", 1.0),
    "ops": ("operations", "ops", 1.0),
    "peak_rss_bytes": ("peak resident memory", "MiB", 1 / 2**20),
    "end_rss_bytes": ("resident memory at end", "MiB", 1 / 2**20),
    "avg_unreclaimed_per_op": ("average unreclaimed nodes per operation", "nodes", 1.0),
    "peak_unreclaimed": ("peak unreclaimed nodes", "nodes", 1.0),
    "retired": ("nodes retired", "nodes", 1.0),
    "freed": ("nodes freed", "nodes", 1.0),
    "epochs": ("epochs advanced", "epochs", 1.0),
    "signals": ("signals sent", "signals", 1.0),
    "restarts": ("restarts", "restarts", 1.0),
    "round_waits": ("rounds that waited for other threads", "rounds", 1.0),
    "pool_exhaustions": ("operations that waited for the node pool", "operations", 1.0),
    "pool_wait_s": ("time waiting for the node pool (all threads)", "s", 1.0),
    "free_time_ns": ("time spent in free", "ms", 1e-6),
    "free_time_share": ("share of thread time in free", "%", 100.0),
    "free_latency_ns.calls.p50": ("free call p50", "ns", 1.0),
    "free_latency_ns.calls.p99": ("free call p99", "ns", 1.0),
    "free_latency_ns.calls.p999": ("free call p99.9", "ns", 1.0),
    "free_latency_ns.calls.max": ("free call max", "µs", 1e-3),
    "free_latency_ns.batches.p50": ("batch free p50", "µs", 1e-3),
    "free_latency_ns.batches.p999": ("batch free p99.9", "µs", 1e-3),
    "free_latency_ns.batches.max": ("batch free max", "µs", 1e-3),
    "prefill_s": ("prefill time", "s", 1.0),
    "latency_ns.p50": ("operation latency p50", "ns", 1.0),
    "latency_ns.p99": ("operation latency p99", "ns", 1.0),
    "latency_ns.p999": ("operation latency p99.9", "ns", 1.0),
    "latency_ns.max": ("operation latency max", "ns", 1.0),
}

# Metrics read from elsewhere in the record's metrics than their name says: each role's
# throughput, from smrbench's `roles` (null without --readers, absent before it existed), and
# the node pool's counters, from `pool` (null without --node-pool).
PATHS = {"writer_throughput_ops_s": "roles.writers.throughput_ops_s",
         "reader_throughput_ops_s": "roles.readers.throughput_ops_s",
         "pool_exhaustions": "pool.exhaustions", "pool_wait_s": "pool.wait_s"}

# Columns of the report's number table and the summary, in this order (a metric no row has,
# such as the role throughputs of a grid without readers, is left out).
TABLE_METRICS = ["throughput_ops_s", "writer_throughput_ops_s", "reader_throughput_ops_s",
                 "peak_rss_bytes", "avg_unreclaimed_per_op", "peak_unreclaimed",
                 "epochs", "signals"]


def value(record: dict, metric: str) -> float | None:
    """The metric of one record, or None when smrbench reports it as not applicable (null)."""
    metrics = record.get("metrics", {})
    if metric == "ns_per_op":
        # Wall time per operation over all threads (Hart et al. "execution time").
        throughput = metrics.get("throughput_ops_s")
        return 1e9 / throughput if throughput else None
    node = metrics
    for part in PATHS.get(metric, metric).split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return float(node) if isinstance(node, (int, float)) and not isinstance(node, bool) else None


def label(metric: str) -> str:
    name, unit, _ = METRICS[metric]
    return f"{name} ({unit})"


def scaled(metric: str, number: float) -> float:
    return number * METRICS[metric][2]


def fmt(metric: str, number: float | None) -> str:
    if number is None:
        return "—"
    shown = scaled(metric, number)
    return f"{shown:.3g}" if abs(shown) < 1000 else f"{shown:,.0f}"


@dataclass(frozen=True)
class Stat:
    """One metric of one configuration over its successful trials: the median, the interval
    the plots and tables show (min-max over the trials), how many trials, and their values
    (for the bootstrap of a comparison, stats.py)."""
    median: float
    low: float
    high: float
    n: int
    values: tuple = ()
    rounds: tuple = ()      # the trial index (interleaving round) of each value, same order

    def get(self, which: str) -> float:
        return {"median": self.median, "min": self.low, "max": self.high}[which]


@dataclass
class Row:
    """All trials of one configuration, reduced to statistics per metric."""
    config: object                      # experiment.Config
    ok: int
    failed: int
    stats: dict                         # metric -> Stat, only for metrics with data

    def axis(self, name: str):
        return self.config.axis(name)


def aggregate(configs: list, entries: list[dict]) -> list[Row]:
    """One Row per planned configuration, from the successful trials in store entries."""
    by_hash: dict[str, list[dict]] = {}
    for entry in entries:
        by_hash.setdefault(entry["config_hash"], []).append(entry)
    rows = []
    for config in configs:
        mine = by_hash.get(config.hash, [])
        ok = [e for e in mine if e["status"] == "ok"]
        stats = {}
        for metric in METRICS:
            pairs = [(e.get("trial"), v) for e in ok if (v := value(e["record"], metric)) is not None]
            if pairs:
                values = [v for _, v in pairs]
                stats[metric] = Stat(statistics.median(values), min(values), max(values),
                                     len(values), tuple(values), tuple(t for t, _ in pairs))
        rows.append(Row(config, len(ok), len(mine) - len(ok), stats))
    return rows
