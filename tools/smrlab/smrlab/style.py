"""The one plot style: a fixed colour and marker per reclaimer, the same in every plot of every
experiment, listed here and nowhere else.

Families share a hue: epoch-based in blues, pointer-based in greens, interval-based in
oranges, neutralization in reds, the leaky baseline `none` in grey, other libraries' schemes
(smrbench's external baselines) in purples, each with the marker of its smr counterpart. An amortized-free variant
(`<name>_af`) has its base's colour and marker with a dashed line and a hollow marker. A variant
with tunables keeps its reclaimer's colour and marker; variants of one reclaimer in one plot are
told apart by dotted and dash-dotted lines. A reclaimer missing from the table gets a colour and
marker derived from its name (stable, but listed here is better).
"""

import hashlib
from dataclasses import dataclass

FAMILIES = {
    "epoch": "epoch-based (blues)",
    "pointer": "pointer-based (greens)",
    "interval": "interval-based (oranges)",
    "neutralization": "neutralization (reds)",
    "baseline": "no reclamation (grey)",
    "external": "other libraries' schemes (purples)",
}

# name: (family, colour, marker). Markers are unique within a family; families differ in colour.
RECLAIMERS = {
    "none":      ("baseline",       "#737373", "x"),
    "qsbr":      ("epoch",          "#08306b", "o"),
    "ebr":       ("epoch",          "#2171b5", "s"),
    "debra":     ("epoch",          "#4292c6", "^"),
    "nebr":      ("epoch",          "#6baed6", "v"),
    "rcu":       ("epoch",          "#08519c", "<"),
    "token":     ("epoch",          "#1d91c0", ">"),
    "token_pass_first": ("epoch",   "#41b6c4", "p"),
    "token_naive": ("epoch",        "#6f8fd0", "h"),
    "hp":        ("pointer",        "#00441b", "D"),
    "hp_asym":   ("pointer",        "#238b45", "d"),
    "he":        ("pointer",        "#41ab5d", "P"),
    "lfrc":      ("pointer",        "#74c476", "X"),
    "ibr_2ge":   ("interval",       "#a63603", "p"),
    "ibr_epoch": ("interval",       "#8c2d04", "v"),
    "poibr":     ("interval",       "#d94801", "h"),
    "tag_ibr":   ("interval",       "#f16913", "H"),
    "tag_ibr_faa": ("interval",     "#fdae6b", "<"),
    "tag_ibr_wcas": ("interval",    "#fd8d3c", "8"),
    "tag_ibr_tpa": ("interval",     "#e6550d", "^"),
    "wfe":       ("interval",       "#7f2704", "*"),
    "nbr":       ("neutralization", "#cb181d", "o"),
    "nbr_plus":  ("neutralization", "#67000d", "s"),
    "urcu_qsbr": ("external",       "#3f007d", "o"),
    "urcu_memb": ("external",       "#6a51a3", "<"),
    "ck_epoch":  ("external",       "#807dba", "s"),
    "cds_hp":    ("external",       "#54278f", "D"),
    "cds_dhp":   ("external",       "#9e9ac8", "d"),
}
# Markers repeat across families only where the hue already differs (nbr's o vs qsbr's o,
# ibr_epoch's v vs nebr's v, the token orders' p and h vs ibr_2ge's and poibr's):
# the pair colour+marker is unique.

AF_SUFFIX = "_af"
FALLBACK_COLOURS = ["#ae017e", "#dd3497", "#f768a1", "#7a0177", "#c51b8a", "#fa9fb5"]  # magentas: not a family hue
FALLBACK_MARKERS = ["1", "2", "3", "4", "+", "|"]
VARIANT_LINES = ["-", ":", "-."]

FONT = {"font.size": 11, "axes.titlesize": 12, "axes.labelsize": 11, "xtick.labelsize": 10,
        "ytick.labelsize": 10, "legend.fontsize": 10, "figure.titlesize": 13}
DPI = 200
ERROR_BARS = "min–max over the trials"          # what the error bars show, for captions


@dataclass(frozen=True)
class Look:
    family: str
    colour: str
    marker: str
    linestyle: str
    hollow: bool

    def line_kwargs(self) -> dict:
        return {"color": self.colour, "marker": self.marker, "linestyle": self.linestyle,
                "markerfacecolor": "white" if self.hollow else self.colour,
                "markeredgecolor": self.colour}

    def bar_kwargs(self) -> dict:
        return {"color": "white" if self.hollow else self.colour, "edgecolor": self.colour
                if self.hollow else "black", "linestyle": "--" if self.hollow else "-"}


def base_name(name: str) -> str:
    return name[: -len(AF_SUFFIX)] if name.endswith(AF_SUFFIX) else name


def look(name: str, variant_index: int = 0) -> Look:
    """The style of reclaimer `name` (the smrbench name, not a label). variant_index: which of
    several tunable variants of the same reclaimer in one plot (0 for the first or only one)."""
    base = base_name(name)
    af = base != name
    if base in RECLAIMERS:
        family, colour, marker = RECLAIMERS[base]
    else:
        digest = int(hashlib.sha256(base.encode()).hexdigest(), 16)
        family = "other"
        colour = FALLBACK_COLOURS[digest % len(FALLBACK_COLOURS)]
        marker = FALLBACK_MARKERS[digest // 7 % len(FALLBACK_MARKERS)]
    line = "--" if af else VARIANT_LINES[variant_index % len(VARIANT_LINES)]
    if af and variant_index:
        line = (0, (5, 2, 1, 2))
    return Look(family, colour, marker, line, af)


def looks(reclaimers: list) -> dict:
    """{label: Look} for (label, name) pairs in plot order: tunable variants of the same
    reclaimer get distinct line styles, everything else its fixed look."""
    seen: dict = {}
    out = {}
    for label, name in reclaimers:
        index = seen.get(name, 0)
        seen[name] = index + 1
        out[label] = look(name, index)
    return out
