"""Figures (PNG and SVG) from a results directory: metric vs threads (median line, min/max
error bars), bars comparing variants, timeline graphs and garbage per epoch."""

import math
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
from matplotlib.patches import Patch  # noqa: E402

from smrlab import metrics, timeline  # noqa: E402
from smrlab.axes import AXES, NAME_AXES  # noqa: E402

MAX_TIMELINES = 12          # timeline graphs per report: the first trial of each config
BOX_COLOURS = ["#e6550d", "#31a354", "#756bb1", "#d6616b", "#8c6d31", "#636363"]
EPOCH_COLOUR = "#1f5fbf"    # the paper's blue dots; no box uses blue


@dataclass
class Figure:
    name: str
    title: str
    png: Path
    svg: Path


def make_all(results, out_dir: Path) -> list:
    out_dir.mkdir(parents=True, exist_ok=True)
    settings = results.experiment.plots
    colours = _reclaimer_colours(results.rows)
    figures = []
    for metric in settings.metrics:
        figures += _lines(results.rows, metric, settings.x, settings.logx, colours, out_dir)
    for i, bars in enumerate(settings.bars or [{"metric": "throughput_ops_s", "group": None,
                                                "where": {}}]):
        figures += _bars(results.rows, bars, i, colours, out_dir)
    shown = _first_trials(results.timelines())[:MAX_TIMELINES]
    loaded = [(config, trial, timeline.read(path)) for config, trial, path in shown]
    for config, trial, tl in loaded:
        figures.append(_timeline(config, trial, tl, out_dir))
    figures += _per_epoch(loaded, out_dir)
    return figures


def _save(fig, out_dir: Path, name: str, title: str) -> Figure:
    png, svg = out_dir / f"{name}.png", out_dir / f"{name}.svg"
    fig.savefig(png, dpi=110, bbox_inches="tight")
    fig.savefig(svg, bbox_inches="tight")
    plt.close(fig)
    return Figure(name, title, png, svg)


def _reclaimer_colours(rows: list) -> dict:
    labels = list(dict.fromkeys(r.axis("reclaimer") for r in rows))
    palette = plt.get_cmap("tab10" if len(labels) <= 10 else "tab20").colors
    return {label: palette[i % len(palette)] for i, label in enumerate(labels)}


def _facets(rows: list, fixed: set) -> list:
    """(title, rows) per combination of the varying axes not in `fixed`."""
    varying = [a for a in AXES if a not in fixed and len({r.axis(a) for r in rows}) > 1]
    groups: dict = {}
    for row in rows:
        groups.setdefault(tuple(row.axis(a) for a in varying), []).append(row)
    return [(" ".join(str(v) if a in NAME_AXES else f"{a}={v}" for a, v in zip(varying, key)),
             members) for key, members in groups.items()]


def _grid(n: int, width: float = 5.0, height: float = 3.6):
    cols = min(3, n)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat)


def _legend(fig, axes):
    handles = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    if handles:
        fig.legend(handles.values(), handles.keys(), loc="outside lower center",
                   ncols=min(len(handles), 6), frameon=False)


def _lines(rows, metric, x, logx, colours, out_dir) -> list:
    rows = [r for r in rows if metric in r.stats]
    if len({r.axis(x) for r in rows}) < 2:
        return []
    facets = _facets(rows, {x, "reclaimer"})
    fig, axes = _grid(len(facets))
    fig.set_layout_engine("constrained")
    for ax, (title, members) in zip(axes, facets):
        for label in dict.fromkeys(r.axis("reclaimer") for r in members):
            line = sorted((r for r in members if r.axis("reclaimer") == label), key=lambda r: r.axis(x))
            xs = [r.axis(x) for r in line]
            med = [metrics.scaled(metric, r.stats[metric].median) for r in line]
            low = [m - metrics.scaled(metric, r.stats[metric].low) for m, r in zip(med, line)]
            high = [metrics.scaled(metric, r.stats[metric].high) - m for m, r in zip(med, line)]
            ax.errorbar(xs, med, yerr=[low, high], label=label, color=colours[label], marker="o",
                        markersize=3, capsize=3, linewidth=1.2)
        ax.set_title(title or metrics.METRICS[metric][0], fontsize=9)
        ax.set_xlabel(x.replace("_", " "))
        ax.set_ylabel(metrics.label(metric), fontsize=8)
        if logx:
            ax.set_xscale("log")
            ax.minorticks_off()
        ticks = sorted({r.axis(x) for r in members})
        ax.set_xticks(ticks, [str(t) for t in ticks])
        ax.grid(alpha=0.3)
    _legend(fig, axes)
    title = f"{metrics.METRICS[metric][0]} vs {x.replace('_', ' ')} (median, min–max)"
    fig.suptitle(title, fontsize=11)
    return [_save(fig, out_dir, f"{metric}-vs-{x}", title)]


def _bars(rows, spec, index, colours, out_dir) -> list:
    metric, group = spec["metric"], spec["group"]
    rows = [r for r in rows if metric in r.stats
            and all(r.axis(a) in vals for a, vals in spec["where"].items())]
    if not rows:
        return []
    if "threads" not in spec["where"] and group != "threads":
        at = max(r.axis("threads") for r in rows)       # "at one thread count": the largest
        rows = [r for r in rows if r.axis("threads") == at]
    facets = _facets(rows, {"reclaimer", group})
    one_thread_count = len({r.axis("threads") for r in rows}) == 1
    fig, axes = _grid(len(facets))
    fig.set_layout_engine("constrained")
    hatches = ["", "//", "..", "xx", "\\\\"]
    all_groups = list(dict.fromkeys(r.axis(group) for r in rows)) if group else [None]
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
                ax.bar(i + (g - (len(groups) - 1) / 2) * width, med, width, yerr=err, capsize=2,
                       color=colours[label], edgecolor="black", linewidth=0.4,
                       hatch=hatches[all_groups.index(gvalue) % len(hatches)])
        ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel(metrics.label(metric), fontsize=8)
        if one_thread_count:                # otherwise threads is a facet and in the title
            title = f"{title} threads={members[0].axis('threads')}".strip()
        ax.set_title(title, fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    if group:       # colour is the reclaimer; the hatch tells the group apart
        fig.legend(handles=[Patch(facecolor="white", edgecolor="black", label=f"{group}={g}",
                                  hatch=hatches[i % len(hatches)])
                            for i, g in enumerate(all_groups)],
                   loc="outside lower center", ncols=min(len(all_groups), 6), frameon=False)
    title = f"{metrics.METRICS[metric][0]} by reclaimer" + (f" and {group}" if group else "")
    fig.suptitle(title, fontsize=11)
    return [_save(fig, out_dir, f"bars-{index}-{metric}", title)]


def _first_trials(timelines: list) -> list:
    first: dict = {}
    for config, trial, path in sorted(timelines, key=lambda t: t[1]):
        first.setdefault(config.hash, (config, trial, path))
    return list(first.values())


def _timeline(config, trial, tl, out_dir) -> Figure:
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
                  fontsize=7)
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
                  fontsize=7, frameon=False)
    title = f"timeline: {config.describe()} #{trial}"
    ax.set_title(title, fontsize=9)
    return _save(fig, out_dir, f"timeline-{config.hash}-{trial}", title)


def _per_epoch(loaded: list, out_dir: Path) -> list:
    series = [(config, trial, s) for config, trial, tl in loaded
              if (s := timeline.per_epoch(tl)) is not None]
    if not series:
        return []
    fig, axes = _grid(len(series), width=5.5, height=3.0)
    fig.set_layout_engine("constrained")
    for ax, (config, trial, s) in zip(axes, series):
        ax.plot(s.epochs, s.values, color=EPOCH_COLOUR, linewidth=0.9, drawstyle="steps-mid")
        ax.set_title(f"{config.describe()} #{trial}", fontsize=8)
        ax.set_xlabel("epoch")
        ax.set_ylabel(s.what, fontsize=7)
        ax.grid(alpha=0.3)
    title = "garbage per epoch (Epochs too epic Fig. 4)"
    fig.suptitle(title, fontsize=11)
    return [_save(fig, out_dir, "garbage-per-epoch", title)]
