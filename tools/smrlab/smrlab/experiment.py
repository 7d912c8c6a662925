"""Experiment files: the schema, its strict validation, and expansion of the grid into configs.

An experiment is a TOML file in experiments/ (see docs/smrlab.md for the full schema): paper
figure, description, a [grid] of axes (optionally split into [[grid.case]] sub-grids whose
products are united), [run] settings, [quick] overrides, [plots] and [[finding]] claims.
"""

import hashlib
import itertools
import json
import tomllib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from smrlab import capability_check, findings, metrics, schema
from smrlab.axes import AXES, DEFAULT_POOL_WAIT, NUMERIC_AXES, POOL_WAITS, paired_names, shown
from smrlab.errors import BadInput, Failure
from smrlab.paths import EXPERIMENTS_DIR

ALL = "all"                     # grid value: everything `smrbench --list` reports
DEFAULT_AXES = {"allocator": ["system"], "stall": [0], "readers": [0], "node_pool": [0],
                "pool_wait": [DEFAULT_POOL_WAIT]}
QUICK_DURATION_S = 0.2
MIN_DURATION_S = 0.1
# A trial's time besides its duration, used to fit a time budget: process start, prefill,
# validation, storing the record. Measured on the overview (key range 4096): 0.02 s a trial.
TRIAL_OVERHEAD_S = 0.03
MAX_NAMED_CELLS = 5             # bad cells named one per line; the rest are counted


@dataclass(frozen=True)
class Reclaimer:
    name: str
    params: tuple = ()          # sorted (name, value) pairs, passed as --param name=value
    label: str = ""

    @property
    def shown(self) -> str:
        if self.label:
            return self.label
        if not self.params:
            return self.name
        return f"{self.name}({','.join(f'{k}={v}' for k, v in self.params)})"


@dataclass(frozen=True)
class Config:
    """One grid cell: everything one smrbench invocation needs except the trial index."""
    ds: str
    reclaimer: Reclaimer
    allocator: str
    threads: int
    workload: tuple             # (insert, delete, search) percent
    key_range: int
    stall: int
    duration_s: float
    seed: int                   # trial k runs with seed + k, the same for every config
    timeline: bool
    # Of the `threads` workers, the last `readers` run smrbench's reader workload (searches
    # only); last, with a default, because plans and stores written before it have none.
    readers: int = 0
    # smrbench --node-pool (0: none) and --pool-wait (always the default without a pool).
    node_pool: int = 0
    pool_wait: str = DEFAULT_POOL_WAIT

    def to_json(self) -> dict:
        insert, delete, search = self.workload
        return {"ds": self.ds, "reclaimer": self.reclaimer.name, "label": self.reclaimer.label,
                "params": dict(self.reclaimer.params), "allocator": self.allocator,
                "threads": self.threads,
                "workload": {"insert": insert, "delete": delete, "search": search},
                "key_range": self.key_range, "stall": self.stall, "readers": self.readers,
                "node_pool": self.node_pool, "pool_wait": self.pool_wait,
                "duration_s": self.duration_s, "seed": self.seed, "timeline": self.timeline}

    @classmethod
    def from_json(cls, d: dict) -> "Config":
        w = d["workload"]
        return cls(d["ds"], Reclaimer(d["reclaimer"], tuple(sorted(d["params"].items())), d["label"]),
                   d["allocator"], d["threads"], (w["insert"], w["delete"], w["search"]),
                   d["key_range"], d["stall"], d["duration_s"], d["seed"], d["timeline"],
                   # plans and stores from before the readers and pool axes
                   d.get("readers", 0), d.get("node_pool", 0), d.get("pool_wait", DEFAULT_POOL_WAIT))

    @cached_property
    def hash(self) -> str:
        # The label is presentation only: renaming a variant keeps its results.
        identity = self.to_json()
        del identity["label"]
        # Without readers the hash is the one from before the axis existed, so that stored
        # results keep their keys (a rerun resumes them, reports find them).
        if not identity["readers"]:
            del identity["readers"]
        if not identity["node_pool"]:       # the same for the pool axes
            del identity["node_pool"], identity["pool_wait"]
        text = json.dumps(identity, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def axis(self, name: str):
        return shown(name, getattr(self, name))

    def describe(self) -> str:
        return describe_cell(tuple(getattr(self, axis) for axis in AXES))


def _without_pool_wait(cell: tuple) -> tuple:
    if cell[AXES.index("node_pool")]:
        return cell
    return cell[:AXES.index("pool_wait")] + (DEFAULT_POOL_WAIT,) + cell[AXES.index("pool_wait") + 1:]


def describe_cell(cell: tuple) -> str:
    """A grid cell (one value per axis, in AXES order) in a few words, as progress lines, failed
    trials and timeline titles name it; stall and readers only when not 0."""
    c = dict(zip(AXES, cell))
    return (f"{c['ds']} {c['reclaimer'].shown} t={c['threads']} "
            f"w={shown('workload', c['workload'])} kr={c['key_range']} {c['allocator']}"
            + (f" stall={c['stall']}" if c['stall'] else "")
            + (f" readers={c['readers']}" if c['readers'] else "")
            + (f" pool={c['node_pool']}/{c['pool_wait']}" if c['node_pool'] else ""))


@dataclass
class RunSettings:
    trials: int
    duration_s: float
    budget_s: float | None
    seed: int
    shuffle: bool
    timeline: bool
    timeout_s: float | None
    # Reclaimers X<paired_suffix> run right beside their X in every round (runner.schedule).
    paired_suffix: str = ""


@dataclass
class PlotSettings:
    x: str = "threads"
    logx: bool = False
    logy: list = field(default_factory=list)       # metrics drawn on a logarithmic y axis
    metrics: list = field(default_factory=lambda: ["throughput_ops_s", "peak_rss_bytes",
                                                   "avg_unreclaimed_per_op"])
    bars: list = field(default_factory=list)        # [{"metric", "group", "where"}]


@dataclass
class Plan:
    """What one run will execute, after capability filtering and quick-mode reduction."""
    configs: list
    trials: int
    notes: list                 # human sentences: what was skipped, dropped or scaled


@dataclass
class Experiment:
    name: str
    origin: str                 # file path, for messages
    source: str                 # the TOML text, kept with results so reports match their data
    figure: str
    description: str
    paper: str
    notes: str
    cases: list                 # list of {axis: list | "all"}
    run: RunSettings
    quick: dict                 # axis overrides and duration_s for --quick
    plots: PlotSettings
    findings: list

    def plan(self, caps, quick: bool) -> Plan:
        """Expands the grid; `caps` (smrbench --list) checks it, and refuses it (BadInput, one
        problem per line) when a name, tunable or pair cannot run. None: unchecked."""
        notes = []
        cells = []
        for case in self.cases:
            axes = dict(case)
            if quick:
                axes.update({k: v for k, v in self.quick.items() if k in AXES})
                if "threads" not in self.quick:
                    axes["threads"] = [t for t in axes["threads"] if t <= 2] or [min(axes["threads"])]
            cells.extend(itertools.product(*(self._resolve(axis, axes[axis], caps) for axis in AXES)))
        # Without a pool the wait mode means nothing: one cell, not one per mode.
        cells = list(dict.fromkeys(_without_pool_wait(c) for c in cells))
        problems = self._reader_problems(cells) + self._thread_limit_problems(cells)
        if caps is not None:
            checked = capability_check.check(cells, caps, self.origin)
            problems += checked.problems
            cells, notes = checked.cells, checked.notes
        if problems:
            raise BadInput(*problems)
        if not cells:
            raise Failure(f"{self.name}: nothing left to run after filtering: " + "; ".join(notes))

        trials = 1 if quick else self.run.trials
        duration = self.quick.get("duration_s", QUICK_DURATION_S) if quick else self.run.duration_s
        if self.run.budget_s and not quick:
            fitted = self.run.budget_s / (len(cells) * trials) - TRIAL_OVERHEAD_S
            duration = round(min(duration, max(MIN_DURATION_S, fitted)), 2)
            notes.append(f"trial duration {duration} s to fit the {self.run.budget_s:g} s budget "
                         f"over {len(cells) * trials} trials")
        configs = [Config(ds, rec, alloc, threads, workload, key_range, stall, duration,
                          self.run.seed, self.run.timeline, readers, node_pool, pool_wait)
                   for ds, rec, alloc, threads, workload, key_range, stall, readers, node_pool, pool_wait
                   in cells]
        return Plan(configs, trials, notes)

    def _reader_problems(self, cells: list) -> list:
        """A cell whose readers are not fewer than its threads has no writer; smrbench would
        refuse it (exit 2) only when its turn came. One line per cell, the first few named."""
        bad = [c for c in cells if c[AXES.index("readers")] >= c[AXES.index("threads")]]
        problems = [f"{self.origin}: grid: cell '{describe_cell(c)}': readers = "
                    f"{c[AXES.index('readers')]} leaves no writer; readers must be below threads "
                    f"({c[AXES.index('threads')]})" for c in bad[:MAX_NAMED_CELLS]]
        if len(bad) > MAX_NAMED_CELLS:
            problems.append(f"{self.origin}: grid: … and {len(bad) - MAX_NAMED_CELLS} more cells "
                            f"whose readers are not below their threads (pair readers with thread "
                            f"counts in [[grid.case]] tables)")
        return problems

    def _thread_limit_problems(self, cells: list) -> list:
        """smrbench runs at most MAX_THREADS threads, the stalled ones included."""
        threads, stall = AXES.index("threads"), AXES.index("stall")
        bad = [c for c in cells if c[threads] + c[stall] > MAX_THREADS]
        if not bad:
            return []
        return [f"{self.origin}: grid: {len(bad)} cells, e.g. '{describe_cell(bad[0])}', run more "
                f"than {MAX_THREADS} threads (threads plus stall); smrbench refuses them"]

    def _resolve(self, axis: str, values, caps) -> list:
        if values != ALL:
            return values
        if caps is None:
            raise Failure(f"{self.name}: grid.{axis} = \"all\" needs `smrbench --list`, which failed")
        # External baselines are never in "all": a grid names them, so that what "all" runs
        # does not depend on which libraries this machine has.
        names = {"ds": caps.data_structures, "reclaimer": caps.own_reclaimers(),
                 "allocator": caps.allocators}[axis]
        return [Reclaimer(n) for n in names] if axis == "reclaimer" else list(names)

    def axis_values(self) -> dict:
        """Every value each axis can take in this grid (None where "all" makes it open)."""
        values: dict[str, Any] = {}
        for case in self.cases + [self.quick]:
            for axis in AXES:
                if axis not in case:
                    continue
                if case[axis] == ALL or values.get(axis, ()) is None:
                    values[axis] = None
                    continue
                names = [shown(axis, v) for v in case[axis]]
                values[axis] = list(dict.fromkeys(values.get(axis, []) + names))
        return values


# ---- loading and validation -------------------------------------------------------------

def available() -> list[Path]:
    return sorted(EXPERIMENTS_DIR.glob("*.toml"))


def locate(ref: str) -> Path:
    """An experiment by name (file stem in experiments/) or by path."""
    path = Path(ref)
    if path.suffix == ".toml" or "/" in ref:
        if path.is_dir():
            raise BadInput(f"experiment file {ref} is a directory, not a .toml file")
        if not path.exists():
            raise BadInput(f"experiment file {ref} does not exist")
        return path
    candidate = EXPERIMENTS_DIR / f"{ref}.toml"
    if not candidate.is_file():
        names = ", ".join(p.stem for p in available())
        raise BadInput(f"unknown experiment '{ref}' (available: {names})")
    return candidate


def load(ref: str) -> Experiment:
    path = locate(ref)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise BadInput(f"experiment file {path} cannot be read: {e.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise BadInput(f"{path}:{line}: not UTF-8 text (byte 0x{data[e.start]:02x}); experiment "
                       f"files must be saved as UTF-8") from None
    return parse(text, path.stem, str(path))


def parse(text: str, name: str, origin: str) -> Experiment:
    """The whole file is checked: every problem found is reported (BadInput, one per argument),
    one per section at most, since a section's later keys may depend on its earlier ones."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise BadInput(f"{origin}: not valid TOML: {e}") from None
    problems: list = []

    def checked(read, default=None):
        try:
            return read()
        except BadInput as e:
            problems.extend(e.args)
            return default

    top = checked(lambda: schema.Table(data, origin, ""))
    if top is None:
        raise BadInput(*problems)
    figure = checked(lambda: top.get("figure", schema.string), "")
    description = checked(lambda: top.get("description", schema.string), "")
    paper = checked(lambda: top.get("paper", schema.string, ""), "")
    notes = checked(lambda: top.get("notes", schema.string, ""), "")
    cases = checked(lambda: _read_grid(top.sub("grid")), [])
    run = checked(lambda: _read_run(top.sub("run")))
    quick = checked(lambda: _read_quick(top.sub("quick")), {})
    experiment = Experiment(name, origin, text, figure, description, paper, notes, cases, run,
                            quick, PlotSettings(), [])
    # Values a selector may name; an axis whose grid did not parse is not checked (None).
    values = experiment.axis_values() if cases else {}
    if run is not None and run.paired_suffix and values.get("reclaimer") is not None and \
            not paired_names(values["reclaimer"], run.paired_suffix):
        problems.append(f"{origin}: run.paired_suffix: no reclaimer X{run.paired_suffix} in the "
                        f"grid has its X beside it, so nothing would run in pairs")
    experiment.plots = checked(lambda: _read_plots(top.sub("plots"), values), PlotSettings())
    raw = checked(lambda: top.get("finding", _array_of_tables), [])
    experiment.findings = [f for i, t in enumerate(raw) if (f := checked(
        lambda: findings.parse(schema.Table(t, origin, f"finding[{i}]"), values))) is not None]
    checked(top.close)
    if problems:
        raise BadInput(*problems)
    return experiment


def _array_of_tables(value, table: schema.Table, name: str) -> list:
    if not isinstance(value, list) or not value or not all(isinstance(v, dict) for v in value):
        table.fail(f"expected one or more [[{name}]] tables, got {schema.describe(value)}", name)
    return value


def _names(value, table, name):
    if value == ALL:
        return ALL
    items = schema.list_of(schema.string, f'names (or the string "{ALL}")')(value, table, name)
    return _unique(items, table, name)


def _reclaimers(value, table, name):
    if value == ALL:
        return ALL
    if not isinstance(value, list) or not value:
        table.fail(f'expected "{ALL}" or a non-empty list of reclaimer names or '
                   f'{{name, label, params}} tables, got {schema.describe(value)}', name)
    out = []
    for i, item in enumerate(value):
        if isinstance(item, str):
            out.append(Reclaimer(schema.string(item, table, f"{name}[{i}]")))
            continue
        t = schema.Table(item, table.origin, table.path(f"{name}[{i}]"))
        rec_name = t.get("name", schema.string)
        label = t.get("label", schema.string, "")
        params = t.get("params", _params, {})
        t.close()
        out.append(Reclaimer(rec_name, tuple(sorted(params.items())), label))
    shown = [r.shown for r in out]
    for i, s in enumerate(shown):
        if shown.index(s) != i:
            table.fail(f"two variants are both shown as '{s}': give them distinct labels", name)
    return out


def _params(value, table, name):
    if not isinstance(value, dict):
        table.fail(f"expected a table of tunables (name = value), got {schema.describe(value)}", name)
    for key, v in value.items():
        if not isinstance(v, (str, int, float, bool)):
            table.fail("expected a string, number or boolean", f"{name}.{key}")
    return {k: (str(v).lower() if isinstance(v, bool) else v) for k, v in value.items()}


def _workloads(value, table, name):
    def one(item, t, key):
        parts = item.split(",") if isinstance(item, str) else []
        # ASCII digits only: str.isdigit() also takes superscripts, which int() refuses.
        if len(parts) != 3 or not all(p.strip().isascii() and p.strip().isdigit() for p in parts) \
                or sum(int(p) for p in parts) != 100:
            t.fail(f'expected "insert,delete,search" percentages summing to 100 (e.g. "50,50,0"), '
                   f"got {schema.describe(item)}", key)
        return tuple(int(p) for p in parts)
    return _unique(schema.list_of(one, '"I,D,S" workload strings')(value, table, name), table, name)


def _ints(minimum: int, what: str, maximum: int | None = None):
    def read(value, table, name):
        return _unique(schema.list_of(schema.integer(minimum, maximum), what)(value, table, name),
                       table, name)
    return read


# smrbench's limits (bench/options.hpp), so that a value it would refuse is refused before any
# trial runs: threads (workers plus stalled threads), the default prefill (half the key range),
# the node pool.
MAX_THREADS = 4096
MAX_KEY_RANGE = 2 ** 41
MAX_NODE_POOL = 2 ** 31
MAX_DURATION_S = 1e6


def _unique(items: list, table, name) -> list:
    if len(set(items)) != len(items):
        table.fail("values must not repeat", name)
    return items


AXIS_READERS = {
    "ds": _names, "reclaimer": _reclaimers, "allocator": _names,
    "threads": _ints(1, f"thread counts 1..{MAX_THREADS}", MAX_THREADS), "workload": _workloads,
    "key_range": _ints(1, "key ranges 1..2^41 (smrbench's default prefill, half the range, is at "
                          "most 2^40)", MAX_KEY_RANGE),
    "stall": _ints(0, f"stalled thread counts 0..{MAX_THREADS}", MAX_THREADS),
    "readers": _ints(0, f"reader thread counts 0..{MAX_THREADS}", MAX_THREADS),
    "node_pool": _ints(0, "node pool sizes 0..2^31 (0: no pool)", MAX_NODE_POOL),
    "pool_wait": lambda value, table, name: _unique(
        schema.list_of(schema.one_of(*POOL_WAITS), "pool wait modes")(value, table, name), table, name),
}


def _read_axes(t: schema.Table) -> dict:
    return {axis: t.get(axis, AXIS_READERS[axis]) for axis in AXES if t.has(axis)}


def _read_grid(t: schema.Table) -> list:
    if not t.data:
        t.fail("required table [grid] is missing or empty")
    base = _read_axes(t)
    raw_cases = t.get("case", _array_of_tables, [{}])
    t.close(list(AXES) + ["case"])
    cases = []
    for i, raw in enumerate(raw_cases):
        where = f"{t.key}.case[{i}]" if t.has("case") else t.key
        ct = schema.Table(raw, t.origin, where)
        axes = {**DEFAULT_AXES, **base, **_read_axes(ct)}
        ct.close(list(AXES))
        for axis in AXES:
            if axis not in axes:
                t.fail(f"axis '{axis}' is missing: give it in [grid] or in every [[grid.case]]",
                       axis)
        cases.append(axes)
    return cases


def _duration(value, table, name) -> float:
    seconds = schema.positive_number(value, table, name)
    if seconds > MAX_DURATION_S:
        table.fail(f"expected at most {MAX_DURATION_S:g} s (smrbench's limit), got {value!r}", name)
    if seconds < MIN_DURATION_S:
        table.fail(f"expected at least {MIN_DURATION_S} s, got {value!r}: a shorter trial "
                   f"measures mostly thread start-up and the memory monitor takes too few samples",
                   name)
    return seconds


def _read_run(t: schema.Table) -> RunSettings:
    run = RunSettings(
        trials=t.get("trials", schema.integer(1), 1),
        duration_s=t.get("duration_s", _duration),
        budget_s=t.get("budget_s", schema.positive_number, None),
        seed=t.get("seed", schema.integer(0), 1),
        shuffle=t.get("shuffle", schema.boolean, False),
        timeline=t.get("timeline", schema.boolean, False),
        timeout_s=t.get("timeout_s", schema.positive_number, None),
        paired_suffix=t.get("paired_suffix", schema.string, ""),
    )
    t.close()
    return run


def _read_quick(t: schema.Table) -> dict:
    quick = _read_axes(t)
    if t.has("duration_s"):
        quick["duration_s"] = t.get("duration_s", _duration)
    t.close(list(AXES) + ["duration_s"])
    return quick


def _read_plots(t: schema.Table, values: dict) -> PlotSettings:
    metric_name = schema.one_of(*metrics.METRICS)
    plots = PlotSettings()
    plots.x = t.get("x", schema.one_of(*NUMERIC_AXES), plots.x)
    plots.logx = t.get("logx", schema.boolean, plots.logx)
    plots.metrics = t.get("metrics", schema.list_of(metric_name, "metric names"), plots.metrics)

    def logy(value, table, name):
        if value is True or value is False:
            return list(plots.metrics) if value else []
        return schema.list_of(metric_name, "metric names (or true for every line metric)")(
            value, table, name)
    plots.logy = t.get("logy", logy, [])
    for i, raw in enumerate(t.get("bars", _array_of_tables, [])):
        bt = schema.Table(raw, t.origin, t.path(f"bars[{i}]"))
        plots.bars.append({
            "metric": bt.get("metric", metric_name),
            "group": bt.get("group", schema.one_of(*AXES), None),
            "where": bt.get("where", findings.selector_reader(values), {}),
        })
        bt.close()
    t.close()
    return plots
