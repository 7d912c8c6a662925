import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
FAKE = HERE / "fake_smrbench.py"
FIXTURES = HERE / "fixtures"
PACKAGE_ROOT = HERE.parent

TINY = """\
figure = "test figure"
description = "a tiny grid for tests"
[grid]
ds = ["hm_list"]
reclaimer = ["none", "ebr", "hp"]
threads = [1, 2]
workload = ["50,50,0"]
key_range = [100]
[run]
trials = 1
duration_s = 0.1
[[finding]]
text = "hp is slower than none"
kind = "ratio"
metric = "throughput_ops_s"
numerator = { reclaimer = "hp" }
denominator = { reclaimer = "none" }
max = 0.9
"""


@pytest.fixture
def experiment_file(tmp_path):
    def write(text: str = TINY, name: str = "tiny") -> Path:
        path = tmp_path / f"{name}.toml"
        path.write_text(text)
        return path
    return write


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """The fake smrbench with an invocation log; returns a reader of the logged trial runs."""
    log = tmp_path / "fake.log"
    monkeypatch.setenv("FAKE_LOG", str(log))
    for name in ("FAKE_LIST", "FAKE_FAIL", "FAKE_INTERRUPT", "FAKE_STOP", "FAKE_COMMIT",
                 "FAKE_REPLAY", "FAKE_GROUPS", "FAKE_CHECK"):
        monkeypatch.delenv(name, raising=False)

    def trial_runs() -> list:
        if not log.exists():
            return []
        return [a for a in map(json.loads, log.read_text().splitlines()) if "--list" not in a]
    return trial_runs


def default_stop_signals():
    """The stop signals at their default disposition, whatever the test run inherited: under
    nohup (or a CI runner that ignores SIGHUP) smrlab rightly keeps an ignored SIGHUP ignored,
    and a test that expects the default would then see the run finish."""
    for s in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):
        signal.signal(s, signal.SIG_DFL)


def smrlab_process(args: list, env: dict | None = None,
                   preexec_fn=None) -> subprocess.CompletedProcess:
    """smrlab in its own process (for signals and the wrapper's exit codes). The child starts
    with the stop signals at their defaults; preexec_fn then sets what a test needs."""
    def setup():
        default_stop_signals()
        if preexec_fn is not None:
            preexec_fn()

    full_env = {**os.environ, **(env or {}), "PYTHONPATH": str(PACKAGE_ROOT)}
    return subprocess.run([sys.executable, "-m", "smrlab", *map(str, args)], env=full_env,
                          capture_output=True, text=True, timeout=60, preexec_fn=setup)


def lines(path: Path) -> list:
    return [json.loads(line) for line in path.read_text().splitlines()]
