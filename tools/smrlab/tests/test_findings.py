"""Checking findings against aggregated rows."""

from smrlab import findings, schema
from smrlab.experiment import Config, Reclaimer
from smrlab.metrics import Row, Stat

VALUES = {"ds": ["l", "m"], "reclaimer": ["none", "ebr", "hp"], "threads": [1, 2],
          "key_range": [2, 20, 200], "stall": [0, 1]}


def row(reclaimer="ebr", threads=1, key_range=2, stall=0, ds="l", **values) -> Row:
    config = Config(ds, Reclaimer(reclaimer), "system", threads, (50, 50, 0), key_range, stall, 1.0,
                    1, False)
    stats = {m: Stat(v, v * 0.9, v * 1.1, 3) for m, v in values.items() if v is not None}
    return Row(config, 3, 0, stats)


def finding(**table) -> findings.Finding:
    return findings.parse(schema.Table({"text": "t", **table}, "x.toml", "finding[0]"), VALUES)


def test_ratio_holds_fails_and_names_the_deciding_numbers():
    f = finding(kind="ratio", metric="throughput_ops_s", numerator={"reclaimer": "hp"},
                denominator={"reclaimer": "none"}, max=0.9)
    rows = [row("none", t, throughput_ops_s=10e6) for t in (1, 2)] + \
           [row("hp", 1, throughput_ops_s=5e6), row("hp", 2, throughput_ops_s=9.5e6)]
    v = findings.check(f, rows)
    assert v.status == findings.FAILS
    assert [c.passed for c in v.comparisons] == [False, True]      # failures first
    assert v.comparisons[0].text == "threads=2: hp / none = 9.5 Mops/s / 10 Mops/s = 0.95"
    rows[3] = row("hp", 2, throughput_ops_s=8e6)
    assert findings.check(f, rows).status == findings.HOLDS


def test_empty_numerator_means_every_other_variant():
    f = finding(kind="ratio", metric="ops", numerator={}, denominator={"reclaimer": "none"}, min=0.5)
    rows = [row("none", ops=100), row("ebr", ops=60), row("hp", ops=40)]
    v = findings.check(f, rows)
    assert v.status == findings.FAILS
    assert len(v.comparisons) == 2


def test_null_metrics_are_not_evidence():
    f = finding(kind="ratio", metric="epochs", numerator={"reclaimer": "hp"},
                denominator={"reclaimer": "ebr"}, max=1)
    v = findings.check(f, [row("hp", epochs=None), row("ebr", epochs=10)])
    assert v.status == findings.UNDECIDED
    assert v.comparisons[0].passed is None


def test_order_with_tolerance_and_where():
    f = finding(kind="order", metric="avg_unreclaimed_per_op", by="reclaimer",
                order=["ebr", "hp"], where={"ds": "l"})
    rows = [row("ebr", avg_unreclaimed_per_op=40), row("hp", avg_unreclaimed_per_op=41),
            row("ebr", ds="m", avg_unreclaimed_per_op=1), row("hp", ds="m", avg_unreclaimed_per_op=50)]
    assert findings.check(f, rows).status == findings.FAILS
    f.tolerance = 0.05
    assert findings.check(f, rows).status == findings.HOLDS      # ds=m is outside `where`


def test_trend_of_a_ratio_along_an_axis():
    f = finding(kind="trend", metric="ns_per_op", along="key_range", direction="increasing",
                numerator={"reclaimer": "hp"}, denominator={"reclaimer": "none"})
    rows = [row("none", key_range=k, ns_per_op=10 * k) for k in (2, 20, 200)]
    rising = [row("hp", key_range=k, ns_per_op=r * 10 * k) for k, r in ((2, 1.0), (20, 1.5), (200, 3))]
    v = findings.check(f, rows + rising)
    assert v.status == findings.HOLDS
    assert v.comparisons[0].text == "hp / none: 1 → 1.5 → 3 over key_range 2 → 20 → 200"
    flat = [row("hp", key_range=k, ns_per_op=r * 10 * k) for k, r in ((2, 1.0), (20, 1.02), (200, 0.99))]
    assert findings.check(f, rows + flat).status == findings.FAILS      # ends must rise


def test_bounded_uses_the_chosen_statistic():
    f = finding(kind="bounded", metric="peak_unreclaimed", stat="max", max=100)
    v = findings.check(f, [row(peak_unreclaimed=95)])        # trials range over 85.5 .. 104.5
    assert v.status == findings.FAILS and v.comparisons[0].text == "all: 105 nodes"
    f.stat = "median"
    assert findings.check(f, [row(peak_unreclaimed=95)]).status == findings.HOLDS
    assert findings.check(f, []).status == findings.UNDECIDED


def test_a_broken_check_is_an_error_verdict_not_a_crash():
    f = finding(kind="bounded", metric="ops", max=1)
    v = findings.check(f, [object()])
    assert v.status == findings.ERROR and "check failed" in v.note
