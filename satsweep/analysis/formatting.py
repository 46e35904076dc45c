"""What ``satsweep analyze`` prints: an analysis as JSON or as Markdown."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from satsweep.analysis.results import Analysis

__all__ = ["format_markdown", "fraction_note", "to_json"]


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
    """Readable Markdown: a summary line, the allocation of variation and the main effects;
    the response and the factors labelled with their ``units`` (name -> unit) when known."""
    r = result
    units = units or {}

    def label(name: str) -> str:
        return f"{name} ({units[name]})" if name in units else name

    percent = round(100 * r.confidence, 6)
    title = f"## {label(r.response)}" + (f" ({r.by} = {r.group})" if r.by is not None else "")
    summary = (
        f"n = {r.n} runs ({r.replications} per cell), mean = {r.mean:.4f}, "
        f"SST = {r.total_variation:.6g}, model `{r.model}`, standard error = "
        f"{_num(r.standard_error, 4)} with {r.error_dof} degrees of freedom"
    )
    allocation = _table(
        ["term", "sum of squares", "dof", "% of variation"],
        [[r.alias_set(t.term), f"{t.ss:.6g}", str(t.dof), _num(t.percent, 2)] for t in r.terms]
        + [["total", f"{r.total_variation:.6g}", str(r.n - 1), "100.00"]],
        "lrrr",
    )
    aliased = r.defining_relation is not None  # a fraction: say what each effect estimates
    effects = _table(
        ["factor", "level", "effect", f"{percent:g}% CI", "significant"]
        + (["estimates"] if aliased else []),
        [
            [
                label(factor),
                level,
                _num(e.effect, 4),
                f"[{_num(e.ci[0], 4)}, {_num(e.ci[1], 4)}]" if e.ci else "n/a",
                "*" if e.significant else "",
            ]
            + ([r.alias_set(factor)] if aliased else [])
            for factor, levels in r.effects.items()
            for level, e in levels.items()
        ],
        "llrll" + ("l" if aliased else ""),
    )
    return "\n".join(
        [
            title,
            "",
            summary,
            "",
            *([fraction_note(r), ""] if r.defining_relation is not None else []),
            "### Allocation of variation",
            "",
            *allocation,
            "",
            f"### Main effects ({percent:g}% confidence; * = the interval excludes 0)",
            "",
            *effects,
            "",
        ]
    )
