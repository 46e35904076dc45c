"""The analysis SQL (``analysis/*.sql``, see ``analysis/README.md``) and the few calls that run it.

The files are numbered in run order, and this module finds them by their numbers (the stages
below are named by what each file creates). ``analysis/analyze.sql`` runs the analysis' files,
up to the intervals, in that order for a person in the duckdb shell, and
:class:`~satsweep.analysis.dataset.Dataset` runs them in the same order by stage, checking in
between. Parameters are DuckDB variables (``SET VARIABLE``) that the files read with
``getvariable``. The report runs the files after the intervals (the provenance, the traces)
through here too.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from satsweep.store import add_functions

from satsweep import shipped

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "ADDED_COLUMNS",
    "CELLS",
    "DESIGN",
    "DESIGN_CHECKS",
    "DESIGN_TABLES",
    "FILES",
    "GROUPS",
    "INTERVALS",
    "MACROS",
    "PROVENANCE",
    "SOURCE",
    "SOURCE_COLUMNS",
    "SQL_DIR",
    "STATISTICS",
    "STEADY_SERIES",
    "STEADY_VALUES",
    "VALUE_CHECKS",
    "connect",
    "created_table",
    "load",
    "rows",
    "run",
    "set_variables",
]

SQL_DIR = shipped.path("analysis")
#: The numbered files (names without ``.sql``) in run order: their numbers are the one place
#: that order is written (``analyze.sql`` and ``analysis/README.md`` follow it; tests check both).
FILES = tuple(sorted(path.stem for path in SQL_DIR.glob("[0-9][0-9]-*.sql")))


def created_table(name: str) -> str:
    """The table the file ``name`` creates: its name without the number (``20-cells``: cells)."""
    return name.split("-", 1)[1]


def _file(table: str) -> str:
    """The numbered file that creates ``table``."""
    for name in FILES:
        if created_table(name) == table:
            return name
    raise LookupError(f"no file of {SQL_DIR} creates {table!r}: satsweep is not installed whole")


def _files(first: str, last: str) -> tuple[str, ...]:
    """The numbered files from the one that creates ``first`` to the one that creates ``last``."""
    return FILES[FILES.index(_file(first)) : FILES.index(_file(last)) + 1]


# The stages, each named by what it creates.
MACROS = _file("macros")
SOURCE = _file("source")
SOURCE_COLUMNS = _file("source_columns")
GROUPS = _file("groups")
DESIGN = _file("design")
VALUE_CHECKS = _file("value_checks")
CELLS = _file("cells")
DESIGN_TABLES = _files("cells", "design_problems")
DESIGN_CHECKS = _file("design_checks")
CELL_RUNS = _file("cell_runs")
STATISTICS = _files("summary", "allocation_of_variation")
INTERVALS = _files("confidence_intervals", "interaction_intervals")
PROVENANCE = _file("provenance")
FIRST_RUNS = _file("first_runs")
TRACE_ROWS = _file("trace_rows")
TRACE_MEANS = _file("trace_means")
STEADY_SERIES = _file("steady_series")
STEADY_VALUES = _file("steady_values")
ADDED_COLUMNS = _file("added_columns")


@cache
def _text(name: str) -> str:
    return (SQL_DIR / f"{name}.sql").read_text()


def run(con: duckdb.DuckDBPyConnection, *names: str) -> None:
    """Run the files ``names`` (without ``.sql``) in the order given."""
    for name in names:
        con.execute(_text(name))


def set_variables(con: duckdb.DuckDBPyConnection, **values: Any) -> None:
    """``SET VARIABLE name = value`` for each keyword; None unsets it, as if never set (a NULL
    parameter would be typed INTEGER, which a name or a text cannot take)."""
    for name, value in values.items():
        if value is None:
            con.execute(f"RESET VARIABLE {name}")
        else:
            con.execute(f"SET VARIABLE {name} = ?", [value])


def rows(con: duckdb.DuckDBPyConnection, table: str) -> list[dict[str, Any]]:
    """The rows of ``table`` in its order, each a dict column -> value."""
    relation = con.table(table)
    return [dict(zip(relation.columns, row, strict=True)) for row in relation.fetchall()]


def connect() -> duckdb.DuckDBPyConnection:
    """An in-memory database with the macros (``00-macros.sql``) and satsweep's SQL functions
    (:func:`satsweep.store.add_functions`: ``t_quantile(p, df)``)."""
    import duckdb

    con = duckdb.connect()
    add_functions(con)
    run(con, MACROS)
    return con


def load(con: duckdb.DuckDBPyConnection, source: str, max_replication: int | None = None) -> None:
    """The runs of ``source`` (a Parquet or CSV file, or a table or view of ``con``) into the
    temporary table ``source`` (``01-source.sql``), only replications 1..``max_replication``
    when given. Raises :class:`duckdb.Error`."""
    set_variables(con, source=source, max_replication=max_replication)
    run(con, SOURCE)
