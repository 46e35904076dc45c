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
    "Decision",
    "Lever",
    "Reached",
    "configuration_ratios",
    "decide",
    "longer_round",
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


def _replicated(
    design: Design, runs_table: str, now: list[Reached], confidence: float
) -> Design | None:
    """The next round by more replications (None: none can grow). Over effects every
    configuration takes :func:`next_replications`; over configurations only those whose own
    mean is not yet known to the precision asked grow, each by its own ratio."""
    precision = _precision(design)
    if precision.over == "effects":
        r = next_replications(design.replications, now, precision.max)
        return None if r == design.replications else design.with_replications(r)
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
class Decision:
    """A campaign's next round and why it is what it is: ``why`` is empty for more
    replications, else why the runs grow instead."""

    design: Design
    why: str = ""


def decide(
    design: Design, runs_table: str, now: list[Reached], confidence: float = DEFAULT_CONFIDENCE
) -> Decision | None:
    """The campaign's next round after ``design``'s (whose runs are in ``runs_table`` and
    reached ``now``), or None when it stops: every target met, or nothing left to grow. More
    replications (:func:`_replicated`), or, with ``replications.max_length``, every run longer
    (:func:`longer_round`) when that is the cheaper way to the targets or replications are at
    ``max``, and whenever a target's runs are too short to leave their transient (met or not:
    an interval around a biased mean is narrow and wrong)."""
    longer = longer_round(design, runs_table, now, confidence)
    if longer is not None and longer[1].too_short:  # a bias: only longer runs leave it
        return Decision(longer[0], "too short to leave their transient")
    if all(x.met for x in now):
        return None
    replicated = _replicated(design, runs_table, now, confidence)
    if longer is not None and replicated is None:
        return Decision(longer[0], "the replications at max")
    if longer is not None and longer[1].longer_is_cheaper:
        return Decision(longer[0], "cheaper than more replications by the cost hint")
    return None if replicated is None else Decision(replicated)


def next_round(
    design: Design, runs_table: str, now: list[Reached], confidence: float = DEFAULT_CONFIDENCE
) -> Design | None:
    """The campaign's next round's design (:func:`decide`), or None when it stops."""
    decision = decide(design, runs_table, now, confidence)
    return None if decision is None else decision.design


#: The least a round that grows the runs adds to their time after the warm-up: a quarter. A
#: round that grows them makes every run again, so with r at a large max the (r + 1)/r of one
#: more replication would make a round per 1/r more; this bounds the rounds to about ten per
#: tenfold length.
LEAST_GROWTH = 1.25


@dataclass(frozen=True)
class Lever:
    """Two ways to narrow a steady-state response's intervals by ``ratio`` (> 1; at most 1: the
    target is met): more replications (``replications`` for the configuration that needs the
    most; only the new ones run), or every replication ``longer`` instead of ``length`` (all
    run again: a run of another length is another configuration), in core-seconds of the cost
    hint. ``too_short``: a configuration's runs do not leave their transient (MSER-5's cut at
    the end of the run's first half), a bias no replication removes."""

    target: Target
    ratio: float
    parameter: str  # the parameter that sets the run's length
    length: float
    warmup: float  # the longest warm-up over the configurations
    replications: int
    longer: float
    cost_replications: float
    cost_longer: float
    too_short: bool = False

    @property
    def longer_is_cheaper(self) -> bool:
        return self.cost_longer < self.cost_replications


def _run_seconds(design: Design, params: dict, name: str, value: float, length: float) -> float:
    """One run's estimated core-seconds at length ``value`` (the cost hint's; in proportion to
    the length when the hint does not scale with it: a simulation's work grows with the time
    it simulates)."""
    describe = design.describe
    seconds = describe.estimated_seconds({**params, name: value})
    if describe.cost is None or name not in describe.cost.per:
        seconds *= value / length
    return seconds


def run_length(
    design: Design, runs_table: str, now: list[Reached], confidence: float = DEFAULT_CONFIDENCE
) -> list[Lever]:
    """For each target on a steady-state response whose ``length`` is fixed (not a factor)
    and whose warm-up is known (measured, or given): the cost of meeting it by more
    replications against that of longer runs, and whether its runs are too short to leave
    their transient. The variance of a run's mean after the warm-up w falls as 1/(T - w) for
    a run of length T (Jain 25.5: past the warm-up, the batch-means argument), as it falls as
    1/r for r replications; so r' = ceil(r x ratio^2) (the campaign's own rule, per
    configuration over configurations) against T' = w + (T - w) x ratio^2 with r kept. Each
    replication pays the warm-up again, a longer run pays it once: the longer the warm-up, the
    more the longer runs save."""
    by_name = {s.response: s for s in design.analysis.steady}
    asked = [
        x for x in now
        if x.ratio is not None and math.isfinite(x.ratio)
        and (s := by_name.get(x.target.response)) is not None
        and s.length is not None and s.length not in design.factors
    ]  # fmt: skip
    if not asked:
        return []
    configurations = design.configurations
    counts = {c.config_id: design.replications_for(c.config_id) for c in configurations}
    levers = []
    with _opened(runs_table, design, confidence) as (data, measured):
        warmups = {m.settings.response: m for m in measured}
        for x in asked:
            settings, ratio = by_name[x.target.response], max(1.0, x.ratio or 1.0)
            name = settings.length
            length = design.fixed_number(name)
            auto = settings.warmup == "auto"
            found = warmups[settings.response].configurations
            warm = max((c.warmup for c in found), default=0.0) if auto else float(settings.warmup)
            if length is None or not math.isfinite(length) or warm >= length:
                continue
            if design.precision is not None and design.precision.over == "configurations":
                own = _configuration_items(data, x.target, confidence)
                ratios = {cid: h / a if a > 0 else math.inf for cid, (h, a) in own.items()}
            else:
                ratios = dict.fromkeys(counts, ratio)
            # what the target needs, whatever max allows
            more = {
                cid: _grown(r, ratios[cid], 10**9) if ratios.get(cid, math.inf) > 1 else r
                for cid, r in counts.items()
            }
            longer = warm + (length - warm) * ratio**2
            levers.append(
                Lever(
                    x.target, x.ratio, name, length, warm, max(more.values()), longer,
                    sum((more[c.config_id] - counts[c.config_id])
                        * _run_seconds(design, c.params, name, length, length)
                        for c in configurations),
                    sum(counts[c.config_id] * _run_seconds(design, c.params, name, longer, length)
                        for c in configurations) if longer > length else 0.0,
                    too_short=auto and any(c.too_short for c in found),
                )
            )  # fmt: skip
    return levers


def longer_round(
    design: Design, runs_table: str, now: list[Reached], confidence: float = DEFAULT_CONFIDENCE
) -> tuple[Design, Lever] | None:
    """The round that grows every run instead of the replications, and the lever that sets
    its length; None when the design gives no ``replications.max_length`` or the runs are
    that long already. A target whose runs are too short to leave their transient sets it
    first, at least doubled (MSER-5 searches a run's first half: the transient may last up to
    T); else the widest unmet target, when every unmet one is a steady-state response with the
    length (how longer runs narrow another is not known), at its T' and at least what one more
    replication would add after the warm-up, w + (T - w)(r + 1)/r, and at least
    :data:`LEAST_GROWTH` of it (so the rounds end, and are few). At most ``max_length``."""
    name, length = design.length_parameter, design.run_length
    precision = design.precision
    if name is None or length is None or precision is None or precision.max_length is None:
        return None
    levers = [lever for lever in run_length(design, runs_table, now, confidence)
              if lever.parameter == name]  # fmt: skip
    if short := [lever for lever in levers if lever.too_short]:
        lever = max(short, key=lambda lever: lever.ratio)
        value = max(lever.longer, 2 * length)
    else:
        unmet = [x for x in now if not x.met]
        grows = {lever.target: lever for lever in levers if lever.ratio > 1}
        if not unmet or any(x.target not in grows for x in unmet):
            return None
        lever = max(grows.values(), key=lambda lever: lever.ratio)
        r = design.replications
        more = max((r + 1) / r, LEAST_GROWTH)
        value = max(lever.longer, lever.warmup + (length - lever.warmup) * more)
    longer = design.with_length(min(value, precision.max_length))
    return (longer, lever) if (longer.run_length or 0) > length else None
