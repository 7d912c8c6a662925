"""The contract with the smrbench binary: --list, one trial's command line, its outcome."""

import json
import re
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from smrlab.errors import Interrupted

SCHEMA = "smrbench/1"
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
# smrbench exits 128+signal after a graceful stop (keeping completed trials); one without
# handlers dies of the signal.
INTERRUPTED_EXITS = {**{128 + s: s for s in STOP_SIGNALS}, **{-s: s for s in STOP_SIGNALS}}
BUILD_KEYS = ("commit", "compiler", "build_type", "flags")
MACHINE_KEYS = ("cpu", "cores", "kernel", "hostname")
# What readers run: smrbench's default --reader-workload, which smrlab relies on and checks.
READER_WORKLOAD = {"insert": 0, "delete": 0, "search": 100}


@dataclass(frozen=True)
class Capabilities:
    data_structures: list
    reclaimers: list
    allocators: list                # usable here: known and with the library installed
    compatible: frozenset           # {(ds, reclaimer)}
    known_allocators: list = ()     # every allocator smrbench knows, installed or not
    incompatible: dict = field(default_factory=dict)   # (ds, reclaimer) -> why not
    tunables: dict = field(default_factory=dict)       # reclaimer -> {tunable: default or None}
    kinds: dict = field(default_factory=dict)          # ds -> "set" | "queue" | "stack"
    # External baselines (other libraries behind smr's concept): built ones are among
    # `reclaimers` too, but "all" leaves them out; unbuilt ones name the package to install.
    external: frozenset = frozenset()
    external_unbuilt: dict = field(default_factory=dict)   # reclaimer -> Debian package
    # The build and machine its trials will record (see identity()); None from an smrbench
    # whose --list does not say.
    identity: dict | None = None
    # The binary, for refusal(): checks that only smrbench can make (a tunable's range, its
    # fit to a data structure). None in tests that build a Capabilities by hand.
    binary: str | None = None

    def own_reclaimers(self) -> list:
        """smr's reclaimers: what a grid's reclaimer = "all" means."""
        return [r for r in self.reclaimers if r not in self.external]

    def accepts_search(self, ds: str) -> bool:
        """Only sets have a search operation; a stack or queue refuses a search share."""
        return self.kinds.get(ds, "set") == "set"


# "name (default D): meaning", D being JSON: the one place a tunable's type can be read from.
_TUNABLE_LINE = re.compile(r"^(\w+) \(default (.+?)\): ")


def _tunables(data: dict) -> dict:
    info = data.get("reclaimer_info") or {}
    out = {}
    for rec, names in (data.get("tunables") or {}).items():
        defaults = {}
        for line in (info.get(rec) or {}).get("tunables", []):
            if m := _TUNABLE_LINE.match(line):
                try:
                    defaults[m.group(1)] = json.loads(m.group(2))
                except ValueError:          # not JSON ("2H + 100"): its type is not checked
                    defaults[m.group(1)] = None
        out[rec] = {name: defaults.get(name) for name in names}
    return out


def capabilities(smrbench: Path) -> tuple[Capabilities | None, str]:
    """What this smrbench offers, or (None, why) when `--list` does not answer per contract."""
    try:
        done = subprocess.run([str(smrbench), "--list", "--json", "-"], capture_output=True,
                              text=True, timeout=30)
        if done.returncode != 0:
            return None, f"exit {done.returncode}: {_tail(done.stderr, 1)}"
        data = json.loads(done.stdout)
        # smrbench may list every allocator it knows and give null for a library not installed.
        libraries = data.get("allocator_libraries", {})
        allocators = [a for a in data["allocators"] if libraries.get(a, "") is not None]
        caps = Capabilities(list(data["data_structures"]), list(data["reclaimers"]), allocators,
                            frozenset((ds, rec) for ds, rec in data["compatible"]),
                            list(data["allocators"]),
                            {(ds, rec): why for ds, rec, why in data.get("incompatible", [])},
                            _tunables(data), dict(data.get("kinds", {})),
                            frozenset(data.get("external_reclaimers", [])),
                            dict(data.get("external_unbuilt", {})),
                            identity(data) if "env" in data else None, str(smrbench))
        return caps, ""
    except (OSError, subprocess.TimeoutExpired, ValueError, KeyError, TypeError) as e:
        return None, f"{type(e).__name__}: {e}"


def refusal(caps: Capabilities, args: list) -> str:
    """Why smrbench would refuse these arguments (its one-line message), or "": `--check` runs
    every check of a run and nothing else. An smrbench without --check refuses nothing here."""
    if caps.binary is None:
        return ""
    try:
        done = subprocess.run([caps.binary, "--check", *args], capture_output=True, text=True,
                              timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    message = _tail(done.stderr, 1).removeprefix("smrbench: ")
    if done.returncode != 2 or "'--check'" in message:
        return ""
    return message


def command(smrbench: Path, config, trial: int, json_path: Path, timeline_path: Path | None) -> list:
    insert, delete, search = config.workload
    cmd = [str(smrbench), "--ds", config.ds, "--reclaimer", config.reclaimer.name,
           "--threads", str(config.threads), "--duration", f"{config.duration_s:g}",
           "--trials", "1", "--seed", str(config.seed + trial), "--key-range", str(config.key_range),
           "--workload", f"{insert},{delete},{search}", "--allocator", config.allocator,
           "--stall", str(config.stall)]
    if config.readers:
        cmd += ["--readers", str(config.readers)]
    if config.node_pool:
        cmd += ["--node-pool", str(config.node_pool), "--pool-wait", config.pool_wait]
    for name, value in config.reclaimer.params:
        cmd += ["--param", f"{name}={value}"]
    cmd += ["--json", str(json_path)]
    if timeline_path is not None:
        cmd += ["--timeline", str(timeline_path)]
    return cmd


@dataclass
class Outcome:
    ok: bool
    exit_code: int | None           # None: killed by our timeout
    record: dict | None
    error: str                      # why it failed, one line; "" when ok
    stderr: str
    wall_s: float


GRACE_S = 10        # how long a signalled smrbench may take to write its completed trial


def run_trial(cmd: list, json_path: Path, config, trial: int, timeout_s: float) -> Outcome:
    """Runs one trial to completion; the caller owns (and cleans) json_path. A stop signal (to
    smrlab, or to smrbench alone) raises Interrupted, carrying the trial if smrbench completed
    it before stopping."""
    start = time.monotonic()
    # Its own process group: a terminal's Ctrl-C reaches smrlab only, which passes it on once.
    # (Both getting it, smrbench would take smrlab's copy as a second signal, which ends it at
    # once, possibly before it has written the trial it completed.)
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, process_group=0)
    try:
        _, stderr = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, stderr = proc.communicate()
        return Outcome(False, None, None, f"timed out after {timeout_s:g} s", stderr,
                       time.monotonic() - start)
    except Interrupted as stop:
        # smrbench got the signal too (a terminal's Ctrl-C) or gets it now: it abandons the
        # trial under way but writes a completed one. A second signal, or GRACE_S, kills it.
        stderr = ""
        try:
            stderr = _stop(proc, stop.signum)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        stop.outcome = _completed(proc.returncode, json_path, config, trial, stderr,
                                  time.monotonic() - start)
        raise
    except BaseException:            # anything else: never leave a trial running behind us
        proc.kill()
        proc.wait()
        raise
    wall = time.monotonic() - start
    code = proc.returncode
    if code in INTERRUPTED_EXITS:
        # smrbench alone was stopped by a signal: the run stops here as if smrlab had been
        # signalled, keeping the trial if smrbench completed it, and resumes later.
        raise Interrupted(INTERRUPTED_EXITS[code],
                          _completed(code, json_path, config, trial, stderr, wall))
    record, problem = _read_record(json_path)
    if record is not None and not problem:
        problem = _mismatch(record, config, trial)
    if code == 0 and problem:
        error = problem
    elif code == 0 and record["validation"].get("ok") is not True:
        error = f"validation failed: {record['validation'].get('detail', '')}"
    elif code == 1:
        detail = record["validation"].get("detail", "") if record and not problem else ""
        error = f"validation failed (exit 1): {detail or _tail(stderr, 1)}"
    elif code == 2:
        error = f"bad input (exit 2): {_tail(stderr, 1)}"
    elif code != 0:
        error = f"crashed: {_exit_text(code)}: {_tail(stderr, 1)}"
    else:
        error = ""
    return Outcome(not error, code, None if problem else record, error, stderr, wall)


def _stop(proc, signum: int) -> str:
    """Passes the stop signal on and waits for smrbench to write what it completed."""
    if proc.poll() is None:
        proc.send_signal(signum)
    try:
        _, stderr = proc.communicate(timeout=GRACE_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, stderr = proc.communicate()
    return stderr or ""


def _completed(code, json_path: Path, config, trial: int, stderr: str, wall: float):
    """The trial smrbench completed before a signal stopped it, or None: only a whole record of
    exactly this configuration counts (smrbench writes none for an abandoned trial)."""
    if code not in INTERRUPTED_EXITS and code != 0:
        return None
    record, problem = _read_record(json_path)
    if record is None or problem or _mismatch(record, config, trial):
        return None
    valid = record["validation"].get("ok") is True
    error = "" if valid else f"validation failed: {record['validation'].get('detail', '')}"
    return Outcome(valid, code, record, error, stderr, wall)


def _read_record(path: Path) -> tuple[dict | None, str]:
    try:
        lines = [ln for ln in path.read_text().splitlines() if ln.strip()]
    except OSError:
        return None, "smrbench wrote no JSON record"
    if len(lines) != 1:
        return None, f"expected one JSON record for --trials 1, got {len(lines)} lines"
    try:
        record = json.loads(lines[0])
    except ValueError as e:
        return None, f"JSON record is malformed: {e}"
    if not isinstance(record, dict) or record.get("schema") != SCHEMA:
        return None, f"record schema is {record.get('schema') if isinstance(record, dict) else None!r}, " \
                     f"expected {SCHEMA!r}"
    for key in ("config", "env", "metrics", "validation"):
        if not isinstance(record.get(key), dict):
            return None, f"record has no '{key}' object"
    return record, ""


def _mismatch(record: dict, config, trial: int) -> str:
    """smrbench must have run what we asked for; a silent default would poison the store."""
    # An smrbench from before --readers (--node-pool) writes no config.readers (node_pool): it
    # ran without readers (a pool).
    got = {"readers": 0, "node_pool": None, "pool_wait": None, **record["config"]}
    want = {"ds": config.ds, "reclaimer": config.reclaimer.name, "threads": config.threads,
            "key_range": config.key_range, "allocator": config.allocator,
            "stalled_threads": config.stall, "seed": config.seed + trial,
            "workload": dict(zip(("insert", "delete", "search"), config.workload)),
            "readers": config.readers, "node_pool": config.node_pool or None,
            "pool_wait": config.pool_wait if config.node_pool else None}
    if config.readers:
        want["reader_workload"] = READER_WORKLOAD
    for key, value in want.items():
        if got.get(key) != value:
            return f"record config.{key} is {got.get(key)!r}, asked for {value!r}"
    return ""


def identity(record: dict) -> dict:
    """The build and machine a record (or `--list --json`) comes from; results of different ones
    must not mix."""
    env = record.get("env", {})
    return {"build": {k: env.get(k) for k in BUILD_KEYS},
            "machine": {k: env.get(k) for k in MACHINE_KEYS}}


def _tail(text: str, lines: int) -> str:
    kept = [ln for ln in (text or "").splitlines() if ln.strip()]
    return " | ".join(kept[-lines:]) or "(no stderr)"


def _exit_text(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit {code}"
