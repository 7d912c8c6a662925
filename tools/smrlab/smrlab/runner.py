"""Runs an experiment's grid through smrbench, one process per configuration and trial."""

import random
import shlex
import sys
from pathlib import Path

from smrlab import smrbench
from smrlab.experiment import Config
from smrlab.progress import Progress
from smrlab.store import Store, now, trial_key

STDERR_KEPT = 4000          # characters of a trial's stderr kept in the store


def schedule(configs: list, trials: int, shuffle: bool, seed: int):
    """Trial 0 of every config, then trial 1 of every config, ...: machine noise that drifts
    over time then hits every algorithm alike instead of biasing whichever ran last."""
    for trial in range(trials):
        order = list(configs)
        if shuffle:
            random.Random(f"{seed}:{trial}").shuffle(order)
        yield from ((config, trial) for config in order)


def run(experiment, out: Path, binary: Path, quick: bool = False, allow_mixed: bool = False,
        retry_failed: bool = False, stream=None) -> int:
    """Returns the exit code: 0 when every planned trial in the store succeeded, else 1."""
    stream = stream or sys.stderr
    caps, why = smrbench.capabilities(binary)
    if caps is None:
        print(f"warning: `{binary} --list --json -` failed ({why}); running every grid cell",
              file=stream)
    plan = experiment.plan(caps, quick)
    for note in plan.notes:
        print(f"note: {note}", file=stream)

    store = Store(out)
    finished = {e["key"] for e in store.entries() if e["status"] == "ok" or not retry_failed}
    order = schedule(plan.configs, plan.trials, experiment.run.shuffle, experiment.run.seed)
    jobs = [(c, t) for c, t in order if trial_key(c.hash, t) not in finished]
    total = len(plan.configs) * plan.trials
    print(f"{experiment.name}: {len(plan.configs)} configurations × {plan.trials} trials; "
          f"{total - len(jobs)} already in {out}, {len(jobs)} to run", file=stream)
    plan_doc = {"experiment": experiment.name, "origin": experiment.origin,
                "source": experiment.source, "quick": quick, "trials": plan.trials,
                "smrbench": str(binary), "notes": plan.notes, "written": now(),
                "configs": [c.to_json() for c in plan.configs]}
    if not jobs:
        store.write_plan(plan_doc)
    else:
        _run_jobs(experiment, jobs, plan_doc, store, binary, allow_mixed, stream)

    hashes = {c.hash for c in plan.configs}
    failed = [e for e in store.entries() if e["config_hash"] in hashes and e["status"] != "ok"]
    if failed:
        print(f"\n{len(failed)} of {total} trials FAILED in {out}:", file=stream)
        for e in failed[:20]:
            what = f"{Config.from_json(e['config']).describe()} #{e['trial']}"
            print(f"  {what}: {e['error']}", file=stream)
        print("(failed trials count as done; --retry-failed runs them again)", file=stream)
        return 1
    print(f"all {total} trials ok; results in {out}", file=stream)
    return 0


def _run_jobs(experiment, jobs, plan_doc, store: Store, binary: Path, allow_mixed: bool, stream):
    tmp = store.fresh_tmp()
    progress = Progress(len(jobs), stream)
    timeout = experiment.run.timeout_s
    plan_written = False
    try:
        for config, trial in jobs:
            what = f"{config.describe()} #{trial}"
            progress.starting(what)
            json_path = tmp / f"{config.hash}-{trial}.json"
            timeline_path = tmp / f"{config.hash}-{trial}.csv" if config.timeline else None
            cmd = smrbench.command(binary, config, trial, json_path, timeline_path)
            outcome = smrbench.run_trial(cmd, json_path, config, trial,
                                         timeout or 60 + 10 * config.duration_s)
            identity = smrbench.identity(outcome.record) if outcome.record else None
            if identity:
                store.check_identity(identity, allow_mixed)
            if not plan_written:      # only once this run is known to belong in this store
                store.write_plan(plan_doc)
                plan_written = True
            kept = None
            if timeline_path and outcome.record and timeline_path.exists():
                kept = store.keep_timeline(timeline_path, config.hash, trial)
            store.append({
                "key": trial_key(config.hash, trial), "config_hash": config.hash, "trial": trial,
                "config": config.to_json(), "status": "ok" if outcome.ok else "failed",
                "exit_code": outcome.exit_code, "error": outcome.error,
                "stderr": outcome.stderr[-STDERR_KEPT:], "record": outcome.record,
                "identity": identity, "timeline": kept, "command": shlex.join(cmd),
                "wall_s": round(outcome.wall_s, 3), "finished": now()})
            json_path.unlink(missing_ok=True)
            progress.finished(what, outcome.ok)
            if not outcome.ok:
                tail = "\n".join("    | " + ln for ln in outcome.stderr.splitlines()[-5:])
                progress.say(f"FAILED {what}: {outcome.error}\n    $ {shlex.join(cmd)}"
                             + (f"\n{tail}" if tail else ""))
    finally:
        progress.close()
        store.remove_tmp()
