"""Precision-driven campaigns: how wide the intervals a design asks about are now, and how many
replications the next round needs.

A design with ``replications: {min, max, until}`` (:class:`satsweep.design.Precision`) runs in
rounds with the same r for every configuration: a pilot of ``min``; then, while a target is not
met, r = ceil(r x ratio^2), ratio the widest half-width over the one asked (a half-width falls
as 1/sqrt(r) for a fixed variance: Stein's two-stage rule, applied again after each round), at
least r + 1 and at most ``max``. The half-widths are the report's: the main effects' intervals
of the factorial analysis (``analysis/40-confidence_intervals.sql``) or each configuration's t
interval of its mean (``analysis/20-cells.sql``), at the report's confidence. Stopping when an
estimated interval is narrow enough slightly lowers its coverage (the variance estimate and the
stop are not independent); ``docs/precision.md`` states what was measured.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from satsweep.analysis.dataset import Dataset, t_quantile
from satsweep.analysis.results import DEFAULT_CONFIDENCE
from satsweep.design import Design, Target

__all__ = ["Reached", "next_replications", "reached"]


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


def reached(
    runs_table: str, design: Design, confidence: float = DEFAULT_CONFIDENCE
) -> list[Reached]:
    """Each target of ``design.precision`` against the runs in ``runs_table`` (a study's
    runs.parquet), over the analysis's factors (``analysis.factors``, else the design's), per
    group of ``analysis.by`` when it names one (the widest over the groups decides)."""
    precision = design.precision
    if precision is None:
        raise ValueError(f"study {design.study} asks for no precision")
    by = design.analysis.by
    factors = [f for f in design.analysis.factors or design.factors if f != by]
    result = []
    with Dataset.open(runs_table) as data:
        groups = data.groups(by) if by else [None]
        for target in precision.until:
            items: list[tuple[float, float]] = []
            for group in groups:  # with analysis.by, every group's analysis
                where = {"by": by, "group": group} if by else {}
                if precision.over == "effects":
                    analysis = data.analyze(target.response, factors, confidence=confidence,
                                            **where)  # fmt: skip
                    for levels in analysis.effects.values():
                        for effect in levels.values():
                            half = effect.ci[1] - effect.effect if effect.ci else math.inf
                            items.append((half, _asked(target, analysis.mean)))
                else:
                    for cell in data.cells(target.response, factors, **where):
                        half = (
                            t_quantile(confidence, cell.n - 1) * cell.stddev / math.sqrt(cell.n)
                            if cell.n > 1 and cell.stddev is not None
                            else math.inf
                        )
                        items.append((half, _asked(target, cell.mean)))
            ratio, half = _widest(items)
            result.append(Reached(target, ratio, half))
    return result


def next_replications(r: int, now: list[Reached], most: int) -> int:
    """The next round's replications after a round of ``r`` with ``now``: r itself when every
    target is met or r is ``most``; else ceil(r x ratio^2) for the widest, at least r + 1 and at
    most ``most``."""
    if all(x.met for x in now) or r >= most:
        return r
    ratios = [x.ratio for x in now if not x.met]
    if any(ratio is None or math.isinf(ratio) for ratio in ratios):
        return min(most, r + 1)
    wanted = math.ceil(r * max(ratios) ** 2)
    return min(most, max(r + 1, wanted))
