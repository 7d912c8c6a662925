"""Checking findings against aggregated rows: bounds, the noise, the thread counts."""

from dataclasses import replace

import pytest

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
    assert v.comparisons[0].text == "threads=2: hp / none = 9.5 Mops/s / 10 Mops/s = 0.95 (1 trial " \
                                    "each: no noise estimate)"
    rows[3] = row("hp", 2, throughput_ops_s=8e6)
    assert findings.check(f, rows).status == findings.HOLDS


def test_empty_numerator_means_every_other_variant():
    f = finding(kind="ratio", metric="ops", numerator={}, denominator={"reclaimer": "none"}, min=0.5)
    rows = [row("none", ops=100), row("ebr", ops=60), row("hp", ops=40)]
    v = findings.check(f, rows)
    assert v.status == findings.FAILS
    assert len(v.comparisons) == 2


def test_paired_suffix_compares_each_variant_with_its_base_only():
    values = {**VALUES, "reclaimer": ["ebr", "ebr_af", "hp", "hp_af", "none"]}
    f = findings.parse(schema.Table({"text": "t", "kind": "ratio", "metric": "ops",
                                     "paired_suffix": "_af", "min": 0.95}, "x.toml", "finding[0]"), values)
    assert "reclaimer=X_af / reclaimer=X" in findings.describe(f)
    rows = [row("ebr", ops=100), row("ebr_af", ops=99), row("hp", ops=100), row("hp_af", ops=90),
            row("none", ops=1)]
    v = findings.check(f, rows)
    assert v.status == findings.FAILS
    assert sorted(c.text.split(" =")[0] for c in v.comparisons) == ["ebr_af / ebr", "hp_af / hp"]
    rows[3] = row("hp_af", ops=100)
    assert findings.check(f, rows).status == findings.HOLDS


@pytest.mark.parametrize("extra, problem", [
    ({"numerator": {"reclaimer": "hp"}}, "give paired_suffix or numerator and denominator, not both"),
    ({"paired_suffix": "_xx"}, "no reclaimer X_xx in the grid has its X beside it"),
])
def test_paired_suffix_is_checked(extra, problem):
    values = {**VALUES, "reclaimer": ["ebr", "ebr_af"]}
    table = {"text": "t", "kind": "ratio", "metric": "ops", "paired_suffix": "_af", "min": 1, **extra}
    with pytest.raises(schema.SchemaError) as error:
        findings.parse(schema.Table(table, "x.toml", "finding[0]"), values)
    assert problem in str(error.value)


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
    assert v.comparisons[0].text == "hp / none: 1 → 1.5 → 3 over key_range 2 → 20 → 200; last / " \
                                    "first = 3 (1 trial each: no noise estimate)"
    flat = [row("hp", key_range=k, ns_per_op=r * 10 * k) for k, r in ((2, 1.0), (20, 1.02), (200, 0.99))]
    assert findings.check(f, rows + flat).status == findings.FAILS      # ends must rise


def test_bounded_uses_the_chosen_statistic():
    f = finding(kind="bounded", metric="peak_unreclaimed", stat="max", max=100)
    v = findings.check(f, [row(peak_unreclaimed=95)])        # trials range over 85.5 .. 104.5
    assert v.status == findings.FAILS and v.comparisons[0].text == "all: max 105 nodes, bound ≤ 100"
    f.stat = "median"
    assert findings.check(f, [row(peak_unreclaimed=95)]).status == findings.HOLDS
    assert findings.check(f, []).status == findings.UNDECIDED


def test_a_broken_check_is_an_error_verdict_not_a_crash():
    f = finding(kind="bounded", metric="ops", max=1)
    v = findings.check(f, [object()])
    assert v.status == findings.ERROR and "check failed" in v.note


def trials(reclaimer="ebr", threads=1, stall=0, **values) -> Row:
    """A row whose metrics come with their trial values (for the bootstrap)."""
    config = Config("l", Reclaimer(reclaimer), "system", threads, (50, 50, 0), 2, stall, 1.0, 1,
                    False)
    stats = {m: Stat(sorted(v)[len(v) // 2], min(v), max(v), len(v), tuple(v))
             for m, v in values.items()}
    return Row(config, len(next(iter(values.values()))), 0, stats)


def test_a_ratio_is_decided_beyond_the_noise_only():
    f = finding(kind="ratio", metric="throughput_ops_s", numerator={"reclaimer": "hp"},
                denominator={"reclaimer": "none"}, max=0.9)
    base = trials("none", throughput_ops_s=[10.0, 10.1, 9.9])
    clear = findings.check(f, [base, trials("hp", throughput_ops_s=[5.0, 5.1, 4.9])])
    assert clear.status == findings.HOLDS
    text = clear.comparisons[0].text
    assert text.startswith("hp / none = 5e-06 Mops/s / 1e-05 Mops/s = 0.5 [")
    low, high = (float(x) for x in text.split("[")[1].split(",")[0].split("–"))
    assert 0.48 <= low <= 0.5 <= high <= 0.52
    assert "95% bootstrap, 3+3 trials]" in text
    # medians 8.5 vs 10 (ratio 0.85) but the trials overlap the bound: not decided either way
    noisy = findings.check(f, [base, trials("hp", throughput_ops_s=[7.0, 8.5, 10.5])])
    assert noisy.status == findings.NOISE
    assert noisy.comparisons[0].inconclusive and noisy.comparisons[0].text.endswith(
        ": within the noise")
    assert noisy.note == "1 of 1 comparisons within the noise"
    # clearly beyond the bound the other way: fails
    worse = findings.check(f, [base, trials("hp", throughput_ops_s=[9.6, 9.7, 9.8])])
    assert worse.status == findings.FAILS


def test_a_bound_can_be_the_algorithms_own():
    f = finding(kind="bounded", metric="peak_unreclaimed", stat="max",
                where={"reclaimer": "hp"}, max="threads * 32768")
    assert findings.describe(f).startswith("max peak_unreclaimed ≤ threads * 32768, where")
    ok = findings.check(f, [trials("hp", threads=4, peak_unreclaimed=[100000, 120000, 131000])])
    assert ok.status == findings.HOLDS
    assert ok.comparisons[0].text == "all: max 131,000 nodes, bound ≤ threads * 32768 = 131,072"
    over = findings.check(f, [trials("hp", threads=2, peak_unreclaimed=[70000])])
    assert over.status == findings.FAILS


@pytest.mark.parametrize("expression, problem", [
    ("threads ** 2", "got 'threads ** 2'"),
    ("__import__('os')", "got \"__import__('os')\""),
    ("cores * 2", "('cores' is not allowed)"),
    (True, "got boolean True"),
])
def test_a_bound_expression_is_checked(expression, problem):
    with pytest.raises(schema.SchemaError) as error:
        finding(kind="bounded", metric="peak_unreclaimed", max=expression)
    message = str(error.value)
    assert message.startswith("x.toml: finding[0].max: expected a number or an expression of "
                              "threads, key_range, stall") and problem in message


def test_each_verdict_states_the_thread_counts_and_where_it_holds():
    f = finding(kind="ratio", metric="avg_unreclaimed_per_op", numerator={"reclaimer": "hp"},
                denominator={"reclaimer": "ebr"}, max=1.0)
    rows = []
    for t, hp in ((1, 50), (2, 45), (4, 10), (8, 12)):
        rows += [row("ebr", t, avg_unreclaimed_per_op=40), row("hp", t, avg_unreclaimed_per_op=hp)]
    v = findings.check(f, rows)
    assert v.status == findings.FAILS
    assert v.checked_at == "checked at thread counts 1, 2, 4, 8: holds at 4, 8; does not hold " \
                           "at 1, 2"
    one = findings.check(f, rows[4:6])
    assert one.checked_at == "checked at thread count 4: holds at 4"


def paired(reclaimer, values, rounds):
    """A row whose trial values carry their rounds (trial indices)."""
    config = Config("l", Reclaimer(reclaimer), "system", 1, (50, 50, 0), 2, 0, 1.0, 1, False)
    stat = Stat(sorted(values)[len(values) // 2], min(values), max(values), len(values), tuple(values),
                tuple(rounds))
    return Row(config, len(values), 0, {"throughput_ops_s": stat})


def test_trials_are_paired_by_round_so_a_slow_round_moves_both_sides():
    """Rounds 2 and 4 ran in a slow phase of the machine (every configuration 30% slower): paired
    by round, hp / none is 0.8 in every round and the claim is decided; the same values without
    rounds overlap the bound and stay within the noise."""
    f = finding(kind="ratio", metric="throughput_ops_s", numerator={"reclaimer": "hp"},
                denominator={"reclaimer": "none"}, max=0.9)
    none = [100.0, 101.0, 70.0, 99.0, 71.0]
    hp = [v * 0.8 for v in none]
    rounds = [0, 1, 2, 3, 4]
    assert findings.check(f, [paired("none", none, rounds), paired("hp", hp, rounds)]).status == findings.HOLDS
    unpaired = findings.check(f, [paired("none", none, ()), paired("hp", hp, ())])
    assert unpaired.status == findings.NOISE
    # A trial failed on one side: its partner is left out, the shared rounds stay paired.
    partial = findings.check(f, [paired("none", none, rounds), paired("hp", hp[:4], rounds[:4])])
    assert partial.status == findings.HOLDS
    assert "median of 4 per-round ratios; 1 trial without a partner in their round left out]" \
        in partial.comparisons[0].text
    # Fewer than two shared rounds: resampled independently, as unpaired.
    apart = findings.check(f, [paired("none", none, rounds), paired("hp", hp[:4], [1, 5, 6, 7])])
    assert apart.status == findings.NOISE and "4+5 trials]" in apart.comparisons[0].text


def test_a_paired_trend_of_ratios_ends_on_the_ratio_of_its_shown_values():
    """hp / none rises from 0.5 (1 thread) to 0.8 (2 threads) in every round but the last at 2
    threads, where the machine changed speed between the two runs; the machine's speed changes
    from round to round. The shown values and last / first agree (1.6), where the medians' ratio
    would say 3.2."""
    f = finding(kind="trend", metric="throughput_ops_s", along="threads", direction="increasing",
                numerator={"reclaimer": "hp"}, denominator={"reclaimer": "none"})
    speed = [1.0, 2.3, 1.1, 2.2, 0.9]
    rounds = [0, 1, 2, 3, 4]

    def at(reclaimer, threads, values):
        r = paired(reclaimer, values, rounds)
        return Row(replace(r.config, threads=threads), r.ok, r.failed, r.stats)
    rows = [at("none", 1, [10 * s for s in speed]), at("hp", 1, [5 * s for s in speed]),
            at("none", 2, [10 * s for s in speed[::-1]]),
            at("hp", 2, [8 * s for s in speed[::-1]][:4] + [8 * 2.3])]
    v = findings.check(f, rows)
    text = v.comparisons[0].text
    assert v.status == findings.HOLDS, text
    assert "0.5 → 0.8 over threads 1 → 2; last / first = 1.6 [" in text, text


def test_a_paired_ratio_is_the_median_of_the_per_round_ratios():
    """A machine in two phases (about 10 and 22 Mops/s): each round's pair ran in one phase but
    the last, where the phase changed between the two runs. The medians (10 and 21) come from
    rounds in different phases and their ratio says 2.1; the per-round ratios say 0.98."""
    f = finding(kind="ratio", metric="throughput_ops_s", numerator={"reclaimer": "hp"},
                denominator={"reclaimer": "none"}, min=0.95)
    none = [9.0, 23.0, 10.0, 22.0, 9.5]
    hp = [8.8, 22.5, 9.7, 21.0, 23.0]
    rounds = [0, 1, 2, 3, 4]
    verdict = findings.check(f, [paired("hp", hp, rounds), paired("none", none, rounds)])
    text = verdict.comparisons[0].text
    assert " = 0.978 [0.955–2.42, 95% bootstrap, median of 5 per-round ratios]" in text, text
    assert verdict.status == findings.HOLDS      # the worst of the five in one phase: 0.955
    unpaired = findings.check(f, [paired("hp", hp, ()), paired("none", none, ())])
    assert " = 2.1 [" in unpaired.comparisons[0].text
