"""The runner end to end through a fake smrbench (tests/fake_smrbench.py)."""

import json

from conftest import FAKE, FIXTURES, TINY, lines, smrlab_process

from smrlab import cli, smrbench
from smrlab.store import Store


TWO_TRIALS = TINY.replace("trials = 1", "trials = 2")


def run(path, out, *extra) -> int:
    return cli.main(["run", str(path), "--smrbench", str(FAKE), "--out", str(out), *extra])


def test_runs_every_trial_once_then_resumes_without_redoing_any(experiment_file, tmp_path,
                                                                fake, capsys):
    out = tmp_path / "r"
    path = experiment_file(TWO_TRIALS)
    assert run(path, out) == 0
    entries = Store(out).entries()
    assert len(entries) == 3 * 2 * 2 and {e["status"] for e in entries} == {"ok"}
    assert sorted(p.name for p in out.iterdir()) == ["plan.json", "trials.jsonl"]   # no tmp left
    first = fake()
    assert len(first) == 12
    # interleaved: every config's trial 0 before any trial 1; seeds follow the trial index
    trials = [int(args[args.index("--seed") + 1]) - 1 for args in first]
    assert trials == [0] * 6 + [1] * 6
    assert all(args[args.index("--trials") + 1] == "1" for args in first)
    plan = json.loads((out / "plan.json").read_text())
    assert plan["source"] == path.read_text() and len(plan["configs"]) == 6

    assert run(path, out) == 0
    assert len(fake()) == 12
    assert "12 already in" in capsys.readouterr().err


def test_failed_trials_are_recorded_reported_and_exit_1(experiment_file, tmp_path, fake,
                                                        monkeypatch, capsys):
    out = tmp_path / "r"
    path = experiment_file()
    monkeypatch.setenv("FAKE_FAIL", "ebr:1,hp:2,none:crash")
    assert run(path, out) == 1
    err = capsys.readouterr().err
    assert err.count("\nFAILED ") == 6 and "6 of 6 trials FAILED" in err
    by_reclaimer = {e["config"]["reclaimer"]: e for e in Store(out).entries()}
    ebr, hp, none = by_reclaimer["ebr"], by_reclaimer["hp"], by_reclaimer["none"]
    assert ebr["exit_code"] == 1 and ebr["error"].startswith("validation failed (exit 1): key sum")
    assert ebr["record"]["validation"]["ok"] is False       # kept for the report
    assert hp["error"] == "bad input (exit 2): smrbench: unknown reclaimer 'hp'"
    assert "unknown reclaimer" in hp["stderr"] and hp["record"] is None
    assert none["error"].startswith("crashed: killed by SIGABRT")

    # failed trials count as done (a rerun must not hide a validation failure) ...
    assert run(path, out) == 1
    assert len(fake()) == 6
    # ... unless asked to retry them
    monkeypatch.delenv("FAKE_FAIL")
    assert run(path, out, "--retry-failed") == 0
    assert len(fake()) == 12


def test_paired_runs_are_adjacent_in_every_round_and_said_so(experiment_file, tmp_path, fake,
                                                               capsys):
    path = experiment_file(TWO_TRIALS.replace(
        'reclaimer = ["none", "ebr", "hp"]',
        'reclaimer = ["none", "ebr", "hp", { name = "hp", params = { slots = 4 }, label = "hp_same" }]')
        .replace("trials = 2", 'trials = 2\nshuffle = true\npaired_suffix = "_same"'))
    assert run(path, tmp_path / "r") == 0
    assert "note: 2 pairs X / X_same run side by side in every round (run.paired_suffix), " \
           "4 configurations alone" in capsys.readouterr().err
    runs = [(a[a.index("--reclaimer") + 1], "--param" in a, a[a.index("--threads") + 1],
             int(a[a.index("--seed") + 1]) - 1) for a in fake()]
    assert len(runs) == 16
    for i, (reclaimer, same, threads, trial) in enumerate(runs):
        if reclaimer == "hp" and not same:      # hp, then hp_same in round 0; the reverse in 1
            partner = runs[i + 1] if trial == 0 else runs[i - 1]
            assert partner == ("hp", True, threads, trial)


def test_a_pairing_that_pairs_no_cell_is_refused_and_a_changed_one_is_said(
        experiment_file, tmp_path, fake, capsys):
    # hp_same and hp are both in the grid, but never in the same cell (other thread counts)
    apart = TINY.replace('threads = [1, 2]\n', '') \
        .replace('[run]', '[[grid.case]]\nthreads = [1]\n[[grid.case]]\nthreads = [2]\n'
                 'reclaimer = [{ name = "hp", params = { slots = 4 }, label = "hp_same" }]\n[run]') \
        .replace("trials = 1", 'trials = 1\npaired_suffix = "_same"')
    assert run(experiment_file(apart), tmp_path / "a") == 2
    assert "run.paired_suffix: no configuration X_same has the configuration of X in its cell" \
        in capsys.readouterr().err and fake() == []
    # the same store, first unpaired, then paired: the note says the order changed
    plain = TINY.replace('reclaimer = ["none", "ebr", "hp"]',
                         'reclaimer = ["none", "hp", { name = "hp", params = { slots = 4 }, label = "hp_same" }]')
    out = tmp_path / "r"
    assert run(experiment_file(plain), out) == 0
    paired = plain.replace("trials = 1", 'trials = 2\npaired_suffix = "_same"')
    assert run(experiment_file(paired), out) == 0
    assert "run.paired_suffix changes from 'none' to '_same': the stored trials ran in the old " \
        "order" in capsys.readouterr().err


def test_a_record_for_another_configuration_is_a_failure(experiment_file, tmp_path, fake,
                                                         monkeypatch):
    monkeypatch.setenv("FAKE_REPLAY", str(FIXTURES))        # fixture key range is not 100
    out = tmp_path / "r"
    assert run(experiment_file(), out) == 1
    errors = {e["error"] for e in Store(out).entries()}
    assert len(errors) == 1 and errors.pop().startswith("record config.key_range is ")


def test_interrupted_run_keeps_whole_trials_and_resumes(experiment_file, tmp_path, fake):
    out = tmp_path / "r"
    path = experiment_file()
    # Unshuffled order: none t1, none t2, ebr t1, ebr t2, hp t1 <- interrupted there
    done = smrlab_process(["run", path, "--smrbench", FAKE, "--out", out],
                          env={"FAKE_INTERRUPT": "hp"})
    assert done.returncode == 130, done.stderr
    assert "interrupted" in done.stderr
    kept = lines(out / "trials.jsonl")
    assert [(e["config"]["reclaimer"], e["config"]["threads"]) for e in kept] == \
        [("none", 1), ("none", 2), ("ebr", 1), ("ebr", 2)]
    assert sorted(p.name for p in out.iterdir()) == ["plan.json", "trials.jsonl"]

    assert run(path, out) == 0
    assert len(fake()) == 5 + 2            # 4 kept + 1 interrupted, then only the 2 missing
    assert len(Store(out).entries()) == 6


def test_refuses_to_mix_builds_unless_allowed(experiment_file, tmp_path, fake, monkeypatch,
                                              capsys):
    out = tmp_path / "r"
    assert run(experiment_file(), out) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    more = experiment_file(TWO_TRIALS)
    ran = len(fake())

    monkeypatch.setenv("FAKE_COMMIT", "another")
    assert run(more, out) == 2
    err = capsys.readouterr().err
    assert "another build or machine" in err and "--allow-mixed" in err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before      # nothing written
    assert len(fake()) == ran                           # refused before running any trial

    assert run(more, out, "--allow-mixed") == 0
    assert len(Store(out).identities()) == 2


def test_a_rebuild_does_not_reuse_the_old_builds_trials(experiment_file, tmp_path, fake,
                                                        monkeypatch, capsys):
    # The same grid, complete in the store, but smrbench was rebuilt: refused rather than
    # reported as done; with --move-stale the old results go aside and every trial runs anew.
    out = tmp_path / "r"
    path = experiment_file()
    assert run(path, out) == 0 and len(fake()) == 6
    before = (out / "trials.jsonl").read_bytes()

    monkeypatch.setenv("FAKE_COMMIT", "rebuilt")
    assert run(path, out) == 2
    assert "another build or machine" in capsys.readouterr().err and len(fake()) == 6

    assert run(path, out, "--move-stale") == 0
    assert len(fake()) == 12
    [aside] = [p for p in tmp_path.iterdir() if p.name.startswith("r.")]
    assert (aside / "trials.jsonl").read_bytes() == before
    assert "moved them to" in capsys.readouterr().err
    assert [i["build"]["commit"] for i in Store(out).identities()] == ["rebuilt"]

    assert run(path, out, "--move-stale") == 0        # same build: resumes, moves nothing
    assert len(fake()) == 12
    assert len([p for p in tmp_path.iterdir() if p.name.startswith("r.")]) == 1


def test_capabilities_filter_the_grid_and_a_failing_list_stops_the_run(experiment_file, tmp_path,
                                                                        fake, monkeypatch, capsys):
    text = TINY.replace('ds = ["hm_list"]', 'ds = ["hm_list", "harris_list"]') \
        .replace('reclaimer = ["none", "ebr", "hp"]', 'reclaimer = ["ebr", "hp"]') \
        .replace("threads = [1, 2]", 'threads = [1]\nallocator = ["system", "tcmalloc"]') \
        .replace('reclaimer = "none"', 'reclaimer = "ebr"')
    path = experiment_file(text)
    assert run(path, tmp_path / "a") == 0
    err = capsys.readouterr().err
    assert "dropping allocator 'tcmalloc': smrbench knows it but its library is not installed" \
        in err
    assert "skipping hp×harris_list: the data structure traverses unlinked nodes" in err
    assert len(fake()) == 3

    # Without `--list` nothing can be checked, so nothing runs and nothing is written.
    monkeypatch.setenv("FAKE_LIST", "fail")
    assert run(path, tmp_path / "b") == 1
    assert "--list --json -` failed (exit 2: smrbench: unknown option --list)" in \
        capsys.readouterr().err
    assert len(fake()) == 3 and not (tmp_path / "b").exists()


def test_timelines_are_kept_for_trials_that_produced_a_record(experiment_file, tmp_path, fake,
                                                              monkeypatch):
    monkeypatch.setenv("FAKE_FAIL", "hp:2")
    out = tmp_path / "r"
    path = experiment_file(TINY.replace("duration_s = 0.1", "duration_s = 0.1\ntimeline = true"))
    assert run(path, out) == 1
    entries = Store(out).entries()
    kept = {e["config"]["reclaimer"] for e in entries if e["timeline"]}
    assert kept == {"none", "ebr"}
    for e in entries:
        if e["timeline"]:
            assert (out / e["timeline"]).read_text().startswith("# smrbench-timeline 1 ")
    assert all("--timeline" in args for args in fake())


def test_missing_smrbench_is_bad_input(experiment_file, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("SMRBENCH", raising=False)
    code = cli.main(["run", str(experiment_file()), "--smrbench", str(tmp_path / "nope"),
                     "--out", str(tmp_path / "r")])
    assert code == 2 and "smrbench not found" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_allocators_without_a_library_count_as_absent(fake, monkeypatch):
    listing = {"data_structures": ["hm_list"], "reclaimers": ["ebr"], "compatible": [["hm_list", "ebr"]],
               "allocators": ["system", "jemalloc", "tcmalloc"],
               "allocator_libraries": {"system": "libc", "jemalloc": "/usr/lib/libjemalloc.so.2",
                                       "tcmalloc": None}}
    monkeypatch.setenv("FAKE_LIST", json.dumps(listing))
    caps, why = smrbench.capabilities(FAKE)
    assert why == "" and caps.allocators == ["system", "jemalloc"]
