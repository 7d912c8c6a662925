"""Records match bench/schema/record.schema.json, and the checker itself catches violations."""

import copy
import json

import pytest

from conftest import SCHEMA_PATH, listing, read_records, run, short_args
from schema_check import errors

SCHEMA = json.loads(SCHEMA_PATH.read_text())


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """One record per reclaimer (each on a structure it supports), with a timeline and a stall in
    some, so nullable fields appear both null and filled."""
    out_dir = tmp_path_factory.mktemp("schema")
    result = []
    seen = set()
    for i, (ds, rec) in enumerate(listing()["compatible"]):
        if rec in seen:
            continue
        seen.add(rec)
        extra = ["--timeline", str(out_dir / f"t{i}.csv")] if i % 2 else ["--stall", "1"]
        out = out_dir / f"r{i}.json"
        r = run([*short_args(ds, rec), *extra, "--json", str(out)])
        assert r.returncode == 0, r.stderr
        result += read_records(out)
    return result


def test_records_match_schema(records):
    assert records
    for rec in records:
        assert errors(rec, SCHEMA) == [], rec["config"]


def test_record_values_are_consistent(records):
    for rec in records:
        m = rec["metrics"]
        assert m["throughput_ops_s"] == pytest.approx(m["ops"] / m["elapsed_s"])
        assert rec["schema"] == "smrbench/1"


@pytest.mark.parametrize("mutate,fragment", [
    (lambda r: r.pop("metrics"), "missing required 'metrics'"),
    (lambda r: r["metrics"].pop("peak_unreclaimed"), "missing required 'peak_unreclaimed'"),
    (lambda r: r["config"].__setitem__("threads", "2"), "is not of type"),
    (lambda r: r["config"].__setitem__("threads", 0), "< minimum"),
    (lambda r: r["config"]["workload"].__setitem__("search", 101), "> maximum"),
    (lambda r: r["metrics"].__setitem__("bogus", 1), "unexpected property 'bogus'"),
    (lambda r: r.__setitem__("schema", "smrbench/0"), "!= 'smrbench/1'"),
    (lambda r: r["config"].__setitem__("pin", "diagonal"), "not in"),
    (lambda r: r["metrics"].__setitem__("per_thread_ops", []), "fewer than 1 items"),
    (lambda r: r["metrics"]["latency_ns"].__setitem__("p50", 1.5), "is not of type"),
    (lambda r: r["validation"].__setitem__("ok", 1), "is not of type"),
])
def test_checker_rejects_violations(records, mutate, fragment):
    bad = copy.deepcopy(records[0])
    mutate(bad)
    found = errors(bad, SCHEMA)
    assert any(fragment in e for e in found), found


def test_checker_rejects_unknown_schema_keywords():
    with pytest.raises(ValueError):
        errors({}, {"type": "object", "patternProperties": {}})


# The fields added to the record after the first schema (version, the machine, per-kind latency
# histograms, ...) are required too: a record that lost one must not pass.
@pytest.mark.parametrize("section,key", [
    (None, "version"), ("config", "stall_mode"), ("config", "stall_ms"), ("config", "pin_cpus"), ("config", "reattach_every"),
    ("config", "poison"), ("env", "machine"), ("metrics", "elapsed_s"), ("metrics", "cpu_time_s"),
    ("metrics", "latency_samples"), ("metrics", "latency_histograms"),
    ("metrics", "avg_unreclaimed"), ("metrics", "free_batches"), ("metrics", "free_time_share"),
    ("metrics", "free_latency_ns"),
])
def test_later_fields_are_required(records, section, key):
    bad = copy.deepcopy(records[0])
    (bad if section is None else bad[section]).pop(key)
    assert any(f"missing required '{key}'" in e for e in errors(bad, SCHEMA)), key
