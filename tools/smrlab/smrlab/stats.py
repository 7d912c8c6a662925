"""Noise: a percentile bootstrap over the trials of each configuration.

A configuration's trials are few (1-5), so the plots and tables give the median with the min-max
range, which is what the trials actually span. To compare two configurations (a ratio of their
medians, or any function of several medians) the trials of each are resampled with replacement
ROUNDS times; the 2.5th and 97.5th percentiles of the recomputed statistic form its 95%
interval. A comparison is decided only when that interval lies wholly on one side of the bound;
when it straddles the bound the difference is within the noise. With one trial per
configuration there is no estimate of the noise: the point value decides, and the text says so.
The resampling is seeded from the data, so a report is reproducible.
"""

import hashlib
import random
import statistics
from dataclasses import dataclass

ROUNDS = 1000
LEVEL = 0.95


@dataclass(frozen=True)
class Estimate:
    value: float                    # the statistic on the medians themselves
    low: float                      # the bootstrap interval (== value without noise estimate)
    high: float
    trials: tuple                   # trials behind each input, e.g. (3, 3)

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
        return (f"{fmt(self.value)} [{fmt(self.low)}–{fmt(self.high)}, {LEVEL:.0%} bootstrap, "
                f"{counts} trials]")


def estimate(samples: list, fn) -> Estimate | None:
    """fn(*medians) and its bootstrap interval; samples: one sequence of trial values per input.
    None when fn has no value on the medians (a zero denominator)."""
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
    outcomes = []
    for _ in range(ROUNDS):
        try:
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


def ratio(numerator, denominator) -> Estimate | None:
    """median(numerator) / median(denominator) with its bootstrap interval."""
    return estimate([numerator, denominator], lambda a, b: a / b)
