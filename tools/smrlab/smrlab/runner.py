"""Runs an experiment's grid through smrbench, one process per configuration and trial."""

import os
import random
import shlex
import signal
import sys
from dataclasses import replace
from pathlib import Path

from smrlab import smrbench
from smrlab.errors import BadInput, Failure, Interrupted
from smrlab.experiment import Config
from smrlab.paths import output_dir_problem
from smrlab.progress import Progress
from smrlab.store import PLAN, Store, now, trial_key

STDERR_KEPT = 4000          # characters of a trial's stderr kept in the store


def schedule(configs: list, trials: int, shuffle: bool, seed: int, paired_suffix: str = ""):
    """Trial 0 of every config, then trial 1 of every config, ...: machine noise that drifts
    over time then hits every algorithm alike instead of biasing whichever ran last.

    With `paired_suffix` ([run] paired_suffix), a config whose reclaimer is shown as X<suffix>
    (its label, or its name when it has no parameters) runs right beside the config of X with
    every other axis equal, X first in even rounds and second in odd ones: a ratio of the two
    then compares runs a trial apart, not a round apart, and neither always runs on the heels of
    the same neighbour. Shuffling moves the pairs as units."""
    groups = _pair_groups(configs, paired_suffix)
    for trial in range(trials):
        order = list(groups)
        if shuffle:
            random.Random(f"{seed}:{trial}").shuffle(order)
        for group in order:
            yield from ((config, trial) for config in (group if trial % 2 == 0 else group[::-1]))


def _pair_groups(configs: list, suffix: str) -> list:
    """(X, X<suffix>) for each config pair that differs only in the reclaimer, shown as X and
    X<suffix> (by name, or by label where one is given: the pairs a ratio finding's
    paired_suffix compares); (c,) for every other config. Each config is in exactly one group,
    placed where its first member appears (in a chain X, X_af, X_af_af one pair forms)."""
    if not suffix:
        return [(c,) for c in configs]

    def cell(c):                # the config's other axes
        return replace(c, reclaimer=None)
    index = {(cell(c), c.reclaimer.shown): c for c in configs}
    grouped, groups = set(), []
    for c in configs:
        if c in grouped:
            continue
        shown = c.reclaimer.shown
        base = index.get((cell(c), shown[:-len(suffix)])) if shown.endswith(suffix) else None
        variant = index.get((cell(c), shown + suffix))
        if base is not None and base not in grouped:
            groups.append((base, c))
        elif variant is not None and variant not in grouped:
            groups.append((c, variant))
        else:
            groups.append((c,))
        grouped.update(groups[-1])
    return groups


def run(experiment, out: Path, binary: Path, quick: bool = False, allow_mixed: bool = False,
        retry_failed: bool = False, move_stale: bool = False, stream=None) -> int:
    """Returns the exit code: 0 when every planned trial in the store succeeded, else 1.
    Everything is checked before the first trial: BadInput lists every problem found."""
    stream = stream or sys.stderr
    # Absolute from here on: --move-stale may rename the working directory (--out .), after
    # which "." would still name the moved one.
    out = Path(os.path.abspath(out))
    caps, why = smrbench.capabilities(binary)
    if caps is None:
        raise Failure(f"`{binary} --list --json -` failed ({why}); smrlab needs its list of names, "
                      f"tunables and compatible pairs to check the experiment before running it")
    problems, plan = [], None
    try:
        plan = experiment.plan(caps, quick)
    except BadInput as e:
        problems += e.args
    store = Store(out)
    out_problem = output_dir_problem(out)
    if not out_problem and store.holds_foreign_files():
        out_problem = (f"--out {out}: a directory that holds other files and no smrlab results "
                       f"(no {PLAN}); use a new or empty directory")
    problems += [out_problem] if out_problem else []
    moved = None
    # Before anything is run or counted as done: trials stored by another build must not pass
    # for this one's, whether new trials would join them or the grid is already complete.
    stale = "" if allow_mixed or caps.identity is None or out_problem else \
        store.identity_problem(caps.identity)
    if stale and move_stale and not problems:
        moved, store, stale = store.move_aside(), Store(out), ""
    problems += [stale] if stale else []
    plan_doc, change = None, ""
    if plan is not None:
        plan_doc = {"experiment": experiment.name, "origin": experiment.origin,
                    "source": experiment.source, "quick": quick, "trials": plan.trials,
                    "smrbench": str(binary), "notes": plan.notes, "written": now(),
                    "paired_suffix": experiment.run.paired_suffix,
                    "configs": [c.to_json() for c in plan.configs]}
        if not problems:
            problem, change = _plan_change(store, plan_doc)
            problems += [problem] if problem else []
    if plan is not None and (suffix := experiment.run.paired_suffix) and \
            not any(len(g) == 2 for g in _pair_groups(plan.configs, suffix)):
        problems.append(f"run.paired_suffix: no configuration X{suffix} has the configuration "
                        f"of X in its cell (every other axis equal), so nothing would run in pairs")
    if problems:
        raise BadInput(*problems)
    if moved is not None:
        print(f"note: {out} held results from another build or machine; moved them to {moved}",
              file=stream)
    pairing = []
    if suffix := experiment.run.paired_suffix:
        groups = _pair_groups(plan.configs, suffix)
        pairs = sum(len(g) == 2 for g in groups)
        pairing = [f"{pairs} pairs X / X{suffix} run side by side in every round "
                   f"(run.paired_suffix), {len(groups) - pairs} configurations alone"]
    for note in plan.notes + pairing + ([change] if change else []):
        print(f"note: {note}", file=stream)

    finished = {e["key"] for e in store.entries() if e["status"] == "ok" or not retry_failed}
    order = schedule(plan.configs, plan.trials, experiment.run.shuffle, experiment.run.seed,
                     experiment.run.paired_suffix)
    jobs = [(c, t) for c, t in order if trial_key(c.hash, t) not in finished]
    total = len(plan.configs) * plan.trials
    print(f"{experiment.name}: {len(plan.configs)} configurations × {plan.trials} trials; "
          f"{total - len(jobs)} already in {out}" + (" (resuming)" if total > len(jobs) else "")
          + f", {len(jobs)} to run", file=stream)
    if not jobs:
        store.write_plan(plan_doc)
    else:
        try:
            _run_jobs(experiment, jobs, plan_doc, store, binary, allow_mixed, stream)
        except Interrupted as stop:
            done = len(store.planned_entries(plan.configs, plan.trials))
            print(f"\nsmrlab: interrupted by {signal.Signals(stop.signum).name}: kept the {done} "
                  f"finished trials of {total} in {out}; any trial under way was dropped. Run "
                  f"the same command to resume.", file=stream)
            raise

    failed = [e for e in store.planned_entries(plan.configs, plan.trials) if e["status"] != "ok"]
    if failed:
        print(f"\n{len(failed)} of {total} trials FAILED in {out}:", file=stream)
        for e in failed[:20]:
            what = f"{Config.from_json(e['config']).describe()} #{e['trial']}"
            print(f"  {what}: {e['error']}", file=stream)
        print("(failed trials count as done; --retry-failed runs them again)", file=stream)
        return 1
    print(f"all {total} trials ok; results in {out}", file=stream)
    return 0


def _plan_change(store: Store, plan_doc: dict) -> tuple[str, str]:
    """(problem, note) for reusing a results directory. It holds one experiment in one mode:
    another experiment, or --quick results beside full ones, is refused. The same experiment
    with another grid or trial count replaces plan.json, and says what changed: trials of
    configurations no longer planned, or beyond the trial count, stay in trials.jsonl but leave
    the reports. A change of run.paired_suffix is said too: stored rounds keep their order."""
    if not store.has_plan():
        return "", ""
    try:
        old = store.read_plan()
        old_name, old_quick, old_trials = old["experiment"], bool(old.get("quick")), old["trials"]
        old_configs = {Config.from_json(c).hash for c in old["configs"]}
    except (KeyError, TypeError, AttributeError, BadInput):
        return (f"--out {store.root}: its {PLAN} is not a smrlab plan; use another --out, or "
                f"remove the directory to start again"), ""
    name, quick = plan_doc["experiment"], bool(plan_doc["quick"])
    pairing = ""
    if old.get("paired_suffix", "") != plan_doc["paired_suffix"] and store.entries():
        pairing = (f"run.paired_suffix changes from {old.get('paired_suffix') or 'none'!r} to "
                   f"{plan_doc['paired_suffix'] or 'none'!r}: the stored trials ran in the old "
                   f"order, the new ones in the new")
    if (old_name, old_quick) != (name, quick):
        mode = {True: "--quick run", False: "full run"}
        return (f"--out {store.root} holds the results of a {mode[old_quick]} of '{old_name}', "
                f"not of a {mode[quick]} of '{name}' (one experiment and mode per directory): "
                f"use another --out, or remove {store.root} to start again"), ""
    configs = {Config.from_json(c).hash for c in plan_doc["configs"]}
    if configs == old_configs and old_trials == plan_doc["trials"]:
        return "", pairing
    added, gone = len(configs - old_configs), len(old_configs - configs)
    return "", "; ".join(filter(None, [
        f"the plan in {store.root / PLAN} changes: trials per configuration "
        f"{old_trials} -> {plan_doc['trials']}, {added} configurations added, {gone} no "
        f"longer planned (their stored trials, and any beyond the trial count, are kept but "
        f"left out of reports)", pairing]))


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
            try:
                outcome = smrbench.run_trial(cmd, json_path, config, trial,
                                             timeout or 60 + 10 * config.duration_s)
            except Interrupted as stop:
                if stop.outcome is not None:      # completed before the signal: keep it
                    _store(store, plan_doc, config, trial, cmd, stop.outcome, timeline_path,
                           allow_mixed, not plan_written)
                    progress.finished(what, stop.outcome.ok)
                raise
            _store(store, plan_doc, config, trial, cmd, outcome, timeline_path, allow_mixed,
                   not plan_written)
            plan_written = True
            json_path.unlink(missing_ok=True)
            progress.finished(what, outcome.ok)
            if not outcome.ok:
                tail = "\n".join("    | " + ln for ln in outcome.stderr.splitlines()[-5:])
                progress.say(f"FAILED {what}: {outcome.error}\n    $ {shlex.join(cmd)}"
                             + (f"\n{tail}" if tail else ""))
    finally:
        progress.close()
        store.remove_tmp()


def _store(store: Store, plan_doc: dict, config, trial: int, cmd: list, outcome, timeline_path,
           allow_mixed: bool, first: bool):
    """Appends one finished trial; before the first, checks that this run belongs in this store
    and writes the plan."""
    identity = smrbench.identity(outcome.record) if outcome.record else None
    if identity:
        store.check_identity(identity, allow_mixed)
    if first:
        store.write_plan(plan_doc)
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
