"""Where a study's files are, and whether they read: one directory per study under the
results directory.

::

    results/<study>/
      design.json                     the design of the runs: resolved, its hash, the program
                                      and its --describe (written by every `satsweep run`)
      runs/<config_id>/r<k>.json      the program's result of replication k (written by it)
      runs/<config_id>/r<k>.<table>.parquet   its rows of each table the program declares
      runs/<config_id>/r<k>.record.json   written last, after the files it vouches for: their
                                      sizes, sha256 and rows, the run number and base_seed
                                      the run was made with, and its run row with that row's
                                      sha256 (a run is done iff it is there, its files match
                                      it and its run number is the design's)
      runs/<config_id>/r<k>.parquet   the run row of a run stored before records held it
      runs/<config_id>/r<k>.failed.json   why the last attempt failed (removed on success)
      runs/<config_id>/complete-<r>.json  Snakemake's output of the configuration's job (a
                                      remote executor's jobs; locally a marker its worker writes)
      workers/<pass>/                 a local pass's queue of runs and its
                                      workers' outputs (removed by the next `satsweep run`),
                                      and until the pass's compaction the rows they stored
                                      (store/batches.py)
      workers/scratch-<config_id>-r<k>/   a run's scratch folder ($SATSWEEP_SCRATCH: an
                                      adapter's output and files), removed after the run even
                                      when it was killed, and by the next pass when satsweep was
      runs.parquet, <table>.parquet   every finished run of the design, compacted by `collect`
      compaction.json                 what the last compaction wrote (Snakemake's target): the
                                      runs, their digest, each table's rows, size and sha256
      records-cache.json              what the last compaction (or `run` with nothing to do)
                                      read of each run's record, under the record file's
                                      identity (inode, size, times):
                                      a record whose file still has it is not read again by
                                      the quick look (a cache: deleting it loses nothing)
      folds/fold-<n>.bin, .json       the files of runs a compaction folded (store/folds.py:
                                      from $SATSWEEP_FOLD_AT runs with files of their own,
                                      10^4 unless set), and written last what they are: a
                                      folded run is done as it was in runs/<config_id>/
      quarantine/<time>/<config_id>/  the files of runs found damaged, moved out of the way
      logs/                           Snakemake's and the jobs' logs
      .snakemake/                     Snakemake's metadata (through a remote executor)

Every file is written to a temporary name in the same directory and renamed (store/files.py),
so a reader (or a rerun after a kill) sees a whole file or none. The results directory is
``results`` in the current directory, or ``$SATSWEEP_RESULTS``, or ``--results DIR``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from satsweep.design import Run
from satsweep.store import folds

if TYPE_CHECKING:
    import pyarrow as pa

#: A run's file in runs/<config_id>/: r<k> and a suffix (temporaries start with a dot).
_RUN_FILE = re.compile(r"r([0-9]+)(\..+)")
#: The suffix of a run's record (written last: it vouches for the run's other files).
RECORD = ".record.json"
#: The files of a run that say it finished: its record, or its run row (before records).
FINISHED = frozenset({RECORD, ".parquet"})
#: The record's keys of the run's row (the run table's columns, a timestamp as ISO text) and
#: of its sha256 (:func:`row_sha256`); a record without them vouches for a file r<k>.parquet.
ROW, ROW_SHA256 = "row", "row_sha256"


def row_sha256(row: dict[str, Any]) -> str:
    """The sha256 of a run's row as its record holds it: of its canonical JSON (keys sorted,
    no spaces), which a reading gives again exactly (floats print as they parse)."""
    return hashlib.sha256(
        json.dumps(row, sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


def row_matches(record: dict[str, Any]) -> bool:
    """Whether the run's row a record holds has the sha256 the record gives it."""
    return row_sha256(record[ROW]) == record.get(ROW_SHA256)


def run_file_name(replication: int, suffix: str = ".parquet") -> str:
    """The name of a file of replication k in its configuration's folder (runs/<config_id>/)."""
    return f"r{replication}{suffix}"


def vouched_names(replication: int, tables: Iterable[str], row: bool = True) -> list[str]:
    """The names of the files a finished run's record vouches for: its row's file (``row``:
    a record without the row), then its tables' rows."""
    return [
        *([run_file_name(replication)] if row else []),
        *(run_file_name(replication, f".{t}.parquet") for t in tables),
    ]


class StoreError(ValueError):
    """A store (or a query over it) that cannot be opened; the message says why."""


def results_dir(results: str | os.PathLike[str] | None = None) -> Path:
    """The results directory: ``results`` if given, else $SATSWEEP_RESULTS, else ./results."""
    return Path(results or os.environ.get("SATSWEEP_RESULTS") or "results").absolute()


def row_value(path: Path, column: str) -> Any:
    """The value of ``column`` in a run's one-row table, or None when it cannot be read."""
    import pyarrow as pa

    try:
        values = read_columns(path, [column]).column(0).to_pylist()
    except (OSError, KeyError, pa.ArrowException):
        return None
    return values[0] if len(values) == 1 else None


def read_columns(path: Path, columns: list[str]) -> pa.Table:
    """These columns of one Parquet file (KeyError for a column it lacks), read by its own
    reader: ``pq.read_table`` imports pyarrow's dataset machinery and pandas at its first
    call, more CPU than the store's whole check of a sweep with nothing to do."""
    import pyarrow.parquet as pq

    with pq.ParquetFile(path) as file:
        schema = file.schema_arrow
        for column in columns:
            schema.field(column)  # KeyError: read() would leave the column out
        return file.read(columns=columns)


def readable(files: list[Path]) -> str | None:
    """None when every file is there and reads as Parquet, else what is wrong."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    for path in files:
        try:
            pq.read_metadata(path)
        except FileNotFoundError:
            return f"{path.name} is missing"
        except (OSError, pa.ArrowException) as e:
            return f"{path.name} is not a Parquet file ({e.__class__.__name__})"
    return None


class Layout:
    """A study's directory (``<results>/<study>/``): the paths of its files and what one
    directory read finds there. The store's parts (recorded design, runs, compaction, SQL
    views) build on it."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).absolute()
        self._folded_mark: tuple[int, int] | None = None  # the folds' folder when read

    @property
    def study(self) -> str:
        return self.root.name

    @property
    def design_file(self) -> Path:
        return self.root / "design.json"

    @property
    def runs_table(self) -> Path:
        return self.root / "runs.parquet"

    @property
    def compaction_file(self) -> Path:
        return self.root / "compaction.json"

    @property
    def records_cache(self) -> Path:
        return self.root / "records-cache.json"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    def table(self, name: str) -> Path:
        """The compacted table ``name`` (``runs`` or one of the program's)."""
        return self.root / f"{name}.parquet"

    def tables(self) -> list[str]:
        """The compacted tables present: ``runs`` first, then the program's."""
        found = sorted(p.stem for p in self.root.glob("*.parquet") if p.stem != "runs")
        return ["runs", *found] if self.runs_table.is_file() else found

    def run_folder(self, config_id: str) -> str:
        """:meth:`run_dir` as a string, for the loops over every run (:meth:`Runs.state`),
        where building Paths cost more than the stat calls they are for."""
        return f"{self.root}/runs/{config_id}"

    def run_dir(self, config_id: str) -> Path:
        return Path(self.run_folder(config_id))

    def run_file(self, run: Run, suffix: str = ".parquet") -> Path:
        """A file of one run: its row (``.parquet``), ``.json``, ``.failed.json``, or
        ``.<table>.parquet``."""
        return self.run_dir(run.config_id) / run_file_name(run.replication, suffix)

    def record_file(self, run: Run) -> Path:
        return self.run_file(run, RECORD)

    def run_files(self, run: Run, tables: Iterable[str]) -> list[Path]:
        """The paths of the files a finished run's record vouches for (:func:`vouched_names`)."""
        folder = self.run_dir(run.config_id)
        return [folder / name for name in vouched_names(run.replication, tables)]

    def manifest_file(self, config_id: str, replications: int) -> Path:
        return self.run_dir(config_id) / f"complete-{replications}.json"

    @property
    def workers(self) -> Path:
        """The local workers' folder: one folder per pass, with its queue and each worker's
        output (satsweep/workflow/jobs.py)."""
        return self.root / "workers"

    def pass_folder(self, pass_id: str) -> Path:
        """A local pass's folder: its queue, its workers' outputs and row batches."""
        return self.workers / pass_id

    def scratch_dir(self, run: Run) -> Path:
        """A run's scratch folder (an adapter's files and output), named by the run: removed
        after it, even when the run was killed, and by the next pass (:meth:`scratch_dirs`)
        when satsweep was."""
        return self.workers / f"scratch-{run.config_id}-r{run.replication}"

    def scratch_dirs(self) -> list[Path]:
        """The runs' scratch folders there are: between passes, those a killed satsweep left."""
        return list(self.workers.glob("scratch-*"))

    def worker_file(self, pass_id: str, worker: int | str) -> Path:
        return self.pass_folder(pass_id) / f"worker-{worker}.json"

    def worker_log(self, worker: int | str) -> Path:
        """A local pass's worker's log (the last pass's: the next removes it)."""
        return self.logs / f"worker-{worker}.log"

    def configurations_with_files(self) -> set[str]:
        """The config_ids that have a directory under runs/ (one directory read)."""
        try:
            return set(os.listdir(self.root / "runs"))
        except FileNotFoundError:
            return set()

    def replications_with_files(self, config_id: str, replications: int) -> dict[int, set[str]]:
        """The configuration's replications 1..``replications`` that have files, each with
        the suffixes of its files (``.parquet``, ``.record.json``, ...): one directory read."""
        found: dict[int, set[str]] = {}
        try:
            for name in os.listdir(self.run_folder(config_id)):
                match = _RUN_FILE.fullmatch(name)
                if match and 1 <= int(match[1]) <= replications:
                    found.setdefault(int(match[1]), set()).add(match[2])
        except FileNotFoundError:
            pass
        return found

    @property
    def folds_dir(self) -> Path:
        """The folds' folder (store/folds.py)."""
        return self.root / folds.FOLDS

    def folded_runs(self) -> dict[str, dict[int, folds.Folded]]:
        """The runs in folds, unchecked (store/folds.py :func:`~folds.load`), read again only
        when the folds' folder changed (a fold or an index written, renamed or removed)."""
        try:
            stat = os.stat(self.folds_dir)
        except FileNotFoundError:
            return {}
        mark = (stat.st_ino, stat.st_mtime_ns)
        if self._folded_mark != mark:
            self._folded = folds.load(self.folds_dir)[0]
            self._folded_mark = mark
        return self._folded

    def folded_file(
        self, config_id: str, replication: int, suffix: str, bins: dict[int, Any] | None = None
    ) -> bytes | None:
        """A file of a run in a fold (store/folds.py) by its suffix (``.record.json``,
        ``.parquet``, ...), None when no fold has it or its bytes there are not those of its
        sha256. ``bins``: the folds' .bin files opened so far, by number (the caller closes
        them), for many runs in a row."""
        folded = self.folded_runs().get(config_id, {}).get(replication)
        if folded is None:
            return None
        member = folded.members.get(run_file_name(replication, suffix))
        try:
            if bins is None:
                with open(self.folds_dir / folds.data_name(folded.fold), "rb") as handle:
                    data = folds.member_bytes(handle, member)
            else:
                if folded.fold not in bins:
                    bins[folded.fold] = open(self.folds_dir / folds.data_name(folded.fold), "rb")
                data = folds.member_bytes(bins[folded.fold], member)
        except (OSError, ValueError, TypeError):
            return None
        return data if hashlib.sha256(data).hexdigest() == member[2] else None

    def folded_record(
        self, config_id: str, replication: int, bins: dict[int, Any] | None = None
    ) -> dict[str, Any] | None:
        """The record of a run in a fold (:meth:`folded_file`), parsed."""
        data = self.folded_file(config_id, replication, RECORD, bins)
        record = None if data is None else json.loads(data)
        return record if isinstance(record, dict) else None
