"""A results directory read back for plots, reports and summaries."""

import sys
from dataclasses import dataclass
from pathlib import Path

from smrlab import experiment as exp
from smrlab import metrics
from smrlab.errors import BadInput
from smrlab.paths import default_results_dir
from smrlab.store import PLAN, Store


@dataclass
class Results:
    root: Path
    experiment: exp.Experiment      # as it was when the data was produced (from plan.json)
    plan: dict
    configs: list
    entries: list                   # store entries of planned configs only
    rows: list                      # metrics.Row per planned config
    identities: list

    @property
    def failed(self) -> list:
        return [e for e in self.entries if e["status"] != "ok"]

    def timelines(self) -> list:
        """(config, trial, path) for every kept timeline file."""
        by_hash = {c.hash: c for c in self.configs}
        return [(by_hash[e["config_hash"]], e["trial"], self.root / e["timeline"])
                for e in self.entries if e.get("timeline")]


def resolve_dir(target: str, out: str | None, quick: bool) -> Path:
    """TARGET is a results directory (has plan.json) or an experiment name/path."""
    if out:
        return Path(out)
    path = Path(target)
    if (path / PLAN).is_file():
        return path
    if path.is_dir():
        raise BadInput(f"{target} is a directory without {PLAN}: not a results directory")
    name = exp.locate(target).stem
    chosen = default_results_dir(name, quick)
    smoke = default_results_dir(name, True)
    if not quick and not (chosen / PLAN).is_file() and (smoke / PLAN).is_file():
        # `run X --quick` then `report X`: the only results there are come from the smoke run.
        print(f"note: no full results in {chosen}; using the --quick results in {smoke}",
              file=sys.stderr)
        return smoke
    return chosen


def load(root: Path) -> Results:
    store = Store(root)
    plan = store.read_plan()
    try:
        experiment = exp.parse(plan["source"], plan["experiment"], plan["origin"])
        configs = [exp.Config.from_json(c) for c in plan["configs"]]
    except (KeyError, TypeError) as e:
        raise BadInput(f"{root / PLAN} is not a smrlab plan: missing {e}") from None
    try:
        entries = store.planned_entries(configs, int(plan["trials"]))
    except (KeyError, TypeError, ValueError) as e:
        raise BadInput(f"{root / PLAN} is not a smrlab plan: bad or missing trials ({e})") from None
    return Results(root, experiment, plan, configs, entries, metrics.aggregate(configs, entries),
                   store.identities())
