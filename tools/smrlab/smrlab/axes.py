"""The axes of an experiment grid and how their values are named in selectors, tables, plots."""

AXES = ("ds", "reclaimer", "allocator", "threads", "workload", "key_range", "stall", "readers")
NUMERIC_AXES = ("threads", "key_range", "stall", "readers")
# Left out of the report's "same for all rows" line and the summary's block titles when 0, so
# that a grid without readers reads as before the axis existed (a configuration's name and
# timeline file name leave out stall and readers when 0).
HIDDEN_WHEN_ZERO = ("readers",)
NAME_AXES = ("ds", "reclaimer", "allocator", "workload")   # shown bare, without "axis="


def shown(axis: str, value):
    """Reclaimers by their label, workloads as "I,D,S", everything else as is."""
    if axis == "reclaimer":
        return value.shown
    if axis == "workload":
        return ",".join(map(str, value))
    return value
