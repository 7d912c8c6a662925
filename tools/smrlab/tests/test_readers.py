"""The readers axis: the last N of a configuration's threads run smrbench's reader workload
(searches only), and each role's throughput is a metric of its own."""

import hashlib
import json
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import FAKE, TINY

from smrlab import cli, experiment, metrics, results, smrbench
from smrlab.errors import BadInput
from smrlab.smrbench import Capabilities
from smrlab.store import Store

# TINY with 2 and 3 threads, 0 or 1 reader (every pair has a writer), and a claim on readers.
READERS = TINY.replace("threads = [1, 2]", "threads = [2, 3]\nreaders = [0, 1]") + """\
[[finding]]
text = "readers search"
kind = "bounded"
metric = "reader_throughput_ops_s"
where = { readers = 1 }
min = 1
"""


def parse(text: str) -> experiment.Experiment:
    return experiment.parse(text, "t", "t.toml")


def run(path, out, *extra) -> int:
    return cli.main(["run", str(path), "--smrbench", str(FAKE), "--out", str(out), *extra])


def record(config=None, metrics_=None) -> dict:
    return {"config": config or {}, "metrics": metrics_ or {}}


# ---- the axis ----------------------------------------------------------------------------

def test_readers_default_to_0_and_are_planned_as_an_axis():
    assert {c.readers for c in parse(TINY).plan(None, quick=False).configs} == {0}
    configs = parse(READERS).plan(None, quick=False).configs
    assert {(c.threads, c.readers) for c in configs} == {(t, r) for t in (2, 3) for r in (0, 1)}
    assert len(configs) == 3 * 2 * 2
    one = next(c for c in configs if c.readers == 1)
    assert one.describe().endswith(" readers=1")
    assert "readers" not in next(c for c in configs if c.readers == 0).describe()
    assert experiment.Config.from_json(one.to_json()) == one
    assert one.hash != replace(one, readers=0).hash


@pytest.mark.parametrize("value, message", [
    ("[-1]", "grid.readers[0]: expected an integer from 0 to 4096"),
    ("[1, 1]", "grid.readers: values must not repeat"),
    ('"one"', "grid.readers: expected a non-empty list of reader thread counts 0..4096"),
])
def test_bad_readers_values_are_schema_errors(value, message):
    with pytest.raises(BadInput) as error:
        parse(TINY.replace("threads = [1, 2]", f"threads = [1, 2]\nreaders = {value}"))
    assert message in str(error.value)


def test_readers_select_plot_and_bound():
    e = parse(READERS + '[plots]\nx = "readers"\nmetrics = ["writer_throughput_ops_s"]\n')
    assert e.plots.x == "readers" and e.plots.metrics == ["writer_throughput_ops_s"]
    assert e.findings[1].where == {"readers": [1]}
    with pytest.raises(BadInput, match=r"finding\[1\].where.readers: 2 is not in the grid"):
        parse(READERS.replace("where = { readers = 1 }", "where = { readers = 2 }"))


# ---- readers must leave a writer ---------------------------------------------------------

def test_readers_not_below_threads_are_refused_at_plan_time_naming_the_cell():
    e = parse(TINY.replace("threads = [1, 2]", "threads = [1, 2]\nreaders = [0, 1]"))
    with pytest.raises(BadInput) as error:
        e.plan(None, quick=False)
    assert error.value.args == (
        "t.toml: grid: cell 'hm_list none t=1 w=50,50,0 kr=100 system readers=1': readers = 1 "
        "leaves no writer; readers must be below threads (1)",
        "t.toml: grid: cell 'hm_list ebr t=1 w=50,50,0 kr=100 system readers=1': readers = 1 "
        "leaves no writer; readers must be below threads (1)",
        "t.toml: grid: cell 'hm_list hp t=1 w=50,50,0 kr=100 system readers=1': readers = 1 "
        "leaves no writer; readers must be below threads (1)")


def test_many_bad_cells_are_counted_and_quick_overrides_are_checked_too():
    e = parse(TINY.replace("threads = [1, 2]", "threads = [2, 4]\nreaders = [2, 3, 4]")
              .replace('key_range = [100]', 'key_range = [100, 200]'))
    with pytest.raises(BadInput) as error:
        e.plan(None, quick=False)
    # 3 reclaimers x 2 key ranges x (readers 2, 3, 4 at 2 threads, and 4 at 4 threads)
    assert len(error.value.args) == experiment.MAX_NAMED_CELLS + 1
    assert error.value.args[-1] == (
        f"t.toml: grid: … and {3 * 2 * 4 - experiment.MAX_NAMED_CELLS} more cells whose readers "
        f"are not below their threads (pair readers with thread counts in [[grid.case]] tables)")
    quick = parse(TINY.replace("threads = [1, 2]", "threads = [4]\nreaders = [0, 2]")
                  + "[quick]\nthreads = [2]\n")
    assert len(quick.plan(None, quick=False).configs) == 3 * 2
    with pytest.raises(BadInput) as error:
        quick.plan(None, quick=True)      # [quick] runs 2 threads: 2 readers leave no writer
    assert error.value.args[0].endswith("readers = 2 leaves no writer; readers must be below "
                                        "threads (2)")


def test_a_cell_without_writer_stops_the_run_before_anything_runs(experiment_file, tmp_path,
                                                                  fake, capsys):
    path = experiment_file(TINY.replace("threads = [1, 2]", "threads = [1, 2]\nreaders = [1]"))
    out = tmp_path / "r"
    assert run(path, out) == 2
    err = capsys.readouterr().err
    assert "smrlab: error: " + str(path) + ": grid: cell 'hm_list none t=1 w=50,50,0 kr=100 " \
        "system readers=1': readers = 1 leaves no writer; readers must be below threads (1)" in err
    assert "Traceback" not in err and fake() == [] and not out.exists()


def test_readers_on_a_queue_are_skipped_they_only_search():
    caps = Capabilities(["hm_list", "ms_queue"], ["ebr"], ["system"],
                        frozenset({("hm_list", "ebr"), ("ms_queue", "ebr")}),
                        kinds={"hm_list": "set", "ms_queue": "queue"})
    e = parse(TINY.replace('ds = ["hm_list"]', 'ds = ["hm_list", "ms_queue"]')
              .replace('reclaimer = ["none", "ebr", "hp"]', 'reclaimer = ["ebr"]')
              .replace("threads = [1, 2]", "threads = [2]\nreaders = [0, 1]")
              .replace('reclaimer = "hp"', 'reclaimer = "ebr"')
              .replace('reclaimer = "none"', 'reclaimer = "ebr"'))
    plan = e.plan(caps, quick=False)
    assert {(c.ds, c.readers) for c in plan.configs} == {("hm_list", 0), ("hm_list", 1),
                                                         ("ms_queue", 0)}
    assert plan.notes == ["skipping ebr×ms_queue readers=1: a queue has no search operation, and "
                          "readers run searches only, so it needs readers = 0"]


# ---- the smrbench command line and its record --------------------------------------------

def test_the_command_line_has_readers_only_when_there_are_some():
    base = parse(TINY).plan(None, quick=False).configs[0]
    plain = smrbench.command(Path("smrbench"), base, 0, Path("t.json"), None)
    assert "--readers" not in plain
    with_readers = smrbench.command(Path("smrbench"), replace(base, threads=3, readers=2), 0,
                                    Path("t.json"), None)
    at = with_readers.index("--readers")
    assert with_readers[at + 1] == "2" and "--reader-workload" not in with_readers
    assert with_readers[:at] + with_readers[at + 2:] == \
        smrbench.command(Path("smrbench"), replace(base, threads=3), 0, Path("t.json"), None)


def test_the_record_must_have_the_readers_asked_for():
    config = replace(parse(TINY).plan(None, quick=False).configs[1], readers=1)    # 2 threads
    got = {"ds": config.ds, "reclaimer": config.reclaimer.name, "threads": config.threads,
           "key_range": config.key_range, "allocator": config.allocator, "stalled_threads": 0,
           "seed": config.seed, "workload": {"insert": 50, "delete": 50, "search": 0},
           "readers": 1, "reader_workload": {"insert": 0, "delete": 0, "search": 100}}
    assert smrbench._mismatch(record(got), config, 0) == ""
    assert smrbench._mismatch(record({**got, "readers": 0}), config, 0) == \
        "record config.readers is 0, asked for 1"
    assert smrbench._mismatch(record({**got, "reader_workload": None}), config, 0) == \
        "record config.reader_workload is None, asked for {'insert': 0, 'delete': 0, 'search': 100}"
    no_readers = replace(config, readers=0)
    assert smrbench._mismatch(record({**got, "readers": 0, "reader_workload": None}),
                              no_readers, 0) == ""
    assert smrbench._mismatch(record(got), no_readers, 0) == "record config.readers is 1, asked for 0"
    # an smrbench from before --readers writes no config.readers: it ran without readers
    old = {k: v for k, v in got.items() if k not in ("readers", "reader_workload")}
    assert smrbench._mismatch(record(old), no_readers, 0) == ""
    assert smrbench._mismatch(record(old), config, 0) == "record config.readers is 0, asked for 1"


# ---- the role metrics --------------------------------------------------------------------

ROLES = {"writers": {"threads": 3, "ops": 300, "throughput_ops_s": 3e6},
         "readers": {"threads": 1, "ops": 500, "throughput_ops_s": 5e6}}


def test_role_throughputs_come_from_metrics_roles():
    with_roles = record(metrics_={"throughput_ops_s": 8e6, "roles": ROLES})
    assert metrics.value(with_roles, "writer_throughput_ops_s") == 3e6
    assert metrics.value(with_roles, "reader_throughput_ops_s") == 5e6
    for without in (record(metrics_={"throughput_ops_s": 8e6, "roles": None}),
                    record(metrics_={"throughput_ops_s": 8e6})):      # before roles existed
        assert metrics.value(without, "writer_throughput_ops_s") is None
        assert metrics.value(without, "reader_throughput_ops_s") is None
    assert metrics.label("writer_throughput_ops_s") == "writer throughput (Mops/s)"
    assert metrics.label("reader_throughput_ops_s") == "reader throughput (Mops/s)"
    assert metrics.fmt("reader_throughput_ops_s", 5e6) == "5"


def test_a_run_with_readers_reports_each_role(experiment_file, tmp_path, fake, capsys):
    out = tmp_path / "r"
    assert run(experiment_file(READERS), out) == 0
    runs = fake()
    assert len(runs) == 12
    assert sum("--readers" in args for args in runs) == 6
    assert all(args[args.index("--readers") + 1] == "1" for args in runs if "--readers" in args)
    loaded = results.load(out)
    for row in loaded.rows:
        roles = {"writer_throughput_ops_s", "reader_throughput_ops_s"} & set(row.stats)
        assert roles == (set() if row.config.readers == 0 else
                         {"writer_throughput_ops_s", "reader_throughput_ops_s"})
    capsys.readouterr()
    assert cli.main(["summary", str(out)]) == 0
    summary = capsys.readouterr().out
    assert "readers=1" in summary and "readers=0" not in summary
    assert cli.main(["report", str(out)]) == 0
    capsys.readouterr()
    page = (out / "report.html").read_text()
    assert "<th>writer throughput (Mops/s)</th>" in page
    assert "<th>reader throughput (Mops/s)</th>" in page
    assert "<span class='badge holds'>holds here</span> readers search" in page


# ---- results stored before the readers axis (and the pool axes after it) -------------------

LATER_AXES = ("readers", "node_pool", "pool_wait")


def old_hash(config_json: dict) -> str:
    """Config.hash as it was computed before the readers axis."""
    identity = {k: v for k, v in config_json.items() if k not in ("label",) + LATER_AXES}
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def test_configs_without_readers_keep_their_hash():
    for config in parse(TINY).plan(None, quick=False).configs:
        old = {k: v for k, v in config.to_json().items() if k not in LATER_AXES}
        assert experiment.Config.from_json(old) == config and config.readers == 0
        assert config.hash == old_hash(old)


def test_a_store_from_before_readers_loads_and_resumes(experiment_file, tmp_path, fake, capsys):
    out = tmp_path / "r"
    path = experiment_file()
    assert run(path, out) == 0
    # As an smrlab and smrbench from before readers wrote them: no readers anywhere.
    plan = json.loads((out / "plan.json").read_text())
    for c in plan["configs"]:
        del c["readers"]
    (out / "plan.json").write_text(json.dumps(plan))
    entries = [json.loads(line) for line in (out / "trials.jsonl").read_text().splitlines()]
    for e in entries:
        del e["config"]["readers"]
        for key in ("readers", "reader_workload"):
            del e["record"]["config"][key]
        del e["record"]["metrics"]["roles"]
    (out / "trials.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entries))

    assert all(e["config"]["readers"] == 0 for e in Store(out).entries())
    loaded = results.load(out)
    assert len(loaded.entries) == 6 and all(r.ok == 1 for r in loaded.rows)
    assert all("reader_throughput_ops_s" not in r.stats for r in loaded.rows)
    capsys.readouterr()
    assert run(path, out) == 0                         # nothing to redo: the keys still match
    assert "6 already in" in capsys.readouterr().err and len(fake()) == 6
    assert cli.main(["summary", str(out)]) == 0
    assert "readers" not in capsys.readouterr().out
