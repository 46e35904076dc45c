"""What ``satsweep analyze`` prints (an analysis as JSON or as Markdown), and the one rule for
the text of a number that every table of satsweep follows (``analyze``, the report, ``sql``).

The rule (a results table's standard): the interval of a value (its half-width, its bounds)
is shown to two significant digits and the value to the same decimal place, the interval's
second significant digit (``72647910 ± 810``, not ``7.265e+07 ± 814.4962``; ``-0.031
[-0.063, 0.002]``, not ``-0.03``, which would round a small effect to ``0.00``); a
value without one with as many significant digits as tell it from the other values it is
shown with, six at least, never an exponent between 1e-5 and 1e15 (``599976``, not ``6e+05``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from satsweep.analysis.results import Analysis

__all__ = [
    "NO_INTERVALS_IDENTICAL",
    "at_place",
    "distinguishing_digits",
    "effect_cells",
    "format_markdown",
    "fraction_note",
    "interaction_cells",
    "interval_place",
    "mean_text",
    "significant",
    "to_json",
    "with_bounds",
    "with_interval",
]

#: The most interactions `analyze` lists, the largest first (its --json has every one).
SHOWN_INTERACTIONS = 20
#: The fewest significant digits a value without an interval is shown with.
LEAST_DIGITS = 6
#: The most a double holds.
MOST_DIGITS = 17
#: What a study whose replications are all identical is told instead of intervals.
NO_INTERVALS_IDENTICAL = (
    "replications identical: the program may ignore --run/--RngRun; no confidence intervals "
    "(every replication of each configuration gave the same value)"
)


def _exponent(value: float) -> int:
    """The decimal place of ``value``'s first significant digit (2 for 814.5)."""
    return math.floor(math.log10(abs(value)))


def at_place(value: float, place: int) -> str:
    """``value`` rounded to the decimal place ``place`` (10**place: -2 for hundredths, 2 for
    hundreds), written without an exponent."""
    decimals = max(0, -place)
    text = f"{round(value, -place):.{decimals}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text  # no "-0.00"


def significant(value: float | None, digits: int = LEAST_DIGITS) -> str:
    """``value`` to ``digits`` significant digits but every digit of its whole part (72647912,
    not 72647900, which reads as exact), trailing zeros of its decimals dropped, with an
    exponent only below 1e-5 or from 1e15; ``n/a`` when undefined."""
    if value is None or not math.isfinite(value):
        return "n/a"
    if value == 0:
        return "0"
    exponent = _exponent(value)
    if not -5 <= exponent < 15:
        return f"{value:.{digits}g}"
    text = at_place(value, min(0, exponent - digits + 1))
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def distinguishing_digits(values: Iterable[float | None]) -> int:
    """The fewest significant digits, :data:`LEAST_DIGITS` at least, with which the distinct
    finite ``values`` all read differently (a table's cells without intervals)."""
    distinct = sorted({v for v in values if v is not None and math.isfinite(v)})
    for digits in range(LEAST_DIGITS, MOST_DIGITS + 1):
        if len({significant(v, digits) for v in distinct}) == len(distinct):
            return digits
    return MOST_DIGITS


def interval_place(half_width: float) -> int:
    """The decimal place of the first significant digit of a (positive, finite) half-width
    once rounded to two (0.0996 rounds to 0.10: place -1)."""
    place = _exponent(half_width)
    if abs(round(half_width, 1 - place)) >= 10 ** (place + 1):
        place += 1
    return place


def with_interval(value: float | None, half_width: float | None) -> tuple[str, str | None]:
    """``value`` and the half-width of its interval as the rule has them: the half-width to two
    significant digits, the value to the same decimal place; without an interval (None, 0 or
    not finite) the value to six significant digits and None."""
    if value is None or not math.isfinite(value):
        return "n/a", None
    if half_width is None or not math.isfinite(half_width) or half_width <= 0:
        return significant(value), None
    place = interval_place(half_width) - 1
    return at_place(value, place), at_place(half_width, place)


def with_bounds(
    value: float | None, bounds: tuple[float, float] | None, digits: int = LEAST_DIGITS
) -> tuple[str, str | None]:
    """``value`` and its interval ``[low, high]`` as the rule has them (the place from the
    half-width); without an interval (None, or of no width) the value to ``digits``
    significant digits and None."""
    half = (bounds[1] - bounds[0]) / 2 if bounds is not None else None
    if value is None or half is None or not math.isfinite(half) or half <= 0:
        return significant(value, digits), None
    place = interval_place(half) - 1
    low, high = (at_place(bound, place) for bound in bounds)
    return at_place(value, place), f"[{low}, {high}]"


def _finite(value: Any) -> Any:
    """JSON has no NaN or infinity: make them null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _data(result: Analysis | Mapping[str | None, Any]) -> Any:
    if isinstance(result, Analysis):
        return result.to_dict()
    return {key: _data(value) for key, value in result.items()}


def to_json(result: Analysis | Mapping[str | None, Any]) -> str:
    """JSON text: one analysis, or a mapping of them (per group, per response, ...) keyed as
    given."""
    return json.dumps(_finite(_data(result)), indent=1, allow_nan=False)


def _num(value: float | None, digits: int) -> str:
    return "n/a" if value is None or not math.isfinite(value) else f"{value:.{digits}f}"


def effect_cells(result: Analysis) -> dict[tuple[str, str], tuple[str, str]]:
    """Each main effect's text and its interval's, ``[low, high]`` (``n/a`` without one), by
    (factor, level), as the rule has them (effects without intervals with the digits that
    tell them apart)."""
    effects = [(f, e) for f, levels in result.shown_effects().items() for e in levels.values()]
    digits = distinguishing_digits(e.effect for _, e in effects)
    cells = {}
    for factor, e in effects:
        effect, interval = with_bounds(e.effect, e.ci, digits)
        cells[(factor, e.level)] = (effect, interval or "n/a")
    return cells


def interaction_cells(result: Analysis) -> tuple[list[tuple[str, str, str, str]], int]:
    """The first-order interactions whose interval excludes 0, the largest first: at most
    :data:`SHOWN_INTERACTIONS` of them as (term, levels, value, interval) texts, and how many
    more there are. None without intervals (identical replications, no error dof)."""
    if result.identical_replications:
        return [], 0
    found = sorted((i for i in result.interactions if i.significant), key=lambda i: -abs(i.value))
    shown = found[:SHOWN_INTERACTIONS]
    digits = distinguishing_digits(i.value for i in shown)
    cells = []
    for i in shown:
        value, interval = with_bounds(i.value, i.ci, digits)
        term = result.alias_set(":".join(i.factors))
        cells.append((term, " x ".join(i.levels), value, interval or "n/a"))
    return cells, len(found) - len(shown)


def mean_text(result: Analysis) -> str:
    """The overall mean as the rule has it, with the interval of the mean (t s_e / sqrt(n))
    when the analysis has intervals."""
    half = None
    if result.standard_error is not None and result.t_quantile is not None:
        half = result.t_quantile * result.standard_error / math.sqrt(result.n)
    if result.identical_replications:
        half = None
    text, half_text = with_interval(result.mean, half)
    return text if half_text is None else f"{text} ± {half_text}"


def _table(header: Sequence[str], rows: Iterable[Sequence[str]], align: str) -> list[str]:
    lines = ["| " + " | ".join(header) + " |"]
    lines.append("|" + "|".join("---:" if a == "r" else "---" for a in align) + "|")
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def fraction_note(result: Analysis) -> str:
    """What a fraction's estimates are, for a reader: its defining relation and how to read an
    alias set (the report says it too)."""
    return (
        f"A fraction, defining relation {result.defining_relation}: each effect is the sum of "
        "its alias set, shown as `a = -b:d = ...` (the estimate of a is q_a - q_bd + ...; signs "
        "for the second level of each factor as listed), never a main effect alone."
    )


def format_markdown(result: Analysis, units: Mapping[str, str] | None = None) -> str:
    """Readable Markdown: a summary line, the allocation of variation, the main effects and the
    interactions whose interval excludes 0;
    the response and the factors labelled with their ``units`` (name -> unit) when known."""
    r = result
    units = units or {}

    def label(name: str) -> str:
        return f"{name} ({units[name]})" if name in units else name

    percent = round(100 * r.confidence, 6)
    title = f"## {label(r.response)}" + (f" ({r.by} = {r.group})" if r.by is not None else "")
    summary = (
        f"n = {r.n} runs ({r.replications} per cell), mean = {mean_text(r)}, "
        f"SST = {significant(r.total_variation)}, model `{r.model}`, standard error = "
        f"{significant(r.standard_error)} with {r.error_dof} degrees of freedom"
    )
    allocation = _table(
        ["term", "sum of squares", "dof", "% of variation"],
        [[r.alias_set(t.term), significant(t.ss), str(t.dof), _num(t.percent, 2)] for t in r.terms]
        + [["total", significant(r.total_variation), str(r.n - 1), "100.00"]],
        "lrrr",
    )
    aliased = r.defining_relation is not None  # a fraction: say what each effect estimates
    shown = effect_cells(r)
    effects = _table(
        ["factor", "level", "effect", f"{percent:g}% CI", "significant"]
        + (["estimates"] if aliased else []),
        [
            [
                label(factor),
                level,
                *shown[(factor, level)],
                "*" if e.significant else "",
            ]
            + ([r.alias_set(factor)] if aliased else [])
            for factor, levels in r.shown_effects().items()
            for level, e in levels.items()
        ],
        "llrll" + ("l" if aliased else ""),
    )
    interactions, more = interaction_cells(r)
    interaction_lines = []
    if interactions:
        interaction_lines = [
            f"### Interactions whose {percent:g}% interval excludes 0 (the largest first)",
            "",
            *_table(
                ["interaction", "levels", "interaction effect", f"{percent:g}% CI"],
                [[label(t) if ":" not in t else t, lv, v, ci] for t, lv, v, ci in interactions],
                "llrl",
            ),
            "",
            *([f"({more} more: `--json` has every interaction)", ""] if more else []),
        ]
    return "\n".join(
        [
            title,
            "",
            summary,
            "",
            *([fraction_note(r), ""] if r.defining_relation is not None else []),
            *([f"**{NO_INTERVALS_IDENTICAL}.**", ""] if r.identical_replications else []),
            "### Allocation of variation",
            "",
            *allocation,
            "",
            f"### Main effects ({percent:g}% confidence; * = the interval excludes 0)",
            "",
            *effects,
            "",
            *interaction_lines,
        ]
    )
