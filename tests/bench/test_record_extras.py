"""What a record carries beyond the metrics: the raw latency histogram of each kind of operation
and the version; and --version itself."""

import math
import re
from pathlib import Path

import pytest

from conftest import kind, listing, read_records, run, short_args

REPO = Path(__file__).resolve().parents[2]


def one_record(outdir, args):
    out = outdir / "r.json"
    r = run([*args, "--json", str(out)])
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
