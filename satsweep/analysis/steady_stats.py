"""The statistics of steady-state simulation (docs/steady-state.md), on plain series of numbers:

- :func:`mser`: the warm-up's truncation point by MSER-5 (White 1997; Jain 1991, ch. 25);
- :func:`welch`: Welch's moving average of the replications' mean series, for a person to judge;
- :func:`batch_means`: a confidence interval of the mean from one long run (Jain 25.5.2);
- :func:`ratio_interval`: a confidence interval of a ratio of sums over runs (the delta method).

The store side (which series, which rows, SQL) is :mod:`satsweep.analysis.steady`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "MAX_BATCHES",
    "MIN_BATCHES",
    "MSER_BATCH",
    "BatchMeans",
    "Truncation",
    "batch_means",
    "mser",
    "ratio_interval",
    "welch",
]

#: MSER-5: the series is batched in 5s before the search, which smooths it (White et al. 2000)
MSER_BATCH = 5
#: Batch means gives no interval with fewer batches than this: the t interval of a handful of
#: batches is wide and the lag-1 test has no power
MIN_BATCHES = 10
#: Batch means starts from at most this many batches: many small batches leave correlation the
#: lag-1 test misses and intervals too narrow (Schmeiser 1982: 10 to 30 batches lose little);
#: measured on the AR(1) toy, starting from batches of one covered 0.87, from 40 batches 0.90
#: (docs/steady-state.md, "Coverage")
MAX_BATCHES = 40


@dataclass(frozen=True)
class Truncation:
    """MSER's answer for one series of ``n`` observations: drop the first ``index`` (a multiple
    of the batch). ``too_short``: the least standard error over the first half falls at its
    end, the middle of the run, so the truncation point the series asks for lies in its last
    half: the run does not leave its transient, and the truncation is not to be trusted."""

    index: int
    n: int
    too_short: bool


def _batched(series: np.ndarray, size: int) -> np.ndarray:
    """The means of consecutive batches of ``size`` (a last partial batch left out)."""
    k = len(series) // size
    return series[: k * size].reshape(k, size).mean(axis=1)


def _mser_statistic(z: np.ndarray) -> np.ndarray:
    """MSER(d) for d = 0..k-1: the sample variance of z[d:] over its length, (1/(k-d)^2) sum
    (z_j - mean(z[d:]))^2, from suffix sums."""
    k = len(z)
    count = np.arange(k, 0, -1, dtype=float)  # k - d
    total = np.cumsum(z[::-1])[::-1]
    squares = np.cumsum((z * z)[::-1])[::-1]
    spread = np.maximum(squares - total * total / count, 0.0)
    return spread / count**2


def mser(series: Sequence[float], batch: int = MSER_BATCH) -> Truncation:
    """The truncation point of ``series`` (observations in time order, e.g. the mean over the
    replications of one configuration at each time bin) by MSER-``batch``: the series is
    batched, and d minimises the standard error of the mean of the batches left, searched over
    the first half of them (past it the statistic rests on few batches and falls by chance:
    White 1997). A minimum at the half's end says the run is too short. A series of fewer than
    2 batches is not truncated."""
    values = np.asarray(series, dtype=float)
    z = _batched(values, batch)
    k = len(z)
    if k < 2:
        return Truncation(0, len(values), too_short=False)
    half = k // 2
    d = int(np.argmin(_mser_statistic(z)[: half + 1]))
    return Truncation(d * batch, len(values), too_short=d == half)


def welch(series: Sequence[float], window: int) -> np.ndarray:
    """Welch's moving average of ``series`` with half-width ``window``: point i is the mean of
    points i - w .. i + w, the window shrinking to i near the start (2i + 1 points) so the
    first points stay centred; the last ``window`` points, which have no full window, are left
    out (Law & Kelton; Jain 25.3.5)."""
    values = np.asarray(series, dtype=float)
    n = len(values) - window
    if n <= 0:
        return np.empty(0)
    sums = np.concatenate([[0.0], np.cumsum(values)])
    i = np.arange(n)
    w = np.minimum(i, window)
    return (sums[i + w + 1] - sums[i - w]) / (2 * w + 1)


@dataclass(frozen=True)
class BatchMeans:
    """Batch means of one run: ``batches`` of ``size`` observations, the lag-1 autocorrelation
    of their means, and the t interval mean +- halfwidth over them (None with too few
    batches: ``reason`` says why)."""

    mean: float
    halfwidth: float | None
    batches: int
    size: int
    lag1: float | None
    reason: str = ""

    @property
    def interval(self) -> tuple[float, float] | None:
        if self.halfwidth is None:
            return None
        return self.mean - self.halfwidth, self.mean + self.halfwidth


def _lag1(z: np.ndarray) -> float:
    """The lag-1 autocorrelation of ``z`` (0 for a constant series)."""
    centred = z - z.mean()
    denominator = float(np.dot(centred, centred))
    if denominator == 0:
        return 0.0
    return float(np.dot(centred[:-1], centred[1:]) / denominator)


def batch_means(
    series: Sequence[float],
    confidence: float,
    threshold: float | None = None,
    min_batches: int = MIN_BATCHES,
) -> BatchMeans:
    """The confidence interval of the steady-state mean from one run's ``series`` (the warm-up
    already removed): at most :data:`MAX_BATCHES` batches, their size doubled until the lag-1
    autocorrelation of the batch means is below ``threshold`` (default 2/sqrt(k) for k
    batches: within the band of an uncorrelated series), then the t interval of the k batch
    means with k - 1 degrees of freedom. With fewer than ``min_batches`` batches left before
    that happens, no interval."""
    from satsweep.analysis.dataset import t_quantile

    values = np.asarray(series, dtype=float)
    mean = float(values.mean()) if len(values) else math.nan
    size = max(1, len(values) // MAX_BATCHES)
    while len(values) // size >= min_batches:
        z = _batched(values, size)
        k = len(z)
        lag1 = _lag1(z)
        if lag1 < (2 / math.sqrt(k) if threshold is None else threshold):
            batched_mean = float(z.mean())
            half = t_quantile(confidence, k - 1) * float(z.std(ddof=1)) / math.sqrt(k)
            return BatchMeans(batched_mean, half, k, size, lag1)
        size *= 2
    k = len(values) // size
    return BatchMeans(
        mean, None, k, size, None,
        reason=f"the batches stay correlated down to {min_batches} batches: a longer run",
    )  # fmt: skip


def ratio_interval(
    numerators: Sequence[float], denominators: Sequence[float], confidence: float
) -> tuple[float, float | None]:
    """R = sum(y) / sum(x) over n runs and the half-width of its confidence interval by the
    delta method: var(R) ~ s^2 / (n xbar^2), s^2 the sample variance of y_i - R x_i, with
    Student's t on n - 1 degrees of freedom (Cochran, "Sampling Techniques", 6.4; sound when
    x's coefficient of variation is small, as a run's measured time or bytes are). None for
    the half-width with fewer than 2 runs or sum(x) = 0."""
    from satsweep.analysis.dataset import t_quantile

    y = np.asarray(numerators, dtype=float)
    x = np.asarray(denominators, dtype=float)
    if len(y) != len(x):
        raise ValueError(f"{len(y)} numerators but {len(x)} denominators")
    total = float(x.sum())
    if total == 0:
        return math.nan, None
    ratio = float(y.sum()) / total
    n = len(y)
    if n < 2:
        return ratio, None
    residuals = y - ratio * x
    variance = float(residuals.var(ddof=1)) / (n * (total / n) ** 2)
    return ratio, t_quantile(confidence, n - 1) * math.sqrt(variance)
