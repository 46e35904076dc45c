"""A study's analytic model, as code: what the paper's theory predicts for a configuration.

A design names its theory (``analysis.theory: barakat``); the report then draws the theory
beside the simulation: its predictions of a response as a dashed curve through the same
configurations, its thresholds as reference lines on the same axes, and a table of every
simulated value beside its prediction. A theory is pure arithmetic on a configuration's values
(its parameters and summary, one run's row of the run table): it imports no other room.

- :class:`Reference`: a value drawn as a line (a threshold on an x axis, a window on a y axis);
- :class:`Theory`: what a study's theory module provides;
- :func:`theory`: a theory by name (:data:`THEORIES`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["THEORIES", "Reference", "Theory", "TheoryError", "theory"]


class TheoryError(ValueError):
    """A configuration the theory cannot evaluate (a missing value, an unknown level)."""


@dataclass(frozen=True)
class Reference:
    """A theory's value drawn as a straight line: at x = ``value`` (``axis="x"``, a threshold
    of the plotted factor) or at y = ``value`` (``axis="y"``, a predicted level)."""

    axis: Literal["x", "y"]
    value: float
    label: str


@dataclass(frozen=True)
class Theory:
    """A study's theory.

    ``predictions(row)``: the named predicted values of one configuration, e.g.
    ``{"W_B, Theorem 1": 52.0, "W_B, eq. (4)": 40.0}`` (None where the theory says nothing);
    ``predicts``: which of those names predict which summary field (``{"wb": [...]}``), so the
    report can draw and tabulate them beside that response; ``references(x, y, row)``: the lines
    to draw on a figure of ``y`` against ``x`` (a factor, or a table's column such as ``time``)
    for the configuration ``row``.
    """

    name: str
    description: str
    predictions: Callable[[Mapping[str, Any]], dict[str, float | None]]
    predicts: Mapping[str, list[str]]
    references: Callable[[str, str, Mapping[str, Any]], list[Reference]]


def _registry() -> dict[str, Theory]:
    from satsweep.theory import barakat

    return {t.name: t for t in (barakat.THEORY,)}


#: Every theory a design may name.
THEORIES: dict[str, Theory] = _registry()


def theory(name: str) -> Theory:
    """The theory called ``name``; KeyError naming the allowed ones otherwise."""
    try:
        return THEORIES[name]
    except KeyError:
        raise KeyError(f"no theory '{name}'; allowed: {', '.join(sorted(THEORIES))}") from None
