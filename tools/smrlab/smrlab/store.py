"""The results store of one experiment: a directory with

  plan.json      what the last run planned (experiment source, configs, notes), written atomically
  trials.jsonl   one JSON line per finished trial, appended as soon as the trial ends
  timelines/     <config hash>-<trial>.csv, moved in only when complete
  .smrlab-tmp/   files smrbench is writing right now; cleared at the start of every run (a name
                 only smrlab uses, so that no one's own tmp/ is ever cleared)

A trial's key is its config hash and trial index; the last line for a key wins.
"""

import json
import os
import shutil
from datetime import datetime, timezone
from pathlib import Path

from smrlab.axes import DEFAULT_POOL_WAIT
from smrlab.errors import BadInput
from smrlab.files import write_atomically

PLAN, TRIALS, TIMELINES, TMP = "plan.json", "trials.jsonl", "timelines", ".smrlab-tmp"
# What every reader of an entry relies on (append() writes them all).
ENTRY_KEYS = ("key", "config_hash", "trial", "status")


class MixedResults(BadInput):
    pass


def trial_key(config_hash: str, trial: int) -> str:
    return f"{config_hash}:{trial}"


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Store:
    def __init__(self, root: Path):
        self.root = Path(root)
        self.trials_path = self.root / TRIALS
        # The identities check_identity compares with: read from the file once, then kept up to
        # date by append(). Reading every stored entry before each trial made a run quadratic
        # (0.7 s per trial after 1,800 trials of `make bench`).
        self._known: dict[str, dict] | None = None

    # ---- reading ----

    def entries(self) -> list[dict]:
        """The latest entry per trial key, in the order the keys first finished."""
        latest: dict[str, dict] = {}
        if not self.trials_path.exists():
            return []
        data = self.trials_path.read_bytes()
        complete = data[: data.rfind(b"\n") + 1]      # a line cut by a crash is not a trial
        for number, line in enumerate(complete.split(b"\n")[:-1], 1):
            if not line.strip():
                continue
            try:        # json.loads takes bytes; a line that is not UTF-8 is a ValueError too
                entry = json.loads(line)
                if not all(k in entry for k in ENTRY_KEYS) or not isinstance(entry["trial"], int):
                    raise KeyError
                latest[entry["key"]] = entry
            except (ValueError, KeyError, TypeError):
                raise BadInput(f"{self.trials_path}:{number}: not a results entry") from None
            if isinstance(entry.get("config"), dict):     # stored before the readers and pool axes
                entry["config"].setdefault("readers", 0)
                entry["config"].setdefault("node_pool", 0)
                entry["config"].setdefault("pool_wait", DEFAULT_POOL_WAIT)
        return list(latest.values())

    def planned_entries(self, configs, trials: int) -> list[dict]:
        """The entries of a plan: its configurations, trials 0 to trials-1. A plan that lowered
        the trial count leaves the stored trials beyond it out, as those of dropped configs."""
        hashes = {c.hash for c in configs}
        return [e for e in self.entries() if e["config_hash"] in hashes and e["trial"] < trials]

    def holds_foreign_files(self) -> bool:
        """Whether the directory exists, is not a results store, and is not empty: a run there
        would mix its files with someone else's."""
        if not self.root.is_dir() or self.has_plan() or self.trials_path.exists():
            return False
        # TMP alone: a first run killed before its first trial was stored
        return any(p.name not in (TMP, TIMELINES) for p in self.root.iterdir())

    def identities(self) -> list[dict]:
        return list(_identities_of(self.entries()).values())

    def has_plan(self) -> bool:
        return (self.root / PLAN).is_file()

    def read_plan(self) -> dict:
        try:
            return json.loads((self.root / PLAN).read_bytes())
        except FileNotFoundError:
            raise BadInput(f"{self.root} holds no results (no {PLAN}); run the experiment first") \
                from None
        except ValueError as e:
            raise BadInput(f"{self.root / PLAN} is not valid JSON: {e}") from None

    # ---- writing ----

    def check_identity(self, identity: dict, allow_mixed: bool):
        problem = "" if allow_mixed else self.identity_problem(identity)
        if problem:
            raise MixedResults(problem)

    def identity_problem(self, identity: dict) -> str:
        """What is wrong with adding results of this build and machine here ("" if nothing)."""
        if self._known is None:
            self._known = _identities_of(self.entries())
        known = list(self._known.values())
        if not known or identity in known:
            return ""
        return (f"{self.root} holds results from another build or machine:\n"
                f"  stored: {_identity_text(known[0])}\n  this:   {_identity_text(identity)}\n"
                f"use another --out directory, --move-stale to move them aside and start afresh, "
                f"or --allow-mixed to combine them")

    def move_aside(self) -> Path:
        """Renames the whole directory to <name>.<local time>, for a fresh start; returns where."""
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        # "." has no name to add the stamp to. abspath, not resolve(): a symbolic link given as
        # --out stays, and the directory it names is the one moved.
        self.root = Path(os.path.abspath(self.root))
        self.trials_path = self.root / TRIALS
        target = self.root.with_name(f"{self.root.name}.{stamp}")
        n = 1
        while target.exists():
            n += 1
            target = self.root.with_name(f"{self.root.name}.{stamp}-{n}")
        try:
            self.root.rename(target)
        except OSError as e:
            raise BadInput(f"cannot move {self.root} aside to {target}: {e.strerror}") from None
        self._known = None
        return target

    def write_plan(self, plan: dict):
        self.root.mkdir(parents=True, exist_ok=True)
        write_atomically(self.root / PLAN, json.dumps(plan, indent=1) + "\n")

    def append(self, entry: dict):
        """One whole line per trial, flushed to disk before the next trial starts."""
        self.root.mkdir(parents=True, exist_ok=True)
        line = (json.dumps(entry, separators=(",", ":")) + "\n").encode()
        fd = os.open(self.trials_path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            _drop_partial_line(fd)
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)
        if self._known is not None:
            self._known.update(_identities_of([entry]))

    def fresh_tmp(self) -> Path:
        tmp = self.root / TMP
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        return tmp

    def remove_tmp(self):
        shutil.rmtree(self.root / TMP, ignore_errors=True)

    def timeline_path(self, config_hash: str, trial: int) -> Path:
        return self.root / TIMELINES / f"{config_hash}-{trial}.csv"

    def keep_timeline(self, written: Path, config_hash: str, trial: int) -> str:
        final = self.timeline_path(config_hash, trial)
        final.parent.mkdir(parents=True, exist_ok=True)
        os.replace(written, final)
        return str(final.relative_to(self.root))


def _identities_of(entries: list[dict]) -> dict[str, dict]:
    """The distinct identities of these entries, keyed by their canonical JSON."""
    return {json.dumps(e["identity"], sort_keys=True): e["identity"]
            for e in entries if e.get("identity")}


def _drop_partial_line(fd: int):
    """A run killed mid-append leaves a line without its newline: cut it before appending."""
    size = os.lseek(fd, 0, os.SEEK_END)
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return
    data = os.pread(fd, size, 0)
    os.ftruncate(fd, data.rfind(b"\n") + 1)


def _identity_text(identity: dict) -> str:
    build, machine = identity["build"], identity["machine"]
    return (f"commit {build.get('commit')} {build.get('build_type')} {build.get('compiler')} "
            f"[{build.get('flags')}] on {machine.get('hostname')} ({machine.get('cpu')}, "
            f"{machine.get('cores')} cores, {machine.get('kernel')})")
