"""The results store of a study: one directory per study under the results directory.

::

    results/<study>/
      design.json                     the design of the runs: resolved, its hash, the program
                                      and its --describe (written by every `satsweep run`)
      runs/<config_id>/r<k>.json      the program's result of replication k (written by it)
      runs/<config_id>/r<k>.<table>.parquet   its rows of each table the program declares
      runs/<config_id>/r<k>.parquet   its run row; written last: a run is done iff this exists
      runs/<config_id>/r<k>.failed.json   why the last attempt failed (removed on success)
      runs/<config_id>/complete-<r>.json  Snakemake's output of the configuration's job
      runs.parquet, <table>.parquet   every finished run of the design, compacted by `collect`
      logs/                           Snakemake's and the jobs' logs
      .snakemake/                     Snakemake's metadata (`satsweep run` uses this directory)

Every file is written to a temporary name in the same directory and renamed (store/files.py),
so a reader (or a rerun after a kill) sees a whole file or none. The results directory is
``results`` in the current directory, or ``$SATSWEEP_RESULTS``, or ``--results DIR``.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

import satsweep
from satsweep.design import Design, DesignError, Run
from satsweep.engine import Description, Program
from satsweep.store.files import write_json, write_parquet
from satsweep.store.rows import clashes, run_rows, run_schema, table_schema

__all__ = ["State", "Store", "StoreError", "connect", "results_dir", "studies"]


class StoreError(ValueError):
    """A store (or a query over it) that cannot be opened; the message says why."""


def results_dir(results: str | os.PathLike[str] | None = None) -> Path:
    """The results directory: ``results`` if given, else $SATSWEEP_RESULTS, else ./results."""
    return Path(results or os.environ.get("SATSWEEP_RESULTS") or "results").absolute()


@dataclass
class State:
    """Which runs of a design are done, failed (last attempt) or missing."""

    design: Design
    store: Store
    done: list[Run] = field(default_factory=list)
    failed: list[tuple[Run, dict]] = field(default_factory=list)
    missing: list[Run] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.design.n_runs


class Store:
    """One study's store (``<results>/<study>/``): its paths, its recorded design, the state
    of a design's runs in it, the writing of runs, compaction and a DuckDB view of it."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).absolute()

    @classmethod
    def of(cls, design: Design, results: str | os.PathLike[str] | None = None) -> Store:
        """The store of ``design``'s study under ``results`` (see :func:`results_dir`)."""
        return cls(results_dir(results) / design.study)

    @classmethod
    def named(cls, study: str, results: str | os.PathLike[str] | None = None) -> Store:
        """The store of the study named ``study``; StoreError if it has none."""
        if not study or "/" in study or study in (".", ".."):
            raise StoreError(f"'{study}' is not a study name")
        store = cls(results_dir(results) / study)
        if not store.runs_table.is_file():
            raise StoreError(
                f"no study named '{study}' (no {store.runs_table}): run its sweep first"
            )
        return store

    def __repr__(self) -> str:
        return f"Store({str(self.root)!r})"

    @property
    def study(self) -> str:
        return self.root.name

    # -- paths ------------------------------------------------------------------------------

    @property
    def design_file(self) -> Path:
        return self.root / "design.json"

    @property
    def runs_table(self) -> Path:
        return self.root / "runs.parquet"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    def table(self, name: str) -> Path:
        """The compacted table ``name`` (``runs`` or one of the program's)."""
        return self.root / f"{name}.parquet"

    def run_dir(self, config_id: str) -> Path:
        return self.root / "runs" / config_id

    def run_file(self, run: Run, suffix: str = ".parquet") -> Path:
        """A file of one run: its row (``.parquet``), ``.json``, ``.failed.json``, or
        ``.<table>.parquet``."""
        return self.run_dir(run.config_id) / f"r{run.replication}{suffix}"

    def manifest_file(self, config_id: str, replications: int) -> Path:
        return self.run_dir(config_id) / f"complete-{replications}.json"

    # -- the recorded design --------------------------------------------------------------

    def recorded(self) -> dict[str, Any] | None:
        """What design.json says, or None. A store made before design.json existed has only
        ``study.json`` with its base seed: that is returned as ``{"design": {"base_seed"}}``."""
        for path, wrap in ((self.design_file, False), (self.root / "study.json", True)):
            try:
                data = json.loads(path.read_text())
            except FileNotFoundError:
                continue
            except (OSError, ValueError) as e:
                raise StoreError(f"{path}: unreadable ({e}); allowed: the file satsweep wrote")
            return {"design": data} if wrap else data
        return None

    def check(self, design: Design) -> None:
        """Refuses a design whose runs cannot share this store: another base_seed (other
        random streams) or another program than the runs in it were made with, or a program
        whose outputs would take the store's own column names."""
        recorded = (self.recorded() or {}).get("design", {})
        seed = recorded.get("base_seed")
        if seed is not None and seed != design.base_seed:
            raise DesignError(
                f"base_seed: {design.base_seed} differs from the base_seed {seed} of the runs "
                f"in {self.root}; allowed: {seed}, or another study name (or remove {self.root})"
            )
        name = (self.recorded() or {}).get("describe", {}).get("name")
        if name is not None and name != design.describe.name:
            raise DesignError(
                f"program: {design.describe.name} differs from the program {name} of the runs "
                f"in {self.root}; allowed: {name}, or another study name (or remove {self.root})"
            )
        taken = clashes(design)
        if taken:
            raise DesignError(
                f"program: {design.describe.name}'s {taken[0]} takes a name of the store's own "
                "columns; allowed: other names (docs/engine-contract.md)"
            )

    def record(self, design: Design) -> None:
        """Checks ``design`` (:meth:`check`) and writes it into design.json."""
        self.check(design)
        program = design.executable
        write_json(
            self.design_file,
            {
                "study": design.study,
                "design": design.resolved(),
                "sha256": design.sha256(),
                "program": {"path": str(program.path), "sha256": program.sha256},
                "describe": program.description.model_dump(mode="json"),
                "satsweep_version": satsweep.__version__,
                "recorded_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            },
        )

    def design(self) -> Design | None:
        """The design recorded in design.json, with the recorded program's description (the
        program itself need not exist here), or None for a store without one."""
        recorded = self.recorded()
        if not recorded or "describe" not in recorded:
            return None
        try:
            design = Design.model_validate(recorded["design"])
            describe = Description.model_validate(recorded["describe"])
        except ValueError as e:
            raise StoreError(f"{self.design_file}: not a design satsweep wrote: {e}") from None
        program = recorded.get("program", {})
        design._executable = Program(Path(program.get("path", "")), program.get("sha256"), describe)
        return design

    # -- runs -----------------------------------------------------------------------------

    def is_done(self, run: Run) -> bool:
        return self.run_file(run).is_file()

    def count_done(self, design: Design) -> int:
        return sum(self.is_done(run) for run in design.runs())

    def state(self, design: Design) -> State:
        """Which of the design's runs are done, failed or missing (from the files alone)."""
        result = State(design, self)
        for run in design.runs():
            if self.is_done(run):
                result.done.append(run)
                continue
            try:
                result.failed.append(
                    (run, json.loads(self.run_file(run, ".failed.json").read_text()))
                )
            except (OSError, ValueError):
                result.missing.append(run)
        return result

    def write_run(self, design: Design, run: Run, result: dict, provenance: dict[str, Any]) -> None:
        """Stores a run's result and provenance (store/rows.py): its tables' rows, then its
        run row (the run is then done)."""
        row, tables = run_rows(design, run, result, provenance)
        for name, rows in tables.items():
            write_parquet(self.run_file(run, f".{name}.parquet"), rows)
        write_parquet(self.run_file(run), row)
        self.run_file(run, ".failed.json").unlink(missing_ok=True)

    def write_failure(self, run: Run, record: dict[str, Any]) -> None:
        """Records why a run's last attempt failed."""
        write_json(self.run_file(run, ".failed.json"), record)

    def elapsed_seconds(self, runs: Iterable[Run]) -> list[float]:
        """The elapsed_seconds of these finished runs."""
        values = []
        for run in runs:
            table = pq.read_table(self.run_file(run), columns=["elapsed_seconds"])
            values.extend(v for v in table.column(0).to_pylist() if v is not None)
        return values

    # -- compaction -------------------------------------------------------------------------

    def collect(self, design: Design) -> int:
        """Compacts the design's finished runs into runs.parquet and one file per table.

        Only runs of the current design are included (in its order: configuration,
        replication), so the store never holds a run twice or a run of an older version of
        the design. Returns the number of runs.
        """
        done = [run for run in design.runs() if self.is_done(run)]
        targets = {"runs": (run_schema(design), "")}
        for name in design.describe.tables:
            targets[name] = (table_schema(design, name), f".{name}")
        # the tables first, runs.parquet last: it is what Snakemake checks
        for name in [*design.describe.tables, "runs"]:
            schema, infix = targets[name]
            tables = [pq.read_table(self.run_file(run, f"{infix}.parquet")) for run in done]
            table = (
                pa.concat_tables(tables, promote_options="permissive")
                if tables
                else schema.empty_table()
            )
            write_parquet(self.table(name), table)
        return len(done)

    # -- SQL ----------------------------------------------------------------------------------

    def tables(self) -> list[str]:
        """The compacted tables present: ``runs`` first, then the program's."""
        found = sorted(p.stem for p in self.root.glob("*.parquet") if p.stem != "runs")
        return ["runs", *found] if self.runs_table.is_file() else found

    def connect(self) -> duckdb.DuckDBPyConnection:
        """An in-memory DuckDB database with one view per compacted table (``runs``, ...)."""
        return connect([self])


def connect(stores: list[Store]) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB database with one view per table name over ``stores`` (unioned by
    column name when there are several)."""
    con = duckdb.connect()
    names = dict.fromkeys(name for store in stores for name in store.tables())
    for name in names:
        files = [str(s.table(name)) for s in stores if s.table(name).is_file()]
        listed = ", ".join("'" + f.replace("'", "''") + "'" for f in files)
        quoted = '"' + name.replace('"', '""') + '"'
        con.execute(
            f"CREATE VIEW {quoted} AS SELECT * FROM read_parquet([{listed}], union_by_name = true)"
        )
    return con


def studies(results: str | os.PathLike[str] | None = None) -> list[Store]:
    """Every study's store under the results directory (those with a runs.parquet)."""
    base = results_dir(results)
    return [Store(p.parent) for p in sorted(base.glob("*/runs.parquet"))]
