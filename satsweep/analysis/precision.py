"""Precision-driven campaigns: how wide the intervals a design asks about are now, and how many
replications the next round needs.

A design with ``replications: {min, max, until}`` (:class:`satsweep.design.Precision`) runs in
rounds: a pilot of ``min``; then, while a target is not met, r = ceil(r x ratio^2), ratio the
widest half-width over the one asked (a half-width falls as 1/sqrt(r) for a fixed variance:
Stein's two-stage rule, applied again after each round), at least r + 1 and at most ``max``.
Over effects, the same r for every configuration (the factorial analysis needs a balanced
design) and the half-widths are the main effects' intervals
(``analysis/40-confidence_intervals.sql``); over configurations, each configuration its own r,
from the t interval of its own mean (``analysis/20-cells.sql``). Both at the report's
confidence. Stopping when an estimated interval is narrow enough slightly lowers its coverage
(the variance estimate and the stop are not independent); ``docs/precision.md`` states what was
measured.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from satsweep.analysis import steady
from satsweep.analysis.dataset import Dataset, t_quantile
from satsweep.analysis.results import DEFAULT_CONFIDENCE
from satsweep.design import Design, Precision, Target

__all__ = [
    "Lever",
    "Reached",
    "configuration_ratios",
    "next_replications",
    "next_round",
    "reached",
    "run_length",
]


@contextmanager
def _opened(
    runs_table: str, design: Design, confidence: float
) -> Iterator[tuple[Dataset, list[steady.SteadyResult]]]:
    """The runs of ``runs_table`` with the design's steady-state responses joined on (a target
    may name one), and what was measured of them."""
    with Dataset.open(runs_table) as data:
        measured = steady.attach(data, Path(runs_table).parent, design.analysis.steady, confidence)
        yield data, measured


@dataclass(frozen=True)
class Reached:
    """How near one target is: ``ratio`` the widest half-width over the one asked (<= 1: met),
    ``halfwidth`` that widest half-width (absolute), None with fewer than 2 runs a cell."""

    target: Target
    ratio: float | None
    halfwidth: float | None

    @property
    def met(self) -> bool:
        return self.ratio is not None and self.ratio <= 1


def _asked(target: Target, mean: float) -> float:
    """The absolute half-width ``target`` asks for around ``mean``."""
    return target.halfwidth if target.halfwidth is not None else target.relative * abs(mean)


def _widest(items: list[tuple[float, float]]) -> tuple[float | None, float | None]:
    """(ratio, half-width) of the item with the largest half-width / asked; (None, None) when an
    interval is missing (inf marks one)."""
    if not items or any(math.isinf(h) for h, _ in items):
        return None, None
    h, asked = max(items, key=lambda item: item[0] / item[1] if item[1] > 0 else math.inf)
    return (h / asked if asked > 0 else math.inf), h


def _configuration_items(
    data: Dataset, target: Target, confidence: float
) -> dict[str, tuple[float, float]]:
    """config_id -> (half-width of its mean's t interval, the one asked; inf: one run)."""
    items = {}
    for cell in data.cells(target.response, ["config_id"]):
        half = (
            t_quantile(confidence, cell.n - 1) * cell.stddev / math.sqrt(cell.n)
            if cell.n > 1 and cell.stddev is not None
            else math.inf
        )
        items[cell.levels[0]] = (half, _asked(target, cell.mean))
    return items


def _effect_items(data: Dataset, design: Design, target: Target, confidence: float) -> list:
    """(half-width, asked) of every main effect of ``target.response``, over the analysis's
    factors (``analysis.factors``, else the design's), per group of ``analysis.by``."""
    by = design.analysis.by
    factors = [f for f in design.analysis.factors or design.factors if f != by]
    items = []
    for group in data.groups(by) if by else [None]:
        where = {"by": by, "group": group} if by else {}
        analysis = data.analyze(target.response, factors, confidence=confidence, **where)
        for levels in analysis.effects.values():
            for effect in levels.values():
                half = effect.ci[1] - effect.effect if effect.ci else math.inf
                items.append((half, _asked(target, analysis.mean)))
    return items


def _precision(design: Design) -> Precision:
    if design.precision is None:
        raise ValueError(f"study {design.study} asks for no precision")
    return design.precision


def reached(
    runs_table: str, design: Design, confidence: float = DEFAULT_CONFIDENCE
) -> list[Reached]:
    """Each target of ``design.precision`` against the runs in ``runs_table`` (a study's
    runs.parquet): over effects, every main effect of the analysis (per group of
    ``analysis.by`` when it names one); over configurations, every configuration's mean. The
    widest decides."""
    precision = _precision(design)
    result = []
    with _opened(runs_table, design, confidence) as (data, _):
        for target in precision.until:
            if precision.over == "effects":
                items = _effect_items(data, design, target, confidence)
            else:
                items = list(_configuration_items(data, target, confidence).values())
            ratio, half = _widest(items)
            result.append(Reached(target, ratio, half))
    return result


def configuration_ratios(
    runs_table: str, design: Design, confidence: float = DEFAULT_CONFIDENCE
) -> dict[str, float]:
    """config_id -> its widest half-width over the one asked, over the targets (inf: fewer than
    2 runs, or a mean of 0 with a relative target)."""
    ratios: dict[str, float] = {}
    with _opened(runs_table, design, confidence) as (data, _):
        for target in _precision(design).until:
            for cid, (half, asked) in _configuration_items(data, target, confidence).items():
                ratio = half / asked if asked > 0 else math.inf
                ratios[cid] = max(ratios.get(cid, 0.0), ratio)
    return ratios


def _grown(r: int, ratio: float | None, most: int) -> int:
    """r after a round that reached ``ratio`` (> 1): ceil(r x ratio^2), at least r + 1 (r + 1
    when no ratio is known), at most ``most``."""
    if ratio is None or math.isinf(ratio):
        return min(most, r + 1)
    return min(most, max(r + 1, math.ceil(r * ratio**2)))


def next_replications(r: int, now: list[Reached], most: int) -> int:
    """The next round's replications after a round of ``r`` with ``now``: r itself when every
    target is met or r is ``most``; else ceil(r x ratio^2) for the widest, at least r + 1 and at
    most ``most``."""
    if all(x.met for x in now) or r >= most:
        return r
    ratios = [x.ratio for x in now if not x.met]
    return _grown(r, None if None in ratios else max(ratios), most)


def next_round(
    design: Design, runs_table: str, now: list[Reached], confidence: float = DEFAULT_CONFIDENCE
) -> Design | None:
    """The campaign's next round after ``design``'s (whose runs are in ``runs_table`` and
    reached ``now``), or None when it stops: every target met, or no configuration below
    ``max`` that still needs runs. Over effects every configuration takes
    :func:`next_replications`; over configurations only those whose own mean is not yet known
    to the precision asked grow, each by its own ratio."""
    precision = _precision(design)
    if precision.over == "effects":
        r = next_replications(design.replications, now, precision.max)
        return None if r == design.replications else design.with_replications(r)
    if all(x.met for x in now):
        return None
    ratios = configuration_ratios(runs_table, design, confidence)
    counts = {c.config_id: design.replications_for(c.config_id) for c in design.configurations}
    grown = {
        cid: _grown(r, ratios.get(cid), precision.max) if ratios.get(cid, math.inf) > 1 else r
        for cid, r in counts.items()
    }
    if grown == counts:
        return None
    return design.with_replications(min(grown.values()), grown)


@dataclass(frozen=True)
class Lever:
    """Two ways to narrow a steady-state response's intervals by ``ratio`` (> 1): more
    replications of the same length, ``replications`` (only the new ones run), or every
    replication ``longer`` instead of ``length`` (all run again: a run of another length is
    another configuration), in core-seconds of the cost hint (the program's ``cost``)."""

    target: Target
    parameter: str  # the parameter that sets the run's length
    length: float
    warmup: float  # the longest warm-up over the configurations
    replications: int
    longer: float
    cost_replications: float
    cost_longer: float

    @property
    def longer_is_cheaper(self) -> bool:
        return self.cost_longer < self.cost_replications


def run_length(
    design: Design, runs_table: str, now: list[Reached], confidence: float = DEFAULT_CONFIDENCE
) -> list[Lever]:
    """For each unmet target on a steady-state response whose ``length`` is fixed (not a
    factor) and whose warm-up is measured: the cost of meeting it by more replications against
    that of longer runs. The variance of a run's mean after the warm-up w falls as 1/(T - w)
    for a run of length T (Jain 25.5: past the warm-up, the batch-means argument), as it falls
    as 1/r for r replications; so r' = ceil(r x ratio^2) (the campaign's own rule) against T' =
    w + (T - w) x ratio^2 with r kept. Each replication pays the warm-up again, a longer run
    pays it once: the longer the warm-up, the more the longer runs save."""
    by_name = {s.response: s for s in design.analysis.steady}
    unmet = [
        x for x in now
        if not x.met and x.ratio is not None and math.isfinite(x.ratio)
        and (s := by_name.get(x.target.response)) is not None and s.warmup == "auto"
        and s.length is not None and s.length not in design.factors
    ]  # fmt: skip
    if not unmet:
        return []
    with _opened(runs_table, design, confidence) as (_, measured):
        warmups = {m.settings.response: m for m in measured}
    describe, r = design.describe, design.most_replications
    levers = []
    for x in unmet:
        settings = by_name[x.target.response]
        name = settings.length
        parameter = describe.parameter(name)
        length = float(design.fixed.get(name, parameter.default if parameter else math.nan))
        warm = max((c.warmup for c in warmups[settings.response].configurations), default=0.0)
        if not math.isfinite(length) or warm >= length:
            continue
        more = _grown(r, x.ratio, 10**9)  # what the target needs, whatever max allows
        longer = warm + (length - warm) * x.ratio**2

        def cost(value: float, name: str = name) -> float:
            return sum(
                describe.estimated_seconds({**c.params, name: value}) for c in design.configurations
            )

        levers.append(
            Lever(
                x.target,
                name,
                length,
                warm,
                more,
                longer,
                (more - r) * cost(length),
                r * cost(longer),
            )
        )
    return levers
