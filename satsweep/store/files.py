"""Atomic writes: a reader, or a rerun after a kill, sees a whole file or none."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["write_atomically", "write_csv", "write_json", "write_parquet"]


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


def write_json(path: Path, data: Any) -> None:
    """``data`` as indented JSON, atomically."""
    write_atomically(path, lambda t: t.write_text(json.dumps(data, indent=1, default=str) + "\n"))


def write_parquet(path: Path, table: pa.Table) -> None:
    """A Parquet file, atomically."""
    import pyarrow.parquet as pq

    write_atomically(path, lambda t: pq.write_table(table, t))


def write_csv(path: Path, table: pa.Table) -> None:
    """A CSV file with a header line, atomically."""
    import pyarrow.csv

    write_atomically(path, lambda t: pyarrow.csv.write_csv(table, t))
