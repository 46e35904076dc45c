"""The runner: a table of runs in DuckDB, analysed by running the numbered SQL files.

:class:`Dataset` loads a source once; each analysis sets the variables (response, factors,
group, error model), builds ``design``, checks the values, builds the design's tables, checks
the design, computes the statistics, then the t quantile (the one number computed here, with
SciPy) for the confidence intervals, and reads the result tables into an :class:`Analysis`.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from satsweep.analysis import sql
from satsweep.analysis.results import (
    DEFAULT_CONFIDENCE,
    DEFAULT_MODEL,
    MODELS,
    Analysis,
    AnalysisError,
    Cell,
    Effect,
    Interaction,
    Model,
    Term,
)

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "Dataset",
    "analyze",
    "analyze_by",
    "identical_responses",
    "resolve_source",
    "t_quantile",
]

#: A cell's sample deviation at most this fraction of its mean is identical values summed in
#: another order, not a spread.
IDENTICAL_NOISE = 1e-12
_RESERVED = ("obs_id", "y")  # the columns of `design` besides the factors
# Which files 01-source.sql reads (by the same suffixes), and which names look like files.
_PARQUET_SUFFIXES = (".parquet", ".pq")
_CSV_SUFFIXES = (".csv", ".tsv", ".txt", ".csv.gz", ".tsv.gz")


def resolve_source(source: str | os.PathLike[str], results_dir: str | Path | None = None) -> Path:
    """The file behind SOURCE: a Parquet/CSV path, or a study name for its store.

    A study name resolves to ``<results dir>/<study>/runs.parquet``, the results directory being
    ``results_dir``, else ``$SATSWEEP_RESULTS``, else ``results`` (relative to the current dir).
    """
    path = Path(source)
    if path.is_file():
        return path
    text = str(source)
    looks_like_file = (
        "/" in text or os.sep in text or text.lower().endswith(_PARQUET_SUFFIXES + _CSV_SUFFIXES)
    )
    if looks_like_file:
        raise AnalysisError(f"no such file: {text}")
    base = Path(results_dir or os.environ.get("SATSWEEP_RESULTS") or "results")
    store = base / text / "runs.parquet"
    if not store.is_file():
        raise AnalysisError(f"no file or study named '{text}' (no {store})")
    return store


def t_quantile(confidence: float, dof: int) -> float:
    """The two-sided t quantile: t(1 - (1 - confidence) / 2; dof), e.g. t(0.95; dof) for 90%."""
    from scipy.stats import t  # imported late: scipy is slow to import

    return float(t.ppf(1 - (1 - confidence) / 2, dof))


class Dataset:
    """A table of runs loaded into an in-memory DuckDB database, ready to be analysed.

    Load once, then call :meth:`analyze` or :meth:`analyze_by` for as many responses, factor
    sets and groups as needed.
    """

    def __init__(self, connection: duckdb.DuckDBPyConnection, name: str) -> None:
        """Wrap a connection made by :meth:`open` or :meth:`from_arrow`: the macros
        (``00-macros.sql``) and the runs in the temporary table ``source`` (``01-source.sql``)."""
        self._con = connection
        self.name = name
        sql.run(connection, sql.SOURCE_COLUMNS)
        columns = sql.rows(connection, "source_columns")
        self.columns: dict[str, str] = {c["column_name"]: c["data_type"] for c in columns}
        self._numeric = {c["column_name"] for c in columns if c["is_numeric"]}

    @classmethod
    def open(
        cls,
        source: str | os.PathLike[str],
        results_dir: str | Path | None = None,
        max_replication: int | None = None,
    ) -> Self:
        """Load a Parquet or CSV file, or a study's store (see :func:`resolve_source`); only
        replications 1..``max_replication`` when given (the balanced part of a store whose
        configurations have their own replications)."""
        import duckdb

        path = resolve_source(source, results_dir)
        if not path.name.lower().endswith(_PARQUET_SUFFIXES + _CSV_SUFFIXES):
            raise AnalysisError(f"{path}: not a Parquet (.parquet) or CSV (.csv) file")
        con = sql.connect()
        try:
            sql.load(con, str(path), max_replication)
        except duckdb.Error as e:
            con.close()
            raise AnalysisError(f"cannot read {path}: {e}") from e
        return cls(con, str(path))

    @classmethod
    def from_arrow(cls, table: Any, name: str = "<table>") -> Self:
        """Load a pyarrow Table (or anything DuckDB can scan, e.g. a pandas DataFrame)."""
        con = sql.connect()
        con.register("input_table", table)
        sql.load(con, "input_table")
        con.unregister("input_table")
        return cls(con, name)

    @property
    def connection(self) -> duckdb.DuckDBPyConnection:
        """The database holding ``source``: to run further files on the runs (steady-state
        responses, :mod:`satsweep.analysis.steady`)."""
        return self._con

    def add_columns(self, table: str, columns: Sequence[str]) -> None:
        """Columns ``columns`` of ``table`` (a table of ``connection`` keyed by config_id and
        replication, one row per run at most) joined onto the runs as new numeric columns (NULL
        for a run it lacks), analysed like any other; the order of the runs is kept."""
        sql.set_variables(self._con, added_table=table, added_columns=list(columns))
        sql.run(self._con, sql.ADDED_COLUMNS)
        sql.run(self._con, sql.SOURCE_COLUMNS)
        rows = sql.rows(self._con, "source_columns")
        self.columns = {c["column_name"]: c["data_type"] for c in rows}
        self._numeric = {c["column_name"] for c in rows if c["is_numeric"]}

    def close(self) -> None:
        """Close the database (the loaded runs go with it)."""
        self._con.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- validation -----------------------------------------------------------------------

    def _check_column(self, column: str, role: str) -> None:
        if column not in self.columns:
            raise AnalysisError(
                f"unknown {role} column '{column}' in {self.name}; "
                f"the columns are: {', '.join(self.columns)}"
            )

    def _check_options(
        self, response: str, factors: Sequence[str], by: str | None, model: str, confidence: float
    ) -> None:
        if model not in MODELS:
            raise AnalysisError(f"unknown model '{model}'; the models are: {', '.join(MODELS)}")
        if not (isinstance(confidence, float | int) and 0 < confidence < 1):
            raise AnalysisError(f"confidence must be between 0 and 1 (exclusive), not {confidence}")
        if not factors:
            raise AnalysisError("no factors given")
        self._check_column(response, "response")
        if response not in self._numeric:
            raise AnalysisError(
                f"response column '{response}' is not numeric (it is {self.columns[response]})"
            )
        for factor in factors:
            self._check_column(factor, "factor")
            if factor in _RESERVED:
                raise AnalysisError(
                    f"a factor cannot be named '{factor}' (reserved by the analysis SQL: "
                    f"{', '.join(_RESERVED)}); rename the column"
                )
        duplicates = sorted({f for f in factors if list(factors).count(f) > 1})
        if duplicates:
            raise AnalysisError(f"factor '{duplicates[0]}' is given more than once")
        if response in factors:
            raise AnalysisError(f"column '{response}' cannot be both the response and a factor")
        if by is not None:
            self._check_column(by, "--by")
            if by == response or by in factors:
                raise AnalysisError(f"--by column '{by}' cannot also be the response or a factor")

    def _check(self, checks: str) -> None:
        """Run a checks file (one message per problem) and raise its first message."""
        sql.run(self._con, checks)
        problems = sql.rows(self._con, sql.created_table(checks))
        if problems:
            raise AnalysisError(problems[0]["message"])

    # -- analysis -------------------------------------------------------------------------

    def _design(
        self,
        response: str,
        factors: tuple[str, ...],
        by: str | None,
        group: str | None,
        model: Model,
    ) -> None:
        """The table ``design`` of the runs of ``group`` (all without ``by``)."""
        sql.set_variables(
            self._con,
            response=response,
            factors=list(factors),
            by_column=by,
            by_value=group,
            error_model=model,
        )
        sql.run(self._con, sql.DESIGN)

    def groups(self, by: str) -> list[str]:
        """The values of column ``by`` as text, in order of first appearance."""
        self._check_column(by, "--by")
        sql.set_variables(self._con, by_column=by)
        sql.run(self._con, sql.GROUPS)
        values = [row["by_value"] for row in sql.rows(self._con, "groups")]
        if None in values:
            raise AnalysisError(f"--by column '{by}' has missing values")
        return values

    def analyze(
        self,
        response: str,
        factors: Sequence[str],
        *,
        model: Model = DEFAULT_MODEL,
        confidence: float = DEFAULT_CONFIDENCE,
        by: str | None = None,
        group: str | None = None,
    ) -> Analysis:
        """Analyse ``response`` over ``factors``; with ``by``, only the runs whose ``by`` value
        (as text, see :meth:`groups`) is ``group``. Raises :class:`AnalysisError` on bad input."""
        factors = tuple(factors)
        self._check_options(response, factors, by, model, confidence)
        if (by is None) != (group is None):
            raise AnalysisError("give both `by` and `group`, or neither")
        self._design(response, factors, by, group, model)
        try:
            self._check(sql.VALUE_CHECKS)
            sql.run(self._con, *sql.DESIGN_TABLES)
            self._check(sql.DESIGN_CHECKS)
        except AnalysisError as e:
            if by is not None:
                raise AnalysisError(f"{by}={group}: {e}") from None
            raise
        sql.run(self._con, *sql.STATISTICS)
        result = self._assemble(response, factors, model, confidence, by, group)
        if result.replications < 2 or not self._identical(response, factors, by, group):
            return result
        return dataclasses.replace(result, identical_replications=True)

    def _identical(
        self, response: str, factors: tuple[str, ...], by: str | None, group: str | None
    ) -> bool:
        """Whether every cell of ``factors`` with two runs or more has a single value of
        ``response`` (its sample deviation 0, or below float noise of its mean)."""
        cells = [c for c in self.cells(response, factors, by=by, group=group) if c.n >= 2]
        return bool(cells) and all(
            c.stddev is not None and c.stddev <= IDENTICAL_NOISE * abs(c.mean) for c in cells
        )

    def analyze_by(
        self,
        by: str,
        response: str,
        factors: Sequence[str],
        *,
        model: Model = DEFAULT_MODEL,
        confidence: float = DEFAULT_CONFIDENCE,
    ) -> dict[str, Analysis]:
        """One analysis per value of column ``by``, keyed by the value as text."""
        self._check_options(response, tuple(factors), by, model, confidence)
        return {
            group: self.analyze(
                response, factors, model=model, confidence=confidence, by=by, group=group
            )
            for group in self.groups(by)
        }

    def cells(
        self,
        response: str,
        factors: Sequence[str],
        *,
        by: str | None = None,
        group: str | None = None,
    ) -> list[Cell]:
        """The mean and standard deviation of ``response`` in every cell of ``factors`` (only the
        runs whose ``by`` value is ``group`` when given), cells in order of first appearance.

        Levels are text as in :meth:`analyze`; the design is not checked (see :meth:`analyze`).
        """
        factors = tuple(factors)
        self._check_options(response, factors, by, DEFAULT_MODEL, DEFAULT_CONFIDENCE)
        self._design(response, factors, by, group, DEFAULT_MODEL)
        sql.run(self._con, sql.CELLS)
        return [
            Cell(tuple(row[f] for f in factors), row["n_obs"], row["cell_mean"], row["cell_sd"])
            for row in sql.rows(self._con, "cells")
        ]

    def cell_runs(
        self,
        response: str,
        factors: Sequence[str],
        *,
        by: str | None = None,
        group: str | None = None,
    ) -> dict[tuple[str, ...], dict[str, Any]]:
        """One run of every cell of ``factors`` (its first in the table), every column of it,
        keyed by the cell's levels as :meth:`cells` gives them (``27-cell_runs.sql``)."""
        keys = [c.levels for c in self.cells(response, factors, by=by, group=group)]
        sql.run(self._con, sql.CELL_RUNS)  # on the cells just made, in their order
        runs = sql.rows(self._con, sql.created_table(sql.CELL_RUNS))
        return {
            key: {k: v for k, v in run.items() if k != "cell_id"}
            for key, run in zip(keys, runs, strict=True)
        }

    def _assemble(
        self,
        response: str,
        factors: tuple[str, ...],
        model: Model,
        confidence: float,
        by: str | None,
        group: str | None,
    ) -> Analysis:
        con = self._con
        (summary,) = sql.rows(con, "summary")
        terms = tuple(
            Term(row["term"], row["order"], row["ss"], int(row["dof"]), row["percent"])
            for row in sql.rows(con, "allocation_of_variation")
            if row["model"] == model
        )
        (error,) = (row for row in sql.rows(con, "error_term") if row["model"] == model)
        standard_error = error["standard_error"]
        t = t_quantile(confidence, terms[-1].dof) if standard_error is not None else None
        sql.set_variables(con, t_quantile=t)
        sql.run(con, *sql.INTERVALS)
        effects: dict[str, dict[str, Effect]] = {f: {} for f in factors}
        for row in sql.rows(con, "confidence_intervals"):
            ci = (row["ci_low"], row["ci_high"]) if row["ci_low"] is not None else None
            effects[row["factor"]][row["level"]] = Effect(
                row["level"], row["effect"], ci, row["significant"]
            )
        interactions = tuple(
            Interaction(
                (row["factor_a"], row["factor_b"]),
                (row["level_a"], row["level_b"]),
                row["interaction"],
                (row["ci_low"], row["ci_high"]) if row["ci_low"] is not None else None,
                row["significant"],
            )
            for row in sql.rows(con, "interaction_intervals")
        )
        aliases = {
            row["term"]: row["alias_set"]
            for row in sql.rows(con, "aliases")
            if row["word"] == row["representative"]
        }
        defining = [
            row["alias_set"] for row in sql.rows(con, "aliases") if row["representative"] == 0
        ]
        return Analysis(
            response=response,
            factors=factors,
            model=model,
            by=by,
            group=group,
            n=summary["n"],
            replications=summary["replications"],
            mean=summary["mean"],
            sum_squares_total_values=summary["sum_squares_total_values"],
            sum_squares_mean=summary["sum_squares_mean"],
            total_variation=summary["total_variation"],
            terms=terms,
            standard_error=standard_error,
            confidence=confidence,
            t_quantile=t,
            effects=effects,
            interactions=interactions,
            defining_relation=defining[0] if defining else None,
            aliases=aliases,
        )


def identical_responses(runs_table: str | os.PathLike[str], responses: Sequence[str]) -> list[str]:
    """The ``responses`` (numeric columns of a study's ``runs.parquet``) whose replications are
    identical in every configuration that has two or more (a program that ignores --run, as
    ns-3's tcp-bulk-send ignores its stream); none without such a configuration. What ``run``
    says at its end (:data:`~satsweep.analysis.formatting.NO_INTERVALS_IDENTICAL`)."""

    def quoted(name: str) -> str:
        return '"' + name.replace('"', '""') + '"'

    import duckdb  # late: slow to import

    if not responses:
        return []
    con = duckdb.connect()  # no macros: one plain query
    try:
        per_config = ", ".join(
            f"count({quoted(r)}) AS n{i}, stddev_samp({quoted(r)}) AS sd{i}, "
            f"avg({quoted(r)}) AS mean{i}"
            for i, r in enumerate(responses)
        )
        verdicts = ", ".join(
            f"count(*) FILTER (n{i} >= 2) > 0 AND "
            f"bool_and(n{i} < 2 OR sd{i} <= {IDENTICAL_NOISE} * abs(mean{i}))"
            for i in range(len(responses))
        )
        row = con.execute(
            f"SELECT {verdicts} FROM (SELECT {per_config} FROM read_parquet(?) GROUP BY config_id)",
            [str(runs_table)],
        ).fetchone()
    finally:
        con.close()
    return [r for r, identical in zip(responses, row or (), strict=False) if identical]


def analyze(
    source: str | os.PathLike[str],
    response: str,
    factors: Sequence[str],
    *,
    model: Model = DEFAULT_MODEL,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Analysis:
    """Analyse one response of the runs in SOURCE (a file or study name)."""
    with Dataset.open(source) as data:
        return data.analyze(response, factors, model=model, confidence=confidence)


def analyze_by(
    source: str | os.PathLike[str],
    by: str,
    response: str,
    factors: Sequence[str],
    *,
    model: Model = DEFAULT_MODEL,
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict[str, Analysis]:
    """One analysis per value of column ``by`` of the runs in SOURCE."""
    with Dataset.open(source) as data:
        return data.analyze_by(by, response, factors, model=model, confidence=confidence)
