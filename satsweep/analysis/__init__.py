"""Analysis of a full factorial design (Jain 1991) in DuckDB SQL.

The statistics live in ``analysis/*.sql`` (see ``analysis/README.md``); this module is the thin
runner: it loads a source (Parquet or CSV file, or a study's store) into an in-memory DuckDB
database, creates the ``design`` table the SQL files expect, validates the design, runs the files
in order and assembles an :class:`Analysis`.

Typical use, e.g. from a report generator::

    with Dataset.open("results/goyal98/runs.parquet") as data:
        for link, result in data.analyze_by("link", "efficiency", ["flavor", "buffer", "drop"]).items():
            result.allocation_percent, result.effects["flavor"]["SACK"].ci, ...
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal, Self, get_args

import duckdb

from satsweep import shipped

__all__ = [
    "DEFAULT_CONFIDENCE",
    "DEFAULT_MODEL",
    "MODELS",
    "Analysis",
    "AnalysisError",
    "Cell",
    "Dataset",
    "Effect",
    "Interaction",
    "Model",
    "Term",
    "analyze",
    "analyze_by",
    "format_markdown",
    "resolve_source",
    "to_json",
]

Model = Literal["first-order", "full"]
MODELS: tuple[Model, ...] = get_args(Model)
#: The paper's model: comparable with Jain's tables and usable without replications (r = 1).
DEFAULT_MODEL: Model = "first-order"
DEFAULT_CONFIDENCE = 0.90

SQL_DIR = shipped.path("analysis")
#: The SQL files, in the order they run; each creates a temporary table named after the file.
DESIGN_QUERIES = ("cells", "cell_levels", "factors", "levels", "design_problems")
STATISTICS_QUERIES = (
    "summary",
    "main_effects",
    "interactions",
    "sums_of_squares",
    "error_term",
    "allocation_of_variation",
)
INTERVAL_QUERY = "confidence_intervals"

_RESERVED = ("obs_id", "y")  # the columns of `design` besides the factors
_NUMERIC = (
    "TINYINT",
    "SMALLINT",
    "INTEGER",
    "BIGINT",
    "HUGEINT",
    "UTINYINT",
    "USMALLINT",
    "UINTEGER",
    "UBIGINT",
    "UHUGEINT",
    "FLOAT",
    "DOUBLE",
    "DECIMAL",
)
_PARQUET_SUFFIXES = (".parquet", ".pq")
_CSV_SUFFIXES = (".csv", ".tsv", ".txt", ".csv.gz", ".tsv.gz")


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
    """The first-order interaction of level ``levels[0]`` of ``factors[0]`` with ``levels[1]``."""

    factors: tuple[str, str]
    levels: tuple[str, str]
    value: float


@dataclass(frozen=True)
class Cell:
    """The runs of one cell (combination of levels): their number, mean and sample deviation."""

    levels: tuple[str, ...]  # one level (as text) per factor, in factor order
    n: int
    mean: float
    stddev: float | None  # sample standard deviation (n - 1); None when n < 2


@dataclass(frozen=True)
class Analysis:
    """The analysis of one response of one (group of a) balanced full factorial design."""

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

    @property
    def error(self) -> Term:
        return self.terms[-1]

    @property
    def error_dof(self) -> int:
        return self.error.dof

    @property
    def allocation_percent(self) -> dict[str, float | None]:
        """Percent of variation per factor and interaction (not the error), as in the JSON."""
        return {t.term: t.percent for t in self.terms if t.order is not None}

    def to_dict(self) -> dict[str, Any]:
        """The structure of ``goyal98-wan-anova.json`` (full precision; None for undefined)."""
        return {
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
                for factor, levels in self.effects.items()
            },
        }


@cache
def _sql(name: str) -> str:
    return (SQL_DIR / f"{name}.sql").read_text()


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _level_text(column: str, type_: str) -> str:
    """SQL giving a column's values as level text: numbers without trailing zeros (0.5, 1, 2)."""
    col = _quote(column)
    if type_.startswith(("FLOAT", "DOUBLE", "DECIMAL")):
        x = f"CAST({col} AS DOUBLE)"
        return (
            f"CASE WHEN {x} = trunc({x}) AND abs({x}) < 1e15 "
            f"THEN CAST(CAST({x} AS BIGINT) AS VARCHAR) ELSE CAST({x} AS VARCHAR) END"
        )
    return f"CAST({col} AS VARCHAR)"


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


class Dataset:
    """A table of runs loaded into an in-memory DuckDB database, ready to be analysed.

    Load once, then call :meth:`analyze` or :meth:`analyze_by` for as many responses, factor
    sets and groups as needed.
    """

    def __init__(self, connection: duckdb.DuckDBPyConnection, name: str) -> None:
        """Wrap a connection that holds the runs in a temporary table ``source``."""
        self._con = connection
        self.name = name
        rows = connection.execute(
            "SELECT column_name, data_type FROM information_schema.columns "
            "WHERE table_catalog = 'temp' AND table_name = 'source' ORDER BY ordinal_position"
        ).fetchall()
        self.columns: dict[str, str] = dict(rows)

    @classmethod
    def open(cls, source: str | os.PathLike[str], results_dir: str | Path | None = None) -> Self:
        """Load a Parquet or CSV file, or a study's store (see :func:`resolve_source`)."""
        path = resolve_source(source, results_dir)
        lower = path.name.lower()
        reader = "read_parquet" if lower.endswith(_PARQUET_SUFFIXES) else "read_csv_auto"
        if not lower.endswith(_PARQUET_SUFFIXES + _CSV_SUFFIXES):
            raise AnalysisError(f"{path}: not a Parquet (.parquet) or CSV (.csv) file")
        con = duckdb.connect()
        try:
            # a table keeps the source's row order in its rowid (first appearance of levels)
            con.execute(f"CREATE TEMP TABLE source AS SELECT * FROM {reader}(?)", [str(path)])
        except duckdb.Error as e:
            con.close()
            raise AnalysisError(f"cannot read {path}: {e}") from e
        return cls(con, str(path))

    @classmethod
    def from_arrow(cls, table: Any, name: str = "<table>") -> Self:
        """Load a pyarrow Table (or anything DuckDB can scan, e.g. a pandas DataFrame)."""
        con = duckdb.connect()
        con.register("input_table", table)
        con.execute("CREATE TEMP TABLE source AS SELECT * FROM input_table")
        con.unregister("input_table")
        return cls(con, name)

    def close(self) -> None:
        self._con.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- validation -----------------------------------------------------------------------

    def _check_column(self, column: str, role: str) -> str:
        if column not in self.columns:
            raise AnalysisError(
                f"unknown {role} column '{column}' in {self.name}; "
                f"the columns are: {', '.join(self.columns)}"
            )
        return self.columns[column]

    def _check_options(
        self, response: str, factors: Sequence[str], by: str | None, model: str, confidence: float
    ) -> None:
        if model not in MODELS:
            raise AnalysisError(f"unknown model '{model}'; the models are: {', '.join(MODELS)}")
        if not (isinstance(confidence, float | int) and 0 < confidence < 1):
            raise AnalysisError(f"confidence must be between 0 and 1 (exclusive), not {confidence}")
        if not factors:
            raise AnalysisError("no factors given")
        type_ = self._check_column(response, "response")
        if not type_.startswith(_NUMERIC):
            raise AnalysisError(f"response column '{response}' is not numeric (it is {type_})")
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

    def _check_values(self, response: str, factors: Sequence[str]) -> None:
        """No missing values, no NaN or infinite response, at least one run."""
        checks = [f"count(*) FILTER (WHERE {_quote(f)} IS NULL)" for f in factors]
        checks += ["count(*) FILTER (WHERE y IS NULL)", "count(*) FILTER (WHERE NOT isfinite(y))"]
        row = self._con.execute(f"SELECT count(*), {', '.join(checks)} FROM design").fetchone()
        assert row is not None
        if row[0] == 0:
            raise AnalysisError("no runs to analyse")
        for column, missing in zip([*factors, response], row[1:], strict=False):
            if missing:
                raise AnalysisError(f"column '{column}' has {missing} missing value(s)")
        if row[-1]:
            raise AnalysisError(
                f"response column '{response}' has {row[-1]} NaN or infinite value(s)"
            )

    def _check_design(self, model: Model) -> None:
        """A balanced full factorial, every factor with >= 2 levels; `full` needs r >= 2."""
        con = self._con
        for factor, n_levels in con.execute("SELECT factor, n_levels FROM factors").fetchall():
            if n_levels < 2:
                (level,) = con.execute(
                    "SELECT level FROM levels WHERE factor = ?", [factor]
                ).fetchone()  # type: ignore[misc]
                raise AnalysisError(
                    f"factor '{factor}' has a single level ('{level}'); a factor needs at least 2"
                )
        problems = con.execute(
            "SELECT problem, cell, n_obs, expected FROM design_problems"
        ).fetchall()
        if problems:
            problem, cell, n_obs, expected = problems[0]
            more = (
                f" (and {len(problems) - 1} more cell(s) with a problem)"
                if len(problems) > 1
                else ""
            )
            if problem == "missing":
                raise AnalysisError(
                    f"not a full factorial design: no runs for cell {cell}; every combination "
                    f"of levels needs {expected} run(s){more}"
                )
            raise AnalysisError(
                f"unbalanced design: cell {cell} has {n_obs} run(s), the other cells have "
                f"{expected}{more}"
            )
        if model == "full":
            (r,) = con.execute("SELECT min(n_obs) FROM cells").fetchone()  # type: ignore[misc]
            if r < 2:
                raise AnalysisError(
                    f"model 'full' needs replications (r >= 2 runs per cell, here r = {r}): its "
                    "error is the variation within cells; use model 'first-order'"
                )

    # -- analysis -------------------------------------------------------------------------

    def groups(self, by: str) -> list[str]:
        """The values of column ``by`` as text, in order of first appearance."""
        expr = _level_text(by, self._check_column(by, "--by"))
        rows = self._con.execute(
            f"SELECT {expr} AS value FROM source GROUP BY value ORDER BY min(rowid)"
        ).fetchall()
        if any(value is None for (value,) in rows):
            raise AnalysisError(f"--by column '{by}' has missing values")
        return [value for (value,) in rows]

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
        columns = [
            "rowid AS obs_id",
            f"CAST({_quote(response)} AS DOUBLE) AS y",
            *(f"{_level_text(f, self.columns[f])} AS {_quote(f)}" for f in factors),
        ]
        where, params = "", []
        if by is not None:
            where, params = f"WHERE {_level_text(by, self.columns[by])} = ?", [group]
        con = self._con
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE design AS SELECT {', '.join(columns)} FROM source {where}",
            params,
        )
        try:
            self._check_values(response, factors)
            for name in DESIGN_QUERIES:
                con.execute(_sql(name))
            self._check_design(model)
        except AnalysisError as e:
            if by is not None:
                raise AnalysisError(f"{by}={group}: {e}") from None
            raise
        for name in STATISTICS_QUERIES:
            con.execute(_sql(name))
        return self._assemble(response, factors, model, confidence, by, group)

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
        levels = [_level_text(f, self.columns[f]) for f in factors]
        where, params = "", []
        if by is not None:
            where, params = f"WHERE {_level_text(by, self.columns[by])} = ?", [group]
        y = f"CAST({_quote(response)} AS DOUBLE)"
        rows = self._con.execute(
            f"SELECT {', '.join(levels)}, count(*), avg({y}), stddev_samp({y}) FROM source "
            f"{where} GROUP BY ALL ORDER BY min(rowid)",
            params,
        ).fetchall()
        k = len(factors)
        return [Cell(tuple(row[:k]), row[k], row[k + 1], row[k + 2]) for row in rows]

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
        summary = con.execute(
            "SELECT n, mean, sum_squares_total_values, sum_squares_mean, total_variation, "
            "replications FROM summary"
        ).fetchone()
        assert summary is not None
        n, mean, ssy, ss0, sst, replications = summary
        terms = tuple(
            Term(term, order, ss, int(dof), percent)
            for term, order, ss, dof, percent in con.execute(
                'SELECT term, "order", ss, dof, percent FROM allocation_of_variation '
                "WHERE model = ? ORDER BY term_order",
                [model],
            ).fetchall()
        )
        (standard_error,) = con.execute(
            "SELECT standard_error FROM error_term WHERE model = ?", [model]
        ).fetchone()  # type: ignore[misc]
        dof = terms[-1].dof
        t_quantile = _t_quantile(confidence, dof) if standard_error is not None else None
        con.execute("SET VARIABLE error_model = ?", [model])
        con.execute("SET VARIABLE t_quantile = ?", [t_quantile])
        con.execute(_sql(INTERVAL_QUERY))
        effects: dict[str, dict[str, Effect]] = {f: {} for f in factors}
        for factor, level, effect, low, high, significant in con.execute(
            "SELECT factor, level, effect, ci_low, ci_high, significant FROM confidence_intervals "
            "ORDER BY position, level_order"
        ).fetchall():
            ci = (low, high) if low is not None else None
            effects[factor][level] = Effect(level, effect, ci, significant)
        interactions = tuple(
            Interaction((fa, fb), (la, lb), value)
            for fa, la, fb, lb, value in con.execute(
                "SELECT factor_a, level_a, factor_b, level_b, interaction FROM interactions"
            ).fetchall()
        )
        return Analysis(
            response=response,
            factors=factors,
            model=model,
            by=by,
            group=group,
            n=n,
            replications=replications,
            mean=mean,
            sum_squares_total_values=ssy,
            sum_squares_mean=ss0,
            total_variation=sst,
            terms=terms,
            standard_error=standard_error,
            confidence=confidence,
            t_quantile=t_quantile,
            effects=effects,
            interactions=interactions,
        )


def _t_quantile(confidence: float, dof: int) -> float:
    """The two-sided t quantile: t(1 - (1 - confidence) / 2; dof), e.g. t(0.95; dof) for 90%."""
    from scipy.stats import t  # imported late: scipy is slow to import

    return float(t.ppf(1 - (1 - confidence) / 2, dof))


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


def _finite(value: Any) -> Any:
    """JSON has no NaN or infinity: make them null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def to_json(result: Analysis | Mapping[str, Analysis]) -> str:
    """JSON text: one analysis, or one per group keyed by the group's value."""
    if isinstance(result, Analysis):
        data: Any = result.to_dict()
    else:
        data = {group: analysis.to_dict() for group, analysis in result.items()}
    return json.dumps(_finite(data), indent=1, allow_nan=False)


def _num(value: float | None, digits: int) -> str:
    return "n/a" if value is None or not math.isfinite(value) else f"{value:.{digits}f}"


def _table(header: Sequence[str], rows: Iterable[Sequence[str]], align: str) -> list[str]:
    lines = ["| " + " | ".join(header) + " |"]
    lines.append("|" + "|".join("---:" if a == "r" else "---" for a in align) + "|")
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def format_markdown(result: Analysis) -> str:
    """Readable Markdown: a summary line, the allocation of variation and the main effects."""
    r = result
    percent = round(100 * r.confidence, 6)
    title = f"## {r.response}" + (f" ({r.by} = {r.group})" if r.by is not None else "")
    summary = (
        f"n = {r.n} runs ({r.replications} per cell), mean = {r.mean:.4f}, "
        f"SST = {r.total_variation:.6g}, model `{r.model}`, standard error = "
        f"{_num(r.standard_error, 4)} with {r.error_dof} degrees of freedom"
    )
    allocation = _table(
        ["term", "sum of squares", "dof", "% of variation"],
        [[t.term, f"{t.ss:.6g}", str(t.dof), _num(t.percent, 2)] for t in r.terms]
        + [["total", f"{r.total_variation:.6g}", str(r.n - 1), "100.00"]],
        "lrrr",
    )
    effects = _table(
        ["factor", "level", "effect", f"{percent:g}% CI", "significant"],
        [
            [
                factor,
                level,
                _num(e.effect, 4),
                f"[{_num(e.ci[0], 4)}, {_num(e.ci[1], 4)}]" if e.ci else "n/a",
                "*" if e.significant else "",
            ]
            for factor, levels in r.effects.items()
            for level, e in levels.items()
        ],
        "llrll",
    )
    return "\n".join(
        [
            title,
            "",
            summary,
            "",
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
