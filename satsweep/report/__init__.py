"""`satsweep report`: a study's results and their factorial analysis as HTML and Markdown.

:func:`write_report` reads ``<results>/<study>/runs.parquet``, analyses each response per group
of the ``by`` column (:mod:`satsweep.analysis`) and writes ``<results>/<study>/report/``:
``index.html`` (self-contained: tables, CSS, ``<img>`` tags to the PNGs beside it), ``report.md``
(the same content in Markdown) and the figures (PNG, matplotlib). Per group and response: the
results table (the paper's layout, see :func:`results_table`), the allocation of variation, the
main effects with their confidence intervals, a figure of the main effects and one of the
interactions with the column factor. The report starts with the study's provenance.

The directory is built next to the target and then swapped in, so a failed report leaves the
previous one (or none) untouched.
"""

from __future__ import annotations

import datetime as dt
import html
import itertools
import json
import math
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

import satsweep
from satsweep import analysis, engine, store
from satsweep.analysis import Analysis, AnalysisError, Dataset, Model

__all__ = [
    "AUTO",
    "DEFAULT_RESPONSES",
    "CellResult",
    "ReportError",
    "ResultsTable",
    "StudyDesign",
    "default_factors",
    "provenance",
    "results_table",
    "study_design",
    "write_report",
]

DEFAULT_RESPONSES = ("efficiency", "fairness")
#: The ``by`` column when none is given: one report section per link type, as in the paper.
DEFAULT_BY = "link"
#: ``by`` of :func:`write_report` that means "DEFAULT_BY when it is a factor of the study".
AUTO = ""
REPORT_DIR = "report"
#: Units of the columns the report labels (axes, table headers); others are shown without.
UNITS = {
    "efficiency": "fraction of capacity",
    "fairness": "index, 0 to 1",
    "bufferRtt": "RTT x bandwidth",
    "buffer": "RTT x bandwidth",  # the reference table's name
    "bufferCells": "cells",
    "simTime": "s",
    "delay": "s",
    "accessDelay": "s",
    "bottleneckRate": "bit/s",
    "accessRate": "bit/s",
    "capacity_bps": "bit/s",
    "goodput_bps": "bit/s",
    "offered_bps": "bit/s",
    "mss": "bytes",
    "window": "bytes",
    "ssthresh": "bytes",
    "wall_seconds": "s",
    "elapsed_seconds": "s",
    "peak_rss_mb": "MB",
}
_FIGURE_DPI = 110


class ReportError(Exception):
    """The report cannot be made (no such study, empty store, bad analysis); says why."""


def _unit(name: str) -> str:
    return f"{name} ({UNITS[name]})" if name in UNITS else name


def _percent(confidence: float) -> str:
    return f"{round(100 * confidence, 6):g}%"


def _pct(value: float | None) -> str:
    return "n/a" if value is None or not math.isfinite(value) else f"{value:.2f}"


def _fmt(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "n/a"
    return f"{value:.4f}" if abs(value) < 1000 else f"{value:.4g}"


# --- the design recorded in the store ----------------------------------------------------------


@dataclass(frozen=True)
class StudyDesign:
    """The factors of the study in the store (design order), its fixed parameters, and how
    they were found."""

    factors: dict[str, int]  # factor -> number of levels in the store, in design order
    fixed: dict[str, str]  # parameter -> its one value (as text)
    source: str  # "the configurations' manifests" or "the varying parameter columns"


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _columns(con: duckdb.DuckDBPyConnection) -> list[str]:
    return [row[0] for row in con.execute("DESCRIBE runs").fetchall()]


def _distinct(con: duckdb.DuckDBPyConnection, columns: Sequence[str]) -> int:
    quoted = ", ".join(_quote(c) for c in columns)
    (n,) = con.execute(f"SELECT count(*) FROM (SELECT DISTINCT {quoted} FROM runs)").fetchone()  # type: ignore[misc]
    return int(n)


def _value(con: duckdb.DuckDBPyConnection, column: str) -> str:
    (value,) = con.execute(f"SELECT any_value({_quote(column)}) FROM runs").fetchone()  # type: ignore[misc]
    return engine.flag_value(value)


def study_design(store_dir: Path, con: duckdb.DuckDBPyConnection) -> StudyDesign:
    """The factors of the study whose runs are the table ``runs`` of ``con``.

    The design's parameters (factors and fixed, in the design's order) are those of the
    configurations' manifests ``runs/<config_id>/complete-<r>.json``; its factors are the
    parameters that take more than one value in the runs. Without manifests (e.g. a table
    compacted elsewhere) the candidates are the columns named after satnet flags that are
    constant within each configuration, in column order (the store writes the design's columns
    first), and a candidate determined by the factors already found (e.g. ``bufferCells`` by
    ``link`` and ``bufferRtt``, ``delay`` by ``link``) is a derived parameter, not a factor.
    """
    columns = _columns(con)
    names: list[str] = []
    if "config_id" in columns:
        for (config_id,) in con.execute("SELECT DISTINCT config_id FROM runs").fetchall():
            manifests = sorted((store_dir / "runs" / str(config_id)).glob("complete-*.json"))
            for manifest in manifests:
                try:
                    names = list(json.loads(manifest.read_text())["params"])
                except (OSError, ValueError, KeyError, TypeError):
                    continue
                break
            if names:
                break
    if names:
        levels = {n: _distinct(con, [n]) for n in names if n in columns}
        return StudyDesign(
            {n: k for n, k in levels.items() if k > 1},
            {n: _value(con, n) for n, k in levels.items() if k == 1},
            "the configurations' manifests",
        )
    skip = set(store.KEY_COLUMNS) | set(store.PROVENANCE_COLUMNS) | {"out"}
    candidates = [c for c in columns if c in engine.KNOWN_FLAGS and c not in skip]
    found: dict[str, int] = {}
    fixed: dict[str, str] = {}
    for column in candidates:
        levels = _distinct(con, [column])
        if levels < 2:
            fixed[column] = _value(con, column)
            continue
        if "config_id" in columns:
            quoted = _quote(column)
            (varies,) = con.execute(  # type: ignore[misc]
                f"SELECT count(*) FROM (SELECT config_id FROM runs GROUP BY config_id "
                f"HAVING count(DISTINCT {quoted}) > 1)"
            ).fetchone()
            if varies:
                continue
        if found and _distinct(con, [*found, column]) == _distinct(con, list(found)):
            continue  # a function of the factors found so far: derived, not a factor
        found[column] = levels
    return StudyDesign(found, fixed, "the varying parameter columns")


def default_factors(design: StudyDesign, by: str | None) -> list[str]:
    """The design's factors but ``by``, arranged for the paper's layout (see
    :func:`results_table`): a buffer factor (name starting with ``buffer``) last, so it makes the
    columns; the others by number of levels, fewest first (ties in design order), so the
    outer rows are the factor with fewest levels (the paper: drop x flavor rows)."""
    factors = [f for f in design.factors if f != by]
    buffer = next((f for f in factors if f.startswith("buffer")), None)
    rest = sorted((f for f in factors if f != buffer), key=lambda f: design.factors[f])
    return [*rest, buffer] if buffer else rest


# --- provenance --------------------------------------------------------------------------------


def provenance(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """What ran, where and when, from the provenance columns of the table ``runs``: label -> text
    ("not recorded" when the store has no such column)."""
    columns = set(_columns(con))

    def values(expr: str, needs: Sequence[str]) -> list[tuple[Any, ...]]:
        if not set(needs) <= columns:
            return []
        return con.execute(
            f"SELECT {expr}, count(*) FROM runs GROUP BY ALL ORDER BY min(rowid)"
        ).fetchall()

    def listing(rows: list[tuple[Any, ...]], show: Callable[..., str]) -> str:
        if not rows:
            return "not recorded"
        if len(rows) == 1:
            return show(*rows[0][:-1])
        return "; ".join(f"{show(*row[:-1])} ({row[-1]} runs)" for row in rows)

    (n_runs,) = con.execute("SELECT count(*) FROM runs").fetchone()  # type: ignore[misc]
    result: dict[str, str] = {"runs": str(n_runs)}
    if "config_id" in columns:
        configs, low, high = con.execute(
            "SELECT count(*), min(n), max(n) FROM "
            "(SELECT config_id, count(*) AS n FROM runs GROUP BY config_id)"
        ).fetchone()  # type: ignore[misc]
        result["configurations"] = str(configs)
        result["replications per configuration"] = str(low) if low == high else f"{low} to {high}"

    def dirty(flag: Any) -> str:
        return "unknown" if flag is None else ("dirty" if flag else "clean")

    result["git commit"] = listing(
        values("git_commit, git_dirty", ["git_commit", "git_dirty"]),
        lambda commit, flag: f"{commit or 'unknown'} ({dirty(flag)} working tree)",
    )
    for label, column in (
        ("satnet version", "satnet_version"),
        ("satnet sha256", "satnet_sha256"),
        ("ns-3 version", "ns3_version"),
        ("satsweep version (runs)", "satsweep_version"),
        ("hosts", "host"),
    ):
        result[label] = listing(values(column, [column]), str)
    if "started_at" in columns:
        first, last = con.execute("SELECT min(started_at), max(started_at) FROM runs").fetchone()  # type: ignore[misc]
        result["first run started (UTC)"] = str(first)
        result["last run started (UTC)"] = str(last)
    else:
        result["first run started (UTC)"] = result["last run started (UTC)"] = "not recorded"
    if "elapsed_seconds" in columns:
        (total,) = con.execute("SELECT sum(elapsed_seconds) FROM runs").fetchone()  # type: ignore[misc]
        result["satnet wall time (sum over the runs)"] = (
            f"{total:.1f} s" if total is not None else "n/a"
        )
    return result


# --- the results table -------------------------------------------------------------------------


@dataclass(frozen=True)
class CellResult:
    """One cell of the results table: the mean over its runs and the CI half-width."""

    mean: float
    n: int
    half_width: float | None  # t(1 - (1 - confidence)/2; n - 1) x s / sqrt(n); None if n < 2


@dataclass(frozen=True)
class ResultsTable:
    """The results laid out like the paper: one row per combination of the row factors' levels
    (first row factor slowest), one column per level of the column factor."""

    row_factors: tuple[str, ...]
    column_factor: str
    column_levels: tuple[str, ...]
    rows: tuple[tuple[tuple[str, ...], tuple[CellResult, ...]], ...]


def results_table(data: Dataset, result: Analysis) -> ResultsTable:
    """The layout rule: the columns are the levels of the **last** factor of the analysis, the
    rows every combination of the levels of the others in factor order (the first varying
    slowest); levels in order of first appearance. Cells hold the mean over the replications and,
    with r >= 2, the half-width of its t-based interval at the analysis' confidence level."""
    from scipy.stats import t  # late: scipy is slow to import

    factors = result.factors
    cells = {
        cell.levels: cell
        for cell in data.cells(result.response, factors, by=result.by, group=result.group)
    }
    levels = [tuple(result.effects[f]) for f in factors]

    def cell_result(key: tuple[str, ...]) -> CellResult:
        cell = cells[key]
        half = None
        if cell.n >= 2 and cell.stddev is not None:
            quantile = float(t.ppf(1 - (1 - result.confidence) / 2, cell.n - 1))
            half = quantile * cell.stddev / math.sqrt(cell.n)
        return CellResult(cell.mean, cell.n, half)

    rows = tuple(
        (row, tuple(cell_result((*row, level)) for level in levels[-1]))
        for row in itertools.product(*levels[:-1])
    )
    return ResultsTable(tuple(factors[:-1]), factors[-1], levels[-1], rows)


def _marginal_means(data: Dataset, result: Analysis, line: str, x: str) -> dict[str, list[float]]:
    """Mean response at each (level of ``line``, level of ``x``), over everything else."""
    cells = data.cells(result.response, [line, x], by=result.by, group=result.group)
    means = {(c.levels[0], c.levels[1]): c.mean for c in cells}
    return {a: [means[(a, b)] for b in result.effects[x]] for a in result.effects[line]}


# --- figures -----------------------------------------------------------------------------------


def _title(heading: str, result: Analysis, what: str) -> str:
    return f"{heading} · {result.response}: {what}"


def _effects_figure(heading: str, result: Analysis, path: Path) -> None:
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
        ax.set_xlabel(_unit(factor))
        ax.set_title(factor, fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel(f"effect on {_unit(result.response)}")
    what = f"main effects with {_percent(result.confidence)} CIs" if with_ci else "main effects"
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


def _interactions_figure(data: Dataset, heading: str, result: Analysis, path: Path) -> bool:
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
        for i, (level, means) in enumerate(_marginal_means(data, result, factor, x_factor).items()):
            ax.plot(x, means, marker=markers[i % len(markers)], label=level)
        ax.set_xticks(x, x_levels)
        ax.set_xlim(-0.3, len(x_levels) - 0.7)
        ax.set_xlabel(_unit(x_factor))
        ax.set_title(f"{factor} x {x_factor}", fontsize=10)
        ax.legend(title=factor, fontsize=8, title_fontsize=9)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(f"mean {_unit(result.response)}")
    fig.suptitle(
        _title(heading, result, f"interactions with {x_factor}")
        + "\n(mean over the other factors and the replications)",
        fontsize=11,
    )
    fig.savefig(path)
    return True


# --- documents: one list of blocks, rendered as Markdown and as HTML ---------------------------


@dataclass(frozen=True)
class _Block:
    kind: str  # "h1".."h4", "p", "code", "table", "img"
    text: str = ""
    header: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    align: str = ""  # per column: "l" or "r"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str) -> _Block:
    return _Block("table", header=tuple(header), rows=tuple(tuple(r) for r in rows), align=align)


def _markdown(blocks: Sequence[_Block]) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    out: list[str] = []
    for b in blocks:
        if b.kind.startswith("h"):
            out += ["#" * int(b.kind[1]) + " " + b.text, ""]
        elif b.kind == "p":
            out += [b.text, ""]
        elif b.kind == "code":
            out += ["```", b.text, "```", ""]
        elif b.kind == "img":
            out += [f"![{b.header[0]}]({b.text})", ""]
        elif b.kind == "table":
            out.append("| " + " | ".join(cell(h) for h in b.header) + " |")
            out.append("|" + "|".join("---:" if a == "r" else "---" for a in b.align) + "|")
            out += ["| " + " | ".join(cell(c) for c in row) + " |" for row in b.rows]
            out.append("")
    return "\n".join(out)


_CSS = """
body { font-family: system-ui, sans-serif; max-width: 70em; margin: 2em auto; padding: 0 1em;
       color: #222; line-height: 1.4; }
h1 { border-bottom: 2px solid #444; } h2 { border-bottom: 1px solid #aaa; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.5em 0 1.2em; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; }
th { background: #f0f0f0; } td.r { text-align: right; font-variant-numeric: tabular-nums; }
tr:nth-child(even) td { background: #fafafa; }
img { max-width: 100%; border: 1px solid #ddd; margin: 0.3em 0 1em; }
pre { background: #f4f4f4; padding: 0.6em; overflow-x: auto; }
"""


def _html(title: str, blocks: Sequence[_Block]) -> str:
    e = html.escape
    out = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        '<head><meta charset="utf-8">',
        f"<title>{e(title)}</title>",
        f"<style>{_CSS}</style>",
        "</head>",
        "<body>",
    ]
    for b in blocks:
        if b.kind.startswith("h"):
            out.append(f"<{b.kind}>{e(b.text)}</{b.kind}>")
        elif b.kind == "p":
            out.append(f"<p>{e(b.text)}</p>")
        elif b.kind == "code":
            out.append(f"<pre><code>{e(b.text)}</code></pre>")
        elif b.kind == "img":
            out.append(f'<p><img src="{e(b.text)}" alt="{e(b.header[0])}"></p>')
        elif b.kind == "table":
            out.append("<table>")
            out.append("<tr>" + "".join(f"<th>{e(h)}</th>" for h in b.header) + "</tr>")
            for row in b.rows:
                tds = (f'<td class="{a}">{e(c)}</td>' for c, a in zip(row, b.align, strict=False))
                out.append("<tr>" + "".join(tds) + "</tr>")
            out.append("</table>")
    out += ["</body>", "</html>", ""]
    return "\n".join(out)


# --- the report --------------------------------------------------------------------------------


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "x"


def _section(
    data: Dataset, heading: str, result: Analysis, directory: Path, log: Callable[[str], None]
) -> list[_Block]:
    """The blocks of one group x response, writing its figures (titled ``heading`` · response)
    into ``directory``."""
    pct = _percent(result.confidence)
    blocks = [_Block("h3", result.response)]
    blocks.append(
        _Block(
            "p",
            f"{result.n} runs ({result.replications} per cell), overall mean {_fmt(result.mean)}, "
            f"total variation (SST) {result.total_variation:.6g}; model {result.model}: "
            f"standard error {_fmt(result.standard_error)} with {result.error_dof} degrees of "
            "freedom.",
        )
    )
    table = results_table(data, result)
    replicated = result.replications >= 2
    blocks.append(
        _Block(
            "h4",
            f"Results: mean {_unit(result.response)}"
            + (
                f" ± {pct} CI half-width over the {result.replications} replications"
                if replicated
                else " (one run per cell)"
            ),
        )
    )
    header = [
        *(table.row_factors or ("",)),
        *(f"{table.column_factor} = {v}" for v in table.column_levels),
    ]
    rows = []
    for levels, cells in table.rows:
        shown = [
            _fmt(c.mean) + (f" ± {_fmt(c.half_width)}" if c.half_width is not None else "")
            for c in cells
        ]
        rows.append([*(levels or ("mean",)), *shown])
    n_row = max(1, len(table.row_factors))
    blocks.append(_table(header, rows, "l" * n_row + "r" * len(table.column_levels)))

    blocks.append(_Block("h4", "Allocation of variation"))
    blocks.append(
        _table(
            ["term", "sum of squares", "dof", "% of variation"],
            [[t.term, f"{t.ss:.6g}", str(t.dof), _pct(t.percent)] for t in result.terms]
            + [["total", f"{result.total_variation:.6g}", str(result.n - 1), "100.00"]],
            "lrrr",
        )
    )
    blocks.append(_Block("h4", f"Main effects ({pct} confidence intervals; * = significant)"))
    blocks.append(
        _table(
            ["factor", "level", "effect", f"{pct} CI", "significant"],
            [
                [
                    factor,
                    level,
                    _fmt(e.effect),
                    f"[{_fmt(e.ci[0])}, {_fmt(e.ci[1])}]" if e.ci else "n/a",
                    "*" if e.significant else "",
                ]
                for factor, levels in result.effects.items()
                for level, e in levels.items()
            ],
            "llrrl",
        )
    )
    stem = _slug("-".join(([result.group] if result.group is not None else []) + [result.response]))
    name = f"{stem}-effects.png"
    _effects_figure(heading, result, directory / name)
    log(f"{REPORT_DIR}/{name}")
    blocks.append(_Block("img", name, header=(f"{result.response}: main effects",)))
    name = f"{stem}-interactions.png"
    if _interactions_figure(data, heading, result, directory / name):
        log(f"{REPORT_DIR}/{name}")
        blocks.append(_Block("img", name, header=(f"{result.response}: interactions",)))
    return blocks


def _command(
    study: str,
    responses: Sequence[str],
    factors: Sequence[str],
    by: str | None,
    model: str,
    confidence: float,
) -> str:
    return (
        f"satsweep report {study} --responses {','.join(responses)} --factors "
        f"{','.join(factors)} --by {by or 'none'} --model {model} --confidence {confidence:g}"
    )


def _swap_in(built: Path, target: Path) -> None:
    """Replaces ``target`` by the directory ``built`` (its sibling)."""
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}-old-{os.getpid()}")
        os.replace(target, old)
    os.replace(built, target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def write_report(
    study: str,
    results: str | os.PathLike[str] | None = None,
    *,
    responses: Sequence[str] = DEFAULT_RESPONSES,
    factors: Sequence[str] | None = None,
    by: str | None = AUTO,
    model: Model = analysis.DEFAULT_MODEL,
    confidence: float = analysis.DEFAULT_CONFIDENCE,
    log: Callable[[str], None] = lambda line: None,
) -> Path:
    """Writes ``<results>/<study>/report/`` and returns the path of its ``index.html``.

    ``factors`` default to the study's factors but ``by`` (:func:`study_design`,
    :func:`default_factors`); ``by=AUTO`` (the default) means ``link`` when it is a factor of the study (with
    more than one level) and not among ``factors``, else none; ``by=None`` means none. ``log``
    gets the path of every file written. Raises :class:`ReportError` (nothing written) when the
    study has no store or no runs, or the analysis refuses the data.
    """
    if not study or "/" in study or study in (".", ".."):
        raise ReportError(f"'{study}' is not a study name")
    base = store.results_dir(results)
    study_dir = base / study
    runs = study_dir / "runs.parquet"
    if not runs.is_file():
        raise ReportError(f"no study '{study}' in {base} (no {runs})")
    con = duckdb.connect()
    try:
        con.execute("CREATE TABLE runs AS SELECT * FROM read_parquet(?)", [str(runs)])
        (n_runs,) = con.execute("SELECT count(*) FROM runs").fetchone()  # type: ignore[misc]
        if n_runs == 0:
            raise ReportError(f"study '{study}' has no finished runs ({runs} is empty)")
        design = study_design(study_dir, con)
        facts = provenance(con)
    except duckdb.Error as e:
        raise ReportError(f"cannot read {runs}: {e}") from e
    finally:
        con.close()
    if by == AUTO:
        by = (
            DEFAULT_BY
            if DEFAULT_BY in design.factors and (factors is None or DEFAULT_BY not in factors)
            else None
        )
    if factors is None:
        factors = default_factors(design, by)
        if not factors:
            raise ReportError(
                f"study '{study}' has no factor with more than one level besides "
                f"{by or 'none'} (found from {design.source}); give --factors"
            )
    factors, responses = list(factors), list(responses)
    if not responses:
        raise ReportError("no responses given")

    try:
        with Dataset.open(runs) as data:
            analyses: dict[str | None, list[Analysis]] = {}
            for response in responses:
                if by is None:
                    per_group = {
                        None: data.analyze(response, factors, model=model, confidence=confidence)
                    }
                else:
                    per_group = data.analyze_by(
                        by, response, factors, model=model, confidence=confidence
                    )
                for group, result in per_group.items():
                    analyses.setdefault(group, []).append(result)
            target = study_dir / REPORT_DIR
            built = Path(tempfile.mkdtemp(prefix=f".{REPORT_DIR}-", dir=study_dir))
            try:
                os.chmod(built, 0o755)
                blocks = _front_matter(
                    study, facts, design, responses, factors, by, model, confidence, analyses
                )
                for group, results_ in analyses.items():
                    if by is not None:
                        where = f"{by} = {group}"
                    elif DEFAULT_BY in design.fixed:  # say which link, in every figure's title
                        where = f"{DEFAULT_BY} = {design.fixed[DEFAULT_BY]}"
                    else:
                        where = ""
                    blocks.append(_Block("h2", where or "All runs"))
                    heading = f"{study} · {where}" if where else study
                    for result in results_:
                        blocks += _section(data, heading, result, built, log)
                title = f"satsweep report: {study}"
                (built / "report.md").write_text(_markdown(blocks))
                log(f"{REPORT_DIR}/report.md")
                (built / "index.html").write_text(_html(title, blocks))
                log(f"{REPORT_DIR}/index.html")
                _swap_in(built, target)
            except BaseException:
                shutil.rmtree(built, ignore_errors=True)
                raise
    except AnalysisError as e:
        raise ReportError(str(e)) from e
    return target / "index.html"


def _front_matter(
    study: str,
    facts: dict[str, str],
    design: StudyDesign,
    responses: Sequence[str],
    factors: Sequence[str],
    by: str | None,
    model: str,
    confidence: float,
    analyses: dict[str | None, list[Analysis]],
) -> list[_Block]:
    groups = ", ".join(str(g) for g in analyses) if by is not None else "none (all runs together)"
    levels = {f: list(r.effects[f]) for r in next(iter(analyses.values())) for f in r.factors}
    blocks = [
        _Block("h1", f"Study {study}"),
        _Block(
            "p",
            f"Factorial analysis (Jain 1991) of {', '.join(responses)} over "
            f"{' x '.join(factors)}"
            + (f", one analysis per {by} ({groups})" if by is not None else "")
            + f"; generated {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC by satsweep "
            f"{satsweep.__version__}.",
        ),
        _Block("h2", "Provenance"),
        _table(["what", "recorded in the runs"], list(facts.items()), "ll"),
        _Block("h2", "Analysis"),
        _table(
            ["setting", "value"],
            [
                ["responses", ", ".join(responses)],
                *[[f"factor {f}", ", ".join(v)] for f, v in levels.items()],
                ["analysed per", f"{by}: {groups}" if by is not None else "none"],
                [
                    "fixed parameters",
                    ", ".join(f"{k} = {v}" for k, v in design.fixed.items()) or "none",
                ],
                ["error model", model],
                ["confidence", _percent(confidence)],
                ["study factors found from", design.source],
            ],
            "ll",
        ),
        _Block(
            "p",
            f"Results tables: one row per combination of {' x '.join(factors[:-1]) or '(none)'} "
            f"(the first varying slowest), one column per level of {factors[-1]} (the last "
            "factor); each cell is the mean over the replications, with the half-width of its "
            f"t-based {_percent(confidence)} confidence interval when there are 2 or more. "
            "Allocation of variation: percent of the total variation per term, the error last. "
            "Main effects: effect of each level (mean at the level minus the overall mean) with "
            "its confidence interval; * marks a level whose interval excludes 0. Figures: main "
            f"effects with their intervals; interactions with {factors[-1]}: mean response over "
            f"its levels, one line per level of each other factor. Regenerate with:",
        ),
        _Block("code", _command(study, responses, factors, by, model, confidence)),
    ]
    return blocks
