"""Validation after every trial: it passes on honest runs and fails loudly (exit 1, ok=false,
the reason in the record and on stderr) when the structure no longer matches the accounting."""

import pytest

from conftest import kind, listing, read_records, run, short_args


def one_pair_per_kind():
    pairs = {}
    for ds, rec in listing()["compatible"]:
        pairs.setdefault(kind(ds), (ds, rec))
    return sorted(pairs.values())


@pytest.mark.parametrize("ds,reclaimer", one_pair_per_kind())
def test_corruption_is_caught(outdir, ds, reclaimer):
    out = outdir / "r.json"
    r = run([*short_args(ds, reclaimer), "--test-corrupt", "--json", str(out)])
    assert r.returncode == 1, r.stderr
    assert "VALIDATION FAILED" in r.stderr
    [rec] = read_records(out)  # the failed trial is still reported
    assert rec["validation"]["ok"] is False
    assert "element count" in rec["validation"]["detail"]
    assert "FAILED" in r.stdout


def test_failure_in_one_trial_fails_the_run(outdir):
    ds, rec = one_pair_per_kind()[0]
    out = outdir / "r.json"
    r = run([*short_args(ds, rec), "--trials", "2", "--test-corrupt", "--json", str(out)])
    assert r.returncode == 1
    assert [x["validation"]["ok"] for x in read_records(out)] == [False, False]


@pytest.mark.parametrize("ds,reclaimer", one_pair_per_kind())
def test_honest_run_names_its_checks(outdir, ds, reclaimer):
    out = outdir / "r.json"
    r = run([*short_args(ds, reclaimer), "--json", str(out)])
    assert r.returncode == 0, r.stderr
    [rec] = read_records(out)
    detail = rec["validation"]["detail"]
    assert rec["validation"]["ok"] and "checksum and count" in detail
    if kind(ds) == "set":
        assert "distinct keys" in detail and "searches (" in detail


def test_trial_without_operations_fails(outdir):
    # A trial that measured nothing is not a result: exit 1 and ok=false, with the reason.
    ds, rec = one_pair_per_kind()[0]
    out = outdir / "r.json"
    r = run([*short_args(ds, rec), "--test-no-ops", "--json", str(out)])
    assert r.returncode == 1, r.stderr
    [record] = read_records(out)
    assert record["metrics"]["ops"] == 0 and record["validation"]["ok"] is False
    assert record["validation"]["detail"].startswith("no operation completed in the timed part")
    assert "VALIDATION FAILED in trial 1: no operation completed" in r.stderr
