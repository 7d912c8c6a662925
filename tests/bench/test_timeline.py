"""The timeline file (Epochs §3.1) round-trips: its header carries the trial's config, its rows
parse, and their number is the record's timeline_events."""

import collections
import json

import pytest

from conftest import kind, listing, read_records, run, short_args

KINDS = {"batch_free", "free_call", "epoch_advance", "signal", "garbage", "stall"}


def parse_timeline(path):
    lines = path.read_text().splitlines()
    prefix = "# smrbench-timeline 1 "
    assert lines[0].startswith(prefix)
    config = json.loads(lines[0][len(prefix):])
    assert lines[1] == "thread,kind,start_ns,end_ns,value"
    rows = []
    for line in lines[2:]:
        thread, k, start, end, value = line.split(",")
        rows.append((int(thread), k, int(start), int(end), int(value)))
    return config, rows


def ebr_pair():
    if "ebr" not in listing()["reclaimers"]:
        pytest.skip("no ebr")
    return next(d for d, r in listing()["compatible"] if r == "ebr" and kind(d) == "stack")


def test_round_trip(outdir):
    ds = ebr_pair()
    out, tl = outdir / "r.json", outdir / "t.csv"
    r = run([*short_args(ds, "ebr", duration="0.2"), "--json", str(out), "--timeline", str(tl)])
    assert r.returncode == 0, r.stderr
    [rec] = read_records(out)
    config, rows = parse_timeline(tl)
    assert rec["timeline_file"] == str(tl)
    assert len(rows) == rec["metrics"]["timeline_events"] > 0
    assert rec["metrics"]["timeline_dropped"] == 0
    for key in ["ds", "reclaimer", "threads", "params", "workload", "seed", "key_range"]:
        assert config[key] == rec["config"][key], key
    assert config["trial"] == 1
    counts = collections.Counter(k for _, k, _, _, _ in rows)
    assert set(counts) <= KINDS
    assert counts["epoch_advance"] > 0 and counts["batch_free"] > 0
    # EBR records every advance it makes, and the record counts the same advances, but for the
    # detaches after the statistics were read (each worker's, and the validation's handle): each
    # runs one reclaim step, which may advance once more while the timeline still records.
    epochs = rec["metrics"]["epochs"]
    assert epochs <= counts["epoch_advance"] <= epochs + rec["config"]["threads"] + 1
    for thread, _, start, end, _ in rows:
        assert 0 <= start <= end and thread >= 0


def test_stall_events(outdir):
    ds = ebr_pair()
    tl = outdir / "t.csv"
    r = run([*short_args(ds, "ebr", duration="0.2"), "--stall", "1", "--stall-mode", "periodic",
             "--stall-ms", "20", "--timeline", str(tl)])
    assert r.returncode == 0, r.stderr
    _, rows = parse_timeline(tl)
    stalls = [row for row in rows if row[1] == "stall"]
    assert len(stalls) >= 2
    assert all(end - start >= 10_000_000 for _, _, start, end, _ in stalls[1:-1])  # ~20 ms each


def test_capacity_limits_and_counts_drops(outdir):
    ds = ebr_pair()
    out, tl = outdir / "r.json", outdir / "t.csv"
    r = run([*short_args(ds, "ebr", duration="0.2"), "--param", "advance_every=1", "--json", str(out),
             "--timeline", str(tl), "--timeline-capacity", "5"])
    assert r.returncode == 0, r.stderr
    [rec] = read_records(out)
    _, rows = parse_timeline(tl)
    per_thread = collections.Counter(t for t, *_ in rows)
    assert max(per_thread.values()) <= 5
    assert rec["metrics"]["timeline_dropped"] > 0
    assert len(rows) == rec["metrics"]["timeline_events"]


def test_one_file_per_trial(outdir):
    ds = ebr_pair()
    out = outdir / "r.json"
    r = run([*short_args(ds, "ebr"), "--trials", "2", "--json", str(out), "--timeline", str(outdir / "t.csv")])
    assert r.returncode == 0, r.stderr
    records = read_records(out)
    for rec in records:
        path = outdir / f"t.{rec['trial']}.csv"
        assert rec["timeline_file"] == str(path)
        config, rows = parse_timeline(path)
        assert config["trial"] == rec["trial"]
        assert len(rows) == rec["metrics"]["timeline_events"]
    assert not (outdir / "t.csv").exists()
