"""The report's tables that are not the analysis itself: the results laid out like the paper,
with each cell's confidence interval, the marginal means of the interaction figures, and the
study's provenance (``analysis/50-provenance.sql``)."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import duckdb

from satsweep.analysis import Analysis, Dataset, sql
from satsweep.analysis.dataset import t_quantile

__all__ = ["CellResult", "ResultsTable", "marginal_means", "provenance", "results_table"]


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
            half = t_quantile(result.confidence, cell.n - 1) * cell.stddev / math.sqrt(cell.n)
        return CellResult(cell.mean, cell.n, half)

    rows = tuple(
        (row, tuple(cell_result((*row, level)) for level in levels[-1]))
        for row in itertools.product(*levels[:-1])
    )
    return ResultsTable(tuple(factors[:-1]), factors[-1], levels[-1], rows)


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
