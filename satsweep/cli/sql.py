"""``satsweep sql``: a person's read-only query of the stores (satsweep.store.export), its result
printed as a table, CSV or JSON, or exported."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from satsweep.analysis.formatting import LEAST_DIGITS, MOST_DIGITS, significant
from satsweep.cli.common import (
    STUDY_COMPLETION,
    Subparsers,
    add_results_option,
    error,
    memory_size,
    nonnegative_seconds,
    study_name,
)
from satsweep.store import SQL_MEMORY, SQL_TIMEOUT, StoreError, export_query, query

if TYPE_CHECKING:
    from rich.console import Console


def add(commands: Subparsers) -> None:
    """Adds ``sql``."""
    results = argparse.ArgumentParser(add_help=False)
    add_results_option(results)
    p = commands.add_parser(
        "sql",
        parents=[results],
        help="query the store with DuckDB",
        description=_sql.__doc__,
        epilog=EPILOG,
    )
    # STUDY before the query, optional: one word is the query as before, two are STUDY QUERY
    p.add_argument(
        "positional_study",
        nargs="?",
        metavar="STUDY",
        help="one study's store: its design's YAML file or its name (as --study; default: "
        "every study, unioned)",
    ).complete = STUDY_COMPLETION  # type: ignore[attr-defined]
    p.add_argument("query", help='e.g. "SELECT link, avg(efficiency) FROM runs GROUP BY link"')
    p.add_argument("--study", metavar="STUDY", help="the same as STUDY before the query")
    p.add_argument(
        "--table",
        action="append",
        default=[],
        metavar="NAME=FILE",
        help="also a table NAME read from FILE (.csv or .parquet, e.g. a paper's results to "
        "compare with); may be given more than once",
    )
    output = p.add_mutually_exclusive_group()
    output.add_argument("--csv", action="store_true", help="print CSV")
    output.add_argument("--json", action="store_true", help="print JSON")
    output.add_argument(
        "--out",
        metavar="FILE",
        help="write the result to FILE.csv or FILE.parquet (outside every store) instead",
    )
    p.add_argument(
        "--digits",
        type=_digits,
        default=LEAST_DIGITS,
        metavar="N",
        help=f"significant digits of a number in the printed table, 1 to {MOST_DIGITS} "
        f"(default {LEAST_DIGITS}; every digit of a whole part is printed: 72647912, not "
        f"7.26479e+07; {MOST_DIGITS}: a double's full precision, as --csv and "
        "--json always print)",
    )
    p.add_argument(
        "--timeout",
        type=nonnegative_seconds,
        default=SQL_TIMEOUT,
        metavar="SECONDS",
        help=f"stop the query after SECONDS (default {SQL_TIMEOUT:g}; 0: no limit)",
    )
    p.add_argument(
        "--memory",
        type=memory_size,
        default=SQL_MEMORY,
        metavar="SIZE",
        help=f"the most memory the query, and its result, may take, e.g. 8GB (default "
        f"{SQL_MEMORY}; DuckDB spills nothing to disk, so a query that needs more fails)",
    )
    p.set_defaults(func=_sql)


#: Where to start, after the options in `satsweep sql --help`.
EPILOG = (
    "Start with SHOW TABLES (the views: runs and one per table of the program, e.g. "
    "connections) and DESCRIBE runs (its columns: key, parameters, summary fields, "
    "provenance). t_quantile(p, df) is Student's t quantile, e.g. a 90% interval of a mean: "
    "avg(x) +- t_quantile(0.95, count(x) - 1) * stddev_samp(x) / sqrt(count(x)). Examples: "
    'satsweep sql goyal98-quick "SELECT link, avg(efficiency) FROM runs GROUP BY link"; '
    'satsweep sql --csv "SELECT count(*) FROM runs".'
)
#: The narrowest a column of the printed table may get (its cells wrap) before the result is
#: printed one record per block instead (as psql's \x): a wide result in a narrow terminal.
MIN_COLUMN_WIDTH = 10


def _sql(args: argparse.Namespace) -> int:
    """`satsweep sql`: a read-only DuckDB query over the store's views: `runs` and the program's
    tables (analysis/README.md, "Querying a store safely"), of one study (STUDY before the
    query, or --study) or of every study. The query may take --timeout seconds and --memory at
    most. A result too wide for the terminal is printed one record per block."""
    try:
        return _query(args)
    except KeyboardInterrupt:  # DuckDB was stopped first (satsweep.store.export)
        error("sql", "interrupted")
        return 130


def _query(args: argparse.Namespace) -> int:
    """`satsweep sql` itself; :func:`_sql` turns Ctrl-C into exit code 130."""
    import duckdb
    from rich.console import Console

    out = Path(args.out).absolute() if args.out else None
    if args.positional_study is not None and args.study is not None:
        error("sql", "the study is given twice; allowed: STUDY before the query, or --study")
        return 2
    study = args.study if args.study is not None else args.positional_study
    try:
        study = None if study is None else study_name(study, args.results)
    except StoreError as e:
        error("sql", e)
        return 2
    options = {
        "tables": args.table,
        "memory": args.memory,
        "timeout": args.timeout,
        "warn": lambda text: print(f"satsweep sql: warning: {text}", file=sys.stderr),
    }
    try:
        if out is not None:
            n_rows = export_query(args.query, out, study, args.results, **options)
        else:
            columns, rows = query(args.query, study, args.results, **options)
    except StoreError as e:
        error("sql", e)
        return 2
    except TimeoutError:
        error(
            "sql",
            f"the query ran longer than --timeout {args.timeout:g} seconds and was stopped; "
            "allowed: a larger --timeout SECONDS, or --timeout 0 for no limit",
        )
        return 2
    except (duckdb.OutOfMemoryException, MemoryError):
        error(
            "sql",
            f"the query or its result needs more memory than --memory {args.memory}; allowed: "
            "a larger --memory SIZE, e.g. --memory 8GB",
        )
        return 2
    except duckdb.Error as e:
        error("sql", str(e).strip())
        return 2
    if out is not None:
        print(f"{n_rows} rows -> {out}", file=sys.stderr)
    elif args.csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")  # CRLF, csv's default, breaks shells
        writer.writerow(columns)
        writer.writerows(rows)
    elif args.json:
        print(json.dumps([dict(zip(columns, row)) for row in rows], indent=1, default=str))
    else:
        print_result(columns, rows, Console(), args.digits)
    return 0


def _digits(text: str) -> int:
    """--digits: an integer from 1 to MOST_DIGITS."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= MOST_DIGITS:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not allowed; allowed: an integer from 1 to {MOST_DIGITS}"
        )
    return value


def _cell(value: object, digits: int) -> str:
    return significant(value, digits) if isinstance(value, float) else str(value)


def print_result(
    columns: list[str], rows: list[tuple], console: Console, digits: int = LEAST_DIGITS
) -> None:
    """A query's result as a table, or, when its columns cannot get MIN_COLUMN_WIDTH each in
    the console's width (a wide result in a narrow terminal, which a table would squeeze into
    an empty grid), one record per block: ``column: value`` lines under ``-[ RECORD n ]-``;
    numbers to ``digits`` significant digits (:func:`~satsweep.analysis.formatting.significant`:
    their whole part always)."""
    if len(columns) * (MIN_COLUMN_WIDTH + 3) + 1 <= console.width:  # 3: a cell's border, pads
        from rich.table import Table

        table = Table()
        for name in columns:
            table.add_column(name)
        for row in rows:
            table.add_row(*(_cell(v, digits) for v in row))
        console.print(table)
        return
    width = max(len(name) for name in columns)
    for n, row in enumerate(rows, 1):
        console.print(f"-[ RECORD {n} ]-", highlight=False, markup=False)
        for name, value in zip(columns, row, strict=True):
            console.print(
                f"{name.ljust(width)} | {_cell(value, digits)}", highlight=False, markup=False
            )
    if not rows:
        console.print(f"(no rows; columns: {', '.join(columns)})", highlight=False, markup=False)
