"""The report's figures (matplotlib, PNG): the main effects with their intervals, and the
interactions of every factor with the column factor."""

from __future__ import annotations

from pathlib import Path

from satsweep.analysis import Analysis, Dataset
from satsweep.analysis.study import StudyDesign
from satsweep.report.document import confidence_label
from satsweep.report.tables import marginal_means

__all__ = ["effects_figure", "interactions_figure"]

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
    fig.suptitle(
        _title(heading, result, f"interactions with {x_factor}")
        + "\n(mean over the other factors and the replications)",
        fontsize=11,
    )
    fig.savefig(path)
    return True
