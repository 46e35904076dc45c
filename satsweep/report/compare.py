"""A comparison of two studies (:mod:`satsweep.analysis.compare`) as tables, a figure per
response and an HTML page (``satsweep compare A B --report DIR``).

The tables are rows of text, the same for the console (the CLI prints them with rich), the
Markdown and the HTML. The folder holds ``index.html`` (self-contained but for the figures
beside it), ``report.md``, ``comparison.json`` and ``<response>-differences.png``: each
configuration's paired difference B - A with its interval, a line at 0, the configurations
beyond noise filled. It is built beside the target and swapped in, so a failed write leaves
the previous one (or none).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from satsweep.analysis.compare import (
    MOST_RELATIVE,
    Comparison,
    ConfigurationDifference,
    ResponseComparison,
    RunDifference,
)
from satsweep.analysis.formatting import with_bounds
from satsweep.report.document import Block, confidence_label, html_page, markdown, number, table
from satsweep.report.write import ReportError, _slug, _swap_in

__all__ = [
    "MOST_SHOWN",
    "Rows",
    "configuration_rows",
    "differences_figure",
    "largest_overall_rows",
    "largest_rows",
    "moved_rows",
    "summary_rows",
    "summary_text",
    "write_comparison",
]

#: A table as text: its header, its rows and the alignment of each column (l or r).
Rows = tuple[list[str], list[list[str]], str]
#: The configurations a figure shows at most (those beyond noise first, then by |t|).
MOST_SHOWN = 60
_FIGURE_DPI = 110


def _difference(mean: float | None, ci: tuple[float, float] | None) -> str:
    """A difference with its interval, as the one rule has them: ``5.5 [4.89, 6.01]``."""
    value, interval = with_bounds(mean, ci)
    return value + (f" {interval}" if interval is not None else "")


def _correction(comparison: Comparison) -> str:
    """The correction as the output names it: ``Holm``, ``Bonferroni`` or ``no``."""
    return {"holm": "Holm", "bonferroni": "Bonferroni", "none": "no"}[comparison.correction]


def summary_text(comparison: Comparison) -> list[str]:
    """The lines before the tables: the two studies, the pairing, the runs without a pair."""
    a, b = comparison.a, comparison.b
    pct = confidence_label(comparison.level)
    lines = [
        f"A: {a.label} (study {a.study}, {a.program} {a.version}, {a.runs} runs)",
        f"B: {b.label} (study {b.study}, {b.program} {b.version}, {b.runs} runs)",
        f"{comparison.pairs} pairs, {comparison.pairing}",
        f"differences B - A with {pct} t intervals; beyond noise: {_correction(comparison)} "
        f"correction over each response's configurations at family-wise confidence {pct}",
    ]
    for side, runs in ((a, comparison.only_a), (b, comparison.only_b)):
        if runs:
            named = ", ".join(f"{c}/r{k}" for c, k in runs[:10])
            more = f" and {len(runs) - 10} more" if len(runs) > 10 else ""
            lines.append(f"{len(runs)} runs only in {side.label}: {named}{more}")
    for r in comparison.responses:
        untested = len(r.configurations) - r.tested
        if untested:
            lines.append(f"{r.response}: {untested} configurations with one pair: no interval, "
                         "not tested (that needs 2 replications or more)")  # fmt: skip
        same = [c for c in r.configurations if c.ci is None and c.significant]
        if same:
            lines.append(f"{r.response}: {len(same)} configurations differ by the same amount in "
                         "every pair: no spread, no interval, counted beyond noise")  # fmt: skip
    if comparison.not_compared:
        lines.append(f"not compared: {', '.join(comparison.not_compared)}")
    return lines


def summary_rows(comparison: Comparison) -> Rows:
    """One row per response: pairs, bit-identical, mean difference with its interval, the
    configurations beyond noise, the largest relative difference."""
    pct = confidence_label(comparison.level)
    header = ["response", "pairs", "identical", f"B - A [{pct} CI]", "beyond noise", "max rel."]
    rows = [
        [
            r.response,
            str(r.pairs),
            str(r.identical),
            _difference(r.mean, r.ci),
            f"{len(r.significant)} of {r.tested}",
            f"{r.max_relative:.3g}",
        ]
        for r in comparison.responses
    ]
    return header, rows, "lrrrrr"


def moved_rows(comparison: Comparison, response: ResponseComparison) -> Rows:
    """The configurations of ``response`` beyond noise: levels, config_id, pairs, the paired
    difference with its interval, the adjusted p-value, and a note when there is one."""
    pct = confidence_label(comparison.level)
    header = ["configuration", "config_id", "pairs", f"B - A [{pct} CI]", "p adj."]
    moved = response.significant
    notes = any(c.note for c in moved)
    rows = [
        [c.name, c.config_id, str(c.pairs), _difference(c.mean, c.ci),
         f"{c.p_adjusted:.3g}" if c.p_adjusted is not None else "n/a",
         *([c.note or ""] if notes else [])]
        for c in moved
    ]  # fmt: skip
    return header + (["note"] if notes else []), rows, "llrrr" + ("l" if notes else "")


def configuration_rows(comparison: Comparison, response: ResponseComparison) -> Rows:
    """Every configuration of ``response``, in the design's order: its pairs, identical pairs,
    paired difference with its interval, p-values, and whether it is beyond noise."""
    pct = confidence_label(comparison.level)
    header = ["configuration", "config_id", "pairs", "identical", f"B - A [{pct} CI]", "p",
              "p adj.", "beyond noise"]  # fmt: skip
    rows = [
        [c.name, c.config_id, str(c.pairs), str(c.identical), _difference(c.mean, c.ci),
         *(f"{p:.3g}" if p is not None else "n/a" for p in (c.p, c.p_adjusted)),
         "yes" if c.significant else (c.note or "no")]
        for c in response.configurations
    ]  # fmt: skip
    return header, rows, "llrrrrrl"


def largest_rows(response: ResponseComparison) -> Rows:
    """The pairs of ``response`` with the largest relative differences."""
    header = ["run", "configuration", "A", "B", "B - A", "rel."]
    return header, [_largest_row(r) for r in response.largest], "llrrrr"


def _largest_row(r: RunDifference) -> list[str]:
    """A pair as a row of :func:`largest_rows`."""
    return [f"{r.config_id}/r{r.replication}", ", ".join(f"{k}={v}" for k, v in r.levels.items()),
            number(r.a), number(r.b), number(r.difference),
            f"{r.relative:.3g}" if r.relative is not None else "n/a"]  # fmt: skip


def largest_overall_rows(comparison: Comparison) -> Rows:
    """The pairs with the largest relative differences over every response (at most
    MOST_RELATIVE), with their response: the console's one table of them."""
    found = [(r.response, d) for r in comparison.responses for d in r.largest]
    found.sort(key=lambda x: -x[1].relative if x[1].relative is not None else -math.inf)
    header = ["response", *largest_rows(comparison.responses[0])[0]]
    rows = [[name, *_largest_row(d)] for name, d in found[:MOST_RELATIVE]]
    return header, rows, "l" + largest_rows(comparison.responses[0])[2]


def _shown(response: ResponseComparison) -> list[ConfigurationDifference]:
    """The configurations a figure shows: all of them, or MOST_SHOWN, those beyond noise
    first, then the largest |difference| relative to its spread, in the design's order."""
    configurations = response.configurations
    if len(configurations) <= MOST_SHOWN:
        return configurations

    def weight(c: ConfigurationDifference) -> tuple[bool, float]:
        spread = c.ci[1] - c.ci[0] if c.ci is not None else 0.0
        return (c.significant, abs(c.mean or 0.0) / spread if spread else abs(c.mean or 0.0))

    keep = {id(c) for c in sorted(configurations, key=weight, reverse=True)[:MOST_SHOWN]}
    return [c for c in configurations if id(c) in keep]


def differences_figure(comparison: Comparison, response: ResponseComparison, path: Path) -> None:
    """Each configuration's paired difference B - A of ``response`` (a row each, at most
    MOST_SHOWN) with its interval as an error bar, a dashed line at 0; filled red: beyond
    noise, open: within it, a cross: no interval. PNG at ``path``."""
    from matplotlib.figure import Figure  # late: matplotlib is slow to import
    from matplotlib.lines import Line2D

    shown = _shown(response)
    fig = Figure(figsize=(7.6, 1.6 + 0.28 * len(shown)), dpi=_FIGURE_DPI, layout="constrained")
    ax = fig.subplots()
    for y, c in enumerate(shown):
        if c.mean is None:
            continue
        color = "C3" if c.significant else "C0"
        if c.ci is not None:
            ax.errorbar([c.mean], [y], xerr=[[c.mean - c.ci[0]], [c.ci[1] - c.mean]], fmt="o",
                        color=color, markerfacecolor=color if c.significant else "white",
                        markersize=6, capsize=3)  # fmt: skip
        else:
            ax.plot([c.mean], [y], "x" if not c.significant else "o", color=color, markersize=7)
    ax.axvline(0, color="0.5", linewidth=0.8, linestyle="--")
    ax.set_yticks(range(len(shown)), [c.name for c in shown], fontsize=8)
    ax.set_ylim(len(shown) - 0.5, -0.5)  # the design's first configuration at the top
    ax.set_xlabel(f"{response.response}: B - A (paired, per configuration)")
    ax.grid(axis="x", alpha=0.3)
    pct = confidence_label(comparison.level)
    more = (f" ({len(shown)} of {len(response.configurations)} shown)"
            if len(shown) < len(response.configurations) else "")  # fmt: skip
    ax.set_title(f"B - A ({comparison.b.label} - {comparison.a.label}) · {response.response}: "
                 f"paired differences, {pct} CIs{more}", fontsize=10)  # fmt: skip
    handles = [
        Line2D([], [], marker="o", color="C3", linestyle="none", markerfacecolor="C3"),
        Line2D([], [], marker="o", color="C0", linestyle="none", markerfacecolor="white"),
        Line2D([], [], marker="x", color="C0", linestyle="none"),
    ]
    labels = [f"beyond noise ({_correction(comparison)} correction)", "within noise",
              "no interval (one pair, or no spread)"]  # fmt: skip
    fig.legend(handles, labels, loc="outside lower center", ncols=3, fontsize=8)
    fig.savefig(path)


def _table(rows: Rows) -> Block:
    header, body, align = rows
    return table(header, body, align)


def _blocks(comparison: Comparison, figures: dict[str, str]) -> list[Block]:
    """The page: the summary, then per response its figure, the configurations beyond noise,
    every configuration, and the largest relative differences."""
    blocks = [Block("h1", f"satsweep compare: {comparison.a.label} vs {comparison.b.label}")]
    blocks += [Block("p", line) for line in summary_text(comparison)]
    if comparison.all_identical:
        blocks.append(Block("p", "all identical"))
    blocks.append(_table(summary_rows(comparison)))
    for response in comparison.responses:
        blocks.append(Block("h2", response.response))
        blocks.append(Block("img", figures[response.response],
                            header=(f"{response.response}: paired differences",)))  # fmt: skip
        blocks.append(Block("h3", "Configurations beyond noise"))
        if response.significant:
            blocks.append(_table(moved_rows(comparison, response)))
        else:
            blocks.append(Block("p", f"none of {response.tested} tested"))
        blocks.append(Block("h3", "Every configuration"))
        blocks.append(_table(configuration_rows(comparison, response)))
        blocks.append(Block("h3", "Largest relative differences"))
        if response.largest:
            blocks.append(_table(largest_rows(response)))
        else:
            blocks.append(Block("p", "every pair identical"))
    return blocks


def write_comparison(
    comparison: Comparison, target: Path, log: Callable[[str], None] = lambda _: None
) -> Path:
    """Writes the comparison's folder ``target`` (see the module), replacing what was there;
    returns its index.html. ``log`` gets each file's path as it is written. ReportError for a
    target that is there and holds something else (a file, a folder of other files)."""
    target = Path(target).absolute()
    if (
        target.exists()
        and not (target / "comparison.json").is_file()
        and (not target.is_dir() or any(target.iterdir()))
    ):  # never replace what a person keeps there
        raise ReportError(f"--report {target}: exists and is not a comparison satsweep wrote; "
                          "allowed: a new folder, or one that `satsweep compare --report` wrote")  # fmt: skip
    target.parent.mkdir(parents=True, exist_ok=True)
    built = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        os.chmod(built, 0o755)
        figures = {}
        for response in comparison.responses:
            name = f"{_slug(response.response)}-differences.png"
            differences_figure(comparison, response, built / name)
            figures[response.response] = name
            log(str(target / name))
        blocks = _blocks(comparison, figures)
        (built / "comparison.json").write_text(json.dumps(comparison.to_json(), indent=1) + "\n")
        (built / "report.md").write_text(markdown(blocks))
        title = f"satsweep compare: {comparison.a.label} vs {comparison.b.label}"
        (built / "index.html").write_text(html_page(title, blocks))
        for name in ("comparison.json", "report.md", "index.html"):
            log(str(target / name))
        _swap_in(built, target)
    except BaseException:
        shutil.rmtree(built, ignore_errors=True)
        raise
    return target / "index.html"
