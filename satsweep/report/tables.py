"""The report's tables that are not the analysis itself: the results laid out like the paper,
with each cell's confidence interval, the marginal means of the interaction figures, and the
study's provenance (``analysis/50-provenance.sql``)."""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from satsweep.analysis import Analysis, Dataset, sql
from satsweep.analysis.dataset import t_quantile
from satsweep.analysis.study import level_text
from satsweep.design import TraceSettings
from satsweep.theory import Reference, Theory, TheoryError

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "BAND_LEAST_REPLICATIONS",
    "CellResult",
    "Curve",
    "ResultsTable",
    "TracePanel",
    "curves",
    "marginal_means",
    "provenance",
    "results_table",
    "trace_mean_panels",
    "trace_over_factor",
    "trace_panels",
    "trace_range",
]


@dataclass(frozen=True)
class CellResult:
    """One cell of the results table: the mean over its runs and the CI half-width."""

    mean: float
    n: int
    # pooled: t(1 - (1 - confidence)/2; error dof) x s_e / sqrt(n); per cell: t(...; n - 1) x
    # s / sqrt(n), None if n < 2 (see :func:`results_table`)
    half_width: float | None


@dataclass(frozen=True)
class ResultsTable:
    """The results laid out like the paper: one row per combination of the row factors' levels
    (first row factor slowest), one column per level of the column factor."""

    row_factors: tuple[str, ...]
    column_factor: str
    column_levels: tuple[str, ...]
    # a cell a fraction does not run is None; a row without any cell is left out
    rows: tuple[tuple[tuple[str, ...], tuple[CellResult | None, ...]], ...]
    pooled: bool = False  # the intervals use the model's pooled error, not each cell's runs


def results_table(data: Dataset, result: Analysis) -> ResultsTable:
    """The layout rule: the columns are the levels of the **last** factor of the analysis, the
    rows every combination of the levels of the others in factor order (the first varying
    slowest); levels in order of first appearance. Cells hold the mean over the replications and
    the half-width of its t-based interval at the analysis' confidence level: from the model's
    pooled error (the ANOVA's error term, ``34-error_term.sql``: t with its degrees of freedom,
    its standard error over sqrt(n)) when it has degrees of freedom, else from the cell's own
    runs (t with n - 1, none with one run); none when the replications are identical. In a
    fraction the combinations it does not run are None, and rows of none are left out."""
    factors = result.factors
    # the pooled error is the estimate of the run-to-run spread that the effects' intervals use:
    # with r = 2 a cell's own estimate has one degree of freedom (t = 6.31 at 90%)
    se, t = result.standard_error, result.t_quantile
    identical = result.identical_replications  # no spread to make an interval of
    pooled = se is not None and t is not None and not identical
    cells = {
        cell.levels: cell
        for cell in data.cells(result.response, factors, by=result.by, group=result.group)
    }
    levels = [tuple(result.effects[f]) for f in factors]

    def cell_result(key: tuple[str, ...]) -> CellResult | None:
        cell = cells.get(key)
        if cell is None:  # a fraction runs some combinations only (analyze checks which)
            return None
        half = None
        if pooled:
            half = t * se / math.sqrt(cell.n)
        elif cell.n >= 2 and cell.stddev is not None and not identical:
            half = t_quantile(result.confidence, cell.n - 1) * cell.stddev / math.sqrt(cell.n)
        return CellResult(cell.mean, cell.n, half)

    laid = ((row, tuple(cell_result((*row, level)) for level in levels[-1]))
            for row in itertools.product(*levels[:-1]))  # fmt: skip
    rows = tuple((row, row_cells) for row, row_cells in laid if any(row_cells))
    return ResultsTable(tuple(factors[:-1]), factors[-1], levels[-1], rows, pooled)


def marginal_means(data: Dataset, result: Analysis, line: str, x: str) -> dict[str, list[float]]:
    """Mean response at each (level of ``line``, level of ``x``), over everything else: one list
    per level of ``line``, in the order of the levels of ``x``."""
    cells = data.cells(result.response, [line, x], by=result.by, group=result.group)
    means = {(c.levels[0], c.levels[1]): c.mean for c in cells}
    return {a: [means[(a, b)] for b in result.effects[x]] for a in result.effects[line]}


def provenance(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """What ran, where and when, from the provenance columns of the runs in the table ``source``
    of ``con`` (:func:`satsweep.analysis.sql.load`): label -> text ("not recorded" when the store
    has no such column)."""
    sql.run(con, sql.PROVENANCE)
    return {row["label"]: row["value"] for row in sql.rows(con, sql.created_table(sql.PROVENANCE))}


@dataclass(frozen=True)
class Curve:
    """One line of a curves figure: a row of the results table over the numeric column levels,
    with the theory's predictions of the response at the same cells."""

    label: str
    x: list[float]
    means: list[float]
    half_widths: list[float | None]
    predictions: dict[str, list[float | None]] = field(default_factory=dict)


def _predicted(theory: Theory, run: Mapping[str, Any], names: Sequence[str]) -> list[float | None]:
    try:
        values = theory.predictions(run)
    except TheoryError:
        return [None] * len(names)
    return [values.get(name) for name in names]


def curves(
    laid_out: ResultsTable,
    x: Sequence[float],
    runs: Mapping[tuple[str, ...], Mapping[str, Any]],
    theory: Theory | None,
    response: str,
) -> tuple[list[Curve], list[Reference]]:
    """The rows of ``laid_out`` as curves over ``x`` (the column levels as numbers), with what
    ``theory`` predicts of ``response`` at each cell (``runs``: a run of each cell, keyed by its
    levels) and its reference lines for each row's first cell, deduplicated."""
    names = list(theory.predicts.get(response, [])) if theory else []
    lines: dict[tuple[str, float, str], Reference] = {}
    result = []
    for levels, cells in laid_out.rows:
        label = ", ".join(f"{f}={v}" for f, v in zip(laid_out.row_factors, levels, strict=True))
        keys = [(*levels, level) for level in laid_out.column_levels]
        predictions: dict[str, list[float | None]] = {}
        if theory is not None:
            per_cell = [_predicted(theory, runs[key], names) for key in keys]
            for i, name in enumerate(names):
                values = [p[i] for p in per_cell]
                if any(v is not None for v in values):
                    predictions[name] = values
            try:
                refs = theory.references(laid_out.column_factor, response, runs[keys[0]])
            except TheoryError:
                refs = []
            lines.update({(r.axis, r.value, r.label): r for r in refs})
        result.append(
            Curve(
                label or response,
                list(x),
                [c.mean for c in cells],
                [c.half_width for c in cells],
                predictions,
            )
        )
    return result, list(lines.values())


#: With fewer replications than this behind a panel's points, a trace of their mean draws each
#: run instead of a band: a t interval with one degree of freedom (t = 6.3 at 90 %) reaches far
#: past anything the runs did.
BAND_LEAST_REPLICATIONS = 3


@dataclass(frozen=True)
class TracePanel:
    """One panel of a trace: a configuration's rows (per series value: column -> values), the
    theory's references for it, and with ``replications: mean`` the half-width of each y's
    interval (per series value: y column -> half-widths, None where a point has one run), the
    range the runs reach at each point (``extremes``: (least, most), None without a value), each
    run's points (``runs``: per series value, y column, replication: its xs and ys) and the most
    runs behind one of its points (the configuration's replications that have rows)."""

    title: str
    series: dict[str, dict[str, list[Any]]]
    references: list[Reference]
    halves: dict[str, dict[str, list[float | None]]] = field(default_factory=dict)
    replications: int = 1
    extremes: dict[str, dict[str, list[tuple[float | None, float | None]]]] = field(
        default_factory=dict
    )
    runs: dict[str, dict[str, dict[int, tuple[list[float], list[float]]]]] = field(
        default_factory=dict
    )

    @property
    def banded(self) -> bool:
        """Whether its means are drawn with a band (or bars): enough replications for one."""
        return self.replications >= BAND_LEAST_REPLICATIONS

    def band(
        self, series: str, y: str, limits: tuple[float, float] | None
    ) -> tuple[list[float], list[float], bool]:
        """The band of the mean of ``y`` of ``series``, mean -+ half-width (NaN where there is
        none), clipped to ``limits`` (the traces' range, :func:`trace_range`), and whether it
        was clipped anywhere."""
        low, high, clipped = [], [], False
        means = self.series[series][y]
        for mean, half in zip(means, self.halves[series][y], strict=True):
            if mean is None or half is None:
                low.append(math.nan)
                high.append(math.nan)
                continue
            a, b = mean - half, mean + half
            if limits is not None:
                clipped |= a < limits[0] or b > limits[1]
                a, b = max(a, limits[0]), min(b, limits[1])
            low.append(a)
            high.append(b)
        return low, high, clipped


def trace_range(panels: Sequence[TracePanel], y: str) -> tuple[float, float] | None:
    """The least and the most value of column ``y`` that any run of ``panels`` has at any
    point: the traces' physical range, which no band is drawn past (None without values)."""
    values = [
        v
        for panel in panels
        for columns in panel.extremes.values()
        for pair in columns.get(y, [])
        for v in pair
        if v is not None
    ]
    return (min(values), max(values)) if values else None


def trace_panels(
    runs_table: Path,
    table: Path,
    trace: TraceSettings,
    factors: Sequence[str],
    theory: Theory | None,
) -> list[TracePanel]:
    """A panel per configuration of the study (its first replication, ``55-first_runs.sql``),
    titled by its levels of ``factors``, with its rows of ``table`` (``56-trace_rows.sql``)."""
    con = sql.connect()
    try:
        sql.set_variables(con, runs_table=str(runs_table), trace_table=str(table))
        sql.run(con, sql.FIRST_RUNS, sql.TRACE_ROWS)
        rows = sql.rows(con, sql.created_table(sql.TRACE_ROWS))
        panels = []
        for run in sql.rows(con, sql.created_table(sql.FIRST_RUNS)):
            series: dict[str, dict[str, list[Any]]] = {}
            for row in rows:
                if row["config_id"] == run["config_id"]:
                    key = level_text(row[trace.series]) if trace.series else ""
                    points = series.setdefault(key, {c: [] for c in (trace.x, *trace.y)})
                    for column in points:
                        points[column].append(row[column])
            references: list[Reference] = []
            if theory is not None:
                for y in trace.y:
                    try:
                        references += theory.references(trace.x, y, run)
                    except TheoryError:
                        pass
            title = ", ".join(f"{f}={level_text(run[f])}" for f in factors)
            panels.append(TracePanel(title, series, references))
        return panels
    finally:
        con.close()


def trace_over_factor(trace: TraceSettings, factors: Sequence[str], table: Path) -> bool:
    """Whether the trace's x is a factor of the design rather than a column of ``table`` (a
    column of that name wins, as the design's check has it)."""
    import pyarrow.parquet as pq

    return trace.x in factors and trace.x not in pq.read_schema(table).names


def trace_mean_panels(
    runs_table: Path,
    table: Path,
    trace: TraceSettings,
    factors: Sequence[str],
    confidence: float,
) -> list[TracePanel]:
    """The panels of a trace with ``replications: mean`` (``57-trace_means.sql``): a panel per
    combination of levels of ``factors`` (but ``trace.x`` when it is a factor; each run's rows
    are then averaged per series first), per series value the mean of each y at each x over the
    replications, with the half-width t sd / sqrt(n) of its ``confidence`` interval (None where
    n < 2; the mean is None where no run has a value)."""
    over_factor = trace_over_factor(trace, factors, table)
    panel_factors = [f for f in factors if not (over_factor and f == trace.x)]
    con = sql.connect()
    try:
        panels: dict[int, TracePanel] = {}
        most: dict[int, int] = {}  # panel -> the most runs behind one of its points
        for y in trace.y:
            sql.set_variables(
                con,
                runs_table=str(runs_table),
                trace_table=str(table),
                trace_x=trace.x,
                trace_x_is_factor=over_factor,
                trace_y=y,
                trace_series=trace.series,
                trace_panels=panel_factors,
            )
            sql.run(con, sql.TRACE_MEANS)
            # every y gives the same rows in the same order (57-trace_means.sql): x once
            for row in sql.rows(con, sql.created_table(sql.TRACE_MEANS)):
                title = ", ".join(f"{f}={level_text(row[f])}" for f in panel_factors)
                panel = panels.setdefault(row["panel_order"], TracePanel(title, {}, []))
                most[row["panel_order"]] = max(most.get(row["panel_order"], 0), row["n"])
                points = panel.series.setdefault(row["series"], {trace.x: []})
                halves = panel.halves.setdefault(row["series"], {})
                if y == trace.y[0]:
                    points[trace.x].append(row["x"])
                points.setdefault(y, []).append(row["mean"])
                n, sd = row["n"], row["sd"]
                half = t_quantile(confidence, n - 1) * sd / math.sqrt(n) if n > 1 else None
                halves.setdefault(y, []).append(half)
                extremes = panel.extremes.setdefault(row["series"], {}).setdefault(y, [])
                extremes.append((row["low"], row["high"]))
                runs = panel.runs.setdefault(row["series"], {}).setdefault(y, {})
                for k, value in zip(row["replications"] or [], row["ys"] or [], strict=True):
                    xs, ys = runs.setdefault(k, ([], []))
                    xs.append(row["x"])
                    ys.append(value)
        return [dataclasses.replace(panels[k], replications=most[k]) for k in sorted(panels)]
    finally:
        con.close()
