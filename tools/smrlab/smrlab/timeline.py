"""smrbench timeline files (CSV) and what is derived from them: garbage per epoch.

Format: `# smrbench-timeline 1 <config JSON>`, then `thread,kind,start_ns,end_ns,value`, then one
row per event; times in ns since the trial started.
"""

import bisect
import csv
import json
from dataclasses import dataclass
from pathlib import Path

from smrlab.errors import BadInput

MAGIC = "# smrbench-timeline 1 "
COLUMNS = ["thread", "kind", "start_ns", "end_ns", "value"]
KINDS = ("batch_free", "free_call", "epoch_advance", "signal", "garbage", "stall")


class TimelineError(BadInput):
    pass


@dataclass(frozen=True, slots=True)       # slots: a timeline can hold ~10^6 events
class Event:
    thread: int
    kind: str
    start_ns: int
    end_ns: int
    value: int


@dataclass
class Timeline:
    config: dict
    events: list

    def of_kind(self, kind: str) -> list:
        return [e for e in self.events if e.kind == kind]

    @property
    def threads(self) -> list:
        return sorted({e.thread for e in self.events})

    @property
    def end_ns(self) -> int:
        return max((e.end_ns for e in self.events), default=0)


def read(path: Path) -> Timeline:
    try:
        return _read(path)
    except UnicodeDecodeError as e:
        raise TimelineError(f"{path}: not UTF-8 text (byte 0x{e.object[e.start]:02x} at offset "
                            f"{e.start}): not an smrbench timeline") from None
    except OSError as e:
        raise TimelineError(f"{path}: cannot be read: {e.strerror}") from None


def _read(path: Path) -> Timeline:
    with open(path, newline="", encoding="utf-8") as f:
        first = f.readline().rstrip("\n")
        if not first.startswith(MAGIC):
            raise TimelineError(f"{path}:1: expected '{MAGIC.strip()} <config JSON>'")
        try:
            config = json.loads(first[len(MAGIC):])
        except ValueError as e:
            raise TimelineError(f"{path}:1: config is not JSON: {e}") from None
        rows = csv.reader(f)
        if next(rows, None) != COLUMNS:
            raise TimelineError(f"{path}:2: expected header {','.join(COLUMNS)}")
        events = [_event(row, path, number) for number, row in enumerate(rows, 3) if row]
    return Timeline(config, events)


def _event(row: list, path: Path, number: int) -> Event:
    try:
        thread, kind, start, end, value = row
        event = Event(int(thread), kind, int(start), int(end), int(value))
    except ValueError:
        raise TimelineError(f"{path}:{number}: expected {','.join(COLUMNS)} with integers, "
                            f"got {','.join(row)}") from None
    if kind not in KINDS:
        raise TimelineError(f"{path}:{number}: unknown kind '{kind}' (known: {', '.join(KINDS)})")
    if event.end_ns < event.start_ns:
        raise TimelineError(f"{path}:{number}: end_ns is before start_ns")
    return event


@dataclass
class EpochSeries:
    what: str               # what each value counts
    epochs: list            # epoch numbers, in order
    starts_ns: list         # when each epoch began
    values: list


def per_epoch(timeline: Timeline) -> EpochSeries | None:
    """Epochs too epic Fig. 4: for each epoch, the sum over threads of the garbage each had when
    it began that epoch (`garbage` events); without those, nodes freed in batches during it."""
    advances = sorted(timeline.of_kind("epoch_advance"), key=lambda e: e.start_ns)
    if not advances:
        return None
    garbage = timeline.of_kind("garbage")
    source = garbage or timeline.of_kind("batch_free")
    if not source:
        return None
    what = ("garbage nodes when threads began the epoch" if garbage
            else "nodes freed in batches during the epoch")
    times = [a.start_ns for a in advances]
    epochs = [advances[0].value - 1] + [a.value for a in advances]    # before the first advance
    starts = [0] + times
    totals = [0] * len(epochs)
    for event in source:
        # bisect_right: an event at the instant of an advance belongs to the new epoch.
        totals[bisect.bisect_right(times, event.start_ns)] += event.value
    return EpochSeries(what, epochs, starts, totals)
