"""What a Parquet file's footer says of one of its columns, read without pyarrow.

`satsweep status` must stay cheap on a complete store, and importing pyarrow costs more than
the rest of it (0.3 s): the footer (a few kilobytes at the file's end, Thrift's compact
protocol) gives the rows, and each row group's null count and smallest and largest value of a
column, which tell whether every run of runs.parquet was made by one program
(:meth:`~satsweep.store.recorded.RecordedDesign.other_builds`). Only what that needs is
decoded; a footer this reader does not follow is "cannot tell" (None), never a guess.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["ColumnRange", "column_range"]

#: The footer's end: its length (4 bytes, little-endian), then the magic.
MAGIC = b"PAR1"
#: A footer larger than this is not read here (pyarrow reads it instead).
MOST_BYTES = 1 << 24

# Thrift's compact types
_TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY, _LIST, _SET, _MAP, _STRUCT = range(1, 13)
# the fields read (parquet.thrift): FileMetaData, RowGroup, ColumnChunk, ColumnMetaData,
# Statistics
_ROWS, _ROW_GROUPS = 3, 4
_COLUMNS, _GROUP_ROWS = 1, 3
_META = 3
_PATH, _STATISTICS = 3, 12
_NULLS, _MAX, _MIN, _MAX_EXACT, _MIN_EXACT = 3, 5, 6, 7, 8


@dataclass(frozen=True)
class ColumnRange:
    """A column over a whole file: its rows, how many are null, and its smallest and largest
    value (bytes as stored: UTF-8 for a string; None when every row is null)."""

    rows: int
    nulls: int
    low: bytes | None
    high: bytes | None


class _Unreadable(ValueError):
    """A footer this reader does not follow."""


class _Reader:
    """Thrift's compact protocol over a footer's bytes: a struct as {field id: value}."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def byte(self) -> int:
        if self.at >= len(self.data):
            raise _Unreadable("the footer ends early")
        self.at += 1
        return self.data[self.at - 1]

    def varint(self) -> int:
        value = shift = 0
        while True:
            b = self.byte()
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return value
            shift += 7
            if shift > 70:
                raise _Unreadable("a varint too long")

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def value(self, kind: int) -> Any:
        if kind in (_TRUE, _FALSE):  # in a list or set: one byte each
            return self.byte() == _TRUE
        if kind == _BYTE:
            return self.byte()
        if kind in (_I16, _I32, _I64):
            return self.zigzag()
        if kind == _DOUBLE:
            self.at += 8
            return struct.unpack_from("<d", self.data, self.at - 8)[0]
        if kind == _BINARY:
            n = self.varint()
            self.at += n
            if self.at > len(self.data):
                raise _Unreadable("a string beyond the footer")
            return self.data[self.at - n : self.at]
        if kind in (_LIST, _SET):
            head = self.byte()
            n = head >> 4 if head >> 4 != 15 else self.varint()
            return [self.value(head & 0x0F) for _ in range(n)]
        if kind == _MAP:
            n = self.varint()
            kinds = self.byte() if n else 0
            return {self.value(kinds >> 4): self.value(kinds & 0x0F) for _ in range(n)}
        if kind == _STRUCT:
            return self.struct()
        raise _Unreadable(f"type {kind}")

    def struct(self) -> dict[int, Any]:
        fields: dict[int, Any] = {}
        last = 0
        while (head := self.byte()) != 0:
            kind, delta = head & 0x0F, head >> 4
            last = last + delta if delta else self.zigzag()
            # a boolean field's value is its type
            fields[last] = kind == _TRUE if kind in (_TRUE, _FALSE) else self.value(kind)
        return fields


def _footer(path: Path) -> bytes:
    """The footer's bytes (its Thrift FileMetaData)."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size < 12:
            raise _Unreadable("too short for Parquet")
        f.seek(size - 8)
        tail = f.read(8)
        length = int.from_bytes(tail[:4], "little")
        if tail[4:] != MAGIC or not 0 < length <= min(size - 12, MOST_BYTES):
            raise _Unreadable("no Parquet footer")
        f.seek(size - 8 - length)
        return f.read(length)


def column_range(path: Path, column: str) -> ColumnRange | None:
    """What the footer of the Parquet file at ``path`` says of the top-level ``column`` over
    every row group: a column the file does not have is every row null. None when it cannot
    tell: a row group without the statistics (or with inexact ones), a footer this reader does
    not follow, a file that cannot be read."""
    try:
        meta = _Reader(_footer(path)).struct()
        rows, nulls, low, high = meta[_ROWS], 0, None, None
        wanted = [column.encode()]
        for group in meta.get(_ROW_GROUPS, []):
            chunks = [c[_META] for c in group[_COLUMNS] if c.get(_META, {}).get(_PATH) == wanted]
            if not chunks or not group[_GROUP_ROWS]:  # no such column, or no row (no statistics)
                nulls += group[_GROUP_ROWS]
                continue
            stats = chunks[0].get(_STATISTICS)
            if stats is None or _NULLS not in stats:
                return None
            nulls += stats[_NULLS]
            if stats[_NULLS] == group[_GROUP_ROWS]:
                continue  # no value: no bounds
            if _MIN not in stats or _MAX not in stats:
                return None
            if not stats.get(_MIN_EXACT, True) or not stats.get(_MAX_EXACT, True):
                return None  # truncated bounds
            low = stats[_MIN] if low is None else min(low, stats[_MIN])
            high = stats[_MAX] if high is None else max(high, stats[_MAX])
    except (OSError, _Unreadable, KeyError, TypeError, AttributeError, struct.error):
        return None
    if not isinstance(rows, int) or not isinstance(nulls, int):
        return None
    return ColumnRange(rows, nulls, low, high)
