"""The grid checked against what smrbench reports (`--list --json -`), before anything runs.

Errors (the run is refused, one line each): a data structure, reclaimer or allocator smrbench
does not know, a tunable a reclaimer does not have or a value of the wrong type, and a named
data structure or reclaimer that no cell of the grid can run (every pairing is incompatible).
Notes (the cell is skipped, said once with the reason): an incompatible pair or a workload the
structure cannot run (a search share, or readers, which only search, on a stack or queue) inside
a grid that otherwise uses both names, and an allocator smrbench knows but whose library is not
installed on this machine. A reclaimer's tunables are also checked by `smrbench --check` for each
data structure they run on (ranges, and what the structure needs). (A cell whose readers are not below its threads is refused by
experiment.py, with or without smrbench's list.)
"""

from dataclasses import dataclass, field

from smrlab import smrbench
from smrlab.axes import shown


@dataclass
class Checked:
    cells: list                                     # the runnable cells
    notes: list = field(default_factory=list)
    problems: list = field(default_factory=list)


def check(cells: list, caps, origin: str) -> Checked:
    """cells: tuples with one value per axis, in AXES order."""
    out = Checked([])
    _names(cells, caps, origin, out)
    if out.problems:            # pairs of unknown names have nothing more to say
        return out
    dropped = sorted({c[2] for c in cells if c[2] not in caps.allocators})
    for name in dropped:
        out.notes.append(f"dropping allocator '{name}': smrbench knows it but its library is not "
                         f"installed on this machine")
    skips = {}                              # cell -> why it cannot run
    for cell in cells:
        if cell[2] in dropped:
            continue
        why = _why_not(cell, caps)
        if why:
            skips[cell] = why
        else:
            out.cells.append(cell)
    by_reason: dict[str, list] = {}
    for cell, why in skips.items():
        by_reason.setdefault(why, []).append(_pair(cell))
    for why, pairs in by_reason.items():
        listed = list(dict.fromkeys(pairs))
        more = f", … ({len(listed) - 8} more)" if len(listed) > 8 else ""
        out.notes.append(f"skipping {', '.join(listed[:8])}{more}: {why}")
    if not out.problems:
        _tunable_refusals(out, origin, caps)
    if dropped and not out.cells and not skips:
        out.problems.append(f"{origin}: grid: no allocator of the grid is installed on this "
                            f"machine ({', '.join(dropped)})")
    _dead_names(out, skips, origin)
    return out


def _tunable_refusals(out: Checked, origin: str, caps):
    """A tunable's range and its fit to a data structure (e.g. too few hazard pointers for a
    list) are known to smrbench only: it checks each pair with tunables once, without running."""
    for ds, variant in dict.fromkeys((c[0], c[1]) for c in out.cells if c[1].params):
        args = ["--ds", ds, "--reclaimer", variant.name]
        for name, value in variant.params:
            args += ["--param", f"{name}={value}"]
        if why := smrbench.refusal(caps, args):
            out.problems.append(f"{origin}: grid: reclaimer '{variant.shown}' on {ds}: {why}")


def _pair(cell) -> str:
    workload = f" w={shown('workload', cell[4])}" if cell[4][2] else ""
    return f"{cell[1].shown}×{cell[0]}{workload}" + (f" readers={cell[7]}" if cell[7] else "")


def _names(cells: list, caps, origin: str, out: Checked):
    lists = {"data structure": (caps.data_structures, {c[0] for c in cells}),
             "reclaimer": (caps.reclaimers, {c[1].name for c in cells}),
             "allocator": (caps.known_allocators or caps.allocators, {c[2] for c in cells})}
    for kind, (known, used) in lists.items():
        for name in sorted(used - set(known)):
            if kind == "reclaimer" and name in caps.external_unbuilt:
                out.problems.append(f"{origin}: grid: reclaimer '{name}' is an external baseline "
                                    f"this smrbench was built without: install "
                                    f"{caps.external_unbuilt[name]} (scripts/setup.sh does) and "
                                    f"rebuild")
                continue
            out.problems.append(f"{origin}: grid: {kind} '{name}' is unknown to smrbench "
                                f"(accepted: {', '.join(known)})")
    for variant in dict.fromkeys(c[1] for c in cells):
        if variant.name in caps.reclaimers:
            out.problems += [f"{origin}: grid: reclaimer '{variant.shown}': {p}"
                             for p in _param_problems(variant, caps.tunables)]


def _param_problems(variant, tunables: dict) -> list:
    if variant.name not in tunables:        # an smrbench that does not list tunables
        return []
    accepted = tunables[variant.name]
    problems = []
    for name, value in variant.params:
        if name not in accepted:
            problems.append(f"unknown tunable '{name}' (accepted: "
                            f"{', '.join(accepted) or 'none, it has no tunables'})")
            continue
        expected = _type_problem(value, accepted[name])
        if expected:
            problems.append(f"{name} = {value!r}: expected {expected} "
                            f"(default {accepted[name]!r})")
    return problems


def _type_problem(value, default) -> str:
    """What `value` should be, judged by the type of the tunable's default; "" when it fits."""
    text = str(value)
    if isinstance(default, bool):
        return "" if text in ("true", "false", "1", "0") else "true or false"
    if isinstance(default, int):
        return "" if text.lstrip("-").isdigit() and not isinstance(value, float) else "an integer"
    if isinstance(default, float):
        try:
            float(text)
            return ""
        except ValueError:
            return "a number"
    return ""


def _why_not(cell, caps) -> str:
    ds, reclaimer, workload = cell[0], cell[1].name, cell[4]
    if (ds, reclaimer) not in caps.compatible:
        return caps.incompatible.get((ds, reclaimer), "incompatible pair (smrbench --list)")
    if workload[2] and not caps.accepts_search(ds):
        return (f"a {caps.kinds[ds]} has no search operation, so its workload needs a search "
                f"share of 0")
    if cell[7] and not caps.accepts_search(ds):
        return (f"a {caps.kinds[ds]} has no search operation, and readers run searches only, so "
                f"it needs readers = 0")
    return ""


def _dead_names(out: Checked, skips: dict, origin: str):
    """A data structure or reclaimer named in the grid that can run in no cell is an error:
    the experiment would silently say nothing about it. A reclaimer whose only cells are with
    a data structure already reported is not reported again."""
    dead_ds: set = set()
    for axis, name_of, other_of in (("data structure", lambda c: c[0], lambda c: c[1].shown),
                                    ("reclaimer", lambda c: c[1].shown, lambda c: c[0])):
        for name in dict.fromkeys(map(name_of, skips)):
            if any(name_of(c) == name for c in out.cells):
                continue
            mine = {c: why for c, why in skips.items() if name_of(c) == name
                    and c[0] not in dead_ds}
            if not mine:
                continue
            if axis == "data structure":
                dead_ds.add(name)
            by_reason: dict[str, list] = {}
            for c, why in mine.items():
                others = by_reason.setdefault(why, [])
                if other_of(c) not in others:
                    others.append(other_of(c))
            reasons = [f"with {', '.join(others)}: {why}" for why, others in by_reason.items()]
            more = f"; … ({len(reasons) - 2} more)" if len(reasons) > 2 else ""
            out.problems.append(f"{origin}: grid: {axis} '{name}' cannot run in any cell of the "
                                f"grid ({'; '.join(reasons[:2])}{more})")
