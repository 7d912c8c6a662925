"""The bounded node pool axes (Hart et al. Fig. 14): node_pool (smrbench --node-pool, 0: none)
and pool_wait (--pool-wait busy | yield, meaningful only with a pool)."""

from dataclasses import replace

import pytest
from conftest import FAKE, TINY

from smrlab import cli, experiment, metrics, smrbench
from smrlab.errors import BadInput

POOL = TINY.replace("threads = [1, 2]", 'threads = [1, 2]\nnode_pool = [0, 500]\npool_wait = ["busy", "yield"]') + """\
[[finding]]
text = "busy waiting exhausts the pool more often than yielding"
kind = "ratio"
metric = "pool_exhaustions"
where = { node_pool = 500 }
numerator = { pool_wait = "busy" }
denominator = { pool_wait = "yield" }
min = 1.5
"""


def parse(text: str) -> experiment.Experiment:
    return experiment.parse(text, "t", "t.toml")


def test_without_a_pool_the_wait_mode_is_one_cell_not_two():
    configs = parse(POOL).plan(None, quick=False).configs
    # 3 reclaimers x 2 thread counts x (no pool, pool busy, pool yield)
    assert len(configs) == 3 * 2 * 3
    assert {(c.node_pool, c.pool_wait) for c in configs} == {(0, "yield"), (500, "busy"), (500, "yield")}
    assert {(c.node_pool, c.pool_wait) for c in parse(TINY).plan(None, quick=False).configs} == {(0, "yield")}


def test_pool_configs_are_named_hashed_and_round_trip():
    configs = parse(POOL).plan(None, quick=False).configs
    busy = next(c for c in configs if c.pool_wait == "busy")
    plain = next(c for c in configs if c.node_pool == 0)
    assert busy.describe().endswith(" pool=500/busy") and "pool" not in plain.describe()
    assert experiment.Config.from_json(busy.to_json()) == busy
    assert len({busy.hash, replace(busy, pool_wait="yield").hash, replace(busy, node_pool=0).hash}) == 3


def test_the_command_passes_the_pool_only_when_there_is_one(tmp_path):
    configs = parse(POOL).plan(None, quick=False).configs
    busy = next(c for c in configs if c.pool_wait == "busy")
    cmd = smrbench.command(FAKE, busy, 1, tmp_path / "r.json", None)
    assert cmd[cmd.index("--node-pool") + 1] == "500" and cmd[cmd.index("--pool-wait") + 1] == "busy"
    plain = next(c for c in configs if c.node_pool == 0)
    assert "--node-pool" not in smrbench.command(FAKE, plain, 1, tmp_path / "r.json", None)


@pytest.mark.parametrize("line, message", [
    ('pool_wait = ["spin"]', "grid.pool_wait[0]: expected one of 'busy', 'yield', got string 'spin'"),
    ("node_pool = [-1]", "grid.node_pool[0]: expected an integer from 0 to 2147483648"),
])
def test_bad_pool_values_are_schema_errors(line, message):
    with pytest.raises(BadInput) as error:
        parse(TINY.replace("threads = [1, 2]", f"threads = [1, 2]\n{line}"))
    assert message in str(error.value)


def test_a_record_that_ran_another_pool_is_a_mismatch():
    config = next(c for c in parse(POOL).plan(None, quick=False).configs if c.pool_wait == "busy")
    base = {"ds": config.ds, "reclaimer": config.reclaimer.name, "threads": config.threads,
            "key_range": config.key_range, "allocator": config.allocator, "stalled_threads": 0,
            "seed": config.seed + 1, "workload": {"insert": 50, "delete": 50, "search": 0}}
    assert smrbench._mismatch({"config": {**base, "node_pool": 500, "pool_wait": "busy"}}, config, 1) == ""
    assert "config.pool_wait is 'yield', asked for 'busy'" in smrbench._mismatch(
        {"config": {**base, "node_pool": 500, "pool_wait": "yield"}}, config, 1)
    # an smrbench from before --node-pool ran without a pool
    assert "config.node_pool is None, asked for 500" in smrbench._mismatch({"config": base}, config, 1)


def test_pool_metrics_are_read_from_the_record():
    record = {"metrics": {"pool": {"capacity": 500, "exhaustions": 7, "wait_s": 0.5, "abandoned": 0, "lost": 0}}}
    assert metrics.value(record, "pool_exhaustions") == 7 and metrics.value(record, "pool_wait_s") == 0.5
    assert metrics.value({"metrics": {"pool": None}}, "pool_exhaustions") is None


def test_a_pool_experiment_runs_reports_and_checks_its_finding(experiment_file, tmp_path, fake, capsys):
    out = tmp_path / "r"
    assert cli.main(["run", str(experiment_file(POOL)), "--smrbench", str(FAKE), "--out", str(out)]) == 0
    runs = fake()
    assert sum("--node-pool" in a for a in runs) == 3 * 2 * 2 and len(runs) == 3 * 2 * 3
    capsys.readouterr()
    assert cli.main(["summary", str(out)]) == 0
    summary = capsys.readouterr().out
    titles = [line for line in summary.splitlines() if line.startswith("hm_list")]
    assert len(titles) == 3 and not any("node_pool=0" in t or "pool_wait" in t for t in titles[:1])
    assert "node_pool=500  pool_wait=busy" in titles[1] and "node_pool=500  pool_wait=yield" in titles[2]
    assert cli.main(["report", str(out)]) == 0
    page = (out / "report.html").read_text()
    assert "<span class='badge holds'>holds here</span> busy waiting exhausts" in page
