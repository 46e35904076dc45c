"""Atomic writes: a reader, or a rerun after a kill, sees a whole file or none."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "parquet_bytes",
    "parquet_table",
    "write_atomically",
    "write_bytes",
    "write_csv",
    "write_json",
    "write_parquet",
]


def _temporary(path: Path) -> Path:
    return path.with_name(f".{path.name}.tmp.{os.getpid()}")


def write_atomically(path: Path, write: Callable[[Path], None]) -> None:
    """Calls ``write(temporary)`` then renames the temporary file to ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = _temporary(path)
    try:
        write(temporary)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def write_bytes(path: Path, data: bytes) -> os.stat_result:
    """``data`` into ``path`` atomically, in a folder that exists; the file's stat, taken
    after the rename (a network file system may date a file when it is closed)."""
    temporary = _temporary(path)
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return os.stat(path)


def write_json(path: Path, data: Any) -> None:
    """``data`` as indented JSON, atomically."""
    write_atomically(path, lambda t: t.write_text(json.dumps(data, indent=1, default=str) + "\n"))


def write_parquet(path: Path, table: pa.Table) -> None:
    """A Parquet file, atomically."""
    import pyarrow.parquet as pq

    write_atomically(path, lambda t: pq.write_table(table, t))


def parquet_bytes(table: pa.Table) -> bytes:
    """A small table (a run's rows) as a Parquet file's bytes: uncompressed, without
    dictionaries or statistics, which a file of a few rows only pays for (a run's files are
    read whole, once, by the compaction)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="none", use_dictionary=False, write_statistics=False)
    return sink.getvalue().to_pybytes()


def parquet_table(data: bytes) -> pa.Table:
    """A Parquet file's table from its bytes (:func:`parquet_bytes`), by its own reader on this
    thread: ``pq.read_table`` builds a dataset for each file, 1.2 ms a file against 0.25 ms (a
    compaction of 1000 runs)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    with pq.ParquetFile(pa.BufferReader(data)) as file:
        return file.read(use_threads=False)


def write_csv(path: Path, table: pa.Table) -> None:
    """A CSV file with a header line, atomically."""
    import pyarrow.csv

    write_atomically(path, lambda t: pyarrow.csv.write_csv(table, t))
