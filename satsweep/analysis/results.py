"""What an analysis gives: the models, the error, and the result dataclasses."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal, get_args

__all__ = [
    "DEFAULT_CONFIDENCE",
    "DEFAULT_MODEL",
    "MODELS",
    "Analysis",
    "AnalysisError",
    "Cell",
    "Effect",
    "Interaction",
    "Model",
    "Term",
]

Model = Literal["first-order", "full"]
MODELS: tuple[Model, ...] = get_args(Model)
#: The paper's model: comparable with Jain's tables and usable without replications (r = 1).
DEFAULT_MODEL: Model = "first-order"
DEFAULT_CONFIDENCE = 0.90


class AnalysisError(ValueError):
    """The input cannot be analysed (bad column, design or option); the message says why."""


@dataclass(frozen=True)
class Effect:
    """The main effect of one level, with its confidence interval (None without error dof)."""

    level: str
    effect: float
    ci: tuple[float, float] | None
    significant: bool | None  # the interval excludes 0


@dataclass(frozen=True)
class Term:
    """One row of the allocation of variation: a factor, an interaction or the error."""

    term: str  # "flavor", "flavor:buffer", ... or "error"
    order: int | None  # number of factors in the term; None for the error
    ss: float
    dof: int
    percent: float | None  # of the total variation; None when it is 0


@dataclass(frozen=True)
class Interaction:
    """The first-order interaction of level ``levels[0]`` of ``factors[0]`` with ``levels[1]``,
    with its confidence interval (None without degrees of freedom for the error)."""

    factors: tuple[str, str]
    levels: tuple[str, str]
    value: float
    ci: tuple[float, float] | None = None
    significant: bool | None = None


@dataclass(frozen=True)
class Cell:
    """The runs of one cell (combination of levels): their number, mean and sample deviation."""

    levels: tuple[str, ...]  # one level (as text) per factor, in factor order
    n: int
    mean: float
    stddev: float | None  # sample standard deviation (n - 1); None when n < 2


@dataclass(frozen=True)
class Analysis:
    """The analysis of one response of one (group of a) balanced full factorial design, or of
    a regular two-level fraction of one (its effects then estimate alias sets)."""

    response: str
    factors: tuple[str, ...]
    model: Model
    by: str | None  # the --by column, None without --by
    group: str | None  # its value (as text) for this analysis
    n: int
    replications: int
    mean: float
    sum_squares_total_values: float
    sum_squares_mean: float
    total_variation: float
    terms: tuple[Term, ...]  # the model's terms in order, the error last
    standard_error: float | None
    confidence: float
    t_quantile: float | None
    effects: dict[str, dict[str, Effect]]  # factor -> level -> effect, in order of appearance
    interactions: tuple[Interaction, ...]
    # a fraction's alias structure (24-aliases.sql), empty for a full factorial: the defining
    # relation ("I = a:b:d = ..."), and each term's alias set ("a = -b:d = ..."), the sum its
    # estimate is; the signs hold for the second level of each factor in the analysis' order
    defining_relation: str | None = None
    aliases: dict[str, str] = field(default_factory=dict)
    # every cell's replications gave one value (a program that ignores its stream): the error
    # says nothing of run-to-run spread; what is shown (analyze, the report, the JSON) has no
    # intervals then (:meth:`shown_effects`), the numbers here stay as computed
    identical_replications: bool = False

    def shown_effects(self) -> dict[str, dict[str, Effect]]:
        """The effects as shown: without intervals or significance when the replications are
        identical (:attr:`identical_replications`), else as computed."""
        if not self.identical_replications:
            return self.effects
        return {
            factor: {level: replace(e, ci=None, significant=None) for level, e in levels.items()}
            for factor, levels in self.effects.items()
        }

    def alias_set(self, term: str) -> str:
        """What the estimate of ``term`` (a factor, ``a:b``, ...) is: its alias set in a
        fraction, the term itself in a full factorial."""
        return self.aliases.get(term, term)

    @property
    def error(self) -> Term:
        """The error term (the last row of the allocation of variation)."""
        return self.terms[-1]

    @property
    def error_dof(self) -> int:
        """The error's degrees of freedom."""
        return self.error.dof

    @property
    def allocation_percent(self) -> dict[str, float | None]:
        """Percent of variation per factor and interaction (not the error), as in the JSON."""
        return {t.term: t.percent for t in self.terms if t.order is not None}

    def to_dict(self) -> dict[str, Any]:
        """The structure of ``goyal98-wan-anova.json`` (full precision; None for undefined),
        with a fraction's ``defining_relation`` and ``aliases`` (term -> alias set), and
        ``identical_replications: true`` (and no intervals) when they are; then every
        first-order interaction with its interval."""
        fraction = (
            {"defining_relation": self.defining_relation, "aliases": self.aliases}
            if self.defining_relation is not None
            else {}
        )
        if self.identical_replications:
            fraction = fraction | {"identical_replications": True}
        return fraction | {
            "n": self.n,
            "mean": self.mean,
            "sum_squares_total_values": self.sum_squares_total_values,
            "sum_squares_mean": self.sum_squares_mean,
            "total_variation": self.total_variation,
            "allocation_percent": self.allocation_percent,
            "standard_error": self.standard_error,
            "error_dof": self.error_dof,
            "confidence": self.confidence,
            "effects": {
                factor: {
                    level: {"effect": e.effect, "ci": list(e.ci) if e.ci else None}
                    for level, e in levels.items()
                }
                for factor, levels in self.shown_effects().items()
            },
            "interactions": [
                {
                    "factors": list(i.factors),
                    "levels": list(i.levels),
                    "interaction": i.value,
                    "ci": list(i.ci) if i.ci and not self.identical_replications else None,
                }
                for i in self.interactions
            ],
        }
