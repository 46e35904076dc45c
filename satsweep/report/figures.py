"""The report's figures (matplotlib, PNG): the main effects with their intervals, the
interactions of every factor with the column factor, the curves of a response over a numeric
column factor with the study's theory, and the traces of a program's table."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from satsweep.analysis import Analysis, Dataset
from satsweep.analysis.formatting import NO_INTERVALS_IDENTICAL
from satsweep.analysis.study import StudyDesign
from satsweep.design import TraceSettings
from satsweep.report.document import confidence_label
from satsweep.report.tables import (
    Curve,
    TracePanel,
    marginal_means,
    trace_range,
)
from satsweep.theory import Reference

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from satsweep.analysis.steady import SteadyResult

__all__ = [
    "curves_figure",
    "effects_figure",
    "interactions_figure",
    "numeric_levels",
    "series_label",
    "trace_labels",
    "traces_figure",
    "warmup_figure",
]

_FIGURE_DPI = 110
#: The axes' tick labels: never an offset (``+7.264e7``, under which a relative change of 1e-5
#: fills the axis and looks dramatic), plain numbers from 1e-4 to 1e9.
_AXIS_STYLE = {"axes.formatter.useoffset": False, "axes.formatter.limits": (-4, 9)}
#: The least gap (pixels) between two x tick labels; a label closer to the last one shown is
#: left blank (levels 0, 0.1 and 0.2 on a narrow axis printed as "00.10.2").
_TICK_GAP = 4


def _subplots(fig: Any, *args: Any, **kwargs: Any) -> Any:
    """``fig.subplots`` with the axes' tick style (:data:`_AXIS_STYLE`)."""
    import matplotlib

    with matplotlib.rc_context(_AXIS_STYLE):
        return fig.subplots(*args, **kwargs)


def _save(fig: Any, path: Path) -> Any:
    """Saves ``fig`` at ``path`` as PNG, its x tick labels that would overprint the one before
    left blank; returns the figure (the tests read its axes)."""
    fig.draw_without_rendering()  # lays the figure out: the labels' extents are final
    for ax in fig.axes:
        ticks, labels = ax.get_xticks(), ax.get_xticklabels()
        kept, right = [], -math.inf
        for label in labels:
            box = label.get_window_extent() if label.get_text() else None
            if box is not None and box.x0 < right + _TICK_GAP:
                kept.append("")
                continue
            kept.append(label.get_text())
            if box is not None:
                right = box.x1
        if kept != [label.get_text() for label in labels]:
            ax.set_xticks(ticks, kept)
    fig.savefig(path)
    return fig


def _title(heading: str, result: Analysis, what: str) -> str:
    return f"{heading} · {result.response}: {what}"


def effects_figure(heading: str, result: Analysis, path: Path, study: StudyDesign) -> Figure:
    """One panel per factor: the effect of each level with its interval as an error bar (filled
    marker: significant), a dashed line at 0; titled ``heading`` · response, axes labelled with
    the study's units; PNG at ``path``. Without intervals (no error degrees of freedom, or
    identical replications) a note below the axes says why."""
    from matplotlib.figure import Figure  # late: matplotlib is slow to import
    from matplotlib.lines import Line2D

    k = len(result.factors)
    fig = Figure(figsize=(max(6.4, 3.0 * k + 0.8), 4.4), dpi=_FIGURE_DPI, layout="constrained")
    axes = _subplots(fig, 1, k, sharey=True, squeeze=False)[0]
    shown = result.shown_effects()
    with_ci = any(e.ci is not None for levels in shown.values() for e in levels.values())
    for ax, factor in zip(axes, result.factors, strict=True):
        effects = list(shown[factor].values())
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
    else:  # below the axes' labels, laid out with them (a note put by hand overlapped them)
        fig.supxlabel(
            NO_INTERVALS_IDENTICAL.split(";")[0] + ": no confidence intervals"
            if result.identical_replications
            else "no error degrees of freedom: no confidence intervals",
            fontsize=9,
        )
    return _save(fig, path)


def interactions_figure(
    data: Dataset, heading: str, result: Analysis, path: Path, study: StudyDesign
) -> Figure | None:
    """Lines of the mean response over the column factor's levels, one per level of each other
    factor (a panel each), the figure returned; None (no figure) with a single factor. Numeric
    levels are placed as the curves place them (:func:`_level_axis`: linear, or log for
    ratios), others evenly; the lines are moved a little apart along x, so that identical ones
    do not hide each other."""
    from matplotlib.figure import Figure  # late: matplotlib is slow to import

    x_factor, others = result.factors[-1], result.factors[:-1]
    if not others:
        return None
    k = len(others)
    fig = Figure(figsize=(max(6.4, 3.4 * k + 0.8), 4.6), dpi=_FIGURE_DPI, layout="constrained")
    axes = _subplots(fig, 1, k, sharey=True, squeeze=False)[0]
    x_levels = list(result.effects[x_factor])
    numbers = numeric_levels(x_levels, least=2)
    x = numbers if numbers is not None else list(range(len(x_levels)))
    log = numbers is not None and _log_x(numbers)
    markers = "osD^v<>ph*"
    for ax, factor in zip(axes, others, strict=True):
        lines = marginal_means(data, result, factor, x_factor)
        for i, (level, means) in enumerate(lines.items()):
            ax.plot(_dodged(x, i, len(lines), log), means, marker=markers[i % len(markers)],
                    label=level)  # fmt: skip
        if numbers is not None:
            _level_axis(ax, numbers)
        else:
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
    return _save(fig, path)


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
    ax = _subplots(fig)
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
    return _save(fig, path)


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
    band: tuple[list[float], list[float]],
    factor_x: bool,
    label: str,
    style: dict[str, Any],
) -> None:
    """Means over replications: over a factor, a line through the levels with error bars;
    over a column (e.g. time), a line with its interval as a shaded band; ``band``: the
    interval's bounds at each point (:meth:`TracePanel.band`, NaN: none). A point without a
    mean (no run has a value there) leaves a gap, one without an interval (one run) no band or
    bar."""
    ys = [m if m is not None else math.nan for m in means]
    low, high = band
    if factor_x:
        spread = [[y - a for y, a in zip(ys, low, strict=True)],
                  [b - y for y, b in zip(ys, high, strict=True)]]  # fmt: skip
        ax.errorbar(xs, ys, yerr=spread, capsize=3, marker="o", markersize=3, label=label,
                    **style)  # fmt: skip
        return
    ax.plot(xs, ys, label=label, linewidth=0.9, **style)
    ax.fill_between(xs, low, high, color=style["color"], alpha=0.2, linewidth=0)


def _run_lines(
    ax: Any,
    runs: dict[int, tuple[list[float], list[float]]],
    xs: Sequence[float],
    means: Sequence[float | None],
    factor_x: bool,
    label: str,
    style: dict[str, Any],
) -> None:
    """Too few replications for a band (:data:`~satsweep.report.tables.BAND_LEAST_REPLICATIONS`): each run thin, the
    mean over them on top, in the series' color."""
    marker = {"marker": "o", "markersize": 3} if factor_x else {}
    for run_xs, run_ys in runs.values():
        ax.plot(run_xs, run_ys, linewidth=0.7, alpha=0.45, **marker, **style)
    ys = [m if m is not None else math.nan for m in means]
    ax.plot(xs, ys, label=label, linewidth=1.3, **marker, **style)


def _y_name(trace: TraceSettings, y: str) -> str:
    """What a y column is: its name, but a single column named ``value`` (an OMNeT++ vector
    table's) is named by its table (``cwnd``)."""
    return trace.table if y == "value" and trace.y == ["value"] else y


def series_label(trace: TraceSettings, y: str, series: str) -> str:
    """A line's name in a trace's legend: the series' value (the legend's title names the
    column), the y column before it only when the trace has several; the column without
    series."""
    if not trace.series:
        return _y_name(trace, y)
    return f"{y}: {series}" if len(trace.y) > 1 else series


def trace_labels(trace: TraceSettings, study: StudyDesign) -> tuple[str, str]:
    """The axis labels of a trace's panels with the units the program declares: ``t (s)``, and
    the y columns with their unit, once when they share it (``cwnd, ssthresh (segments)``); a
    single column ``value`` named by its table (:func:`_y_name`)."""
    own = study.table_units.get(trace.table, study.units)  # the table's own, if known
    units = {own.get(y) for y in trace.y}
    names = [_y_name(trace, y) for y in trace.y]
    y_label = (
        f"{', '.join(names)} ({units.pop()})"
        if len(units) == 1 and None not in units
        else ", ".join(
            f"{name} ({own[y]})" if y in own else name
            for name, y in zip(names, trace.y, strict=True)
        )
    )
    return study.label(trace.x), y_label


def traces_figure(
    title: str,
    trace: TraceSettings,
    panels: Sequence[TracePanel],
    path: Path,
    study: StudyDesign,
    factor_x: bool = False,
) -> Figure:
    """One panel per configuration, all on one y scale: the trace's y columns against x (a
    line style per column, a color per series, named by :func:`series_label`), the theory's
    references of that configuration as dotted lines; with ``replications: mean`` the means
    with their intervals (error bars when x is a factor, ``factor_x``, else a band) never past
    the range the runs reach (:func:`trace_range`), or with fewer replications than
    :data:`~satsweep.report.tables.BAND_LEAST_REPLICATIONS` each run and their mean; the axes labelled with the units
    the program declares. Returns the figure."""
    from matplotlib.figure import Figure  # late: matplotlib is slow to import

    columns = min(4, len(panels))
    rows = math.ceil(len(panels) / columns)
    fig = Figure(
        figsize=(4.2 * columns + 1, 3.4 * rows + 0.8), dpi=_FIGURE_DPI, layout="constrained"
    )
    axes = _subplots(fig, rows, columns, squeeze=False, sharey=True).flatten()
    styles = ("-", "--", "-.", ":")
    x_label, y_label = trace_labels(trace, study)
    limits = {y: trace_range(panels, y) for y in trace.y}
    for k, (ax, panel) in enumerate(zip(axes, panels, strict=False)):
        for i, (series, points) in enumerate(panel.series.items()):
            for j, y in enumerate(trace.y):
                label = series_label(trace, y, series)
                style = {"color": f"C{i % 10}", "linestyle": styles[j % len(styles)]}
                if trace.replications == "first":
                    ax.step(points[trace.x], points[y], where="post", label=label, **style)
                elif not panel.banded:
                    _run_lines(ax, panel.runs[series][y], points[trace.x], points[y], factor_x,
                               label, style)  # fmt: skip
                else:
                    low, high, _ = panel.band(series, y, limits[y])
                    _mean_line(ax, points[trace.x], points[y], (low, high), factor_x, label,
                               style)  # fmt: skip
        if factor_x:
            _level_axis(ax, [x for p in panel.series.values() for x in p[trace.x]])
        if not panel.series:
            ax.text(0.5, 0.5, f"no rows of {trace.table}", ha="center", transform=ax.transAxes)
        _reference_lines(ax, panel.references)
        ax.set_title(panel.title, fontsize=9)
        ax.set_xlabel(x_label)
        if k % columns == 0:  # the panels share y: its label once a row
            ax.set_ylabel(y_label)
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, title=trace.series, title_fontsize=7)
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    fig.suptitle(title, fontsize=11)
    return _save(fig, path)


def warmup_figure(
    title: str, result: SteadyResult, labels: dict[str, str], path: Path, y_label: str
) -> Figure:
    """One panel per configuration: the replications' mean series of a steady-state response
    (thin), Welch's moving average of it (:func:`satsweep.analysis.steady_stats.welch`, half-width
    :func:`satsweep.analysis.steady.welch_window`) for a person to judge where the transient
    ends, the warm-up a dashed vertical line and the mean after it a dotted horizontal one; a
    panel whose run is too short to leave its transient says so. Returns the figure."""
    from matplotlib.figure import Figure  # late: matplotlib is slow to import

    from satsweep.analysis.steady import welch_window
    from satsweep.analysis.steady_stats import welch

    order = {cid: i for i, cid in enumerate(labels)}
    shown = sorted(result.configurations, key=lambda c: order.get(c.config_id, len(order)))
    columns = min(4, len(shown))
    rows = math.ceil(len(shown) / columns)
    fig = Figure(
        figsize=(4.2 * columns + 1, 3.4 * rows + 0.8), dpi=_FIGURE_DPI, layout="constrained"
    )
    axes = _subplots(fig, rows, columns, squeeze=False, sharey=True).flatten()
    x_name = result.settings.x
    for k, (ax, c) in enumerate(zip(axes, shown, strict=False)):
        window = welch_window(len(c.mean_series))
        moving = welch(c.mean_series, window)
        ax.plot(c.x, c.mean_series, color="0.7", linewidth=0.8, label="mean over the runs")
        ax.plot(c.x[: len(moving)], moving, color="C0", label=f"Welch, window {2 * window + 1}")
        how = "MSER-5" if c.measured else "given"
        ax.axvline(c.warmup, color="C3", linestyle="--", label=f"warm-up ({how}) {c.warmup:g}")
        ax.axhline(c.mean, color="C2", linestyle=":", label="mean after it")
        if c.too_short:
            ax.text(0.5, 0.05, "too short to leave its transient", color="C3", ha="center",
                    transform=ax.transAxes, fontsize=8)  # fmt: skip
        ax.set_title(labels.get(c.config_id, c.config_id[:12]), fontsize=9)
        ax.set_xlabel(x_name)
        if k % columns == 0:
            ax.set_ylabel(y_label)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    for ax in axes[len(shown) :]:
        ax.set_visible(False)
    fig.suptitle(title, fontsize=11)
    return _save(fig, path)
