"""A person's query of studies' stores (``satsweep sql``): read-only SQL over their views with
limits of time and memory, the result fetched in chunks to keep count of its size, or exported
to CSV or Parquet outside every store (analysis/README.md, "Querying a store safely")."""

from __future__ import annotations

import os
import re
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from satsweep.store.files import write_csv, write_parquet
from satsweep.store.layout import StoreError, results_dir
from satsweep.store.sql import check_read_only, connect
from satsweep.store.store import Store, studies

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

#: The file types an export writes.
EXPORTS = (".csv", ".parquet")

#: A query's caps by default, kind to a shared login node: seconds, and DuckDB's memory (a
#: store's tables are small; a runaway cross join is not).
SQL_TIMEOUT = 300.0
SQL_MEMORY = "2GB"
#: A memory SIZE: a number and a unit of bytes.
SIZE = re.compile(r"([0-9]+(?:\.[0-9]+)?) ?([KMGT])(i?)B", re.IGNORECASE)
#: Rows fetched at a time, to keep count of the result's size.
CHUNK = 10_000


def query(
    sql: str,
    study: str | None = None,
    results: str | os.PathLike[str] | None = None,
    *,
    tables: Iterable[str] = (),
    memory: str = SQL_MEMORY,
    timeout: float = SQL_TIMEOUT,
    warn: Callable[[str], None] = print,
) -> tuple[list[str], list[tuple]]:
    """The column names and rows of the read-only query ``sql`` over ``study``'s store, or
    every study's (unioned; one that cannot be read safely is left out with ``warn``), and the
    ``tables`` given as ``NAME=FILE``. It may take ``timeout`` seconds (0: no limit) and
    ``memory`` (a SIZE such as 2GB), its result too. Raises StoreError (a refused query or
    store), TimeoutError, MemoryError or duckdb.OutOfMemoryException, duckdb.Error, and
    KeyboardInterrupt after stopping DuckDB."""
    return _answer(sql, study, results, tables, memory, timeout, warn, None, _rows)


def export_query(
    sql: str,
    out: Path,
    study: str | None = None,
    results: str | os.PathLike[str] | None = None,
    *,
    tables: Iterable[str] = (),
    memory: str = SQL_MEMORY,
    timeout: float = SQL_TIMEOUT,
    warn: Callable[[str], None] = print,
) -> int:
    """:func:`query`'s result written (atomically) to ``out``, a .csv or .parquet file
    outside every store; the number of its rows. The same errors; one that cannot be written
    is a StoreError too."""
    import pyarrow as pa

    out = Path(out).absolute()
    table = _answer(sql, study, results, tables, memory, timeout, warn, out, _table)
    try:
        (write_csv if out.suffix.lower() == ".csv" else write_parquet)(out, table)
    except OSError as e:
        raise StoreError(f"--out: cannot write {out}: {e.strerror or e}") from None
    except pa.ArrowException as e:  # CSV has no lists or structs
        raise StoreError(f"--out: cannot write {out}: {e}; allowed: FILE.parquet for it") from None
    return table.num_rows


def memory_bytes(size: str) -> int:
    """A memory SIZE (500MB, 4GiB) in bytes, as DuckDB reads it: KB = 1000, KiB = 1024;
    ValueError when it is not one."""
    match = SIZE.fullmatch(size)
    if match is None:
        raise ValueError(f"not a size: {size!r}")
    number, prefix, binary = match.groups()
    return int(float(number) * (1024 if binary else 1000) ** ("KMGT".index(prefix.upper()) + 1))


def _answer(
    sql: str,
    study: str | None,
    results: str | os.PathLike[str] | None,
    tables: Iterable[str],
    memory: str,
    timeout: float,
    warn: Callable[[str], None],
    out: Path | None,
    convert: Callable[[duckdb.DuckDBPyConnection, int], Any],
) -> Any:
    """``convert(cursor, limit)`` of the query, the checks first: the query only reads, the
    stores are readable, ``out`` (an export's file) is outside them."""
    check_read_only(sql)
    stores = _stores(study, results, warn)
    if out is not None:
        _check_export(out, stores, results_dir(results))
    with connect(stores, _references(tables), memory) as con:
        limit = memory_bytes(memory)
        return _fetch(con, sql, lambda cursor: convert(cursor, limit), timeout)


def _stores(
    study: str | None, results: str | os.PathLike[str] | None, warn: Callable[[str], None]
) -> list[Store]:
    """``study``'s store, else every study's but those with a link out or a file that cannot
    be read: one unreadable study must not hide the others."""
    if study is not None:
        return [Store.named(study, results)]
    stores = []
    for store in studies(results):
        link = store.link_out()
        problem = f"the link {link} leads out of its store" if link else store.unreadable()
        if problem:
            warn(f"study '{store.study}' left out: {problem}")
        else:
            stores.append(store)
    if not stores:
        raise StoreError(f"no study in {results or 'results'}: run a sweep first")
    return stores


def _fetch(
    con: duckdb.DuckDBPyConnection,
    query: str,
    convert: Callable[[duckdb.DuckDBPyConnection], Any],
    timeout: float,
) -> Any:
    """``convert(cursor)`` of ``query``'s result. DuckDB looks at no signal while it works, so
    it works in a thread of its own while this one waits: Ctrl-C (KeyboardInterrupt, raised
    here) or the end of ``timeout`` seconds (0: none; TimeoutError) interrupts it first."""
    done: dict[str, Any] = {}

    def work() -> None:
        try:
            done["result"] = convert(con.execute(query))
        except BaseException as e:  # for the waiting thread to raise
            done["error"] = e

    thread = threading.Thread(target=work, name="satsweep-sql", daemon=True)
    thread.start()
    try:
        thread.join(timeout or None)
    finally:
        timed_out = thread.is_alive()
        while thread.is_alive():  # again while DuckDB may not have started the query yet
            con.interrupt()
            thread.join(0.1)
    if "error" in done:
        raise TimeoutError(query) if timed_out else done["error"]
    return done["result"]


def _rows(cursor: duckdb.DuckDBPyConnection, limit: int) -> tuple[list[str], list[tuple]]:
    """The column names and rows of a query's result; MemoryError when the rows take more
    than ``limit`` bytes (the result is held to be printed; DuckDB's memory_limit does not
    count it). A result with a time zone goes through Arrow: DuckDB's own conversion of
    TIMESTAMP WITH TIME ZONE needs pytz."""
    description = cursor.description or []
    if any("TIME ZONE" in str(d[1]) for d in description):
        chunks: Iterable[list[tuple]] = (
            list(zip(*(column.to_pylist() for column in batch.columns)))
            for batch in _batches(cursor.fetch_record_batch(CHUNK))
        )
    else:
        chunks = iter(lambda: cursor.fetchmany(CHUNK), [])
    rows: list[tuple] = []
    size = 0
    for chunk in chunks:
        size += sum(sys.getsizeof(row) + sum(map(sys.getsizeof, row)) for row in chunk)
        if size > limit:
            raise MemoryError(limit)
        rows += chunk
    return [d[0] for d in description], rows


def _table(cursor: duckdb.DuckDBPyConnection, limit: int) -> pa.Table:
    """A query's result as an Arrow table; MemoryError when it takes more than ``limit``
    bytes."""
    import pyarrow as pa

    reader = cursor.fetch_record_batch(CHUNK)
    batches = []
    size = 0
    for batch in _batches(reader):
        size += batch.nbytes
        if size > limit:
            raise MemoryError(limit)
        batches.append(batch)
    return pa.Table.from_batches(batches, reader.schema)


def _batches(reader: pa.RecordBatchReader) -> Iterator[pa.RecordBatch]:
    """The batches of a query's result. DuckDB's errors come through Arrow as OSError: they
    are given back as DuckDB's (MemoryError when DuckDB ran out of it)."""
    import duckdb

    try:
        yield from reader
    except OSError as e:
        text = str(e).strip()
        raise (MemoryError if text.startswith("Out of Memory Error") else duckdb.Error)(
            text
        ) from None


def _references(specs: Iterable[str]) -> dict[str, Path]:
    """``--table NAME=FILE`` options as name -> file."""
    references = {}
    for spec in specs:
        name, _, file = spec.partition("=")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or not file:
            raise StoreError(
                f"--table {spec}: allowed: NAME=FILE, NAME a letter or _ then letters, digits or _"
            )
        references[name] = Path(file).absolute()
    return references


def _check_export(out: Path, stores: list[Store], results: Path) -> None:
    """An export goes outside every store, as CSV or Parquet, into a folder that exists. The
    stores are the queried ones and every folder of the results directory (each is a study's
    store or may become one), compared with links resolved."""
    if out.suffix.lower() not in EXPORTS:
        raise StoreError(f"--out: {out.name}: allowed: a file ending in .csv or .parquet")
    folders = [store.root for store in stores]
    if results.is_dir():
        folders += [folder for folder in results.iterdir() if folder.is_dir()]
    target = Path(os.path.realpath(out))  # realpath: a link loop is no error
    for folder in folders:
        if target.is_relative_to(os.path.realpath(folder)):
            raise StoreError(
                f"--out: {out} is inside the store {folder}; allowed: a file outside every "
                f"study's store (outside the folders of {results})"
            )
    if not out.parent.is_dir():
        raise StoreError(f"--out: the folder {out.parent} does not exist")
