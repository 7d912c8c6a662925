"""Command-line parsing and every refusal: bad input exits with 2, says why in one line on stderr,
and leaves no output file (not even a temporary one)."""

import json
import os

import pytest

from conftest import kind, listing, read_records, run, short_args


def first_pair_of_kind(wanted):
    for ds, rec in listing()["compatible"]:
        if kind(ds) == wanted:
            return ds, rec
    pytest.skip(f"no {wanted} registered")


def test_help_exits_zero_and_names_every_option():
    r = run(["--help"])
    assert r.returncode == 0
    for opt in ["--ds", "--reclaimer", "--threads", "--duration", "--trials", "--seed", "--key-range",
                "--workload", "--readers", "--reader-workload", "--prefill", "--pin", "--allocator", "--stall", "--stall-mode", "--stall-ms",
                "--reattach-every", "--quiescent-every", "--json", "--timeline", "--timeline-capacity", "--list", "--param",
                "--poison", "--version"]:
        assert opt in r.stdout
    for status in ["0 ok", "2 bad input", "3 a run-time", "128 + N"]:
        assert status in r.stdout


def test_list_json_shape():
    d = listing()
    for key in ["data_structures", "reclaimers", "allocators", "compatible"]:
        assert isinstance(d[key], list) and d[key], key
    assert set(d["allocators"]) == {"system", "jemalloc", "tcmalloc", "mimalloc"}
    for ds, rec in d["compatible"]:
        assert ds in d["data_structures"] and rec in d["reclaimers"]
    # Every pair is either compatible or refused with a reason, never both or neither.
    compatible = {tuple(p) for p in d["compatible"]}
    refused = {(ds, rec): why for ds, rec, why in d["incompatible"]}
    assert not compatible & set(refused)
    assert len(compatible) + len(refused) == len(d["data_structures"]) * len(d["reclaimers"])
    assert all(refused.values())


def test_list_json_names_the_build_and_machine_a_record_would(outdir):
    # smrlab compares them with a results directory before it runs anything.
    ds, rec = listing()["compatible"][0]
    out = outdir / "r.json"
    assert run(short_args(ds, rec) + ["--json", str(out)]).returncode == 0
    [record] = read_records(out)
    expected = {k: v for k, v in record["env"].items() if k != "allocator_version"}
    assert listing()["env"] == expected
    for key in ["commit", "compiler", "build_type", "flags", "cpu", "cores", "kernel", "hostname"]:
        assert listing()["env"][key] not in (None, ""), key


def test_list_table_names_everything():
    r = run(["--list"])
    assert r.returncode == 0
    for name in listing()["data_structures"] + listing()["reclaimers"]:
        assert name in r.stdout


def test_list_json_to_file(outdir):
    out = outdir / "list.json"
    assert run(["--list", "--json", str(out)]).returncode == 0
    assert json.loads(out.read_text()) == listing()
    assert os.listdir(outdir) == ["list.json"]


def expect_refusal(outdir, args, fragment, env=None):
    out = outdir / "result.json"
    r = run([*args, "--json", str(out)], env=env)
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("smrbench: ")
    assert fragment in lines[0], lines[0]
    assert os.listdir(outdir) == [], "a refused run left files behind"
    return lines[0]


def test_unknown_data_structure_lists_accepted(outdir):
    ds, rec = listing()["compatible"][0]
    line = expect_refusal(outdir, ["--ds", "no_such_ds", "--reclaimer", rec], "unknown data structure 'no_such_ds'")
    for name in listing()["data_structures"]:
        assert name in line


def test_unknown_reclaimer_lists_accepted(outdir):
    ds, rec = listing()["compatible"][0]
    line = expect_refusal(outdir, ["--ds", ds, "--reclaimer", "no_such"], "unknown reclaimer 'no_such'")
    for name in listing()["reclaimers"]:
        assert name in line


def test_incompatible_pair_gives_reason(outdir):
    if not listing()["incompatible"]:
        pytest.skip("every registered pair is compatible")
    ds, rec, why = listing()["incompatible"][0]
    line = expect_refusal(outdir, ["--ds", ds, "--reclaimer", rec], "incompatible pair")
    assert why in line


@pytest.mark.parametrize("workload,fragment", [
    ("30,30,30", "sum to 90, not 100"),
    ("60,50,0", "sum to 110, not 100"),
    ("50i-40d", "expected a preset"),
    ("a,b,c", "expected a preset"),
    ("50,50", "expected a preset"),
])
def test_bad_workload(outdir, workload, fragment):
    ds, rec = first_pair_of_kind("set")
    expect_refusal(outdir, [*short_args(ds, rec), "--workload", workload], fragment)


@pytest.mark.parametrize("threads,fragment", [
    ("0", "between 1 and 4096"),
    ("4097", "between 1 and 4096"),
    ("100000", "between 1 and 4096"),
    ("-3", "expected a non-negative integer"),
    ("two", "expected a non-negative integer"),
])
def test_bad_thread_count(outdir, threads, fragment):
    ds, rec = listing()["compatible"][0]
    expect_refusal(outdir, [*short_args(ds, rec), "--threads", threads], fragment)


def test_threads_plus_stalled_over_limit(outdir):
    ds, rec = listing()["compatible"][0]
    expect_refusal(outdir, [*short_args(ds, rec), "--threads", "4000", "--stall", "100"], "more than the limit")


@pytest.mark.parametrize("duration,fragment", [
    ("0", "must be positive"),
    ("-1", "must be positive"),
    ("abc", "expected a number"),
    ("nan", "expected a number"),
    ("1e-9", "expected at least 0.01 s: a shorter trial gives the memory monitor (1 ms period) fewer than 10 samples"),
    ("0.0099", "expected at least 0.01 s"),
    ("2e6", "at most 1e+06"),
])
def test_bad_duration(outdir, duration, fragment):
    ds, rec = listing()["compatible"][0]
    expect_refusal(outdir, [*short_args(ds, rec), "--duration", duration], fragment)


def test_minimum_duration_is_accepted(outdir):
    ds, rec = listing()["compatible"][0]
    r = run([*short_args(ds, rec), "--duration", "0.01", "--json", str(outdir / "r.json")])
    assert r.returncode == 0, r.stderr


def test_missing_allocator_library_names_file_and_package(outdir, tmp_path):
    empty = tmp_path / "nolibs"
    empty.mkdir()
    ds, rec = listing()["compatible"][0]
    line = expect_refusal(outdir, [*short_args(ds, rec), "--allocator", "jemalloc"], "libjemalloc.so.2 not found",
                          env={"SMRBENCH_ALLOCATOR_PATH": str(empty)})
    assert str(empty) in line and "libjemalloc2" in line


def test_unknown_allocator(outdir):
    ds, rec = listing()["compatible"][0]
    expect_refusal(outdir, [*short_args(ds, rec), "--allocator", "hoard"], "unknown allocator 'hoard'")


def test_unwritable_json_path_refused_before_running(outdir):
    ds, rec = listing()["compatible"][0]
    r = run([*short_args(ds, rec), "--duration", "30", "--json", "/nonexistent-dir/x.json"], timeout=20)
    assert r.returncode == 2
    assert "cannot write --json output '/nonexistent-dir/x.json'" in r.stderr
    assert "trial" not in r.stdout  # no trial ran (it would have taken 30 s)


def test_json_path_that_is_a_directory(outdir):
    ds, rec = listing()["compatible"][0]
    r = run([*short_args(ds, rec), "--json", str(outdir)])
    assert r.returncode == 2 and "is a directory" in r.stderr
    assert os.listdir(outdir) == []


def test_unwritable_timeline_path(outdir):
    ds, rec = listing()["compatible"][0]
    expect_refusal(outdir, [*short_args(ds, rec), "--timeline", "/nonexistent-dir/t.csv"],
                   "cannot write --timeline output")


def test_unknown_param_lists_accepted_names(outdir):
    tunable = {r: names for r, names in listing()["tunables"].items() if names}
    if not tunable:
        pytest.skip("no reclaimer has tunables")
    rec, names = sorted(tunable.items())[0]
    ds = next(d for d, r in listing()["compatible"] if r == rec)
    line = expect_refusal(outdir, [*short_args(ds, rec), "--param", "bogus=1"], f"unknown --param 'bogus' for {rec}")
    for name in names:
        assert name in line


def test_bad_param_value(outdir):
    tunable = {r: names for r, names in listing()["tunables"].items() if names}
    if not tunable:
        pytest.skip("no reclaimer has tunables")
    rec, names = sorted(tunable.items())[0]
    ds = next(d for d, r in listing()["compatible"] if r == rec)
    expect_refusal(outdir, [*short_args(ds, rec), "--param", f"{names[0]}=lots"], f"bad --param {names[0]}=lots")


def test_param_without_value(outdir):
    ds, rec = listing()["compatible"][0]
    expect_refusal(outdir, [*short_args(ds, rec), "--param", "novalue"], "expected NAME=VALUE")


def test_param_given_twice(outdir):
    tunable = {r: names for r, names in listing()["tunables"].items() if names}
    rec, names = sorted(tunable.items())[0]
    ds = next(d for d, r in listing()["compatible"] if r == rec)
    expect_refusal(outdir, [*short_args(ds, rec), "--param", f"{names[0]}=5", "--param", f"{names[0]}=6"],
                   "more than once")


def test_quiescent_every_only_for_reclaimers_with_that_tunable(outdir):
    others = [r for r, names in listing()["tunables"].items() if "quiescent_every" not in names]
    ds = next(d for d, r in listing()["compatible"] if r == others[0])
    expect_refusal(outdir, [*short_args(ds, others[0]), "--quiescent-every", "10"], "unknown --param 'quiescent_every'")


def test_unknown_option(outdir):
    ds, rec = listing()["compatible"][0]
    expect_refusal(outdir, [*short_args(ds, rec), "--frobnicate"], "unknown option '--frobnicate'")


def test_option_missing_its_value():
    r = run(["--ds"])
    assert r.returncode == 2 and "--ds needs a value" in r.stderr


def test_missing_ds(outdir):
    expect_refusal(outdir, ["--reclaimer", listing()["reclaimers"][0]], "missing --ds")


def test_stack_or_queue_refuses_searches(outdir):
    for wanted in ["stack", "queue"]:
        ds, rec = first_pair_of_kind(wanted)
        expect_refusal(outdir, [*short_args(ds, rec), "--workload", "25i-25d-50s"], "no search operation")


def test_stack_or_queue_refuses_searching_readers(outdir):
    ds, rec = first_pair_of_kind("stack")
    expect_refusal(outdir, [*short_args(ds, rec), "--readers", "1"], "give --reader-workload with a search share of 0")


def test_set_prefill_beyond_key_range(outdir):
    ds, rec = first_pair_of_kind("set")
    expect_refusal(outdir, [*short_args(ds, rec), "--key-range", "100", "--prefill", "101"], "exceeds --key-range")


@pytest.mark.parametrize("extra,fragment", [
    (["--stall-ms", "5"], "need --stall N"),
    (["--stall", "1", "--stall-ms", "5"], "applies only to --stall-mode periodic"),
    (["--stall", "1", "--stall-mode", "periodic"], "needs --stall-ms"),
    (["--stall", "1", "--stall-mode", "sometimes"], "expected whole or periodic"),
    (["--pin", "everywhere"], "expected none, compact or scatter"),
    (["--timeline-capacity", "10"], "needs --timeline"),
    (["--readers", "2"], "--readers 2 leaves no writer: it must be below --threads 2"),
    (["--reader-workload", "0,0,100"], "--reader-workload needs --readers N"),
    (["--readers", "1", "--reader-workload", "50,0,0"], "bad --reader-workload '50,0,0': the percentages sum to 50"),
])
def test_inconsistent_options(outdir, extra, fragment):
    ds, rec = listing()["compatible"][0]
    expect_refusal(outdir, [*short_args(ds, rec), *extra], fragment)


def test_construction_error_is_bad_input(outdir):
    # A hazard-pointer domain with fewer slots than the structure needs is refused up front.
    if "hp" not in listing()["reclaimers"] or "slots" not in listing()["tunables"]["hp"]:
        pytest.skip("no hp")
    ds = next(d for d, r in listing()["compatible"] if r == "hp" and d.startswith("hash_map"))  # needs 3
    expect_refusal(outdir, [*short_args(ds, "hp"), "--param", "slots=1"], "protection slots")


def test_tunable_below_its_minimum_is_bad_input(outdir):
    # The minimum comes from the reclaimer's own metadata (its rule's tunables).
    if "hp" not in listing()["reclaimers"]:
        pytest.skip("no hp")
    expect_refusal(outdir, [*short_args("hash_map", "hp"), "--param", "slots=0"], "hp: slots must be at least 1")


def test_external_baselines_are_marked_and_unbuilt_ones_say_what_to_install(outdir):
    d = listing()
    external = d.get("external_reclaimers", [])
    unbuilt = d.get("external_unbuilt", {})
    assert set(external) | set(unbuilt) == {"urcu_qsbr", "urcu_memb", "ck_epoch", "cds_hp", "cds_dhp"}
    assert not set(external) & set(unbuilt)
    table = run(["--list"]).stdout
    for name in external:
        assert name in d["reclaimers"] and d["reclaimer_info"][name]["external"]
        assert f"{name}" in table and "[external]" in table
    for name in d["reclaimers"]:
        assert d["reclaimer_info"][name]["external"] == (name in external)
    if not unbuilt:
        pytest.skip("every external baseline is built into this smrbench")
    name, package = next(iter(unbuilt.items()))
    ds = d["data_structures"][0]
    expect_refusal(outdir, ["--ds", ds, "--reclaimer", name], f"install {package}")


@pytest.mark.parametrize("option,value,fragment", [
    ("--seed", "18446744073709551616", "must be between 0 and 18446744073709551615"),
    ("--threads", "1" + "0" * 30, "must be between 1 and 4096"),
    ("--quiescent-every", "4294967296", "must be between 1 and 4294967295"),
    ("--reattach-every", "0", "must be between 1 and 1099511627776"),
])
def test_a_number_too_large_names_the_limit(outdir, option, value, fragment):
    ds, rec = listing()["compatible"][0]
    expect_refusal(outdir, [*short_args(ds, rec), option, value], fragment)


def test_a_repeated_option_takes_its_last_value(outdir):
    # As in most command-line tools (a script's defaults, then the caller's); --param alone
    # refuses a repeated name (test_param_given_twice).
    ds, rec = first_pair_of_kind("set")
    out = outdir / "r.json"
    r = run([*short_args(ds, rec), "--seed", "1", "--seed", "7", "--json", str(out)])
    assert r.returncode == 0, r.stderr
    assert read_records(out)[0]["config"]["seed"] == 7


def test_a_default_prefill_beyond_the_limit_is_refused(outdir):
    ds, rec = first_pair_of_kind("set")
    args = [a for a in short_args(ds, rec)]
    args[args.index("--key-range") + 1] = str(2 ** 62)
    expect_refusal(outdir, args, "the default prefill, half of it, exceeds 1099511627776 elements; give --prefill N")


@pytest.mark.parametrize("trials", [1, 3])
def test_json_and_timeline_naming_the_same_file_are_refused(outdir, trials):
    ds, rec = listing()["compatible"][0]
    same = outdir / ("t.2.csv" if trials == 3 else "r.out")
    timeline = outdir / ("t.csv" if trials == 3 else "r.out")
    r = run([*short_args(ds, rec), "--trials", str(trials), "--json", str(same), "--timeline", str(timeline)])
    assert r.returncode == 2, r.stderr
    assert "name the same file" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert os.listdir(outdir) == []


def test_too_many_trials_with_a_timeline_are_refused(outdir):
    ds, rec = listing()["compatible"][0]
    expect_refusal(outdir, [*short_args(ds, rec), "--trials", "200", "--timeline", str(outdir / "t.csv")],
                   "at most 127 trials")


def test_check_runs_every_check_and_nothing_else(outdir):
    ds, rec = listing()["compatible"][0]
    ok = run([*short_args(ds, rec), "--check", "--json", str(outdir / "r.json"), "--timeline", str(outdir / "t.csv")])
    assert (ok.returncode, ok.stdout, ok.stderr) == (0, "", "")
    assert os.listdir(outdir) == []
    refused = run([*short_args(ds, rec), "--check", "--param", "no_such_tunable=1"])
    assert refused.returncode == 2 and "unknown --param 'no_such_tunable'" in refused.stderr
    below = run([*short_args(ds, rec), "--check", "--allocator", "no_such_allocator"])
    assert below.returncode == 2 and "no_such_allocator" in below.stderr


def test_the_trial_cap_applies_to_timeline_files_only(outdir):
    # A device is written through (no temporary waits for the end of the run).
    ds, rec = listing()["compatible"][0]
    ok = run([*short_args(ds, rec), "--check", "--trials", "200", "--timeline", "/dev/null"])
    assert ok.returncode == 0, ok.stderr


def test_a_fifo_timeline_takes_one_trial(outdir):
    # Its reader stops at the end of the first trial's timeline: a second open would block.
    ds, rec = listing()["compatible"][0]
    fifo = outdir / "t.fifo"
    os.mkfifo(fifo)
    r = run([*short_args(ds, rec), "--check", "--trials", "2", "--timeline", str(fifo)])
    assert r.returncode == 2 and "is a FIFO, which takes one trial's timeline" in r.stderr
    assert run([*short_args(ds, rec), "--check", "--timeline", str(fifo)]).returncode == 0


def test_json_through_a_dangling_link_to_the_timeline_is_refused(outdir):
    ds, rec = listing()["compatible"][0]
    os.symlink("t.csv", outdir / "link")
    r = run([*short_args(ds, rec), "--json", str(outdir / "link"), "--timeline", str(outdir / "t.csv")])
    assert r.returncode == 2 and "name the same file" in r.stderr
    assert sorted(os.listdir(outdir)) == ["link"]
