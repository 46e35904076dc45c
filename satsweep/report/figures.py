"""The report's figures (matplotlib, PNG): the main effects with their intervals, the
interactions of every factor with the column factor, the curves of a response over a numeric
column factor with the study's theory, and the traces of a program's table."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from satsweep.analysis import Analysis, Dataset
from satsweep.analysis.study import StudyDesign
from satsweep.design import TraceSettings
from satsweep.report.document import confidence_label
from satsweep.report.tables import Curve, TracePanel, marginal_means
from satsweep.theory import Reference

__all__ = [
    "curves_figure",
    "effects_figure",
    "interactions_figure",
    "numeric_levels",
    "trace_labels",
    "traces_figure",
]

_FIGURE_DPI = 110


def _title(heading: str, result: Analysis, what: str) -> str:
    return f"{heading} · {result.response}: {what}"


def effects_figure(heading: str, result: Analysis, path: Path, study: StudyDesign) -> None:
    """One panel per factor: the effect of each level with its interval as an error bar (filled
    marker: significant), a dashed line at 0; titled ``heading`` · response, axes labelled with
    the study's units; PNG at ``path``."""
    from matplotlib.figure import Figure  # late: matplotlib is slow to import
    from matplotlib.lines import Line2D

    k = len(result.factors)
    fig = Figure(figsize=(max(6.4, 3.0 * k + 0.8), 4.4), dpi=_FIGURE_DPI, layout="constrained")
    axes = fig.subplots(1, k, sharey=True, squeeze=False)[0]
    with_ci = result.standard_error is not None
    for ax, factor in zip(axes, result.factors, strict=True):
        effects = list(result.effects[factor].values())
        x = list(range(len(effects)))
        for xi, e in zip(x, effects, strict=True):
            face = "C0" if e.significant else "white"
            if e.ci is not None:
                ax.errorbar(
                    [xi],
                    [e.effect],
                    yerr=[[e.effect - e.ci[0]], [e.ci[1] - e.effect]],
                    fmt="o",
                    color="C0",
                    markerfacecolor=face,
                    markersize=7,
                    capsize=5,
                )
            else:
                ax.plot([xi], [e.effect], "o", color="C0", markerfacecolor="C0", markersize=7)
        ax.axhline(0, color="0.5", linewidth=0.8, linestyle="--")
        ax.set_xticks(x, [e.level for e in effects])
        ax.set_xlim(-0.5, len(effects) - 0.5)
        ax.set_xlabel(study.label(factor))
        ax.set_title(factor, fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel(f"effect on {study.label(result.response)}")
    what = (
        f"main effects with {confidence_label(result.confidence)} CIs"
        if with_ci
        else "main effects"
    )
    fig.suptitle(_title(heading, result, what), fontsize=11)
    if with_ci:
        handles = [
            Line2D([], [], marker="o", color="C0", linestyle="none", markerfacecolor=face)
            for face in ("C0", "white")
        ]
        labels = ["significant (CI excludes 0)", "not significant"]
        fig.legend(handles, labels, loc="outside lower center", ncols=2, fontsize=9)
    else:
        fig.text(0.5, 0.01, "no error degrees of freedom: no confidence intervals", ha="center")
    fig.savefig(path)


def interactions_figure(
    data: Dataset, heading: str, result: Analysis, path: Path, study: StudyDesign
) -> bool:
    """Lines of the mean response over the column factor's levels, one per level of each other
    factor (a panel each); False (no figure) with a single factor."""
    from matplotlib.figure import Figure  # late: matplotlib is slow to import

    x_factor, others = result.factors[-1], result.factors[:-1]
    if not others:
        return False
    k = len(others)
    fig = Figure(figsize=(max(6.4, 3.4 * k + 0.8), 4.6), dpi=_FIGURE_DPI, layout="constrained")
    axes = fig.subplots(1, k, sharey=True, squeeze=False)[0]
    x_levels = list(result.effects[x_factor])
    x = list(range(len(x_levels)))
    markers = "osD^v<>ph*"
    for ax, factor in zip(axes, others, strict=True):
        for i, (level, means) in enumerate(marginal_means(data, result, factor, x_factor).items()):
            ax.plot(x, means, marker=markers[i % len(markers)], label=level)
        ax.set_xticks(x, x_levels)
        ax.set_xlim(-0.3, len(x_levels) - 0.7)
        ax.set_xlabel(study.label(x_factor))
        ax.set_title(f"{factor} x {x_factor}", fontsize=10)
        ax.legend(title=factor, fontsize=8, title_fontsize=9)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(f"mean {study.label(result.response)}")
    _bounded_y(axes[0], study, result.response)  # the axes share y
    fig.suptitle(
        _title(heading, result, f"interactions with {x_factor}")
        + "\n(mean over the other factors and the replications)",
        fontsize=11,
    )
    fig.savefig(path)
    return True


def numeric_levels(levels: Sequence[str], least: int = 3) -> list[float] | None:
    """The levels as numbers when every one is a number and there are at least ``least``."""
    try:
        values = [float(level) for level in levels]
    except ValueError:
        return None
    return values if len(values) >= least and all(math.isfinite(v) for v in values) else None


def _reference_lines(ax: Any, references: Sequence[Reference]) -> None:
    """The theory's straight lines, dotted, a color each; one line per (axis, value, label)."""
    unique = {(r.axis, r.value, r.label): r for r in references}
    for i, ref in enumerate(unique.values()):
        style = {"color": f"C{(i + 5) % 10}", "linestyle": ":", "linewidth": 1.4}
        if ref.axis == "x":
            ax.axvline(ref.value, label=f"{ref.label} ({ref.value:.3g})", **style)
        else:
            ax.axhline(ref.value, label=f"{ref.label} ({ref.value:.3g})", **style)


def curves_figure(
    heading: str,
    result: Analysis,
    curves: Sequence[Curve],
    references: Sequence[Reference],
    path: Path,
    study: StudyDesign,
    intervals: str | None,
) -> None:
    """The response against the numeric column factor: one line per series (a combination of
    the other factors' levels) through the cell means, with their intervals as error bars
    (``intervals``: what they are, for the title; None without any);
    each theory prediction of a series as a dashed line of its color, the theory's references
    as dotted lines; log x when the levels span 20x or more."""
    from matplotlib.figure import Figure  # late: matplotlib is slow to import

    x_factor = result.factors[-1]
    fig = Figure(figsize=(9.6, 5.4), dpi=_FIGURE_DPI, layout="constrained")
    ax = fig.subplots()
    markers = "osD^v<>ph*"
    log = _log_x([x for c in curves for x in c.x])
    for i, curve in enumerate(curves):
        color = f"C{i % 10}"
        errors = [h if h is not None else 0.0 for h in curve.half_widths]
        ax.errorbar(
            _dodged(curve.x, i, len(curves), log),
            curve.means,
            yerr=errors if any(h is not None for h in curve.half_widths) else None,
            marker=markers[i % len(markers)],
            color=color,
            capsize=4,
            label=curve.label,
        )
        for j, (name, values) in enumerate(curve.predictions.items()):
            points = [(x, y) for x, y in zip(curve.x, values, strict=True) if y is not None]
            if points:
                xs, ys = zip(*points, strict=True)
                style = ("--", "-.", (0, (5, 1, 1, 1)))[j % 3]
                ax.plot(
                    xs, ys, linestyle=style, color=color, alpha=0.7, label=f"{curve.label}: {name}"
                )
    _reference_lines(ax, references)
    _level_axis(ax, [x for c in curves for x in c.x])
    _bounded_y(ax, study, result.response)
    ax.set_xlabel(study.label(x_factor))
    ax.set_ylabel(f"mean {study.label(result.response)}")
    ax.grid(alpha=0.3)
    fig.legend(fontsize=7, loc="outside right upper")
    what = (
        f"against {x_factor}, bars: {intervals}"
        if intervals
        else f"against {x_factor} (one run per cell: no intervals)"
    )
    ax.set_title(_title(heading, result, what), fontsize=11)  # beside the legend, not over it
    fig.savefig(path)


def _log_x(xs: Sequence[float]) -> bool:
    """Log x (the curves, a trace over a factor) when every x is > 0 and they span 20x or more,
    or 4x or more as ratios do: spaced more evenly on a log scale than on a linear one (0.5, 1,
    2; not 1, 2, 3, 4, 5)."""
    levels = sorted(set(xs))
    if len(levels) < 2 or levels[0] <= 0 or levels[-1] / levels[0] < 4:
        return False
    if levels[-1] / levels[0] >= 20:
        return True
    pairs = list(zip(levels, levels[1:], strict=False))
    linear = [b - a for a, b in pairs]
    ratios = [math.log(b / a) for a, b in pairs]
    return max(ratios) / min(ratios) <= max(linear) / min(linear)


#: At most this many levels get a tick each (more would overlap: matplotlib's ticks then).
_MOST_TICKS = 12


def _level_axis(ax: Any, xs: Sequence[float]) -> None:
    """The x axis of a numeric factor: log by :func:`_log_x`, a tick at each level, labelled as
    the level (0.5, 1, 2), no minor ticks."""
    from matplotlib.ticker import NullLocator

    levels = sorted(set(xs))
    if _log_x(levels):
        ax.set_xscale("log")
    if 0 < len(levels) <= _MOST_TICKS:
        ax.set_xticks(levels, [f"{v:g}" for v in levels])
        ax.xaxis.set_minor_locator(NullLocator())


#: The width, as a fraction of the narrowest gap between levels, that the series of a curves
#: figure spread over at each level, so that their error bars do not hide one another.
_DODGE = 0.25


def _dodged(xs: Sequence[float], i: int, n: int, log: bool) -> list[float]:
    """The x of series ``i`` of ``n``, moved a little along x (in log space on a log axis),
    the series centred on each level."""
    levels = sorted(set(xs))
    if n < 2 or len(levels) < 2:
        return list(xs)
    where = [math.log(x) for x in levels] if log else levels
    step = _DODGE * min(b - a for a, b in zip(where, where[1:], strict=False)) / (n - 1)
    offset = (i - (n - 1) / 2) * step
    return [x * math.exp(offset) if log else x + offset for x in xs]


def _bounded_y(ax: Any, study: StudyDesign, name: str) -> None:
    """The y limits of response ``name`` not past the bounds its program declares (a fairness
    index to 1, not 1.25), but for a small margin, so that the bound itself shows."""
    minimum, maximum = study.bounds.get(name, (None, None))
    low, high = ax.get_ylim()
    margin = 0.03 * (min(high, maximum if maximum is not None else high)
                     - max(low, minimum if minimum is not None else low))  # fmt: skip
    if maximum is not None and high > maximum + margin:
        high = maximum + margin
    if minimum is not None and low < minimum - margin:
        low = minimum - margin
    ax.set_ylim(low, high)


def _mean_line(
    ax: Any,
    xs: Sequence[float],
    means: Sequence[float | None],
    halves: Sequence[float | None],
    factor_x: bool,
    label: str,
    style: dict[str, Any],
) -> None:
    """Means over replications: over a factor, a line through the levels with error bars;
    over a column (e.g. time), a line with its interval as a shaded band. A point without a
    mean (no run has a value there) leaves a gap, one without an interval (one run) no band or
    bar."""
    ys = [m if m is not None else math.nan for m in means]
    spread = [h if h is not None else math.nan for h in halves]
    if factor_x:
        ax.errorbar(xs, ys, yerr=spread, capsize=3, marker="o", markersize=3, label=label,
                    **style)  # fmt: skip
        return
    ax.plot(xs, ys, label=label, linewidth=0.9, **style)
    low = [m - h for m, h in zip(ys, spread, strict=True)]
    high = [m + h for m, h in zip(ys, spread, strict=True)]
    ax.fill_between(xs, low, high, color=style["color"], alpha=0.2, linewidth=0)


def trace_labels(trace: TraceSettings, study: StudyDesign) -> tuple[str, str]:
    """The axis labels of a trace's panels with the units the program declares: ``t (s)``, and
    the y columns with their unit, once when they share it (``cwnd, ssthresh (segments)``)."""
    units = {study.units.get(y) for y in trace.y}
    y_label = (
        f"{', '.join(trace.y)} ({units.pop()})"
        if len(units) == 1 and None not in units
        else ", ".join(study.label(y) for y in trace.y)
    )
    return study.label(trace.x), y_label


def traces_figure(
    title: str,
    trace: TraceSettings,
    panels: Sequence[TracePanel],
    path: Path,
    study: StudyDesign,
    factor_x: bool = False,
) -> None:
    """One panel per configuration: the trace's y columns against x (a line style per column,
    a color per series), the theory's references of that configuration as dotted lines; with
    ``replications: mean`` the means with their intervals (error bars when x is a factor,
    ``factor_x``, else a band); the axes labelled with the units the program declares."""
    from matplotlib.figure import Figure  # late: matplotlib is slow to import

    columns = min(4, len(panels))
    rows = math.ceil(len(panels) / columns)
    fig = Figure(
        figsize=(4.2 * columns + 1, 3.4 * rows + 0.8), dpi=_FIGURE_DPI, layout="constrained"
    )
    axes = fig.subplots(rows, columns, squeeze=False).flatten()
    styles = ("-", "--", "-.", ":")
    x_label, y_label = trace_labels(trace, study)
    for ax, panel in zip(axes, panels, strict=False):
        for i, (series, points) in enumerate(panel.series.items()):
            for j, y in enumerate(trace.y):
                label = f"{y}" + (f" ({trace.series} {series})" if trace.series else "")
                style = {"color": f"C{i % 10}", "linestyle": styles[j % len(styles)]}
                if trace.replications == "first":
                    ax.step(points[trace.x], points[y], where="post", label=label, **style)
                else:
                    _mean_line(ax, points[trace.x], points[y], panel.halves[series][y],
                               factor_x, label, style)  # fmt: skip
        if factor_x:
            _level_axis(ax, [x for p in panel.series.values() for x in p[trace.x]])
        if not panel.series:
            ax.text(0.5, 0.5, f"no rows of {trace.table}", ha="center", transform=ax.transAxes)
        _reference_lines(ax, panel.references)
        ax.set_title(panel.title, fontsize=9)
        ax.set_xlabel(x_label)
        ax.set_ylabel(y_label)
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    fig.suptitle(title, fontsize=11)
    fig.savefig(path)
