"""Shared helpers for the smrbench tests: where the binary is, how to run it, and what it offers.

ctest passes the binary in SMRBENCH; run by hand, point SMRBENCH at build/<dir>/bench/smrbench."""

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "bench" / "schema" / "record.schema.json"
SETS_KEY_RANGE = 128  # tiny sets keep list traversals short, so every pair runs in a blink


def smrbench_path():
    path = os.environ.get("SMRBENCH")
    if not path or not Path(path).is_file():
        raise RuntimeError("set SMRBENCH to the smrbench executable (ctest does this)")
    return path


def run(args, timeout=120, env=None, cwd=None):
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    return subprocess.run([smrbench_path(), *args], capture_output=True, text=True, timeout=timeout,
                          env=full_env, cwd=cwd)


@functools.lru_cache(maxsize=None)
def listing():
    r = run(["--list", "--json", "-"])
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def kind(ds):
    return listing()["kinds"][ds]


def short_args(ds, reclaimer, threads=2, duration="0.05"):
    """A short, valid trial of any pair."""
    args = ["--ds", ds, "--reclaimer", reclaimer, "--threads", str(threads), "--duration", duration,
            "--quiet"]
    if kind(ds) == "set":
        args += ["--key-range", str(SETS_KEY_RANGE), "--workload", "25i-25d-50s"]
    else:
        args += ["--key-range", "1024", "--workload", "50i-50d"]
    return args


def read_records(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


@functools.lru_cache(maxsize=None)
def sanitized():
    """True for a sanitizer build: preloading another malloc cannot work under ASan."""
    pairs = listing()["compatible"]
    r = run([*short_args(*pairs[0]), "--json", "-"])
    assert r.returncode == 0, r.stderr
    return "-fsanitize" in json.loads(r.stdout.splitlines()[0])["env"]["flags"]


@pytest.fixture
def outdir(tmp_path):
    """An empty directory for output files; tests check that failures leave it empty."""
    d = tmp_path / "out"
    d.mkdir()
    return d
