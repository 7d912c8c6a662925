"""Noise: a percentile bootstrap over the trials of each configuration.

A configuration's trials are few (1-5), so the plots and tables give the median with the min-max
range, which is what the trials actually span. To compare two configurations (a ratio of their
medians, or any function of several medians) the trials of each are resampled with replacement
ROUNDS times; the 2.5th and 97.5th percentiles of the recomputed statistic form its 95%
interval. A comparison is decided only when that interval lies wholly on one side of the bound;
when it straddles the bound the difference is within the noise. With one trial per
configuration there is no estimate of the noise: the point value decides, and the text says so.
The resampling is seeded from the data, so a report is reproducible.

Trials are paired by round when every input ran in the same rounds (two or more): smrlab runs
trial k of every configuration in one interleaved round, so a slow phase of the machine hits a
whole round (this 2-core VM has phases some 25% slower for every configuration at once). The
bootstrap then resamples rounds, the same ones for every input, so such a phase moves numerator
and denominator together instead of widening the interval of their ratio. Inputs that did not
run in the same rounds are resampled independently. A ratio of two inputs that share two or more
rounds is the median of their per-round ratios over those rounds (ratio(), by_round()), a trial
whose partner failed left out.
"""

import hashlib
import random
import statistics
from dataclasses import dataclass

ROUNDS = 1000
LEVEL = 0.95


@dataclass(frozen=True)
class Estimate:
    value: float                    # the statistic on the medians, or on the shared rounds
    low: float                      # the bootstrap interval (== value without noise estimate)
    high: float
    trials: tuple                   # trials behind each input, e.g. (3, 3)
    paired_rounds: int = 0          # > 0: computed round by round over this many shared rounds
    left_out: int = 0               # trials left out for want of a partner in their round

    @property
    def has_noise_estimate(self) -> bool:
        return any(n > 1 for n in self.trials)

    def side(self, low: float | None, high: float | None) -> bool | None:
        """True: inside [low, high] beyond the noise; False: outside beyond the noise; None:
        the interval straddles a bound."""
        if (low is not None and self.high < low) or (high is not None and self.low > high):
            return False
        if (low is None or self.low >= low) and (high is None or self.high <= high):
            return True
        return None

    def text(self, fmt=lambda x: f"{x:.3g}") -> str:
        counts = "+".join(map(str, self.trials))
        if not self.has_noise_estimate:
            return f"{fmt(self.value)} (1 trial each: no noise estimate)"
        basis = f"{counts} trials"
        if self.paired_rounds:
            basis = f"median of {self.paired_rounds} per-round ratios" + (
                f"; {self.left_out} trial{'s' if self.left_out > 1 else ''} without a partner "
                f"in their round left out" if self.left_out else "")
        return f"{fmt(self.value)} [{fmt(self.low)}–{fmt(self.high)}, {LEVEL:.0%} bootstrap, {basis}]"


def estimate(samples: list, fn, rounds: list | None = None) -> Estimate | None:
    """fn(*medians) and its bootstrap interval; samples: one sequence of trial values per input;
    rounds: optionally, for each input, the round of each of its values (see above). None when
    fn has no value on the medians (a zero denominator)."""
    samples = [tuple(s) for s in samples]
    try:
        value = fn(*(statistics.median(s) for s in samples))
    except ZeroDivisionError:
        return None
    if value is None:
        return None
    trials = tuple(len(s) for s in samples)
    if all(n <= 1 for n in trials):
        return Estimate(value, value, value, trials)
    rng = random.Random(hashlib.sha256(repr(samples).encode()).hexdigest())
    by_round = _by_round(samples, rounds)
    outcomes = []
    for _ in range(ROUNDS):
        try:
            if by_round is not None:
                picked = rng.choices(by_round, k=len(by_round))
                v = fn(*(statistics.median(r[i] for r in picked) for i in range(len(samples))))
            else:
                v = fn(*(statistics.median(rng.choices(s, k=len(s))) for s in samples))
        except ZeroDivisionError:
            continue
        if v is not None:
            outcomes.append(v)
    return _interval(value, outcomes, trials)


def _interval(value: float, outcomes: list, trials: tuple, **extra) -> Estimate:
    """The estimate with the percentile interval of the bootstrap's outcomes (none: no width)."""
    if not outcomes:
        return Estimate(value, value, value, trials, **extra)
    outcomes.sort()
    tail = (1 - LEVEL) / 2
    low = outcomes[int(tail * len(outcomes))]
    high = outcomes[min(len(outcomes) - 1, int((1 - tail) * len(outcomes)))]
    return Estimate(value, min(low, value), max(high, value), trials, **extra)


def _by_round(samples: list, rounds: list | None) -> list | None:
    """One tuple per round (every input's value in it), when every input ran once in each of
    the same two or more rounds; else None (resample independently)."""
    shared = shared_rounds(samples, rounds)
    return shared[0] if shared is not None and shared[1] == 0 else None


def shared_rounds(samples: list, rounds: list | None) -> tuple[list, int] | None:
    """(one tuple per round that every input ran in, with each input's value; how many values
    had no partner in their round) when the inputs share two or more rounds; else None."""
    if not rounds or len(rounds) != len(samples):
        return None
    maps = []
    for values, where in zip(samples, rounds):
        if len(where) != len(values) or len(set(where)) != len(where) or None in where:
            return None
        maps.append(dict(zip(where, values)))
    common = set(maps[0]).intersection(*maps[1:])
    if len(common) < 2:
        return None
    rows = [tuple(m[k] for m in maps) for k in sorted(common)]
    return rows, sum(len(values) for values in samples) - len(rows) * len(samples)


def by_round(samples: list, rounds: list | None, fn) -> Estimate | None:
    """fn(rows) over the rounds every input shared (rows: one tuple of the inputs' values per
    round), with its bootstrap interval resampling those rounds; None when the inputs share
    fewer than two rounds, or fn has no value (a zero denominator)."""
    shared = shared_rounds(samples, rounds)
    if shared is None:
        return None
    rows, left_out = shared
    try:
        value = fn(rows)
    except ZeroDivisionError:
        return None
    rng = random.Random(hashlib.sha256(repr(rows).encode()).hexdigest())
    outcomes = []
    for _ in range(ROUNDS):
        try:
            outcomes.append(fn(rng.choices(rows, k=len(rows))))
        except ZeroDivisionError:
            continue
    return _interval(value, outcomes, tuple(len(v) for v in samples), paired_rounds=len(rows),
                     left_out=left_out)


def median_ratio(rows, numerator: int = 0, denominator: int = 1) -> float:
    """The median over rounds of one input's value over another's (rows: by_round's)."""
    return statistics.median(r[numerator] / r[denominator] for r in rows)


def ratio(numerator, denominator, rounds: list | None = None) -> Estimate | None:
    """median(numerator) / median(denominator) with its bootstrap interval; when the two sides
    share two or more rounds (see above), the median of the per-round ratios over those rounds,
    its interval resampling them (a trial whose partner failed is left out, and the text says
    so). The ratio of medians can take its two medians from rounds in different phases of the
    machine (on a day when its cores run at 9 or at 23 Mops/s by turns, a 2x error); a per-round
    ratio compares runs of one round, and with [run] paired_suffix runs a trial apart."""
    paired = by_round([tuple(numerator), tuple(denominator)], rounds, median_ratio)
    if paired is not None:
        return paired
    return estimate([numerator, denominator], lambda a, b: a / b, rounds)
