"""Machine-checkable findings: their schema and their check against aggregated results.

A finding compares per-configuration statistics (median by default) of one metric:
  ratio    numerator / denominator within [min, max], for every pair in every cell; or, with
           `paired_suffix` (e.g. "_af"), every reclaimer X<suffix> against X
  order    values along `by` follow `order` (highest first, or lowest with direction)
  trend    a metric, or a numerator/denominator ratio, rises or falls along a numeric axis
  bounded  the metric of every selected configuration lies within [min, max]
A *cell* is a group of rows that agree on every axis the finding does not compare, so that a
claim is checked separately for each data structure, thread count, ... in the selection.
With the median (the default statistic) a comparison is decided only beyond the noise: the 95%
bootstrap interval of the ratio (stats.py) must lie wholly inside the bounds to pass, wholly
outside to fail; otherwise it is "within the noise". A bounded finding's min and max may be
expressions of the configuration's threads, key_range, stall and readers, so that the threshold
is the algorithm's own bound (NBR: "threads * 32768", the bag size per thread).
"""

import ast
import operator
from dataclasses import dataclass, field

from smrlab import metrics, schema, stats
from smrlab.axes import AXES, NAME_AXES, NUMERIC_AXES, paired_names

KINDS = ("ratio", "order", "trend", "bounded")
KIND_KEYS = {
    "ratio": ["numerator", "denominator", "paired_suffix", "min", "max"],
    "order": ["by", "order", "direction", "tolerance"],
    "trend": ["along", "direction", "tolerance", "numerator", "denominator"],
    "bounded": ["min", "max"],
}
COMMON_KEYS = ["text", "kind", "metric", "stat", "where"]

HOLDS, FAILS, UNDECIDED, ERROR = "holds here", "does not hold here", "not checked here", "error"
NOISE = "within the noise here"
BOUND_NAMES = NUMERIC_AXES          # the names a bound expression may use


@dataclass(frozen=True)
class Bound:
    """A bound of a bounded finding: a number, or an expression of the configuration's numeric
    axes (+ - * / and parentheses), e.g. "threads * 32768"."""
    text: str
    tree: object = None             # ast.Expression, None for a plain number
    number: float = 0.0

    def at(self, row) -> float:
        if self.tree is None:
            return self.number
        return _evaluate(self.tree.body, {n: row.axis(n) for n in BOUND_NAMES})

    def __str__(self) -> str:
        return self.text


_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.Div: operator.truediv}


def _evaluate(node, names: dict) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_evaluate(node.left, names), _evaluate(node.right, names))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand, names)
    raise ValueError(ast.unparse(node) if hasattr(ast, "unparse") else "expression")


def bound(value, table: schema.Table, name: str) -> Bound:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return Bound(f"{value:,g}".replace(",", ""), None, float(value))
    if not isinstance(value, str):
        table.fail(f"expected a number or an expression of {', '.join(BOUND_NAMES)} (e.g. "
                   f"\"threads * 32768\"), got {schema.describe(value)}", name)
    try:
        tree = ast.parse(value, mode="eval")
        _evaluate(tree.body, {n: 1 for n in BOUND_NAMES})
    except (SyntaxError, ValueError, ZeroDivisionError) as e:
        part = f" ('{e.args[0]}' is not allowed)" if isinstance(e, ValueError) and e.args else ""
        table.fail(f"expected a number or an expression of {', '.join(BOUND_NAMES)} with + - * / "
                   f"(e.g. \"threads * 32768\"), got {value!r}{part}", name)
    return Bound(value, tree)


@dataclass
class Finding:
    text: str
    kind: str
    metric: str
    stat: str = "median"
    where: dict = field(default_factory=dict)
    numerator: dict = field(default_factory=dict)
    denominator: dict = field(default_factory=dict)
    paired_suffix: str = ""      # ratio: every reclaimer X<suffix> over X, instead of selectors
    by: str = ""
    order: list = field(default_factory=list)
    along: str = ""
    direction: str = ""
    tolerance: float = 0.0
    low: object = None           # float, or a Bound for bounded findings
    high: object = None


@dataclass
class Comparison:
    text: str
    passed: bool | None          # None: no data, or (inconclusive) within the noise
    threads: tuple = ()          # the thread counts the comparison looks at
    inconclusive: bool = False   # there was data, but the difference is within the noise


@dataclass
class Verdict:
    finding: Finding
    status: str
    comparisons: list
    note: str = ""
    checked_at: str = ""         # the thread counts, and where it held, failed, was noise


# ---- schema ------------------------------------------------------------------------------

def selector_reader(values: dict):
    """Reads {axis = value | [values]}; values must exist in the grid (catches typos)."""
    def read(raw, table: schema.Table, name: str) -> dict:
        t = schema.Table(raw, table.origin, table.path(name))
        selector = {}
        for axis in list(raw):
            if axis not in AXES:
                t.fail(f"unknown axis (accepted: {', '.join(AXES)})", axis)
            items = raw[axis] if isinstance(raw[axis], list) else [raw[axis]]
            item_type = int if axis in NUMERIC_AXES else str
            for item in items:
                if not isinstance(item, item_type) or isinstance(item, bool):
                    t.fail(f"expected {item_type.__name__} values, got {schema.describe(item)}", axis)
                known = values.get(axis)
                if known is not None and item not in known:
                    t.fail(f"{item!r} is not in the grid (grid has: "
                           f"{', '.join(map(str, known))})", axis)
            selector[axis] = items
        return selector
    return read


def parse(t: schema.Table, values: dict) -> "Finding":
    kind = t.get("kind", schema.one_of(*KINDS))
    f = Finding(text=t.get("text", schema.string), kind=kind,
                metric=t.get("metric", schema.one_of(*metrics.METRICS)),
                stat=t.get("stat", schema.one_of("median", "min", "max"), "median"),
                where=t.get("where", selector_reader(values), {}))
    select = selector_reader(values)
    if kind in ("ratio", "bounded"):
        limit = bound if kind == "bounded" else schema.number
        f.low = t.get("min", limit, None)
        f.high = t.get("max", limit, None)
        if f.low is None and f.high is None:
            t.fail(f"a {kind} finding needs min, max or both", "min")
        if f.low is not None and f.high is not None:
            lo, hi = (f.low, f.high) if kind == "ratio" else \
                (f.low.number if f.low.tree is None else None, f.high.number if f.high.tree is None else None)
            if lo is not None and hi is not None and lo > hi:
                t.fail(f"min {lo:g} is above max {hi:g}: no value could hold", "min")
    if kind == "ratio":
        f.paired_suffix = t.get("paired_suffix", schema.string, "")
        if f.paired_suffix:
            if t.has("numerator") or t.has("denominator"):
                t.fail("give paired_suffix or numerator and denominator, not both", "paired_suffix")
            if values.get("reclaimer") is not None and \
                    not paired_names(values["reclaimer"], f.paired_suffix):
                t.fail(f"no reclaimer X{f.paired_suffix} in the grid has its X beside it", "paired_suffix")
        else:
            f.numerator = t.get("numerator", select)
            f.denominator = t.get("denominator", select)
    if kind == "order":
        f.by = t.get("by", schema.one_of(*AXES))
        f.order = t.get("order", schema.list_of(lambda v, tb, k: v, "values"))
        if len(f.order) < 2:
            t.fail("expected at least two values to order", "order")
        select({f.by: f.order}, t, "order")      # the ordered values must exist in the grid
        f.direction = t.get("direction", schema.one_of("decreasing", "increasing"), "decreasing")
    if kind == "trend":
        f.along = t.get("along", schema.one_of(*NUMERIC_AXES))
        f.direction = t.get("direction", schema.one_of("increasing", "decreasing"))
        f.numerator = t.get("numerator", select, {})
        f.denominator = t.get("denominator", select, {})
        if bool(f.numerator) != bool(f.denominator):
            t.fail("give both numerator and denominator, or neither", "numerator")
    if kind in ("order", "trend"):
        f.tolerance = t.get("tolerance", schema.number, 0.05 if kind == "trend" else 0.0)
    t.close(COMMON_KEYS + KIND_KEYS[kind])
    return f


def describe(f: Finding) -> str:
    """The check in words, as the report shows it under the sentence."""
    what = f"{f.stat} {f.metric}"
    bounds = " and ".join(s for s in (f"≥ {_g(f.low)}" if f.low is not None else "",
                                      f"≤ {_g(f.high)}" if f.high is not None else "") if s)
    if f.kind == "ratio" and f.paired_suffix:
        text = f"{what}: reclaimer=X{f.paired_suffix} / reclaimer=X, for every such X, {bounds}"
    elif f.kind == "ratio":
        text = f"{what}: {_sel(f.numerator)} / {_sel(f.denominator)} {bounds}"
    elif f.kind == "order":
        sign = " ≥ " if f.direction == "decreasing" else " ≤ "
        text = f"{what} by {f.by}: {sign.join(map(str, f.order))}"
    elif f.kind == "trend":
        subject = f"{_sel(f.numerator)} / {_sel(f.denominator)} of {what}" if f.numerator else what
        text = f"{subject} {'rises' if f.direction == 'increasing' else 'falls'} along {f.along}"
    else:
        text = f"{what} {bounds}"
    if f.tolerance:
        text += f" (tolerance {f.tolerance:.0%})"
    noise = ("; decided beyond the noise (95% bootstrap interval of the ratio: the median of "
             "the per-round ratios where both sides ran in the same rounds, else the medians')"
             if f.stat == "median" and f.kind == "ratio" else
             "; decided beyond the noise (95% bootstrap interval)"
             if f.stat == "median" and f.kind != "trend" else
             "; the ends decided beyond the noise (95% bootstrap interval)" if f.kind == "trend"
             else "")
    return text + (f", where {_sel(f.where)}" if f.where else "") + ", in every cell" + noise


def _g(limit) -> str:
    return str(limit) if isinstance(limit, Bound) else f"{limit:g}"


def _sel(selector: dict) -> str:
    return " ".join(f"{axis}={'|'.join(map(str, vals))}" for axis, vals in selector.items())


# ---- checking ----------------------------------------------------------------------------

def check(f: Finding, rows: list) -> Verdict:
    try:
        comparisons = _CHECKS[f.kind](f, [r for r in rows if _matches(f.where, r)])
    except Exception as e:   # a bug here must not hide the rest of the report; exit code says it
        return Verdict(f, ERROR, [], f"check failed: {type(e).__name__}: {e}")
    decided = [c for c in comparisons if c.passed is not None]
    noisy = [c for c in comparisons if c.inconclusive]
    missing = len(comparisons) - len(decided) - len(noisy)
    notes = [f"{len(noisy)} of {len(comparisons)} comparisons within the noise" if noisy else "",
             f"{missing} of {len(comparisons)} comparisons had no data" if missing else ""]
    note = "; ".join(n for n in notes if n)
    at = _checked_at(comparisons)
    if not decided and not noisy:
        return Verdict(f, UNDECIDED, comparisons, note or "no data for this finding", at)
    if any(c.passed is False for c in decided):
        status = FAILS
    elif noisy:
        status = NOISE
    else:
        status = HOLDS
    order = {False: 0, None: 1, True: 2}
    return Verdict(f, status, sorted(comparisons, key=lambda c: (order[c.passed],
                                                                  not c.inconclusive)), note, at)


def _checked_at(comparisons: list) -> str:
    """"threads 1, 2, 4, 8: holds at 4, 8; does not hold at 1, 2" from the comparisons."""
    every = sorted({t for c in comparisons for t in c.threads})
    if not every:
        return ""
    groups = {"holds": set(), "does not hold": set(), "within the noise": set(),
              "no data": set()}
    for c in comparisons:
        key = ("holds" if c.passed else "does not hold" if c.passed is False
               else "within the noise" if c.inconclusive else "no data")
        groups[key].update(c.threads)
    # A thread count is "holds" only when no comparison there failed or was noise.
    failing = groups["does not hold"]
    groups["within the noise"] -= failing
    groups["holds"] -= failing | groups["within the noise"]
    groups["no data"] -= failing | groups["within the noise"] | groups["holds"]
    parts = [f"{key} at {', '.join(map(str, sorted(ts)))}" for key, ts in groups.items() if ts]
    label = "thread count" if len(every) == 1 else "thread counts"
    return f"checked at {label} {', '.join(map(str, every))}: " + "; ".join(parts)


def _matches(selector: dict, row) -> bool:
    return all(row.axis(axis) in values for axis, values in selector.items())


def _value(f: Finding, row) -> float | None:
    stat = row.stats.get(f.metric)
    return stat.get(f.stat) if stat else None


def _samples(f: Finding, row) -> tuple:
    """What the bootstrap resamples: the trials for the median, else the one statistic."""
    stat = row.stats.get(f.metric)
    if stat is None:
        return ()
    if f.stat == "median" and stat.values:
        return stat.values
    return (stat.get(f.stat),)


def _rounds(f: Finding, row) -> tuple:
    """The round of each of _samples' values (empty when it is one statistic, not the trials)."""
    stat = row.stats.get(f.metric)
    if stat is None or f.stat != "median" or not stat.values:
        return ()
    return stat.rounds


def _threads(*rows) -> tuple:
    return tuple(sorted({r.axis("threads") for r in rows}))


def _cells(rows: list, compared: set) -> list:
    """Groups rows by the axes not compared; names each cell by the axes that vary."""
    varying = [a for a in AXES if a not in compared and len({r.axis(a) for r in rows}) > 1]
    groups: dict = {}
    for row in rows:
        groups.setdefault(tuple(row.axis(a) for a in varying), []).append(row)
    return [(" ".join(f"{a}={v}" for a, v in zip(varying, key)), members)
            for key, members in groups.items()]


def _label(cell: str, text: str) -> str:
    return f"{cell}: {text}" if cell and text else cell or text


def _name(row, axes) -> str:
    return " ".join(str(row.axis(a)) if a in NAME_AXES
                    else f"{a}={row.axis(a)}" for a in sorted(axes))


def _pairs(f: Finding, members: list):
    if f.paired_suffix:
        k = len(f.paired_suffix)
        by_name = {r.axis("reclaimer"): r for r in members}
        return [(by_name[name], by_name[name[:-k]])
                for name in paired_names(list(by_name), f.paired_suffix)], False
    nums = [r for r in members if _matches(f.numerator, r)]
    dens = [r for r in members if _matches(f.denominator, r)]
    return [(n, d) for n in nums for d in dens if n is not d], bool(nums) != bool(dens)


def _ratio(f: Finding, n, d) -> stats.Estimate | None:
    sn, sd = _samples(f, n), _samples(f, d)
    if not sn or not sd or not _value(f, d):
        return None
    return stats.ratio(sn, sd, [_rounds(f, n), _rounds(f, d)])


def _judged(text: str, estimate: stats.Estimate, low, high, threads: tuple) -> Comparison:
    side = estimate.side(low, high)
    if side is None:
        return Comparison(f"{text}: within the noise", None, threads, inconclusive=True)
    return Comparison(text, side, threads)


def _check_ratio(f: Finding, rows: list) -> list:
    compared = {"reclaimer"} if f.paired_suffix else set(f.numerator) | set(f.denominator)
    out = []
    for cell, members in _cells(rows, compared):
        pairs, one_sided = _pairs(f, members)
        if one_sided:
            out.append(Comparison(_label(cell, "numerator or denominator has no configuration"),
                                  None, _threads(*members)))
        for n, d in pairs:
            label = _label(cell, f"{_name(n, compared)} / {_name(d, compared)}")
            r = _ratio(f, n, d)
            if r is None:
                out.append(Comparison(f"{label}: no data", None, _threads(n, d)))
                continue
            text = f"{label} = {_value_text(f, n)} / {_value_text(f, d)} = {r.text()}"
            out.append(_judged(text, r, f.low, f.high, _threads(n, d)))
    return out


def _check_order(f: Finding, rows: list) -> list:
    out = []
    for cell, members in _cells(rows, {f.by}):
        by_value = {r.axis(f.by): r for r in members}
        chain = [(v, by_value.get(v)) for v in f.order]
        for (a, ra), (b, rb) in zip(chain, chain[1:]):
            present = [r for r in (ra, rb) if r]
            higher_first = f.direction == "decreasing"
            sign = "≥" if higher_first else "≤"
            va, vb = (_value(f, r) if r else None for r in (ra, rb))
            if va is None or vb is None:
                out.append(Comparison(_label(cell, f"{a} vs {b}: no data"), None,
                                      _threads(*present)))
                continue
            r = _ratio(f, ra, rb)
            if r is None:           # vb == 0: no ratio, and no noise to speak of
                out.append(Comparison(_label(cell, f"{a} {_value_text(f, ra)} {sign} {b} "
                                                   f"{_value_text(f, rb)}"),
                                      va >= vb if higher_first else va <= vb, _threads(ra, rb)))
                continue
            text = _label(cell, f"{a} {_value_text(f, ra)} {sign} {b} {_value_text(f, rb)} "
                                f"(ratio {r.text()})")
            low, high = (1 - f.tolerance, None) if higher_first else (None, 1 + f.tolerance)
            out.append(_judged(text, r, low, high, _threads(ra, rb)))
    return out


def _check_trend(f: Finding, rows: list) -> list:
    compared = {f.along} | set(f.numerator) | set(f.denominator)
    out = []
    for cell, members in _cells(rows, compared):
        series: dict = {}           # series name -> [(along value, y, [samples], [rows])]
        if f.numerator:
            for n, d in _pairs(f, members)[0]:
                if n.axis(f.along) == d.axis(f.along):
                    key = f"{_name(n, compared - {f.along})} / {_name(d, compared - {f.along})}"
                    r = _ratio(f, n, d)
                    series.setdefault(key, []).append(
                        (n.axis(f.along), r.value if r else None,
                         [_samples(f, n), _samples(f, d)], [n, d]))
        else:
            for r in members:
                series.setdefault("", []).append((r.axis(f.along), _value(f, r), [_samples(f, r)],
                                                  [r]))
        for name, points in series.items():
            points = sorted((p for p in points if p[1] is not None), key=lambda p: p[0])
            label = _label(cell, name)
            if len(points) < 2:
                out.append(Comparison(f"{label}: fewer than two {f.along} values with data", None,
                                      _threads(*(r for p in series[name] for r in p[3]))))
                continue
            out.append(_trend_comparison(f, label, points))
    return out


def _trend_comparison(f: Finding, label: str, points: list) -> Comparison:
    ys = [p[1] for p in points]
    rising = f.direction == "increasing"
    threads = _threads(*(r for p in points for r in p[3]))
    # Each step may go against the trend by at most the tolerance (on the medians); the last
    # value must be beyond the first beyond the noise (bootstrap of last / first).
    steps_ok = all((b >= a * (1 - f.tolerance)) if rising else (b <= a * (1 + f.tolerance))
                   for a, b in zip(ys, ys[1:]))
    first, last = points[0][2], points[-1][2]
    rounds = [_rounds(f, r) for p in (points[0], points[-1]) for r in p[3]]
    k = len(first)
    if k == 2:
        # As the ys: per-round ratios where the four inputs share rounds, so last / first is
        # their last over their first; else the ratio of medians.
        def last_over_first(rows):
            return stats.median_ratio(rows, 2, 3) / stats.median_ratio(rows, 0, 1)
        ends = stats.by_round(first + last, rounds, last_over_first)
        if ends is None:
            ends = stats.estimate(first + last, lambda a, b, c, d: (c / d) / (a / b), rounds)
    else:
        ends = stats.estimate(first + last, lambda a, c: c / a, rounds)
    shown = " → ".join(f"{y:.3g}" if f.numerator else metrics.fmt(f.metric, y) for y in ys)
    along = " → ".join(str(p[0]) for p in points)
    text = _label(label, f"{shown} over {f.along} {along}; last / first = "
                         f"{ends.text() if ends else 'no data'}")
    if not steps_ok:
        return Comparison(text, False, threads)
    if ends is None:
        return Comparison(text, None, threads)
    return _judged(text, ends, 1.0, None, threads) if rising else \
        _judged(text, ends, None, 1.0, threads)


def _check_bounded(f: Finding, rows: list) -> list:
    out = []
    for cell, members in _cells(rows, set()):
        for r in members:
            v = _value(f, r)
            name = _label(cell or "all", "")
            if v is None:
                out.append(Comparison(_label(cell or "all", "no data"), None, _threads(r)))
                continue
            low = f.low.at(r) if f.low is not None else None
            high = f.high.at(r) if f.high is not None else None
            limits = " and ".join(s for s in (
                f"≥ {_limit_text(f, f.low, low)}" if low is not None else "",
                f"≤ {_limit_text(f, f.high, high)}" if high is not None else "") if s)
            est = stats.estimate([_samples(f, r)], lambda x: x)
            shown = (est.text(lambda x: metrics.fmt(f.metric, x)) if est.has_noise_estimate
                     else metrics.fmt(f.metric, v))
            text = f"{name}: {f.stat} {shown} {metrics.METRICS[f.metric][1]}, bound {limits}"
            out.append(_judged(text, est, low, high, _threads(r)))
    return out


def _limit_text(f: Finding, limit: Bound, value: float) -> str:
    shown = metrics.fmt(f.metric, value)
    return shown if limit.tree is None else f"{limit.text} = {shown}"


def _value_text(f: Finding, row) -> str:
    return f"{metrics.fmt(f.metric, _value(f, row))} {metrics.METRICS[f.metric][1]}"


_CHECKS = {"ratio": _check_ratio, "order": _check_order, "trend": _check_trend,
           "bounded": _check_bounded}
