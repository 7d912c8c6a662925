"""Machine-checkable findings: their schema and their check against aggregated results.

A finding compares per-configuration statistics (median by default) of one metric:
  ratio    numerator / denominator within [min, max], for every pair in every cell
  order    values along `by` follow `order` (highest first, or lowest with direction)
  trend    a metric, or a numerator/denominator ratio, rises or falls along a numeric axis
  bounded  the metric of every selected configuration lies within [min, max]
A *cell* is a group of rows that agree on every axis the finding does not compare, so that a
claim is checked separately for each data structure, thread count, ... in the selection.
"""

from dataclasses import dataclass, field

from smrlab import metrics, schema
from smrlab.axes import AXES, NAME_AXES, NUMERIC_AXES

KINDS = ("ratio", "order", "trend", "bounded")
KIND_KEYS = {
    "ratio": ["numerator", "denominator", "min", "max"],
    "order": ["by", "order", "direction", "tolerance"],
    "trend": ["along", "direction", "tolerance", "numerator", "denominator"],
    "bounded": ["min", "max"],
}
COMMON_KEYS = ["text", "kind", "metric", "stat", "where"]

HOLDS, FAILS, UNDECIDED, ERROR = "holds here", "does not hold here", "not checked here", "error"


@dataclass
class Finding:
    text: str
    kind: str
    metric: str
    stat: str = "median"
    where: dict = field(default_factory=dict)
    numerator: dict = field(default_factory=dict)
    denominator: dict = field(default_factory=dict)
    by: str = ""
    order: list = field(default_factory=list)
    along: str = ""
    direction: str = ""
    tolerance: float = 0.0
    low: float | None = None
    high: float | None = None


@dataclass
class Comparison:
    text: str
    passed: bool | None          # None: no data to decide


@dataclass
class Verdict:
    finding: Finding
    status: str
    comparisons: list
    note: str = ""


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
        f.low = t.get("min", schema.number, None)
        f.high = t.get("max", schema.number, None)
        if f.low is None and f.high is None:
            t.fail(f"a {kind} finding needs min, max or both", "min")
    if kind == "ratio":
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
    bounds = " and ".join(s for s in (f"≥ {f.low:g}" if f.low is not None else "",
                                      f"≤ {f.high:g}" if f.high is not None else "") if s)
    if f.kind == "ratio":
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
    return text + (f", where {_sel(f.where)}" if f.where else "") + ", in every cell"


def _sel(selector: dict) -> str:
    return " ".join(f"{axis}={'|'.join(map(str, vals))}" for axis, vals in selector.items())


# ---- checking ----------------------------------------------------------------------------

def check(f: Finding, rows: list) -> Verdict:
    try:
        comparisons = _CHECKS[f.kind](f, [r for r in rows if _matches(f.where, r)])
    except Exception as e:   # a bug here must not hide the rest of the report; exit code says it
        return Verdict(f, ERROR, [], f"check failed: {type(e).__name__}: {e}")
    decided = [c for c in comparisons if c.passed is not None]
    missing = len(comparisons) - len(decided)
    note = f"{missing} of {len(comparisons)} comparisons had no data" if missing else ""
    if not decided:
        return Verdict(f, UNDECIDED, comparisons, note or "no data for this finding")
    status = HOLDS if all(c.passed for c in decided) else FAILS
    return Verdict(f, status, sorted(comparisons, key=lambda c: c.passed is not False), note)


def _matches(selector: dict, row) -> bool:
    return all(row.axis(axis) in values for axis, values in selector.items())


def _value(f: Finding, row) -> float | None:
    stat = row.stats.get(f.metric)
    return stat.get(f.stat) if stat else None


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


def _within(f: Finding, x: float) -> bool:
    return (f.low is None or x >= f.low) and (f.high is None or x <= f.high)


def _pairs(f: Finding, members: list):
    nums = [r for r in members if _matches(f.numerator, r)]
    dens = [r for r in members if _matches(f.denominator, r)]
    return [(n, d) for n in nums for d in dens if n is not d], bool(nums) != bool(dens)


def _ratio(f: Finding, n, d) -> float | None:
    vn, vd = _value(f, n), _value(f, d)
    return vn / vd if vn is not None and vd else None


def _check_ratio(f: Finding, rows: list) -> list:
    compared = set(f.numerator) | set(f.denominator)
    out = []
    for cell, members in _cells(rows, compared):
        pairs, one_sided = _pairs(f, members)
        if one_sided:
            out.append(Comparison(_label(cell, "numerator or denominator has no configuration"),
                                  None))
        for n, d in pairs:
            label = _label(cell, f"{_name(n, compared)} / {_name(d, compared)}")
            r = _ratio(f, n, d)
            out.append(Comparison(f"{label}: no data", None) if r is None else Comparison(
                f"{label} = {_value_text(f, n)} / {_value_text(f, d)} = {r:.3g}", _within(f, r)))
    return out


def _check_order(f: Finding, rows: list) -> list:
    out = []
    for cell, members in _cells(rows, {f.by}):
        by_value = {r.axis(f.by): r for r in members}
        chain = [(v, by_value.get(v)) for v in f.order]
        for (a, ra), (b, rb) in zip(chain, chain[1:]):
            va, vb = (_value(f, r) if r else None for r in (ra, rb))
            if va is None or vb is None:
                out.append(Comparison(_label(cell, f"{a} vs {b}: no data"), None))
                continue
            higher_first = f.direction == "decreasing"
            ok = va >= vb * (1 - f.tolerance) if higher_first else va <= vb * (1 + f.tolerance)
            sign = "≥" if higher_first else "≤"
            out.append(Comparison(
                _label(cell, f"{a} {_value_text(f, ra)} {sign} {b} {_value_text(f, rb)}"), ok))
    return out


def _check_trend(f: Finding, rows: list) -> list:
    compared = {f.along} | set(f.numerator) | set(f.denominator)
    out = []
    for cell, members in _cells(rows, compared):
        series: dict = {}           # series name -> [(along value, y)]
        if f.numerator:
            for n, d in _pairs(f, members)[0]:
                if n.axis(f.along) == d.axis(f.along):
                    key = f"{_name(n, compared - {f.along})} / {_name(d, compared - {f.along})}"
                    series.setdefault(key, []).append((n.axis(f.along), _ratio(f, n, d)))
        else:
            for r in members:
                series.setdefault("", []).append((r.axis(f.along), _value(f, r)))
        for name, points in series.items():
            points = sorted(p for p in points if p[1] is not None)
            label = _label(cell, name)
            if len(points) < 2:
                out.append(Comparison(f"{label}: fewer than two {f.along} values with data", None))
                continue
            out.append(_trend_comparison(f, label, points))
    return out


def _trend_comparison(f: Finding, label: str, points: list) -> Comparison:
    ys = [y for _, y in points]
    rising = f.direction == "increasing"
    # Each step may go against the trend by at most the tolerance; the ends must follow it.
    steps_ok = all((b >= a * (1 - f.tolerance)) if rising else (b <= a * (1 + f.tolerance))
                   for a, b in zip(ys, ys[1:]))
    ends_ok = ys[-1] > ys[0] if rising else ys[-1] < ys[0]
    shown = " → ".join(f"{y:.3g}" if f.numerator else metrics.fmt(f.metric, y) for y in ys)
    along = " → ".join(str(x) for x, _ in points)
    return Comparison(_label(label, f"{shown} over {f.along} {along}"), steps_ok and ends_ok)


def _check_bounded(f: Finding, rows: list) -> list:
    out = []
    for cell, members in _cells(rows, set()):
        for r in members:
            v = _value(f, r)
            out.append(Comparison(_label(cell or "all", "no data"), None) if v is None else
                       Comparison(_label(cell or "all", _value_text(f, r)), _within(f, v)))
    return out


def _value_text(f: Finding, row) -> str:
    return f"{metrics.fmt(f.metric, _value(f, row))} {metrics.METRICS[f.metric][1]}"


_CHECKS = {"ratio": _check_ratio, "order": _check_order, "trend": _check_trend,
           "bounded": _check_bounded}
