"""The terminal table of `smrlab summary`: median throughput per reclaimer × threads, per ds."""

from smrlab import metrics
from smrlab.axes import AXES, NAME_AXES, hidden

METRIC = "throughput_ops_s"


def render(results) -> str:
    rows = results.rows
    plan = results.plan
    ok = sum(r.ok for r in rows)
    lines = [f"{results.experiment.name} ({results.root}): {len(results.configs)} configurations, "
             f"{ok} trials ok, {len(results.failed)} failed"
             + (" — QUICK RUN, not measurements" if plan.get("quick") else "")]
    # One table per combination of the other axes, ds first so each ds gets its own block.
    others = [a for a in AXES if a not in ("reclaimer", "threads")]
    blocks: dict = {}
    for row in rows:
        blocks.setdefault(tuple(row.axis(a) for a in others), []).append(row)
    for key, members in blocks.items():
        values = dict(zip(others, key))
        title = "  ".join(str(v) if a in NAME_AXES else f"{a}={v}" for a, v in values.items()
                          if not hidden(a, values))
        threads = sorted({r.axis("threads") for r in members})
        labels = list(dict.fromkeys(r.axis("reclaimer") for r in members))
        width = max(len(label) for label in labels + ["reclaimer"])
        lines += ["", f"{title}   ({metrics.label(METRIC)}, median)",
                  f"{'reclaimer':<{width}}" + "".join(f"{'t=' + str(t):>10}" for t in threads)]
        for label in labels:
            cells = []
            for t in threads:
                row = next((r for r in members if r.axis("reclaimer") == label
                            and r.axis("threads") == t), None)
                stat = row.stats.get(METRIC) if row else None
                cells.append(metrics.fmt(METRIC, stat.median) if stat
                             else "FAILED" if row and row.failed else "—")
            lines.append(f"{label:<{width}}" + "".join(f"{c:>10}" for c in cells))
    return "\n".join(lines)
