"""Experiment files: grid expansion and strict validation."""

import random
from dataclasses import replace

import pytest
from conftest import TINY

from smrlab import cli, experiment
from smrlab.errors import BadInput, Failure
from smrlab.runner import schedule
from smrlab.smrbench import Capabilities

CAPS = Capabilities(["hm_list", "harris_list", "hash_map"], ["none", "ebr", "hp", "qsbr"],
                    ["system", "jemalloc"],
                    frozenset({("hm_list", r) for r in ["none", "ebr", "hp", "qsbr"]}
                              | {("harris_list", "none"), ("harris_list", "ebr"),
                                 ("hash_map", "ebr")}),
                    known_allocators=["system", "jemalloc", "tcmalloc"])


def parse(text: str) -> experiment.Experiment:
    return experiment.parse(text, "t", "t.toml")


def test_grid_is_the_product_of_its_axes():
    plan = parse(TINY).plan(None, quick=False)
    assert len(plan.configs) == 3 * 2
    assert {(c.reclaimer.name, c.threads) for c in plan.configs} == \
        {(r, t) for r in ["none", "ebr", "hp"] for t in [1, 2]}
    assert plan.trials == 1
    assert all(c.duration_s == 0.1 and c.allocator == "system" and c.stall == 0
               for c in plan.configs)


CASES = """\
figure = "f"
description = "d"
[grid]
reclaimer = ["none", "ebr", "hp"]
threads = [1, 2]
key_range = [100]
[[grid.case]]
ds = ["hm_list"]
workload = ["0,0,100"]
[[grid.case]]
ds = ["ms_queue"]
workload = ["50,50,0"]
key_range = [2]
[run]
duration_s = 1
[[finding]]
text = "t"
kind = "bounded"
metric = "ops"
min = 1
"""


def test_cases_are_united_and_share_the_base_axes():
    configs = parse(CASES).plan(None, quick=False).configs
    assert {(c.ds, c.workload, c.key_range) for c in configs} == {
        ("hm_list", (0, 0, 100), 100), ("ms_queue", (50, 50, 0), 2)}
    assert len(configs) == 2 * 3 * 2


def test_all_expands_from_smrbench_list_and_skips_what_it_lacks():
    e = parse(TINY.replace('ds = ["hm_list"]', 'ds = "all"')
              .replace('reclaimer = ["none", "ebr", "hp"]', 'reclaimer = "all"')
              .replace("[grid]", '[grid]\nallocator = ["system", "tcmalloc"]'))
    plan = e.plan(CAPS, quick=False)
    pairs = {(c.ds, c.reclaimer.name) for c in plan.configs}
    assert pairs == set(CAPS.compatible)
    assert {c.allocator for c in plan.configs} == {"system"}
    notes = "\n".join(plan.notes)
    assert "dropping allocator 'tcmalloc'" in notes
    assert "incompatible" in notes and "hp×harris_list" in notes


def test_all_without_a_working_list_is_a_failure():
    e = parse(TINY.replace('ds = ["hm_list"]', 'ds = "all"'))
    with pytest.raises(Failure, match="smrbench --list"):
        e.plan(None, quick=False)


def test_quick_keeps_small_thread_counts_one_short_trial():
    e = parse(TINY.replace("threads = [1, 2]", "threads = [1, 2, 4, 8]"))
    plan = e.plan(None, quick=True)
    assert plan.trials == 1
    assert {c.threads for c in plan.configs} == {1, 2}
    assert {c.duration_s for c in plan.configs} == {experiment.QUICK_DURATION_S}


def test_budget_sizes_trials():
    e = parse(TINY.replace("duration_s = 0.1", "duration_s = 5\nbudget_s = 6"))
    plan = e.plan(None, quick=False)
    # 6 configs x 1 trial in 6 s: 1 s per trial minus the estimated overhead
    assert plan.configs[0].duration_s == round(1 - experiment.TRIAL_OVERHEAD_S, 2)
    assert any("budget" in n for n in plan.notes)


def test_hash_ignores_the_label_but_not_the_params():
    a = experiment.Reclaimer("debra", (("batch", 64),), "debra-64")
    b = experiment.Reclaimer("debra", (("batch", 64),), "renamed")
    c = experiment.Reclaimer("debra", (("batch", 32),), "debra-64")
    base = parse(TINY).plan(None, quick=False).configs[0]
    assert replace(base, reclaimer=a).hash == replace(base, reclaimer=b).hash \
        != replace(base, reclaimer=c).hash
    assert experiment.Config.from_json(replace(base, reclaimer=a).to_json()) == \
        replace(base, reclaimer=a)


def test_schedule_interleaves_trials_and_shuffles_reproducibly():
    configs = list(range(5))
    plain = list(schedule(configs, 2, shuffle=False, seed=1))
    assert plain == [(c, 0) for c in configs] + [(c, 1) for c in configs]
    shuffled = list(schedule(configs, 2, shuffle=True, seed=1))
    assert shuffled == list(schedule(configs, 2, shuffle=True, seed=1))
    assert [t for _, t in shuffled] == [0] * 5 + [1] * 5
    assert shuffled != plain


PAIRED = TINY.replace('reclaimer = ["none", "ebr", "hp"]',
                      'reclaimer = ["ebr", "ebr_af", "hp", "qsbr", "qsbr_af", "none_af"]') \
    .replace("trials = 1", "trials = 4\nshuffle = true\npaired_suffix = \"_af\"") \
    .replace('reclaimer = "none" }', 'reclaimer = "ebr" }')


def test_paired_schedule_runs_each_variant_beside_its_base_alternating_which_leads():
    e = parse(PAIRED)
    configs = e.plan(None, quick=False).configs
    order = list(schedule(configs, 4, e.run.shuffle, e.run.seed, e.run.paired_suffix))
    assert sorted((c.hash, t) for c, t in order) == sorted((c.hash, t) for c in configs
                                                           for t in range(4))
    assert [t for _, t in order] == sum(([t] * len(configs) for t in range(4)), [])
    for trial in range(4):
        names = [(c.reclaimer.name, c.threads) for c, t in order if t == trial]
        for base in ("ebr", "qsbr"):
            for threads in (1, 2):
                i, j = names.index((base, threads)), names.index((base + "_af", threads))
                # adjacent, the base first in even rounds and second in odd ones
                assert j - i == (1 if trial % 2 == 0 else -1)
    # none_af has no none in the grid and hp no hp_af: they run alone; the pairs move as units
    # under the shuffle, which stays reproducible
    assert order == list(schedule(configs, 4, True, e.run.seed, "_af"))
    assert order != list(schedule(configs, 4, True, e.run.seed + 1, "_af"))


def test_paired_schedule_pairs_only_equal_cells_and_keeps_the_plain_order_without_a_suffix():
    e = parse(PAIRED)
    configs = e.plan(None, quick=False).configs
    first_round = [c for c, t in schedule(configs, 1, False, 1, "_af")]
    for a, b in zip(first_round, first_round[1:]):
        if b.reclaimer.name == a.reclaimer.name + "_af":
            assert replace(a, reclaimer=b.reclaimer) == b
    # without a suffix, each round is the configs shuffled as before pairing existed
    plain = []
    for trial in range(2):
        order = list(configs)
        random.Random(f"1:{trial}").shuffle(order)
        plain += [(c, trial) for c in order]
    assert list(schedule(configs, 2, True, 1, "")) == plain


@pytest.mark.parametrize("names", [["ebr", "ebr_af", "ebr_af_af", "hp"], ["ebr_af_af", "ebr_af", "hp", "ebr"],
                                   ["hp", "ebr_af", "ebr"]])
def test_paired_schedule_runs_every_config_once_whatever_the_order_or_a_chain(names):
    e = parse(PAIRED.replace('["ebr", "ebr_af", "hp", "qsbr", "qsbr_af", "none_af"]', str(names)))
    configs = e.plan(None, quick=False).configs
    order = list(schedule(configs, 2, True, 1, "_af"))
    assert sorted((c.hash, t) for c, t in order) == sorted((c.hash, t) for c in configs
                                                           for t in range(2))
    for trial in range(2):
        shown = [c.reclaimer.shown for c, t in order if t == trial]
        pairs = {frozenset(shown[i:i + 2]) for i in range(len(shown) - 1)}
        assert {"ebr", "ebr_af"} in pairs or {"ebr_af", "ebr_af_af"} in pairs


def test_paired_schedule_pairs_labelled_reclaimers_by_their_labels():
    # The same reclaimer twice (an A/A control of the noise): paired by the labels' suffix.
    e = parse(PAIRED.replace('"none_af"]', '{ name = "hp", params = { slots = 4 }, label = "hp_af" }]'))
    configs = e.plan(None, quick=False).configs
    order = [c.reclaimer.shown for c, _ in schedule(configs, 2, True, 1, "_af")]
    for i, shown in enumerate(order):
        if shown == "hp":
            assert "hp_af" in (order[i - 1], order[i + 1])


def test_paired_suffix_without_a_pair_is_refused():
    with pytest.raises(BadInput, match="run.paired_suffix: no reclaimer X_zz in the grid has its X"):
        parse(PAIRED.replace('paired_suffix = "_af"', 'paired_suffix = "_zz"'))


@pytest.mark.parametrize("change, message", [
    (('figure = "test figure"', 'colour = 1\nfigure = "f"'), "colour: unknown key (accepted: "),
    (("[run]", "colour = 1\n[run]"), "grid.colour: unknown key (accepted: ds, reclaimer"),
    (("threads = [1, 2]", 'threads = "8"'), "grid.threads: expected a non-empty list of thread"),
    (("threads = [1, 2]", "threads = [0]"), "grid.threads[0]: expected an integer from 1 to 4096"),
    (('workload = ["50,50,0"]', 'workload = ["50,40,0"]'), "grid.workload[0]: expected \"insert,"),
    (('key_range = [100]\n', ""), "grid.key_range: axis 'key_range' is missing"),
    (("duration_s = 0.1", "duration_s = 0.1\nrepeat = 3"), "run.repeat: unknown key"),
    (('metric = "throughput_ops_s"', 'metric = "speed"'), "finding[0].metric: expected one of"),
    (('numerator = { reclaimer = "hp" }', 'numerator = { reclaimer = "hq" }'),
     "finding[0].numerator.reclaimer: 'hq' is not in the grid (grid has: none, ebr, hp)"),
    (('kind = "ratio"', 'kind = "better"'), "finding[0].kind: expected one of 'ratio'"),
    (("max = 0.9", ""), "finding[0].min: a ratio finding needs min, max or both"),
    (('reclaimer = ["none", "ebr", "hp"]', 'reclaimer = ["none", "ebr", "hp", "ebr"]'),
     "grid.reclaimer: two variants are both shown as 'ebr'"),
    (('figure = "test figure"\n', ""), "figure: required key is missing"),
    (("[run]", "[grid.extra]\n[run]"), "grid.extra: unknown key (accepted: ds, reclaimer"),
])
def test_bad_files_give_one_clear_error(change, message):
    old, new = change
    assert old in TINY
    with pytest.raises(BadInput) as error:
        parse(TINY.replace(old, new, 1))
    assert str(error.value).startswith("t.toml: ")
    assert message in str(error.value)


def test_bad_file_exits_2_and_writes_nothing(experiment_file, tmp_path, capsys, fake):
    path = experiment_file(TINY.replace("threads = [1, 2]", "threads = []"))
    out = tmp_path / "results"
    code = cli.main(["run", str(path), "--smrbench", "/nonexistent", "--out", str(out)])
    assert code == 2
    assert "grid.threads: expected a non-empty list" in capsys.readouterr().err
    assert not out.exists() and fake() == []


def test_shipped_experiments_are_valid():
    names = {p.stem for p in experiment.available()}
    assert {"overview", "hart_fig8", "hart_fig12_13", "ibr_fig9", "nbr_fig4cd"} <= names
    for name in names:
        e = experiment.load(name)
        assert e.findings and e.figure and e.notes
