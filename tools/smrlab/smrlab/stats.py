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
run in the same rounds are resampled independently. A ratio of two inputs paired by round is
the median of their per-round ratios (ratio()).
"""

import hashlib
import random
import statistics
from dataclasses import dataclass, replace

ROUNDS = 1000
LEVEL = 0.95


@dataclass(frozen=True)
class Estimate:
    value: float                    # the statistic on the medians themselves
    low: float                      # the bootstrap interval (== value without noise estimate)
    high: float
    trials: tuple                   # trials behind each input, e.g. (3, 3)
    paired_rounds: int = 0          # ratio(): > 0 when the value is the median of per-round ratios

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
        basis = (f"median of {self.paired_rounds} per-round ratios" if self.paired_rounds
                 else f"{counts} trials")
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
    if not outcomes:
        return Estimate(value, value, value, trials)
    outcomes.sort()
    tail = (1 - LEVEL) / 2
    low = outcomes[int(tail * len(outcomes))]
    high = outcomes[min(len(outcomes) - 1, int((1 - tail) * len(outcomes)))]
    return Estimate(value, min(low, value), max(high, value), trials)


def _by_round(samples: list, rounds: list | None) -> list | None:
    """One tuple per round (every input's value in it), when every input ran once in each of
    the same two or more rounds; else None (resample independently)."""
    if not rounds or len(rounds) != len(samples):
        return None
    maps = []
    for values, where in zip(samples, rounds):
        if len(where) != len(values) or len(set(where)) != len(where) or None in where:
            return None
        maps.append(dict(zip(where, values)))
    common = set(maps[0])
    if len(common) < 2 or any(set(m) != common for m in maps):
        return None
    return [tuple(m[k] for m in maps) for k in sorted(common)]


def ratio(numerator, denominator, rounds: list | None = None) -> Estimate | None:
    """median(numerator) / median(denominator) with its bootstrap interval; when both sides ran
    in the same rounds (see above), the median of the per-round ratios, its interval resampling
    rounds. The ratio of medians can take its two medians from rounds in different phases of the
    machine (on a day when its two cores run at 9 or at 24 Mops/s by turns, a 2x error); a
    per-round ratio compares runs of one round, and with [run] paired_suffix runs a trial apart."""
    by_round = _by_round([tuple(numerator), tuple(denominator)], rounds)
    if by_round is None or any(d == 0 for _, d in by_round):
        return estimate([numerator, denominator], lambda a, b: a / b, rounds)
    per_round = estimate([[n / d for n, d in by_round]], lambda r: r)
    return replace(per_round, trials=(len(by_round), len(by_round)), paired_rounds=len(by_round))
