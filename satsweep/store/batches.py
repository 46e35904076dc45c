"""Row batches: the rows of the program's tables a local worker stored, kept in one file per
table for the compaction that ends the sweep, so that it need not parse each run's files again
(a run's Parquet file takes about 0.5 ms to parse, its bytes and their sha256 a tenth of
that).

A batch is a cache, never a source: the compaction still reads every run's files and compares
their sha256 with the run's record (:meth:`Compaction.collect`); it only takes a file's rows
from a batch that holds rows stored under that very sha256, written by the process that wrote
the file from the same table. A batch that is missing, damaged or unreadable is left aside and
the files are parsed, as without batches. `satsweep run` reads the batches of its pass into
memory and removes them before its compaction writes.

::

    workers/<pass>/rows-<worker>.<table>.parquet   its rows of each of the program's tables,
                                                   one run after the other (a run's own row is
                                                   in its record: store/runs.py)
    workers/<pass>/rows-<worker>.json              written last: each file's sha256, and for
                                                   each run's file its sha256, first row and rows
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

from satsweep.store.files import parquet_bytes, parquet_table, write_bytes

if TYPE_CHECKING:
    import pyarrow as pa

#: The prefix of a batch's files in a pass's folder.
PREFIX = "rows-"


class RowBatch:
    """The rows of the runs one process stored, by the sha256 of the file each went into."""

    #: Rows beyond this many bytes are not kept (the compaction parses their files).
    MAX_BYTES = 64 << 20
    #: Runs whose tables are combined into one: a one-row table costs about 19 KB of memory
    #: as an object of its own, its 17 values 190 bytes.
    COMBINE = 256

    def __init__(self) -> None:
        self.stopped = False  # rows could not be kept: the batch holds none
        self._clear()

    def _clear(self) -> None:
        self.chunks: dict[str, list[pa.Table]] = {}  # by suffix: the rows kept, combined
        self.pending: dict[str, list[pa.Table]] = {}  # by suffix: the runs' own tables
        self.slices: dict[str, list[list]] = {}  # by suffix: each file's [sha256, first, rows]
        self.nbytes = 0

    def add(self, written: dict[str, tuple[str, pa.Table]]) -> None:
        """A run's files as :meth:`Runs.write_run` wrote them: suffix -> (sha256, rows). It
        never raises: rows it cannot keep (no memory, say) end the batch, which then holds
        nothing, rather than an index out of step with its rows."""
        import pyarrow as pa

        size = sum(table.nbytes for _, table in written.values())
        if self.stopped or self.nbytes + size > self.MAX_BYTES:
            return
        self.nbytes += size
        try:
            for suffix, (sha256, table) in written.items():
                slices = self.slices.setdefault(suffix, [])
                first = slices[-1][1] + slices[-1][2] if slices else 0  # after the last file's
                slices.append([sha256, first, table.num_rows])
                pending = self.pending.setdefault(suffix, [])
                pending.append(table)
                if len(pending) >= self.COMBINE:
                    combined = pa.concat_tables(pending).combine_chunks()
                    self.chunks.setdefault(suffix, []).append(combined)
                    pending.clear()
        except (pa.ArrowException, MemoryError):
            self._clear()
            self.stopped = True

    def write(self, folder: Path, name: str) -> None:
        """The batch into ``folder`` as ``rows-<name>...``: each table's rows, then the index
        (nothing without rows, nor when its rows cannot be made: no memory, say). A failure
        to write (a full disk, OSError) leaves no index: the batch is then left aside, the
        runs' files stay the truth."""
        import pyarrow as pa

        if not self.slices:
            return
        try:
            made = {
                suffix: parquet_bytes(
                    pa.concat_tables([*self.chunks.get(suffix, []), *self.pending[suffix]])
                )
                for suffix in self.slices
            }
        except (pa.ArrowException, MemoryError):
            return
        stem = f"{PREFIX}{name}"
        for suffix, data in made.items():
            write_bytes(folder / f"{stem}{suffix}", data)
        files = {suffix: hashlib.sha256(data).hexdigest() for suffix, data in made.items()}
        index = json.dumps({"files": files, "slices": self.slices}, separators=(",", ":"))
        write_bytes(folder / f"{stem}.json", index.encode())


def read_batches(folder: Path) -> dict[str, pa.Table]:
    """The rows of every intact batch in ``folder`` by the sha256 of the run's file they were
    stored in; a batch whose index or files cannot be read, or whose files do not match their
    sha256 in its index, is left out."""
    import pyarrow as pa

    rows: dict[str, pa.Table] = {}
    for index in sorted(folder.glob(f"{PREFIX}*.json")):
        stem = index.name.removesuffix(".json")
        try:
            said = json.loads(index.read_bytes())
            found = {}
            for suffix, sha256 in said["files"].items():
                data = (folder / f"{stem}{suffix}").read_bytes()
                if hashlib.sha256(data).hexdigest() != sha256:
                    raise ValueError(f"{stem}{suffix} does not match its sha256")
                table = parquet_table(data)
                for run_sha256, first, count in said["slices"][suffix]:
                    if not (isinstance(first, int) and isinstance(count, int)):
                        raise TypeError(first, count)
                    if first < 0 or count < 0 or first + count > table.num_rows:
                        raise ValueError(f"{stem}{suffix} has no rows {first}..{first + count}")
                    found[str(run_sha256)] = table.slice(first, count)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, pa.ArrowException):
            continue  # left aside: the runs' files are parsed instead
        rows.update(found)
    return rows


def discard_batches(folder: Path) -> None:
    """Removes the batches in ``folder``: a cache for one compaction, which should not keep
    their disk space until the next sweep."""
    for path in folder.glob(f"{PREFIX}*"):
        path.unlink(missing_ok=True)
