"""Stopping and resuming: a signal to smrlab (passed on to smrbench) or to smrbench alone stops
the run with 128+signal; every finished trial is kept, including one smrbench completed just
before it stopped; nothing partial is left; the same command then runs only what is missing."""

import signal

import pytest
from conftest import FAKE, TINY, lines, smrlab_process

from smrlab import cli
from smrlab.store import Store

# Unshuffled order: none t1, none t2, ebr t1, ebr t2, hp t1, hp t2.
ORDER = [("none", 1), ("none", 2), ("ebr", 1), ("ebr", 2), ("hp", 1), ("hp", 2)]


def kept(out) -> list:
    return [(e["config"]["reclaimer"], e["config"]["threads"]) for e in lines(out / "trials.jsonl")]


def resume(path, out, fake, ran_before: int, expected_new: int):
    assert cli.main(["run", str(path), "--smrbench", str(FAKE), "--out", str(out)]) == 0
    assert len(fake()) == ran_before + expected_new
    assert sorted(kept(out)) == sorted(ORDER)


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_signal_to_smrlab_stops_the_trial_keeps_the_finished_ones(experiment_file, tmp_path,
                                                                   fake, name):
    out = tmp_path / "r"
    path = experiment_file()
    done = smrlab_process(["run", path, "--smrbench", FAKE, "--out", out],
                          env={"FAKE_INTERRUPT": f"hp:{name}"})
    signum = signal.Signals[name]
    assert done.returncode == 128 + signum, done.stderr
    assert f"interrupted by {name}: kept the 4 finished trials of 6 in {out}" in done.stderr
    assert "Traceback" not in done.stderr
    assert kept(out) == ORDER[:4]
    # smrbench got the signal passed on, and stopped without a record; smrlab's .smrlab-tmp/ is gone
    assert sorted(p.name for p in out.iterdir()) == ["plan.json", "trials.jsonl"]
    resume(path, out, fake, ran_before=5, expected_new=2)


def test_smrbench_stopped_alone_mid_trial_stops_the_run(experiment_file, tmp_path, fake,
                                                       monkeypatch, capsys):
    out = tmp_path / "r"
    path = experiment_file()
    monkeypatch.setenv("FAKE_STOP", "ebr:SIGTERM")
    assert cli.main(["run", str(path), "--smrbench", str(FAKE), "--out", str(out)]) == 143
    err = capsys.readouterr().err
    assert "interrupted by SIGTERM: kept the 2 finished trials of 6" in err
    assert kept(out) == ORDER[:2]
    monkeypatch.delenv("FAKE_STOP")
    resume(path, out, fake, ran_before=3, expected_new=4)


def test_a_trial_smrbench_completed_before_its_signal_is_kept(experiment_file, tmp_path, fake,
                                                             monkeypatch, capsys):
    out = tmp_path / "r"
    path = experiment_file()
    monkeypatch.setenv("FAKE_STOP", "ebr:SIGINT:after")
    assert cli.main(["run", str(path), "--smrbench", str(FAKE), "--out", str(out)]) == 130
    assert "kept the 3 finished trials of 6" in capsys.readouterr().err
    assert kept(out) == ORDER[:3]
    entry = Store(out).entries()[2]
    assert entry["status"] == "ok" and entry["exit_code"] == 130 and entry["record"]["metrics"]
    monkeypatch.delenv("FAKE_STOP")
    resume(path, out, fake, ran_before=3, expected_new=3)


def test_an_ignored_sighup_stays_ignored(experiment_file, tmp_path, fake):
    out = tmp_path / "r"
    path = experiment_file(TINY.replace("threads = [1, 2]", "threads = [1]"))
    done = smrlab_process(["run", path, "--smrbench", FAKE, "--out", out],
                          env={"FAKE_INTERRUPT": "hp:SIGHUP"},
                          preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
    assert done.returncode == 0, done.stderr         # as under nohup: the run goes on
    assert len(kept(out)) == 3


def test_a_terminal_ctrl_c_reaches_smrbench_once_through_smrlab(experiment_file, tmp_path, fake,
                                                                monkeypatch):
    """smrbench runs in its own process group: Ctrl-C, sent by a terminal to smrlab's group,
    does not reach it directly, so smrlab's copy is its first signal (a second would end it at
    once, before it wrote a trial it had completed)."""
    groups = tmp_path / "groups"
    monkeypatch.setenv("FAKE_GROUPS", str(groups))
    assert cli.main(["run", str(experiment_file()), "--smrbench", str(FAKE), "--out",
                     str(tmp_path / "r")]) == 0
    pairs = [line.split() for line in groups.read_text().splitlines()]
    assert len(pairs) == 7 and all(own != parent for own, parent in pairs[1:])


def test_lowering_the_trial_count_leaves_the_trials_beyond_it_out(experiment_file, tmp_path,
                                                                   fake, monkeypatch):
    from smrlab import results
    out = tmp_path / "r"
    two = experiment_file(TINY.replace("trials = 1", "trials = 2"), name="two")
    assert cli.main(["run", str(two), "--smrbench", str(FAKE), "--out", str(out)]) == 0
    # the same experiment (its name is the file's) with one trial: nothing to run, trial 1 of
    # each configuration stays stored but leaves the results, and a failure there would not count
    (tmp_path / "one").mkdir()
    one = tmp_path / "one" / "two.toml"
    one.write_text(TINY)
    assert cli.main(["run", str(one), "--smrbench", str(FAKE), "--out", str(out)]) == 0
    assert len(fake()) == 12
    loaded = results.load(out)
    assert sorted(e["trial"] for e in loaded.entries) == [0] * 6
    assert len(Store(out).entries()) == 12


def test_move_stale_with_out_dot_starts_afresh_in_the_same_place(experiment_file, tmp_path, fake,
                                                                  monkeypatch):
    # "." names the working directory, which --move-stale renames: the new results must go to
    # the path it had, not into the moved directory.
    out = tmp_path / "r"
    path = experiment_file()
    monkeypatch.setenv("FAKE_COMMIT", "aaaaaaa")
    assert cli.main(["run", str(path), "--smrbench", str(FAKE), "--out", str(out)]) == 0
    monkeypatch.setenv("FAKE_COMMIT", "bbbbbbb")
    monkeypatch.chdir(out)
    assert cli.main(["run", str(path), "--smrbench", str(FAKE), "--out", ".", "--move-stale"]) == 0
    moved = [p for p in tmp_path.iterdir() if p.name.startswith("r.")]
    assert len(moved) == 1
    commits = {e["identity"]["build"]["commit"] for e in Store(out).entries()}
    assert commits == {"bbbbbbb"} and len(Store(out).entries()) == 6
    assert {e["identity"]["build"]["commit"] for e in Store(moved[0]).entries()} == {"aaaaaaa"}


def test_a_run_killed_before_its_first_trial_can_be_run_again(experiment_file, tmp_path, fake):
    # It leaves out/.smrlab-tmp/ and nothing else (plan.json comes with the first stored trial).
    out = tmp_path / "r"
    (out / ".smrlab-tmp").mkdir(parents=True)
    assert cli.main(["run", str(experiment_file()), "--smrbench", str(FAKE), "--out", str(out)]) == 0
    assert len(Store(out).entries()) == 6
