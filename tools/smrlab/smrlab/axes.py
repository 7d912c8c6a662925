"""The axes of an experiment grid and how their values are named in selectors, tables, plots."""

AXES = ("ds", "reclaimer", "allocator", "threads", "workload", "key_range", "stall", "readers",
        "node_pool", "pool_wait")
NUMERIC_AXES = ("threads", "key_range", "stall", "readers", "node_pool")
# node_pool 0 is no pool; pool_wait then means nothing and is always "yield" (DEFAULT_POOL_WAIT).
POOL_WAITS = ("busy", "yield")
DEFAULT_POOL_WAIT = "yield"
NAME_AXES = ("ds", "reclaimer", "allocator", "workload")   # shown bare, without "axis="


def hidden(axis: str, values: dict) -> bool:
    """Whether an axis is left out of the report's "same for all rows" line and the summary's
    block titles, so that a grid without readers or a pool reads as before those axes existed (a
    configuration's name and timeline file name leave them out too). values: axis -> value."""
    if axis in ("readers", "node_pool"):
        return values.get(axis) == 0
    if axis == "pool_wait":
        return not values.get("node_pool")
    return False


def shown(axis: str, value):
    """Reclaimers by their label, workloads as "I,D,S", everything else as is."""
    if axis == "reclaimer":
        return value.shown
    if axis == "workload":
        return ",".join(map(str, value))
    return value


def paired_names(names: list, suffix: str) -> list:
    """The reclaimer names X<suffix> whose X is among `names` too: the pairs a `paired_suffix`
    (a ratio finding's, or [run]'s) compares or runs side by side."""
    return [n for n in names if n.endswith(suffix) and n[:-len(suffix)] in names]
