"""Figures from a results directory, in one style (style.py): metric vs a numeric axis (median
with min-max error bars, one panel per combination of the other varying axes, panels in a row
sharing the y axis, y from 0 unless logarithmic), bars comparing variants, timeline graphs and
garbage per epoch. Each figure is written as PNG (200 dpi) and SVG, with the table it plots as
CSV beside it, all named after the experiment, the panel selection and the metric."""

import csv
import io
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator  # noqa: E402

from smrlab import metrics, style, timeline  # noqa: E402
from smrlab.axes import AXES, NAME_AXES  # noqa: E402
from smrlab.files import replacing, write_atomically  # noqa: E402

MAX_TIMELINES = 12          # timeline graphs per report: the first trial of each config
BOX_COLOURS = ["#e6550d", "#31a354", "#756bb1", "#d6616b", "#8c6d31", "#636363"]
EPOCH_COLOUR = "#1f5fbf"    # the paper's blue dots; no box uses blue
CAPTION_STATS = f"median of each configuration's trials; error bars: {style.ERROR_BARS}"


@dataclass
class Figure:
    name: str                   # file stem: <experiment>-<what>
    title: str
    png: Path
    svg: Path
    csv: Path | None = None
    metric: str = ""            # the metric plotted ("" for timelines)
    caption: str = ""
    where: dict = field(default_factory=dict)      # the selection plotted (bars)


def make_all(results, out_dir: Path) -> list:
    out_dir.mkdir(parents=True, exist_ok=True)
    settings = results.experiment.plots
    prefix = _slug(results.experiment.name)
    rows = results.rows
    figures = []
    with plt.rc_context(style.FONT):
        plotted = []
        # every line metric, then any finding's metric that no plot shows, so that each claim
        # has its plot beside it in the report
        wanted = list(dict.fromkeys(settings.metrics))
        bar_metrics = {b["metric"] for b in settings.bars}
        for f in results.experiment.findings:
            if f.metric not in wanted and f.metric not in bar_metrics:
                wanted.append(f.metric)
        for metric in wanted:
            made = _lines(rows, metric, settings.x, settings.logx,
                          metric in settings.logy, out_dir, prefix)
            plotted += [metric] if made else []
            figures += made
        bars = settings.bars or [{"metric": "throughput_ops_s", "group": None, "where": {}}]
        for spec in bars:
            figures += _bars(rows, spec, out_dir, prefix, settings.logy)
        for f in results.experiment.findings:      # a claim whose metric has no line plot
            if f.metric not in plotted and not any(b["metric"] == f.metric for b in bars):
                figures += _bars(rows, {"metric": f.metric, "group": None, "where": {}},
                                 out_dir, prefix, settings.logy)
                plotted.append(f.metric)
        shown = _first_trials(results.timelines())[:MAX_TIMELINES]
        loaded = [(config, trial, timeline.read(path)) for config, trial, path in shown]
        for config, trial, tl in loaded:
            figures.append(_timeline(config, trial, tl, out_dir, prefix))
        figures += _per_epoch(loaded, out_dir, prefix)
    return figures


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=+-]+", "_", str(text)).strip("_") or "x"


def _save(fig, out_dir: Path, name: str, title: str, table: list | None = None, **info) -> Figure:
    """PNG (200 dpi) and SVG, and the plotted table as CSV, each replaced atomically."""
    png, svg = out_dir / f"{name}.png", out_dir / f"{name}.svg"
    try:
        for path, fmt in ((png, "png"), (svg, "svg")):
            with replacing(path) as tmp:
                fig.savefig(tmp, format=fmt, dpi=style.DPI, bbox_inches="tight")
    finally:
        plt.close(fig)
    csv_path = None
    if table:
        csv_path = out_dir / f"{name}.csv"
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerows(table)
        write_atomically(csv_path, buffer.getvalue())
    return Figure(name, title, png, svg, csv_path, **info)


def _looks(rows: list) -> dict:
    return style.looks(list(dict.fromkeys((r.axis("reclaimer"), r.config.reclaimer.name)
                                          for r in rows)))


def _facets(rows: list, fixed: set) -> list:
    """(title, rows) per combination of the varying axes not in `fixed`."""
    varying = [a for a in AXES if a not in fixed and len({r.axis(a) for r in rows}) > 1]
    groups: dict = {}
    for row in rows:
        groups.setdefault(tuple(row.axis(a) for a in varying), []).append(row)
    return [(" ".join(str(v) if a in NAME_AXES else f"{a}={v}" for a, v in zip(varying, key)),
             members) for key, members in groups.items()]


# Panels side by side share one y scale when their largest values are within this factor;
# a panel on a much smaller scale (a list next to a hash map) keeps its own, or it would be flat.
SHARED_SCALE_RATIO = 10
SHARED_Y = f"panels in a row share the y axis where their scales are within {SHARED_SCALE_RATIO}×"


def _grid(n: int, width: float = 5.2, height: float = 3.9, sharex: bool = True):
    """Panels in rows of three, all sharing x; _share_y() decides the y scales once drawn."""
    cols = min(3, n)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows + 0.6),
                             squeeze=False, sharex="all" if sharex else "none",
                             layout="constrained")
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat)


def _share_y(axes: list, log: bool = False):
    """After drawing: in each row, panels whose largest values are within SHARED_SCALE_RATIO of
    the largest in their group share one y axis (linear scales from 0 to the group's top); the
    first panel of each group carries the y label. Limits are set here, once every panel has
    its data, so that no panel is clipped by a scale frozen before the others were drawn."""
    rows: dict = {}
    for ax in axes:
        if ax.get_visible():
            rows.setdefault(ax.get_subplotspec().rowspan.start, []).append(ax)
    for row in rows.values():
        top: dict = {}
        for ax in row:
            ax.relim()
            ax.autoscale_view()
            top[ax] = ax.get_ylim()[1]   # before any sharing copies one panel's limits to another
        groups: list = []
        for ax in sorted(row, key=top.get, reverse=True):
            if groups and top[ax] * SHARED_SCALE_RATIO >= top[groups[-1][0]]:
                groups[-1].append(ax)
            else:
                groups.append([ax])
        label = next((a.get_ylabel() for a in row if a.get_ylabel()), "")
        for group in groups:
            group_top = top[group[0]]
            group.sort(key=lambda a: a.get_subplotspec().colspan.start)
            first = group[0]
            for ax in group[1:]:
                ax.sharey(first)
            if not log:
                first.set_ylim(0, group_top)
            for ax in group:
                ax.set_ylabel(label if ax is first else "")


def _legend(fig, axes, ncols: int = 6):
    handles = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    if handles:
        fig.legend(handles.values(), handles.keys(), loc="outside lower center",
                   ncols=min(len(handles), ncols), frameon=False)


def _y_axis(ax, metric: str, log: bool):
    """The y label and scale of a panel; _share_y() then sets the limits (from 0 where linear:
    throughput, memory and counts start at 0) and keeps one label per shared scale."""
    ax.set_ylabel(metrics.label(metric))
    if log:
        ax.set_yscale("log")
        _plain_log_ticks(ax.yaxis)


def _plain_log_ticks(axis):
    """1, 2, 5 per decade, written as plain numbers, so a narrow log range still reads."""
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,g}"))
    axis.set_minor_locator(NullLocator())


def _stat_columns(metric: str) -> list:
    unit = metrics.METRICS[metric][1]
    return [f"{metric} median ({unit})", f"{metric} min ({unit})", f"{metric} max ({unit})",
            "trials"]


def _stat_cells(metric: str, stat) -> list:
    return [f"{metrics.scaled(metric, v):.6g}" for v in (stat.median, stat.low, stat.high)] \
        + [stat.n]


def _lines(rows, metric, x, logx, logy, out_dir, prefix) -> list:
    rows = [r for r in rows if metric in r.stats]
    if len({r.axis(x) for r in rows}) < 2:
        return []
    facets = _facets(rows, {x, "reclaimer"})
    looks = _looks(rows)
    fig, axes = _grid(len(facets))
    panel_axes = [a for a in AXES if a not in (x, "reclaimer")
                  and len({r.axis(a) for r in rows}) > 1]
    table = [["panel"] + panel_axes + ["reclaimer", x] + _stat_columns(metric)]
    for ax, (title, members) in zip(axes, facets):
        for label in dict.fromkeys(r.axis("reclaimer") for r in members):
            line = sorted((r for r in members if r.axis("reclaimer") == label),
                          key=lambda r: r.axis(x))
            xs = [r.axis(x) for r in line]
            med = [metrics.scaled(metric, r.stats[metric].median) for r in line]
            low = [m - metrics.scaled(metric, r.stats[metric].low) for m, r in zip(med, line)]
            high = [metrics.scaled(metric, r.stats[metric].high) - m for m, r in zip(med, line)]
            ax.errorbar(xs, med, yerr=[low, high], label=label, markersize=6, capsize=3,
                        linewidth=1.6, **looks[label].line_kwargs())
            for r in line:
                table.append([title] + [r.axis(a) for a in panel_axes] + [label, r.axis(x)]
                             + _stat_cells(metric, r.stats[metric]))
        if title:
            ax.set_title(title)
        ax.set_xlabel(x.replace("_", " "))
        _y_axis(ax, metric, logy)
        if logx:
            ax.set_xscale("log")
            ax.xaxis.set_minor_locator(NullLocator())
        ticks = sorted({r.axis(x) for r in rows})
        ax.set_xticks(ticks, [str(t) for t in ticks])
        ax.grid(alpha=0.3)
    _share_y(axes, logy)
    for ax in axes:     # sharing x hides the labels above a panel; a row may have none below
        ax.tick_params(axis="x", labelbottom=True)
    _legend(fig, axes)
    what = f"{metrics.METRICS[metric][0]} vs {x.replace('_', ' ')}"
    fig.suptitle(what)
    caption = (f"{what}{' (log scale)' if logx or logy else ''}: {CAPTION_STATS}; one panel per "
               f"{', '.join(panel_axes) or 'experiment'}, {SHARED_Y}.")
    return [_save(fig, out_dir, f"{prefix}-{_slug(metric)}-vs-{_slug(x)}", what, table,
                  metric=metric, caption=caption)]


def _selection_slug(where: dict) -> str:
    return "-".join(f"{a}={'+'.join(map(str, v))}" for a, v in where.items())


def _bars(rows, spec, out_dir, prefix, logy_metrics=()) -> list:
    metric, group = spec["metric"], spec["group"]
    rows = [r for r in rows if metric in r.stats
            and all(r.axis(a) in vals for a, vals in spec["where"].items())]
    if not rows:
        return []
    at = None
    if "threads" not in spec["where"] and group != "threads":
        at = max(r.axis("threads") for r in rows)       # "at one thread count": the largest
        rows = [r for r in rows if r.axis("threads") == at]
    facets = _facets(rows, {"reclaimer", group})
    looks = _looks(rows)
    fig, axes = _grid(len(facets), sharex=False)
    hatches = ["", "//", "..", "xx", "\\\\"]
    all_groups = list(dict.fromkeys(r.axis(group) for r in rows)) if group else [None]
    panel_axes = [a for a in AXES if a not in ("reclaimer", group)
                  and len({r.axis(a) for r in rows}) > 1]
    table = [["panel"] + panel_axes + ["reclaimer"] + ([group] if group else [])
             + ["threads"] + _stat_columns(metric)]
    log = metric in logy_metrics
    for ax, (title, members) in zip(axes, facets):
        labels = list(dict.fromkeys(r.axis("reclaimer") for r in members))
        groups = [g for g in all_groups if any(group is None or r.axis(group) == g for r in members)]
        width = 0.8 / len(groups)
        for g, gvalue in enumerate(groups):
            for i, label in enumerate(labels):
                row = next((r for r in members if r.axis("reclaimer") == label
                            and (group is None or r.axis(group) == gvalue)), None)
                if row is None:
                    continue
                s = row.stats[metric]
                med = metrics.scaled(metric, s.median)
                err = [[med - metrics.scaled(metric, s.low)], [metrics.scaled(metric, s.high) - med]]
                ax.bar(i + (g - (len(groups) - 1) / 2) * width, med, width, yerr=err, capsize=3,
                       linewidth=1.5 if looks[label].hollow else 0.8, hatch=hatches[all_groups.index(gvalue) % len(hatches)],
                       **looks[label].bar_kwargs())
                table.append([title] + [row.axis(a) for a in panel_axes] + [label]
                             + ([gvalue] if group else []) + [row.axis("threads")]
                             + _stat_cells(metric, s))
        ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
        _y_axis(ax, metric, log)
        if title:
            ax.set_title(title)
        ax.grid(axis="y", alpha=0.3)
    _share_y(axes, log)
    if group:       # colour is the reclaimer; the hatch tells the group apart
        fig.legend(handles=[Patch(facecolor="white", edgecolor="black", label=f"{group}={g}",
                                  hatch=hatches[i % len(hatches)])
                            for i, g in enumerate(all_groups)],
                   loc="outside lower center", ncols=min(len(all_groups), 6), frameon=False)
    what = f"{metrics.METRICS[metric][0]} by reclaimer" + (f" and {group}" if group else "")
    if at is not None:
        what += f", {at} threads"
    fig.suptitle(what)
    where = spec["where"]
    name = "-".join(p for p in (prefix, _slug(metric), "by-reclaimer",
                                f"and-{_slug(group)}" if group else "",
                                _slug(_selection_slug(where)) if where else "",
                                f"t{at}" if at is not None else "") if p)
    caption = f"{what}: bar height is the {CAPTION_STATS}."
    return [_save(fig, out_dir, name, what, table, metric=metric, caption=caption,
                  where=where)]


def _first_trials(timelines: list) -> list:
    first: dict = {}
    for config, trial, path in sorted(timelines, key=lambda t: t[1]):
        first.setdefault(config.hash, (config, trial, path))
    return list(first.values())


def _config_slug(config) -> str:
    parts = [config.ds, config.reclaimer.shown, config.allocator, f"t{config.threads}",
             f"w{config.axis('workload').replace(',', '-')}", f"kr{config.key_range}"]
    if config.stall:
        parts.append(f"stall{config.stall}")
    if config.readers:
        parts.append(f"readers{config.readers}")
    if config.node_pool:
        parts.append(f"pool{config.node_pool}-{config.pool_wait}")
    return _slug("-".join(parts))


def _timeline(config, trial, tl, out_dir, prefix) -> Figure:
    """Epochs too epic §3.1: a row per thread, a box per reclamation event (colours alternate so
    neighbours differ), blue dots where a thread advanced the epoch, projected onto a bottom row
    so that stretches without any epoch change stand out."""
    threads = tl.threads
    row_of = {t: i for i, t in enumerate(threads)}
    bottom = len(threads) + 0.5
    fig, ax = plt.subplots(figsize=(11, 1.2 + 0.32 * (len(threads) + 1)))
    many = len(tl.events) > 20000          # rasterize heavy layers so the SVG stays small
    by_thread: dict = {t: [] for t in threads}
    for event in sorted(tl.events, key=lambda e: e.start_ns):
        by_thread[event.thread].append(event)
    for thread, mine in by_thread.items():
        boxes = [e for e in mine if e.kind in ("batch_free", "free_call")]
        if boxes:
            ax.broken_barh([(e.start_ns / 1e6, (e.end_ns - e.start_ns) / 1e6) for e in boxes],
                           (row_of[thread] - 0.4, 0.8), rasterized=many,
                           facecolors=[BOX_COLOURS[i % len(BOX_COLOURS)] for i in range(len(boxes))])
        stalls = [e for e in mine if e.kind == "stall"]
        if stalls:
            ax.broken_barh([(e.start_ns / 1e6, (e.end_ns - e.start_ns) / 1e6) for e in stalls],
                           (row_of[thread] - 0.4, 0.8), facecolors="#dddddd", hatch="//",
                           edgecolor="#999999", linewidth=0.5)
    epochs = tl.of_kind("epoch_advance")
    if epochs:
        xs = [e.start_ns / 1e6 for e in epochs]
        ax.scatter(xs, [row_of[e.thread] for e in epochs], s=9, color=EPOCH_COLOUR, zorder=3,
                   rasterized=many)
        ax.scatter(xs, [bottom] * len(xs), s=9, color=EPOCH_COLOUR, zorder=3, rasterized=many)
    signals = tl.of_kind("signal")
    if signals:
        ax.scatter([e.start_ns / 1e6 for e in signals], [row_of[e.thread] for e in signals],
                   marker="v", s=14, color="#c00000", zorder=4, rasterized=many)
    ax.set_yticks(list(range(len(threads))) + [bottom], [str(t) for t in threads] + ["all epochs"],
                  fontsize=9)
    ax.set_ylim(bottom + 0.7, -0.7)
    ax.set_xlim(0, max(tl.end_ns, 1) / 1e6)
    ax.set_xlabel("time since trial start (ms)")
    ax.set_ylabel("thread")
    legend = [(kind, patch) for kind, patch in [
        ("batch_free", Patch(color=BOX_COLOURS[0], label="batch free / long free call")),
        ("stall", Patch(facecolor="#dddddd", hatch="//", edgecolor="#999999", label="stall")),
        ("epoch_advance", plt.Line2D([], [], color=EPOCH_COLOUR, marker="o", linestyle="",
                                     label="epoch change")),
        ("signal", plt.Line2D([], [], color="#c00000", marker="v", linestyle="", label="signal")),
    ] if tl.of_kind(kind) or (kind == "batch_free" and tl.of_kind("free_call"))]
    if legend:
        ax.legend(handles=[p for _, p in legend], loc="upper left", bbox_to_anchor=(1.0, 1.0),
                  fontsize=9, frameon=False)
    title = f"timeline: {config.describe()} #{trial}"
    ax.set_title(title)
    table = [["thread", "kind", "start_ms", "end_ms", "value"]] + [
        [e.thread, e.kind, f"{e.start_ns / 1e6:.6f}", f"{e.end_ns / 1e6:.6f}", e.value]
        for e in sorted(tl.events, key=lambda e: (e.thread, e.start_ns))]
    return _save(fig, out_dir, f"{prefix}-timeline-{_config_slug(config)}-trial{trial}", title,
                 table, caption=f"{title}: every event of the trial's timeline (Epochs too "
                                f"epic §3.1), times in ms since the trial started.")


def _per_epoch(loaded: list, out_dir: Path, prefix: str) -> list:
    series = [(config, trial, s) for config, trial, tl in loaded
              if (s := timeline.per_epoch(tl)) is not None]
    if not series:
        return []
    fig, axes = _grid(len(series), width=5.8, height=3.4, sharex=False)
    table = [["configuration", "trial", "epoch", "value", "what"]]
    for ax, (config, trial, s) in zip(axes, series):
        ax.plot(s.epochs, s.values, color=EPOCH_COLOUR, linewidth=1.0, drawstyle="steps-mid")
        ax.set_title(f"{config.describe()} #{trial}", fontsize=9)
        ax.set_xlabel("epoch")
        ax.set_ylabel(s.what, fontsize=9)
        ax.grid(alpha=0.3)
        table += [[config.describe(), trial, e, v, s.what] for e, v in zip(s.epochs, s.values)]
    _share_y(axes)
    title = "garbage per epoch (Epochs too epic Fig. 4)"
    fig.suptitle(title)
    return [_save(fig, out_dir, f"{prefix}-garbage-per-epoch", title, table,
                  caption=f"{title}: one panel per configuration (first trial); {SHARED_Y}.")]
