"""Signals: SIGINT and SIGTERM (and SIGHUP unless ignored) stop a run, keep every completed
trial's record, say on one stderr line what was kept, and exit with 128 + the signal; an ignored
SIGHUP (nohup) stays ignored; a second signal ends the run at once without leaving a temporary."""

import json
import os
import re
import shutil
import signal
import subprocess
import time

import pytest

from conftest import listing, read_records, short_args, smrbench_path


def pair():
    return listing()["compatible"][0]


def start(args, prefix=()):
    return subprocess.Popen([*prefix, smrbench_path(), *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def wait_until(predicate, timeout=60):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def wait_for_handlers(proc):
    """Without --quiet the first stderr line comes after the handlers are installed."""
    line = proc.stderr.readline()
    assert line.startswith("smrbench: "), line


def stop_lines(stderr, sig):
    return [line for line in stderr.splitlines() if line.startswith(f"smrbench: {sig.name}:")]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_signal_after_a_trial_keeps_its_record(outdir, sig):
    out, timeline = outdir / "r.json", outdir / "t.csv"
    args = [*short_args(*pair()), "--duration", "2", "--trials", "3", "--json", str(out), "--timeline", str(timeline)]
    proc = start(args)
    # Wait for trial 1's record in the JSON temporary (renamed over r.json at the end): from then
    # on trial 2 runs for 2 s. Not for the mere name of a temporary: at start-up smrbench creates
    # and removes an empty one per output to prove each directory writable, and a signal sent then
    # lands in trial 1 (seen in CI under load).
    def trial_1_recorded():
        for name in os.listdir(outdir):
            try:
                if name.startswith(".r.json.smrbench-") and os.path.getsize(outdir / name) > 0:
                    return True
            except FileNotFoundError:  # the start-up check's temporary, removed meanwhile
                pass
        return False

    wait_until(trial_1_recorded)
    time.sleep(0.2)
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig, stderr
    assert [rec["trial"] for rec in read_records(out)] == [1]
    assert stop_lines(stderr, sig) == [
        f"smrbench: {sig.name}: stopped trial 2 of 3 and discarded it; kept the record of trial 1 in {out}, "
        "with its timeline"]
    assert stderr.strip().splitlines() == stop_lines(stderr, sig)  # --quiet: nothing else
    assert sorted(os.listdir(outdir)) == ["r.json", "t.1.csv"]
    assert "1     " in stdout  # trial 1's table row


def test_sigterm_keeps_records_already_on_stdout():
    proc = start([*short_args(*pair()), "--duration", "2", "--trials", "3", "--json", "-"])
    first = json.loads(proc.stdout.readline())  # written as soon as trial 1 ends
    time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM
    assert first["trial"] == 1 and stdout.strip() == ""
    assert stop_lines(stderr, signal.SIGTERM) == [
        "smrbench: SIGTERM: stopped trial 2 of 3 and discarded it; kept the record of trial 1 on standard output"]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_before_any_trial_completes_leaves_the_target_alone(outdir, sig):
    out = outdir / "r.json"
    out.write_text("old\n")
    args = [*short_args(*pair()), "--duration", "30", "--json", str(out)]
    args.remove("--quiet")
    proc = start(args)
    wait_for_handlers(proc)
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=20)  # promptly, not after the 30 s trial
    assert proc.returncode == 128 + sig
    # The signal may land just before trial 1 begins, or during it.
    lines = stop_lines(stderr, sig)
    assert len(lines) == 1 and re.fullmatch(
        f"smrbench: {sig.name}: (stopped trial 1 of 1 and discarded it; )?no trial had completed, nothing written",
        lines[0]), lines
    assert out.read_text() == "old\n" and os.listdir(outdir) == ["r.json"]


@pytest.mark.skipif(shutil.which("nohup") is None, reason="no nohup")
def test_sighup_is_ignored_under_nohup(outdir):
    out = outdir / "r.json"
    args = [*short_args(*pair()), "--duration", "0.5", "--trials", "2", "--json", str(out)]
    args.remove("--quiet")
    proc = start(args, prefix=["nohup"])
    wait_for_handlers(proc)
    proc.send_signal(signal.SIGHUP)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    assert [rec["trial"] for rec in read_records(out)] == [1, 2]
    assert not stop_lines(stderr, signal.SIGHUP)


def test_inherited_ignored_sigint_stays_ignored(outdir):
    # A shell starts background jobs with SIGINT ignored; smrbench must not take it back.
    out = outdir / "r.json"
    args = [*short_args(*pair()), "--duration", "0.5", "--json", str(out)]
    args.remove("--quiet")
    proc = subprocess.Popen([smrbench_path(), *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    wait_for_handlers(proc)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    assert len(read_records(out)) == 1


def test_second_signal_ends_at_once_without_temporaries(outdir):
    out = outdir / "r.json"
    args = [*short_args(*pair()), "--duration", "30", "--json", str(out)]
    args.remove("--quiet")
    proc = start(args)
    wait_for_handlers(proc)
    proc.send_signal(signal.SIGINT)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=20)
    # Either the first one's orderly stop already ended the run, or the second one killed it.
    assert proc.returncode in (128 + signal.SIGINT, -signal.SIGINT)
    assert os.listdir(outdir) == []
