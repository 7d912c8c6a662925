"""The axes of an experiment grid and how their values are named in selectors, tables, plots."""

AXES = ("ds", "reclaimer", "allocator", "threads", "workload", "key_range", "stall")
NUMERIC_AXES = ("threads", "key_range", "stall")
NAME_AXES = ("ds", "reclaimer", "allocator", "workload")   # shown bare, without "axis="


def shown(axis: str, value):
    """Reclaimers by their label, workloads as "I,D,S", everything else as is."""
    if axis == "reclaimer":
        return value.shown
    if axis == "workload":
        return ",".join(map(str, value))
    return value
