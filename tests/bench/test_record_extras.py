"""What a record carries beyond the metrics: the machine (env.machine, from hwloc or /proc and
/sys), where --pin put each worker, the raw latency histogram of each kind of operation, the free
profile, and the version; and --version itself."""

import math
import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import kind, listing, read_records, run, short_args, smrbench_path

REPO = Path(__file__).resolve().parents[2]


def one_record(outdir, args, preexec_fn=None):
    out = outdir / "r.json"
    if preexec_fn is None:
        r = run([*args, "--json", str(out)])
    else:
        r = subprocess.run([smrbench_path(), *args, "--json", str(out)], capture_output=True, text=True,
                           timeout=120, preexec_fn=preexec_fn)
    assert r.returncode == 0, r.stderr
    [rec] = read_records(out)
    return rec


def set_pair():
    return next((ds, rec) for ds, rec in listing()["compatible"] if kind(ds) == "set")


def header_version():
    text = (REPO / "include" / "smr" / "version.hpp").read_text()
    return re.search(r'#define SMR_VERSION_STRING "([^"]+)"', text).group(1)


def test_version_option():
    r = run(["--version"])
    assert r.returncode == 0 and r.stderr == ""
    assert re.fullmatch(rf"smrbench {re.escape(header_version())} \(commit \S+\)\n", r.stdout), r.stdout


def test_record_has_the_version(outdir):
    assert one_record(outdir, short_args(*set_pair()))["version"] == header_version()


# --- the machine ------------------------------------------------------------------------------

def sys_topology():
    """Packages, physical cores and hardware threads as Linux's /sys shows the online CPUs."""
    online = Path("/sys/devices/system/cpu/online").read_text().strip()
    cpus = []
    for part in online.split(","):
        lo, _, hi = part.partition("-")
        cpus += range(int(lo), int(hi or lo) + 1)
    packages, cores = set(), set()
    for cpu in cpus:
        topo = Path(f"/sys/devices/system/cpu/cpu{cpu}/topology")
        package = (topo / "physical_package_id").read_text().strip()
        packages.add(package)
        cores.add((package, (topo / "core_id").read_text().strip()))
    return len(packages), len(cores), len(cpus)


def test_machine_is_described(outdir):
    rec = one_record(outdir, short_args(*set_pair()))
    env = rec["env"]
    m = env["machine"]
    # Either source is fine, but the record says which; ctest tells how the binary was built.
    assert m["topology_source"].startswith("hwloc ") or m["topology_source"].startswith("/proc and /sys (")
    built_with = os.environ.get("SMRBENCH_BUILT_WITH_HWLOC")
    if built_with == "1":
        assert m["topology_source"].startswith("hwloc ")
    elif built_with == "0":
        assert m["topology_source"] == "/proc and /sys (smrbench was built without hwloc)"
    assert m["cpu_model"] and m["cpu_model"] != ""
    assert 1 <= m["sockets"] <= m["cores"] <= m["cpus"]
    assert m["threads_per_core"] == -(-m["cpus"] // m["cores"])
    assert m["smt"] == (m["threads_per_core"] > 1)
    assert m["numa_nodes"] >= 1
    assert m["affinity_cpus"] == len(os.sched_getaffinity(0))
    if Path("/sys/devices/system/cpu/online").exists():
        assert (m["sockets"], m["cores"], m["cpus"]) == sys_topology()
    # Caches: level 1 data at least, ordered by level, each with a size and its sharing.
    levels = [(c["level"], c["type"]) for c in m["caches"]]
    if Path("/sys/devices/system/cpu/cpu0/cache").exists():
        assert (1, "data") in levels
    assert levels == sorted(levels, key=lambda lt: (lt[0], ["data", "instruction", "unified"].index(lt[1])))
    for c in m["caches"]:
        assert c["size_bytes"] > 0 and c["instances"] >= 1 and 1 <= c["cpus_sharing"] <= m["cpus"]
    # The governor as cpufreq reports it, or null without cpufreq (usual in a VM).
    governor_files = list(Path("/sys/devices/system/cpu").glob("cpu[0-9]*/cpufreq/scaling_governor"))
    if governor_files:
        assert m["governor"] == ",".join(sorted({f.read_text().strip() for f in governor_files}))
    else:
        assert m["governor"] is None
    # The earlier env keys stay as they were (smrlab compares them).
    assert env["cores"] == os.cpu_count()
    for key in ("cpu", "kernel", "hostname", "allocator_version"):
        assert isinstance(env[key], str) and env[key]
    assert env["kernel"].startswith(os.uname().sysname + " " + os.uname().release)


# --- pinning ----------------------------------------------------------------------------------

@pytest.mark.parametrize("policy", ["compact", "scatter"])
def test_pin_uses_every_allowed_cpu_then_wraps(outdir, policy):
    allowed = sorted(os.sched_getaffinity(0))
    threads = len(allowed) + 1
    rec = one_record(outdir, [*short_args(*set_pair(), threads=threads), "--pin", policy])
    cpus = rec["config"]["pin_cpus"]
    assert sorted(cpus[:len(allowed)]) == allowed
    assert cpus[len(allowed)] == cpus[0]


def test_pin_stays_inside_the_affinity_mask(outdir):
    only = max(os.sched_getaffinity(0))
    rec = one_record(outdir, [*short_args(*set_pair(), threads=2), "--pin", "compact"],
                     preexec_fn=lambda: os.sched_setaffinity(0, {only}))
    assert rec["config"]["pin_cpus"] == [only, only]
    assert rec["env"]["machine"]["affinity_cpus"] == 1


def test_no_pin_records_null(outdir):
    assert one_record(outdir, short_args(*set_pair()))["config"]["pin_cpus"] is None


# --- latency histograms -----------------------------------------------------------------------

def midpoint(lower, upper):
    return lower + (upper - lower) // 2


def percentile(buckets, total, maximum, q):
    """As smrbench computes it: the midpoint of the bucket holding the ceil(q * total)-th sample."""
    target = max(1, math.ceil(q * total))
    seen = 0
    for lower, upper, count in buckets:
        seen += count
        if seen >= target:
            return min(midpoint(lower, upper), maximum)
    return maximum


def test_histograms_per_operation_kind(outdir):
    ds, reclaimer = set_pair()
    rec = one_record(outdir, [*short_args(ds, reclaimer), "--workload", "20,30,50", "--duration", "0.2"])
    m = rec["metrics"]
    hists = m["latency_histograms"]
    assert set(hists) == {"insert", "delete", "search"}
    for h in hists.values():
        assert h["samples"] == sum(count for _, _, count in h["buckets"]) > 0
        previous_upper = 0
        for lower, upper, count in h["buckets"]:
            assert previous_upper <= lower < upper and count > 0
            previous_upper = upper
        assert h["buckets"][-1][0] <= h["max"] < h["buckets"][-1][1]
    assert sum(h["samples"] for h in hists.values()) == m["latency_samples"]
    assert max(h["max"] for h in hists.values()) == m["latency_ns"]["max"]
    # The summary percentiles can be recomputed from the buckets of all kinds together.
    merged = {}
    for h in hists.values():
        for lower, upper, count in h["buckets"]:
            merged[(lower, upper)] = merged.get((lower, upper), 0) + count
    buckets = [(lo, up, c) for (lo, up), c in sorted(merged.items())]
    for name, q in [("p50", 0.5), ("p99", 0.99), ("p999", 0.999)]:
        assert percentile(buckets, m["latency_samples"], m["latency_ns"]["max"], q) == m["latency_ns"][name], name


def test_histograms_only_for_kinds_the_workload_draws(outdir):
    rec = one_record(outdir, [*short_args(*set_pair()), "--workload", "50i-50d"])
    assert set(rec["metrics"]["latency_histograms"]) == {"insert", "delete"}


# --- the free profile -------------------------------------------------------------------------

def free_args(reclaimer):
    return ["--ds", "hash_map", "--reclaimer", reclaimer, "--threads", "2", "--duration", "0.2",
            "--key-range", "2048", "--workload", "50i-50d", "--quiet"]


def check_distribution(d):
    assert d["samples"] == sum(count for _, _, count in d["buckets"]) > 0
    for name, q in [("p50", 0.5), ("p99", 0.99), ("p999", 0.999)]:
        assert percentile(d["buckets"], d["samples"], d["max"], q) == d[name], name
    assert d["p50"] <= d["p99"] <= d["p999"] <= d["max"]


def test_batch_frees_profile_batches_and_sample_calls(outdir):
    m = one_record(outdir, free_args("debra"))["metrics"]
    profile = m["free_latency_ns"]
    check_distribution(profile["calls"])
    check_distribution(profile["batches"])
    # DEBRA's batches here are a few nodes each: about one in 8 is timed and counts for 8.
    assert 0.9 * m["free_batches"] < profile["batches"]["samples"] < 1.1 * m["free_batches"]
    # About one call in 64 is timed (random gaps of 1 to 127 calls).
    assert m["freed"] / 90 < profile["calls"]["samples"] < m["freed"] / 45
    assert 0 < m["free_time_share"] < 1


def test_amortized_frees_profile_calls_and_no_batch(outdir):
    m = one_record(outdir, free_args("debra_af"))["metrics"]
    check_distribution(m["free_latency_ns"]["calls"])
    assert m["free_latency_ns"]["batches"] is None     # its only batch, the exit flush, comes after the trial
    assert 0 < m["free_time_share"] < 1


def test_a_reclaimer_that_frees_nothing_has_no_profile(outdir):
    m = one_record(outdir, free_args("none"))["metrics"]
    assert m["free_latency_ns"] == {"calls": None, "batches": None}
    assert m["free_time_share"] is None
