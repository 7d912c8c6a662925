"""Everything is checked before anything runs: each bad input is one line on stderr naming what is
wrong and what is accepted, the exit is 2, there is no traceback, and nothing is written."""

import json
import os

import pytest
from conftest import FAKE, FIXTURES, TINY, smrlab_process

from smrlab import cli, experiment, smrbench
from smrlab.smrbench import Capabilities

REAL_LIST = json.loads((FIXTURES / "smrbench_list.json").read_text())


def run(path, out, *extra) -> int:
    return cli.main(["run", str(path), "--smrbench", str(FAKE), "--out", str(out), *extra])


def errors(capsys) -> list:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return [ln for ln in err.splitlines() if ln.startswith("smrlab: error: ")]


@pytest.mark.parametrize("change, message", [
    (('ds = ["hm_list"]', 'ds = ["hm_lst"]'),
     "grid: data structure 'hm_lst' is unknown to smrbench (accepted: hm_list, harris_list, "
     "ms_queue)"),
    (('reclaimer = ["none", "ebr", "hp"]', 'reclaimer = ["none", "ebr", "hp", "hpp"]'),
     "grid: reclaimer 'hpp' is unknown to smrbench (accepted: none, qsbr, ebr, hp)"),
    (("[run]", 'allocator = ["jemalloc"]\n[run]'),
     "grid: allocator 'jemalloc' is unknown to smrbench (accepted: system, tcmalloc)"),
    (('reclaimer = ["none", "ebr", "hp"]',
      'reclaimer = ["none", { name = "ebr", params = { advance = 8 } }, "hp"]'),
     "grid: reclaimer 'ebr(advance=8)': unknown tunable 'advance' (accepted: advance_every)"),
    (('reclaimer = ["none", "ebr", "hp"]',
      'reclaimer = ["none", { name = "ebr", params = { advance_every = "often" } }, "hp"]'),
     "grid: reclaimer 'ebr(advance_every=often)': advance_every = 'often': expected an integer "
     "(default 64)"),
    (('reclaimer = ["none", "ebr", "hp"]',
      'reclaimer = ["none", { name = "qsbr", params = { batch = 1 } }, "hp"]'),
     "grid: reclaimer 'qsbr(batch=1)': unknown tunable 'batch' (accepted: none, it has no "
     "tunables)"),
    (('ds = ["hm_list"]', 'ds = ["harris_list"]'),
     "grid: reclaimer 'hp' cannot run in any cell of the grid (with harris_list: the data "
     "structure traverses unlinked nodes, which this reclaimer cannot protect)"),
    (('ds = ["hm_list"]', 'ds = ["ms_queue"]\nworkload = ["40,40,20"]'),
     "grid: data structure 'ms_queue' cannot run in any cell of the grid (with none, ebr, hp: a "
     "queue has no search operation, so its workload needs a search share of 0)"),
    (("key_range = [100]", "key_range = [4398046511105]"),
     "grid.key_range[0]: expected an integer from 1 to 2199023255552, got integer 4398046511105"),
    (("threads = [1, 2]", "threads = [4096]\nstall = [1]"),
     "grid: 3 cells, e.g. 'hm_list none t=4096 w=50,50,0 kr=100 system stall=1', run more than 4096 threads (threads plus "
     "stall); smrbench refuses them"),
    (('workload = ["50,50,0"]', 'workload = ["50,50,0\u00b2"]'),
     "grid.workload[0]: expected \"insert,delete,search\" percentages summing to 100 (e.g. "
     "\"50,50,0\"), got string '50,50,0\u00b2'"),
    (("max = 0.9", "max = 0.9\nmin = 1.5"), "finding[0].min: min 1.5 is above max 0.9: no value "
                                            "could hold"),
    (("duration_s = 0.1", "duration_s = nan"), "run.duration_s: expected a finite number > 0, got "
                                               "number nan"),
    (("duration_s = 0.1", "duration_s = 2e6"), "run.duration_s: expected at most 1e+06 s "
                                               "(smrbench's limit), got 2000000.0"),
])
def test_each_grid_problem_is_one_line_and_nothing_runs(experiment_file, tmp_path, fake, capsys,
                                                        change, message):
    old, new = change
    text = TINY.replace(old, new, 1)
    if "workload = [\"40" in new:
        text = text.replace('workload = ["50,50,0"]\n', "", 1)
    path = experiment_file(text)
    out = tmp_path / "r"
    assert run(path, out) == 2
    lines = errors(capsys)
    assert lines == [f"smrlab: error: {path}: {message}"]
    assert not out.exists() and fake() == []


def test_every_problem_is_listed_at_once(experiment_file, tmp_path, fake, capsys):
    text = TINY.replace("threads = [1, 2]", "threads = [0]") \
        .replace("duration_s = 0.1", "duration_s = 0.001") \
        .replace('metric = "throughput_ops_s"', 'metric = "speed"')
    out_file = tmp_path / "taken"
    out_file.write_text("not a directory")
    path = experiment_file(text)
    code = cli.main(["run", str(path), "--smrbench", str(tmp_path / "missing"),
                     "--out", str(out_file / "r")])
    assert code == 2
    lines = errors(capsys)
    assert len(lines) == 5, lines
    assert "grid.threads[0]: expected an integer from 1 to 4096" in lines[0]
    assert "run.duration_s: expected at least 0.1 s, got 0.001" in lines[1]
    assert "finding[0].metric: expected one of 'throughput_ops_s'" in lines[2]
    assert "smrbench not found or not executable" in lines[3]
    assert lines[4].endswith(f"--out {out_file / 'r'}: cannot be created: {out_file} is not a "
                             f"directory")
    assert out_file.read_text() == "not a directory" and fake() == []


def test_grid_problems_and_out_problems_together(experiment_file, tmp_path, fake, capsys):
    path = experiment_file(TINY.replace('reclaimer = ["none", "ebr", "hp"]',
                                        'reclaimer = ["none", "ebr", "hp", "ebbr", "hpp"]'))
    out = tmp_path / "file"
    out.write_text("x")
    assert run(path, out) == 2
    lines = errors(capsys)
    assert len(lines) == 3
    assert "reclaimer 'ebbr' is unknown" in lines[0] and "reclaimer 'hpp' is unknown" in lines[1]
    assert lines[2].endswith(f"--out {out}: exists and is not a directory")
    assert fake() == [] or all("--list" in a for a in fake())


def test_non_utf8_unreadable_and_missing_experiment_files(tmp_path, capsys, fake):
    latin = tmp_path / "latin.toml"
    latin.write_bytes(TINY.replace("test figure", "caf\xe9 figure").encode("latin-1"))
    assert run(latin, tmp_path / "r") == 2
    assert errors(capsys) == [f"smrlab: error: {latin}:1: not UTF-8 text (byte 0xe9); experiment "
                              f"files must be saved as UTF-8"]
    assert run("hart_fig_8", tmp_path / "r") == 2
    assert errors(capsys) == ["smrlab: error: unknown experiment 'hart_fig_8' (available: "
                              + ", ".join(p.stem for p in experiment.available()) + ")"]
    folder = tmp_path / "dir.toml"
    folder.mkdir()
    assert run(folder, tmp_path / "r") == 2
    assert errors(capsys) == [f"smrlab: error: experiment file {folder} is a directory, not a "
                              f".toml file"]
    assert run(tmp_path / "none.toml", tmp_path / "r") == 2
    assert errors(capsys) == [f"smrlab: error: experiment file {tmp_path / 'none.toml'} does not "
                              f"exist"]
    assert not (tmp_path / "r").exists() and fake() == []


def test_unreadable_experiment_file(tmp_path, capsys, monkeypatch):
    path = tmp_path / "secret.toml"
    path.write_text(TINY)

    def refuse(self):
        raise PermissionError(13, "Permission denied", str(self))
    monkeypatch.setattr(type(path), "read_bytes", refuse)   # root reads past chmod 000
    assert run(path, tmp_path / "r") == 2
    assert errors(capsys) == [f"smrlab: error: experiment file {path} cannot be read: "
                              f"Permission denied"]


def test_reused_out_of_another_experiment_is_refused_and_plan_kept(experiment_file, tmp_path,
                                                                  fake, capsys):
    out = tmp_path / "r"
    assert run(experiment_file(), out) == 0
    plan = (out / "plan.json").read_bytes()
    trials = (out / "trials.jsonl").read_bytes()
    other = experiment_file(TINY, name="other")
    assert run(other, out) == 2
    lines = errors(capsys)
    assert lines == [f"smrlab: error: --out {out} holds the results of a full run of 'tiny', not "
                     f"of a full run of 'other' (one experiment and mode per directory): use "
                     f"another --out, or remove {out} to start again"]
    assert run(experiment_file(), out, "--quick") == 2
    assert "holds the results of a full run of 'tiny', not of a --quick run" in errors(capsys)[0]
    assert (out / "plan.json").read_bytes() == plan and (out / "trials.jsonl").read_bytes() == trials


def test_same_experiment_with_a_changed_plan_says_so(experiment_file, tmp_path, fake, capsys):
    out = tmp_path / "r"
    assert run(experiment_file(), out) == 0
    capsys.readouterr()
    assert run(experiment_file(TINY.replace("trials = 1", "trials = 2")), out) == 0
    err = capsys.readouterr().err
    assert f"note: the plan in {out / 'plan.json'} changes: trials per configuration 1 -> 2, 0 " \
           f"configurations added, 0 no longer planned" in err
    assert "6 already in" in err and len(fake()) == 12


def test_a_plan_json_that_is_not_smrlabs_is_refused(experiment_file, tmp_path, fake, capsys):
    out = tmp_path / "r"
    out.mkdir()
    (out / "plan.json").write_text('{"something": "else"}')
    assert run(experiment_file(), out) == 2
    assert errors(capsys) == [f"smrlab: error: --out {out}: its plan.json is not a smrlab plan; "
                              f"use another --out, or remove the directory to start again"]
    assert (out / "plan.json").read_text() == '{"something": "else"}' and fake() == []


def test_a_too_short_duration_is_refused_with_the_reason():
    with pytest.raises(experiment.BadInput, match=r"run.duration_s: expected at least 0.1 s, got "
                                                   r"1e-09: a shorter trial measures mostly"):
        experiment.parse(TINY.replace("duration_s = 0.1", "duration_s = 1e-9"), "t", "t.toml")


def test_report_of_a_missing_or_foreign_directory_is_bad_input(tmp_path, capsys):
    assert cli.main(["report", str(tmp_path)]) == 2
    assert errors(capsys) == [f"smrlab: error: {tmp_path} is a directory without plan.json: not "
                              f"a results directory"]
    assert cli.main(["report", "no_such_experiment"]) == 2
    assert errors(capsys)[0].startswith("smrlab: error: unknown experiment 'no_such_experiment'")


def test_a_bad_experiment_is_one_line_through_the_wrapper(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_bytes(b"figure = \"\xff\"\n")
    done = smrlab_process(["run", path, "--smrbench", FAKE, "--out", tmp_path / "r"])
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"smrlab: error: {path}:1: not UTF-8 text (byte 0xff); "
                                        f"experiment files must be saved as UTF-8"]
    assert not (tmp_path / "r").exists()


def test_shipped_experiments_plan_cleanly_against_the_recorded_smrbench_list(monkeypatch, fake):
    monkeypatch.setenv("FAKE_LIST", json.dumps(REAL_LIST))
    caps, why = smrbench.capabilities(FAKE)
    assert why == "" and caps.tunables["nbr"]["bag_threshold"] == 32768
    for path in experiment.available():
        e = experiment.load(str(path))
        for quick in (False, True):
            plan = e.plan(caps, quick)
            assert plan.configs, path


def test_tunable_types_follow_the_defaults_smrbench_lists():
    caps = Capabilities(["hm_list"], ["nbr"], ["system"], frozenset({("hm_list", "nbr")}),
                        ["system"], {}, {"nbr": {"bag_threshold": 32768, "max_pending_rounds": 8,
                                                 "signal_every_thread": False}}, {})
    e = experiment.parse(TINY.replace(
        'reclaimer = ["none", "ebr", "hp"]',
        'reclaimer = [{ name = "nbr", params = { bag_threshold = 1.5, '
        'signal_every_thread = "yes", max_pending_rounds = 10 } }]').replace(
        'numerator = { reclaimer = "hp" }\ndenominator = { reclaimer = "none" }',
        "numerator = {}\ndenominator = {}"), "t", "t.toml")
    with pytest.raises(experiment.BadInput) as error:
        e.plan(caps, quick=False)
    assert [p.split("': ", 1)[1] for p in error.value.args] == [
        "bag_threshold = 1.5: expected an integer (default 32768)",
        "signal_every_thread = 'yes': expected true or false (default False)"]


def test_version_is_the_projects(capsys):
    header = (experiment.EXPERIMENTS_DIR.parent.parent.parent / "include" / "smr" /
              "version.hpp").read_text()
    number = header.split('#define SMR_VERSION_STRING "', 1)[1].split('"', 1)[0]
    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"smrlab {number}\n"
    pyproject = (experiment.EXPERIMENTS_DIR.parent / "pyproject.toml").read_text()
    assert f'\nversion = "{number}"' in pyproject          # the package says the same


def test_the_readmes_report_after_a_quick_run_works(monkeypatch, tmp_path, fake, capsys):
    """README: `./smrlab run hart_fig8 --quick` then `./smrlab report hart_fig8`."""
    from smrlab import paths
    monkeypatch.setattr(paths, "RESULTS_DIR", tmp_path / "results")
    assert cli.main(["run", "hart_fig8", "--quick", "--smrbench", str(FAKE)]) == 0
    capsys.readouterr()
    assert cli.main(["report", "hart_fig8"]) == 0
    captured = capsys.readouterr()
    quick = tmp_path / "results" / "hart_fig8-quick"
    assert f"note: no full results in {tmp_path / 'results' / 'hart_fig8'}; using the --quick " \
           f"results in {quick}" in captured.err
    assert captured.out.strip() == str(quick / "report.html")
    assert (quick / "plots" / "hart_fig8-ns_per_op-vs-key_range.png").is_file()
    assert not (tmp_path / "results" / "hart_fig8").exists()


def test_a_closed_pipe_is_not_an_error():
    import subprocess
    import sys
    env = {**os.environ, "PYTHONPATH": str(experiment.EXPERIMENTS_DIR.parent)}
    proc = subprocess.Popen([sys.executable, "-m", "smrlab", "list"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()             # the reader is gone before smrlab writes a line
    _, err = proc.communicate(timeout=60)
    assert err == b"" and proc.returncode == 141


def test_a_tunable_default_that_is_not_json_is_not_type_checked(fake, monkeypatch):
    listing = {**REAL_LIST, "reclaimer_info": {**REAL_LIST["reclaimer_info"], "hp": {
        "tunables": ["slots (default 4): hazard pointers per thread",
                     "scan_threshold (default 2H + 100): retired nodes that trigger a scan"]}}}
    monkeypatch.setenv("FAKE_LIST", json.dumps(listing))
    caps, why = smrbench.capabilities(FAKE)
    assert why == "" and caps.tunables["hp"] == {"slots": 4, "scan_threshold": None}


def _fake_list() -> dict:
    import subprocess
    import sys
    done = subprocess.run([sys.executable, str(FAKE), "--list", "--json", "-"], check=True,
                          capture_output=True, text=True, env={k: v for k, v in os.environ.items()
                                                               if k != "FAKE_LIST"})
    return json.loads(done.stdout)


def _with_external(listing: dict, built: list, unbuilt: dict) -> dict:
    """A listing whose smrbench has the external baselines `built` (paired with every data
    structure) and was built without those of `unbuilt`."""
    return {**listing, "reclaimers": listing["reclaimers"] + built,
            "compatible": listing["compatible"] + [[ds, r] for ds in listing["data_structures"]
                                                   for r in built],
            "external_reclaimers": built, "external_unbuilt": unbuilt}


def test_an_unbuilt_external_baseline_says_what_to_install(experiment_file, tmp_path, fake,
                                                           monkeypatch, capsys):
    monkeypatch.setenv("FAKE_LIST", json.dumps(_with_external(
        _fake_list(), [], {"urcu_qsbr": "liburcu-dev"})))
    path = experiment_file(TINY.replace('"hp"]', '"hp", "urcu_qsbr"]', 1))
    out = tmp_path / "r"
    assert run(path, out) == 2
    assert errors(capsys) == [
        f"smrlab: error: {path}: grid: reclaimer 'urcu_qsbr' is an external baseline this "
        f"smrbench was built without: install liburcu-dev (scripts/setup.sh does) and rebuild"]
    assert not out.exists() and fake() == []


def test_all_leaves_external_baselines_out_and_a_grid_may_name_them(fake, monkeypatch):
    monkeypatch.setenv("FAKE_LIST", json.dumps(_with_external(_fake_list(), ["ck_epoch"], {})))
    caps, why = smrbench.capabilities(FAKE)
    assert why == "" and "ck_epoch" in caps.reclaimers
    assert caps.own_reclaimers() == ["none", "qsbr", "ebr", "hp"]

    def planned(text: str) -> set:
        exp = experiment.parse(text, "tiny", "tiny.toml")
        return {c.reclaimer.name for c in exp.plan(caps, quick=False).configs}
    assert planned(TINY.replace('reclaimer = ["none", "ebr", "hp"]', 'reclaimer = "all"', 1)) == \
        {"none", "qsbr", "ebr", "hp"}
    assert "ck_epoch" in planned(TINY.replace('"hp"]', '"hp", "ck_epoch"]', 1))


def test_a_tunable_smrbench_refuses_is_found_before_anything_runs(experiment_file, tmp_path, fake,
                                                                   capsys, monkeypatch):
    # Ranges and a tunable's fit to a structure are smrbench's to judge: `smrbench --check`.
    monkeypatch.setenv("FAKE_CHECK", "ebr:bad --param advance_every=0: below the minimum 1")
    path = experiment_file(TINY.replace(
        'reclaimer = ["none", "ebr", "hp"]',
        'reclaimer = ["none", { name = "ebr", params = { advance_every = 0 } }, "hp"]'))
    out = tmp_path / "r"
    assert run(path, out) == 2
    assert errors(capsys) == [f"smrlab: error: {path}: grid: reclaimer 'ebr(advance_every=0)' on "
                              f"hm_list: bad --param advance_every=0: below the minimum 1"]
    assert not out.exists() and fake() == []


def test_an_out_directory_holding_other_files_is_refused_and_left_alone(experiment_file, tmp_path,
                                                                         fake, capsys):
    # Its files would mix with the results (an earlier smrlab cleared its tmp/: ~/tmp for --out ~).
    out = tmp_path / "home"
    (out / "tmp").mkdir(parents=True)
    (out / "tmp" / "mine.txt").write_text("keep")
    assert run(experiment_file(), out) == 2
    assert errors(capsys) == [f"smrlab: error: --out {out}: a directory that holds other files "
                              f"and no smrlab results (no plan.json); use a new or empty "
                              f"directory"]
    assert (out / "tmp" / "mine.txt").read_text() == "keep" and fake() == []


def test_an_empty_out_directory_is_used(experiment_file, tmp_path, fake, capsys):
    out = tmp_path / "empty"
    out.mkdir()
    assert run(experiment_file(), out) == 0
    assert (out / "plan.json").is_file()


@pytest.mark.parametrize("option", ["--out", "--smrbench"])
def test_an_empty_path_option_is_refused(experiment_file, option, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["run", str(experiment_file()), option, ""])
    assert stop.value.code == 2
    assert f"argument {option}: an empty path" in capsys.readouterr().err


def test_moving_aside_the_current_directory_names_it(tmp_path, monkeypatch):
    from smrlab.store import Store
    root = tmp_path / "results"
    root.mkdir()
    (root / "trials.jsonl").write_text("")
    monkeypatch.chdir(root)
    moved = Store(".").move_aside()
    assert moved.parent == tmp_path and moved.name.startswith("results.")
    assert not root.exists() and (moved / "trials.jsonl").exists()
