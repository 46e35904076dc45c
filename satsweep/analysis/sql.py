"""The analysis SQL (``analysis/*.sql``, see ``analysis/README.md``) and the few calls that run it.

The files are numbered in run order; ``analysis/analyze.sql`` runs them all in that order for a
person in the duckdb shell, and :class:`~satsweep.analysis.dataset.Dataset` runs them in the
same order by stage, checking in between. Parameters are DuckDB variables (``SET VARIABLE``)
that the files read with ``getvariable``. The report runs ``50-provenance.sql`` through here too.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import duckdb

from satsweep import shipped

__all__ = [
    "CELLS",
    "DESIGN",
    "DESIGN_CHECKS",
    "DESIGN_TABLES",
    "GROUPS",
    "INTERVALS",
    "MACROS",
    "PROVENANCE",
    "SOURCE",
    "SOURCE_COLUMNS",
    "SQL_DIR",
    "STATISTICS",
    "VALUE_CHECKS",
    "connect",
    "created_table",
    "load",
    "rows",
    "run",
    "set_variables",
]

SQL_DIR = shipped.path("analysis")

# The stages, in the order of the files' numbers.
MACROS = "00-macros"
SOURCE = "01-source"
SOURCE_COLUMNS = "02-source_columns"
GROUPS = "05-groups"
DESIGN = "10-design"
VALUE_CHECKS = "11-value_checks"
CELLS = "20-cells"
DESIGN_TABLES = (CELLS, "21-cell_levels", "22-factors", "23-levels", "24-design_problems")
DESIGN_CHECKS = "25-design_checks"
CELL_RUNS = "26-cell_runs"
STATISTICS = (
    "30-summary",
    "31-main_effects",
    "32-interactions",
    "33-sums_of_squares",
    "34-error_term",
    "35-allocation_of_variation",
)
INTERVALS = "40-confidence_intervals"
PROVENANCE = "50-provenance"
FIRST_RUNS = "55-first_runs"
TRACE_ROWS = "56-trace_rows"
TRACE_MEANS = "57-trace_means"


@cache
def _text(name: str) -> str:
    return (SQL_DIR / f"{name}.sql").read_text()


def created_table(name: str) -> str:
    """The table the file ``name`` creates: its name without the number (``20-cells``: cells)."""
    return name.split("-", 1)[1]


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
    """An in-memory database with the macros (``00-macros.sql``)."""
    con = duckdb.connect()
    run(con, MACROS)
    return con


def load(con: duckdb.DuckDBPyConnection, source: str, max_replication: int | None = None) -> None:
    """The runs of ``source`` (a Parquet or CSV file, or a table or view of ``con``) into the
    temporary table ``source`` (``01-source.sql``), only replications 1..``max_replication``
    when given. Raises :class:`duckdb.Error`."""
    set_variables(con, source=source, max_replication=max_replication)
    run(con, SOURCE)
