"""The results store of a study: one directory per study under the results directory.

::

    results/<study>/
      design.json                     the design of the runs: resolved, its hash, the program
                                      and its --describe (written by every `satsweep run`)
      runs/<config_id>/r<k>.json      the program's result of replication k (written by it)
      runs/<config_id>/r<k>.<table>.parquet   its rows of each table the program declares
      runs/<config_id>/r<k>.parquet   its run row
      runs/<config_id>/r<k>.record.json   written last, after the files it vouches for: their
                                      sizes, sha256 and rows, and the run number and base_seed
                                      the run was made with (a run is done iff it is there,
                                      its files match it and its run number is the design's)
      runs/<config_id>/r<k>.failed.json   why the last attempt failed (removed on success)
      runs/<config_id>/complete-<r>.json  Snakemake's output of the configuration's job
      runs.parquet, <table>.parquet   every finished run of the design, compacted by `collect`
      compaction.json                 what the last compaction wrote (Snakemake's target): the
                                      runs, their digest, each table's rows, size and sha256
      quarantine/<time>/<config_id>/  the files of runs found damaged, moved out of the way
      logs/                           Snakemake's and the jobs' logs
      .snakemake/                     Snakemake's metadata (`satsweep run` uses this directory)

Every file is written to a temporary name in the same directory and renamed (store/files.py),
so a reader (or a rerun after a kill) sees a whole file or none. The results directory is
``results`` in the current directory, or ``$SATSWEEP_RESULTS``, or ``--results DIR``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

import satsweep
from satsweep.design import MAX_REPLICATIONS, Configuration, Design, DesignError, Run, rng_run
from satsweep.engine import Description, Program, file_sha256, value_text
from satsweep.engine.adapters import adapter as find_adapter
from satsweep.store.files import write_json, write_parquet
from satsweep.store.rows import run_rows, run_schema, table_schema

__all__ = ["State", "Store", "StoreError", "check_read_only", "connect", "results_dir", "studies"]

#: What a query over a store may be: it reads (SELECT, WITH, DESCRIBE, SHOW, SUMMARIZE, FROM
#: ..., PRAGMA functions), or it explains a statement that reads (EXPLAIN ANALYZE runs what it
#: explains); anything else could change a store or the files around it.
READ_ONLY = (duckdb.StatementType.SELECT,)


class StoreError(ValueError):
    """A store (or a query over it) that cannot be opened; the message says why."""


#: What :meth:`Store.verify` says of a run that has not finished (no record, no run row).
NOT_DONE = "not done"
#: A run's file in runs/<config_id>/: r<k> and a suffix (temporaries start with a dot).
_RUN_FILE = re.compile(r"r([0-9]+)(\..+)")
#: A configuration's directory in runs/: its config_id.
_CONFIG_ID = re.compile(r"[0-9a-f]{12}")
#: The files of a run that say it finished: its record, or its run row (before records).
_FINISHED = frozenset({".record.json", ".parquet"})
_NONE: frozenset[int] = frozenset()


def _digest_line(run: Run, row: Path, record: dict[str, Any] | None) -> bytes:
    """What a done run adds to the digest of a store's runs (:attr:`State.digest`): its key,
    its run number and the sha256 of its run row (``row``) as its record gives it, or read for
    a run made before records (a run redone gets another row: its start time at least)."""
    recorded = record["files"][row.name].get("sha256") if record else file_sha256(row)
    return f"{run.config_id}/r{run.replication}:{run.run}:{recorded}\n".encode()


def _row_value(path: Path, column: str) -> Any:
    """The value of ``column`` in a run's one-row table, or None when it cannot be read."""
    try:
        values = pq.read_table(path, columns=[column]).column(0).to_pylist()
    except (OSError, KeyError, pa.ArrowException):
        return None
    return values[0] if len(values) == 1 else None


def _readable(files: list[Path]) -> str | None:
    """None when every file is there and reads as Parquet, else what is wrong."""
    for path in files:
        try:
            pq.read_metadata(path)
        except FileNotFoundError:
            return f"{path.name} is missing"
        except (OSError, pa.ArrowException) as e:
            return f"{path.name} is not a Parquet file ({e.__class__.__name__})"
    return None


def results_dir(results: str | os.PathLike[str] | None = None) -> Path:
    """The results directory: ``results`` if given, else $SATSWEEP_RESULTS, else ./results."""
    return Path(results or os.environ.get("SATSWEEP_RESULTS") or "results").absolute()


@dataclass
class State:
    """Which runs of a design are done, failed (last attempt), damaged or missing. Only runs
    with files are listed; the missing ones are counted per configuration and listed on
    demand (:meth:`missing`), so a state costs memory in proportion to the configurations and
    the files, not to the design's runs."""

    design: Design
    store: Store
    done: list[Run] = field(default_factory=list)
    failed: list[tuple[Run, dict]] = field(default_factory=list)
    damaged: list[tuple[Run, str]] = field(default_factory=list)  # with what is wrong
    #: the configurations (by index) with a run not done, and their replications that are
    #: done, failed or damaged (the others are missing)
    incomplete: dict[int, frozenset[int]] = field(default_factory=dict)
    #: sha256 over the done runs, in order, each with its run number and its row's sha256
    #: (_digest_line): compaction.json keeps that of the runs compacted
    #: (:meth:`Store.compaction_problem`)
    digest: str = ""

    @property
    def total(self) -> int:
        return self.design.n_runs

    @property
    def n_missing(self) -> int:
        """Runs never run (or whose files were removed): no record, no run row, no failure."""
        return self.total - len(self.done) - len(self.failed) - len(self.damaged)

    def incomplete_configurations(self) -> Iterator[Configuration]:
        """The configurations with a run not done."""
        for config in self.design.iter_configurations():
            if config.index in self.incomplete:
                yield config

    def missing(self) -> Iterator[Run]:
        """The missing runs, configuration by configuration."""
        for config in self.incomplete_configurations():
            accounted = self.incomplete[config.index]
            for k in range(1, self.design.replications_for(config.config_id) + 1):
                if k not in accounted:
                    yield config.run(self.design, k)


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

    @staticmethod
    def _streams(recorded: dict[str, Any] | None) -> int | None:
        """How the runs of a recorded design (:meth:`recorded`) got their numbers
        (``streams``): 1 for a store recorded before ``streams`` existed, None for no design."""
        if recorded is None:
            return None
        return recorded.get("design", {}).get("streams", 1)

    @staticmethod
    def _stream_options(recorded: dict[str, Any] | None, program: str) -> dict[str, Any]:
        """The stream options of the adapter of a recorded design of ``program``
        (``omnetpp_seeds``: how the runs got their random streams), each as recorded, else its
        value for a store recorded before it existed; none for no design, another program
        (refused by its name) or a program without an adapter."""
        made = (recorded or {}).get("design", {})
        adapter = find_adapter(made.get("program"))
        if adapter is None or made.get("program") != program:
            return {}
        return {k: made.get(k, before) for k, (_, before) in adapter.stream_options.items()}

    def bind(self, design: Design) -> Design:
        """``design`` as this store's runs need it: a design file that does not set
        ``streams`` takes the store's (an existing store keeps its run numbers), then
        :meth:`check`, and a run found in the store must have the run number the design gives
        it (:meth:`sampled_run`): a store whose design.json is gone keeps its runs' base_seed
        and streams. Use it wherever a design meets its store."""
        recorded = self.recorded()
        sample = self.sampled_run()
        if recorded is None and sample is not None:
            made = self._made_with(sample)
            if made is not None:  # design.json is gone: the runs say how they were made
                recorded = {"design": made}
        keep = {
            key: stored
            for key, stored in self._stream_options(recorded, design.program).items()
            if key not in design.adapter_options and stored != design.stream_option(key)
        }
        if keep:  # the store's runs keep their random streams
            bound = design.with_options(**keep)
            clash = bound.stream_clash()
            if clash is not None:
                raise DesignError(f"{design.source}: {clash}")
            design = bound
        streams = self._streams(recorded)
        if (
            streams is not None
            and streams != design.streams
            and "streams" not in (design.model_fields_set)
        ):
            bound = design.model_copy(update={"streams": streams})
            clash = bound.stream_clash()
            if clash is not None:
                raise DesignError(f"{design.source}: {clash}")
            design = bound
        self._check(design, recorded)
        if sample is not None:
            cid, k, made = sample["config_id"], sample["replication"], sample["run"]
            expected = rng_run(design.base_seed, cid, k, design.streams)
            if made != expected:
                seed = f" (base_seed {sample['seed']})" if sample["seed"] is not None else ""
                raise DesignError(
                    f"base_seed: {design.base_seed} with streams {design.streams} gives run "
                    f"{cid}/r{k} --run={expected}, but the run in {self.root} was made with "
                    f"--run={made}{seed}; allowed: the base_seed and streams its runs were made "
                    f"with, or another study name (or remove {self.root})"
                )
        return design

    def sampled_run(self) -> dict[str, Any] | None:
        """One run found in runs/ (the first with a record or a run row), as it was made:
        ``config_id``, ``replication``, ``run`` (its --run) and ``seed`` (its base_seed, None
        when unknown), from its record or, for a record without them, its run row. None for
        a store without runs. Cheap: runs/ is listed, then it stops at the first (in the order
        of config_id and replication, so that every caller sees the same run)."""
        for cid in sorted(filter(_CONFIG_ID.fullmatch, self.configurations_with_files())):
            found = self.replications_with_files(cid, MAX_REPLICATIONS)
            for k in sorted(k for k, suffixes in found.items() if suffixes & _FINISHED):
                made = self._made(self.run_dir(cid), k)
                if made is not None:
                    return {"config_id": cid, "replication": k, **made}
        return None

    @staticmethod
    def _made(run_dir: Path, k: int) -> dict[str, Any] | None:
        """``run`` and ``seed`` of replication k in ``run_dir``, as its record says, else as
        its run row says; None without a run number."""
        try:
            record = json.loads((run_dir / f"r{k}.record.json").read_text())
        except (OSError, ValueError):
            record = None
        record = record if isinstance(record, dict) else {}
        number, seed = record.get("run"), record.get("seed")
        if type(number) is not int:  # a record of before run numbers were kept: the row's
            number = _row_value(run_dir / f"r{k}.parquet", "run")
        if type(seed) is not int:
            seed = _row_value(run_dir / f"r{k}.parquet", "seed")
        if type(number) is not int:
            return None
        return {"run": number, "seed": seed if type(seed) is int else None}

    @staticmethod
    def _made_with(sample: dict[str, Any]) -> dict[str, int] | None:
        """The base_seed and streams a run (:meth:`sampled_run`) was made with, as design.json
        records them, or None when its run number does not tell."""
        seed = sample["seed"]
        if seed is None:
            return None
        for streams in (2, 1):
            if rng_run(seed, sample["config_id"], sample["replication"], streams) == sample["run"]:
                return {"base_seed": seed, "streams": streams}
        return None

    def check(self, design: Design) -> None:
        """Refuses a design whose runs cannot share this store: another base_seed or
        ``streams`` (other random streams), another program or program version than the runs
        in it were made with, or the same program and version whose defaults or description
        (:meth:`Description.changes_since`) changed since."""
        self._check(design, self.recorded())

    def _check(self, design: Design, recorded: dict[str, Any] | None) -> None:
        """:meth:`check` against ``recorded`` (:meth:`recorded`, read once)."""
        seed = (recorded or {}).get("design", {}).get("base_seed")
        if seed is not None and seed != design.base_seed:
            raise DesignError(
                f"base_seed: {design.base_seed} differs from the base_seed {seed} of the runs "
                f"in {self.root}; allowed: {seed}, or another study name (or remove {self.root})"
            )
        streams = self._streams(recorded)
        if streams is not None and streams != design.streams:
            raise DesignError(
                f"streams: {design.streams} differs from the streams {streams} of the runs in "
                f"{self.root}; allowed: {streams} (or leave streams out), or another study name"
            )
        for key, stored in self._stream_options(recorded, design.program).items():
            if stored != (given := design.stream_option(key)):
                raise DesignError(
                    f"{key}: {given} differs from the {key} {stored} of the runs in "
                    f"{self.root}; allowed: {stored} (or leave {key} out), or another study name"
                )
        described = (recorded or {}).get("describe", {})
        name = described.get("name")
        if name is not None and name != design.describe.name:
            raise DesignError(
                f"program: {design.describe.name} differs from the program {name} of the runs "
                f"in {self.root}; allowed: {name}, or another study name (or remove {self.root})"
            )
        version = described.get("version")
        if version is not None and version != design.describe.version:
            raise DesignError(
                f"program: {design.describe.name} {design.describe.version} is not the version "
                f"{version} the runs in {self.root} were made with, so new runs may not be like "
                "them; allowed: another study name for the new version, or the program the runs "
                "were made with (design.json names it)"
            )
        changed = self._changed_defaults(design, described)
        if changed:
            said = ", ".join(
                f"{n} {value_text(v)} -> {value_text(w)}" for n, (v, w) in changed.items()
            )
            raise DesignError(
                f"program: {design.describe.name}'s defaults changed since the runs in "
                f"{self.root} were made ({said}), so new runs would not be like them; allowed: "
                "another study name for the new defaults, or the program the runs were made "
                "with (design.json names it)"
            )
        # the same name and version, another description: columns retyped, added or dropped
        changed = design.describe.changes_since(described) if described else []
        if changed:
            raise DesignError(
                f"program: {design.describe.name} {design.describe.version}'s description "
                f"changed since the runs in {self.root} were made ({'; '.join(changed)}), so new "
                "runs would not be stored like them; allowed: a new version of the program (under "
                "another study name), or the program the runs were made with (design.json names "
                "it)"
            )

    @staticmethod
    def _changed_defaults(design: Design, described: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        """The parameters the design leaves to the program whose default differs from the one
        in ``described`` (the recorded ``--describe`` of the store's runs): name -> (recorded
        default, current default). A parameter the recorded program did not have counts too,
        with ``"(none)"`` as its recorded default: the runs were made without it, whatever
        behaviour its default now selects."""
        if not described:
            return {}
        parameters = described.get("parameters") or []
        before = {p.get("name"): p.get("default") for p in parameters if isinstance(p, dict)}
        set_by_design = set(design.parameters())
        return {
            p.name: (before.get(p.name, "(none)"), p.default)
            for p in design.describe.parameters
            if p.name not in set_by_design and (p.name not in before or before[p.name] != p.default)
        }

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
                # a theory given as a file: where the report finds it
                **({"theory": {"path": str(f)}} if (f := design.theory_file) else {}),
                "describe": program.description.model_dump(mode="json"),
                "satsweep_version": satsweep.__version__,
                "recorded_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            },
        )

    def round(self, design: Design) -> Design:
        """A precision campaign's ``design`` at the round this store recorded last (design.json:
        its r and, over configurations, the configurations' own), within min..max; at min for
        a store without one; any other design as it is. Where `satsweep run` left a campaign,
        the Snakefile, its jobs, `plan`, `status` and `submit` take it up."""
        p = design.precision
        if p is None:
            return design
        recorded = (self.recorded() or {}).get("design", {})

        def within(r: object) -> int:
            return max(p.min, min(p.max, r)) if isinstance(r, int) else p.min

        r = within(recorded.get("replications"))
        of = recorded.get("replications_of")
        of = {cid: within(k) for cid, k in of.items()} if isinstance(of, dict) and of else {}
        if of and p.over == "effects":  # was over configurations: balanced, no run left out
            return design.with_replications(max(r, *of.values()))
        if of:  # the configurations this design still has
            ids = {c.config_id for c in design.iter_configurations()}
            of = {cid: k for cid, k in of.items() if cid in ids}
        return design.with_replications(r, of)

    def design(self) -> Design | None:
        """The design recorded in design.json, with the recorded program's description (the
        program itself need not exist here), or None for a store without one."""
        recorded = self.recorded()
        if not recorded or "describe" not in recorded:
            return None
        try:
            # a store recorded before streams 2 and an adapter's stream options made its
            # runs the old way
            made = recorded["design"]
            old = {"streams": 1, **self._stream_options(recorded, made.get("program"))}
            design = Design.model_validate({**old, **recorded["design"]})
            describe = Description.model_validate(recorded["describe"])
        except ValueError as e:
            raise StoreError(f"{self.design_file}: not a design satsweep wrote: {e}") from None
        program = recorded.get("program", {})
        design._executable = Program(Path(program.get("path", "")), program.get("sha256"), describe)
        return design

    # -- runs -----------------------------------------------------------------------------

    def record_file(self, run: Run) -> Path:
        return self.run_file(run, ".record.json")

    def run_files(self, run: Run, tables: Iterable[str]) -> list[Path]:
        """The files a finished run's record vouches for: its row, then its tables' rows."""
        return [self.run_file(run), *(self.run_file(run, f".{t}.parquet") for t in tables)]

    def is_done(self, run: Run) -> bool:
        """Whether the run has finished (its record, or a run row of a store made before
        records; :meth:`verify` says whether its files are intact)."""
        return self.record_file(run).is_file() or self.run_file(run).is_file()

    def replications_with_files(self, config_id: str, replications: int) -> dict[int, set[str]]:
        """The configuration's replications 1..``replications`` that have files, each with
        the suffixes of its files (``.parquet``, ``.record.json``, ...): one directory read."""
        found: dict[int, set[str]] = {}
        try:
            with os.scandir(self.run_dir(config_id)) as entries:
                for entry in entries:
                    match = _RUN_FILE.fullmatch(entry.name)
                    if match and 1 <= int(match[1]) <= replications:
                        found.setdefault(int(match[1]), set()).add(match[2])
        except FileNotFoundError:
            pass
        return found

    def configurations_with_files(self) -> set[str]:
        """The config_ids that have a directory under runs/ (one directory read)."""
        try:
            return set(os.listdir(self.root / "runs"))
        except FileNotFoundError:
            return set()

    def count_done(self, design: Design) -> int:
        """Runs finished (:meth:`is_done`), counted from one directory read per configuration
        with files."""
        present = self.configurations_with_files()
        return sum(
            sum(1 for suffixes in found.values() if suffixes & {".record.json", ".parquet"})
            for found in (
                self.replications_with_files(c.config_id, design.replications_for(c.config_id))
                for c in design.iter_configurations()
                if c.config_id in present
            )
        )

    def verify(self, run: Run, tables: Iterable[str], deep: bool = False) -> str | None:
        """None when the run is done and its files are intact, else what is wrong (a run not
        done at all is :data:`NOT_DONE`). A file whose size or modification time differs from
        its record is read and its sha256 compared (a copied store stays intact); ``deep``
        reads every file. A run made before records existed is trusted when its files can be
        read as Parquet. A run made with another run number (--run) than ``run``'s, as its
        record or else its run row says, is not this run."""
        return self._verify(run, tables, deep)[0]

    def _verify(
        self, run: Run, tables: Iterable[str], deep: bool = False
    ) -> tuple[str | None, dict[str, Any] | None]:
        """:meth:`verify`, and the run's record (None without one)."""
        files = self.run_files(run, tables)
        try:
            record = json.loads(self.record_file(run).read_text())
            recorded = record["files"]
            if not isinstance(recorded, dict):
                raise TypeError(recorded)
        except FileNotFoundError:
            if not files[0].is_file():
                return NOT_DONE, None
            problem = _readable(files)  # a run made before records: its files must parse
            return problem or self._other_run(run, _row_value(files[0], "run")), None
        except (OSError, ValueError, KeyError, TypeError) as e:
            return f"{self.record_file(run).name} is unreadable ({e.__class__.__name__})", None
        made = record.get("run")
        if type(made) is not int and files[0].is_file():  # a record of before run numbers
            made = _row_value(files[0], "run")
        return self._intact(files, recorded, deep) or self._other_run(run, made), record

    @staticmethod
    def _intact(files: list[Path], recorded: dict[str, Any], deep: bool) -> str | None:
        """None when ``files`` match their record's ``files``, else what is wrong."""
        for path in files:
            expected = recorded.get(path.name)
            if not isinstance(expected, dict):
                return f"{path.name} is not in its record"
            try:
                stat = path.stat()
            except OSError:
                return f"{path.name} is missing"
            if stat.st_size != expected.get("bytes"):
                return f"{path.name} has {stat.st_size} bytes, its record {expected.get('bytes')}"
            changed = stat.st_mtime_ns != expected.get("mtime_ns")
            if (deep or changed) and file_sha256(path) != expected.get("sha256"):
                return f"{path.name} does not match its sha256"
        return _readable(files) if deep else None

    @staticmethod
    def _other_run(run: Run, made: object) -> str | None:
        """None when a run's files were made with ``run``'s run number (or say no number),
        else what is wrong: they are another run's (another base_seed or streams)."""
        if type(made) is not int or made == run.run:
            return None
        return (
            f"it was made with --run={made}, this design gives it --run={run.run} (another "
            "base_seed or streams)"
        )

    def state(self, design: Design, deep: bool = False) -> State:
        """Which of the design's runs are done (and intact: :meth:`verify`), damaged, failed
        or missing, from the files alone; ``deep`` rereads every file. runs/ is read once and
        each configuration's directory there once; only replications with files are looked
        at."""
        result = State(design, self)
        tables = list(design.describe.tables)
        present = self.configurations_with_files()
        digest = hashlib.sha256()
        for config in design.iter_configurations():
            if config.config_id not in present:
                result.incomplete[config.index] = _NONE
                continue
            accounted = set()
            done = 0
            r = design.replications_for(config.config_id)
            for k in sorted(self.replications_with_files(config.config_id, r)):
                run = config.run(design, k)
                problem, record = self._verify(run, tables, deep)
                if problem is None:
                    result.done.append(run)
                    digest.update(_digest_line(run, self.run_file(run), record))
                    done += 1
                elif problem is not NOT_DONE:
                    result.damaged.append((run, problem))
                else:
                    try:
                        failure = json.loads(self.run_file(run, ".failed.json").read_text())
                    except (OSError, ValueError):
                        continue  # e.g. only the program's output: the run did not finish
                    result.failed.append((run, failure))
                accounted.add(k)
            if done < r:
                result.incomplete[config.index] = frozenset(accounted) if accounted else _NONE
        result.digest = digest.hexdigest()
        return result

    def write_run(self, design: Design, run: Run, result: dict, provenance: dict[str, Any]) -> None:
        """Stores a run's result and provenance (store/rows.py): its tables' rows and its run
        row, then the record that vouches for them (the run is then done)."""
        row, tables = run_rows(design, run, result, provenance)
        for name, rows in tables.items():
            write_parquet(self.run_file(run, f".{name}.parquet"), rows)
        write_parquet(self.run_file(run), row)
        self.write_record(run, design.describe.tables)
        self.run_file(run, ".failed.json").unlink(missing_ok=True)

    def write_record(self, run: Run, tables: Iterable[str]) -> None:
        """The run's record: size, modification time, sha256 and rows of each of its files."""
        files = {}
        for path in self.run_files(run, tables):
            stat = path.stat()
            files[path.name] = {
                "bytes": stat.st_size,
                "mtime_ns": stat.st_mtime_ns,
                "sha256": file_sha256(path),
                "rows": pq.read_metadata(path).num_rows,
            }
        # the run number and base_seed it was made with: what makes it this run (:meth:`verify`)
        record = {"config_id": run.config_id, "replication": run.replication, "run": run.run}
        write_json(self.record_file(run), {**record, "seed": run.seed, "files": files})

    def write_failure(self, run: Run, record: dict[str, Any]) -> None:
        """Records why a run's last attempt failed."""
        write_json(self.run_file(run, ".failed.json"), record)

    def quarantine(self, run: Run) -> list[Path]:
        """Moves every file of a damaged run to ``quarantine/<time>/<config_id>/`` (nothing
        is deleted) and removes its configuration's job manifests, so that the next run
        redoes it. Returns where the files went."""
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S")
        target = self.root / "quarantine" / stamp / run.config_id
        moved = []
        for path in sorted(self.run_dir(run.config_id).glob(f"r{run.replication}.*")):
            target.mkdir(parents=True, exist_ok=True)
            os.replace(path, target / path.name)
            moved.append(target / path.name)
        self.invalidate(run.config_id)
        return moved

    def invalidate(self, config_id: str) -> None:
        """Removes the configuration's job manifests: the manifest says the job ran, not that
        its runs are still there, so Snakemake must look again."""
        for manifest in self.run_dir(config_id).glob("complete-*.json"):
            manifest.unlink(missing_ok=True)

    def repair(self, state: State, warn: Callable[[str], None]) -> None:
        """Before a sweep: quarantines the damaged runs (a warning naming their files), gives
        runs made before records a record, and invalidates the manifests of configurations
        whose runs are not all done, so that Snakemake runs their jobs again."""
        tables = list(state.design.describe.tables)
        for run, problem in state.damaged:
            moved = self.quarantine(run)
            where = moved[0].parent if moved else self.root / "quarantine"
            names = ", ".join(p.name for p in moved) or "no file"
            warn(
                f"{run.config_id}/r{run.replication} is damaged ({problem}): moved {names} to "
                f"{where}; it runs again"
            )
        for run in state.done:
            if not self.record_file(run).is_file():
                self.write_record(run, tables)
        for config in state.incomplete_configurations():
            self.invalidate(config.config_id)

    def elapsed_seconds(self, runs: Iterable[Run]) -> list[float]:
        """The elapsed_seconds of these finished (and verified) runs."""
        values = []
        for run in runs:
            table = pq.read_table(self.run_file(run), columns=["elapsed_seconds"])
            values.extend(v for v in table.column(0).to_pylist() if v is not None)
        return values

    # -- compaction -------------------------------------------------------------------------

    @property
    def compaction_file(self) -> Path:
        return self.root / "compaction.json"

    def collect(self, design: Design, warn: Callable[[str], None] = print) -> int:
        """Compacts the design's finished runs into runs.parquet and one file per table.

        Only runs of the current design are included (in its order: configuration,
        replication), so the store never holds a run twice or a run of an older version of
        the design. Every run is verified as it is read (:meth:`verify`, deep); a damaged one
        is quarantined with a warning and left out. The new tables are written beside the old
        ones and renamed into place, the run table last, then compaction.json: a failure
        leaves the previous tables as they were. compaction.json keeps the tables' rows, sizes
        and sha256 and the digest of the runs compacted (:attr:`State.digest`), against which
        :meth:`compaction_problem` checks them. Returns the number of runs.
        """
        tables = list(design.describe.tables)
        state = self.state(design, deep=True)
        self.repair(state, warn)
        schemas = {"runs": (run_schema(design), "")}
        for name in tables:
            schemas[name] = (table_schema(design, name), f".{name}")
        written: dict[str, tuple[Path, int]] = {}
        try:
            for name in [*tables, "runs"]:
                schema, infix = schemas[name]
                parts = [pq.read_table(self.run_file(r, f"{infix}.parquet")) for r in state.done]
                table = (
                    pa.concat_tables(parts, promote_options="permissive")
                    if parts
                    else schema.empty_table()
                )
                temporary = self.root / f".{name}.parquet.compacting.{os.getpid()}"
                written[name] = (temporary, table.num_rows)
                pq.write_table(table, temporary)
            for name in [*tables, "runs"]:  # every table written: now into place, runs last
                os.replace(written[name][0], self.table(name))
        finally:
            for temporary, _ in written.values():
                temporary.unlink(missing_ok=True)
        compacted = {}
        for name, (_, rows) in written.items():
            stat = self.table(name).stat()
            compacted[name] = {
                "rows": rows,
                "bytes": stat.st_size,
                "mtime_ns": stat.st_mtime_ns,
                "sha256": file_sha256(self.table(name)),
            }
        write_json(
            self.compaction_file,
            {
                "runs": len(state.done),
                "digest": state.digest,
                "tables": compacted,
                "design_sha256": design.sha256(),
                "compacted_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            },
        )
        return len(state.done)

    def compaction_problem(self, state: State, deep: bool = False) -> str | None:
        """None when the compacted tables hold exactly the done runs of ``state`` (its design's
        :meth:`state`) as their last compaction wrote them, else what is wrong: a compaction
        killed half way, runs done or redone since, a table truncated, replaced or removed.
        Cheap: compaction.json, each table's Parquet metadata and size, its sha256 only when
        its modification time changed (or ``deep``), and :attr:`State.digest`."""
        done = len(state.done)
        try:
            compaction = json.loads(self.compaction_file.read_text())
            compacted, runs = compaction["tables"], compaction["runs"]
            if not isinstance(compacted, dict):
                raise TypeError(compacted)
        except FileNotFoundError:
            return f"the {done} done runs are not compacted (no compaction.json)" if done else None
        except (OSError, ValueError, KeyError, TypeError) as e:
            return f"compaction.json is unreadable ({e.__class__.__name__})"
        for name in ["runs", *state.design.describe.tables]:
            path = self.table(name)
            expected = compacted.get(name)
            if not isinstance(expected, dict):
                return f"compaction.json has no table {name}"
            try:
                rows = pq.read_metadata(path).num_rows
                stat = path.stat()
            except FileNotFoundError:
                return f"{path.name} is missing"
            except (OSError, pa.ArrowException) as e:
                return f"{path.name} is not a Parquet file ({e.__class__.__name__})"
            if name == "runs" and rows != done:
                if rows < done:
                    return f"{path.name} holds {rows} of {done} done runs"
                return f"{path.name} holds {rows} runs, {done} are done"
            if rows != expected.get("rows"):
                return f"{path.name} has {rows} rows, its compaction wrote {expected.get('rows')}"
            if "bytes" not in expected:  # compacted before compaction.json kept more
                continue
            if stat.st_size != expected["bytes"]:
                wrote = expected["bytes"]
                return f"{path.name} has {stat.st_size} bytes, its compaction wrote {wrote}"
            changed = stat.st_mtime_ns != expected.get("mtime_ns")
            if (deep or changed) and file_sha256(path) != expected.get("sha256"):
                return f"{path.name} is not the file its compaction wrote (another sha256)"
        if runs != done:
            return f"the tables hold the {runs} runs compacted before, {done} are done now"
        if compaction.get("digest", state.digest) != state.digest:
            return f"the tables hold other runs than the {done} done now (redone since)"
        return None

    # -- SQL ----------------------------------------------------------------------------------

    def tables(self) -> list[str]:
        """The compacted tables present: ``runs`` first, then the program's."""
        found = sorted(p.stem for p in self.root.glob("*.parquet") if p.stem != "runs")
        return ["runs", *found] if self.runs_table.is_file() else found

    def unreadable(self) -> str | None:
        """None when every compacted table reads as Parquet, else what is wrong."""
        return _readable([self.table(name) for name in self.tables()])

    def link_out(self) -> str | None:
        """None when every symbolic link in the store leads to a place inside it, else the
        first that does not (or loops), as ``link -> target``: a query may read every file of
        the store, and DuckDB follows links."""
        root = self.root.resolve()
        folders = [root]
        while folders:
            try:
                entries = list(os.scandir(folders.pop()))
            except (FileNotFoundError, NotADirectoryError):  # gone meanwhile (a run moved it)
                continue
            for entry in entries:
                if entry.is_symlink():
                    target, inside = "?", False
                    try:
                        target = os.readlink(entry.path)
                        inside = Path(entry.path).resolve().is_relative_to(root)
                    except (OSError, RuntimeError):  # a loop (or gone meanwhile)
                        pass
                    if not inside:
                        return f"{entry.path} -> {target}"
                elif entry.is_dir(follow_symlinks=False):
                    folders.append(Path(entry.path))
        return None

    def connect(self) -> duckdb.DuckDBPyConnection:
        """An in-memory DuckDB database with one view per compacted table (``runs``, ...)."""
        return connect([self])


def check_read_only(query: str) -> None:
    """Refuses (StoreError) a query with a statement that does not only read, as DuckDB's own
    parser types them; the message names the statement."""
    try:
        statements = duckdb.extract_statements(query)
    except duckdb.Error as e:
        raise StoreError(str(e).strip()) from None
    for statement in statements:
        kind: duckdb.StatementType | None = statement.type
        name = statement.type.name.replace("_", " ")
        if kind == duckdb.StatementType.EXPLAIN:
            kind = _explained(statement.query)
            name = "EXPLAIN of a " + (kind.name.replace("_", " ") if kind else "hidden")
        if kind not in READ_ONLY:
            raise StoreError(
                f"{name} statement refused: {statement.query.strip()[:60]!r}; allowed: queries "
                "that read (SELECT, WITH, FROM, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN [ANALYZE] of "
                "one of them); to export a result use --out FILE.csv or FILE.parquet"
            )


def _explained(text: str) -> duckdb.StatementType | None:
    """The type of the statement that the EXPLAIN statement ``text`` explains, which EXPLAIN
    ANALYZE runs; None when it cannot be told. DuckDB's parser types what follows EXPLAIN at
    each place its statement may start (EXPLAIN [ANALYZE] [VERBOSE] or EXPLAIN (options): up to
    the options' closing parenthesis): any that is not a read is the answer, so that a
    misjudged start can only refuse a read, never let a write through."""
    tokens = [position for position, _ in duckdb.tokenize(text)]
    starts = tokens[1:4]
    if len(tokens) > 1 and text[tokens[1]] == "(":
        close = next((i for i in range(2, len(tokens)) if text[tokens[i]] == ")"), len(tokens))
        starts = tokens[1 : close + 2]
    found = None
    for position in starts:
        try:
            statements = duckdb.extract_statements(text[position:])
        except duckdb.Error:
            continue
        for statement in statements:
            if statement.type not in READ_ONLY:
                return statement.type
            found = statement.type
    return found


def connect(
    stores: list[Store], references: dict[str, Path] | None = None, memory: str | None = None
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB database with one view per table name over ``stores`` (unioned by
    column name when there are several), confined by DuckDB itself: files only inside the
    stores' resolved folders (``allowed_directories``; a store with a link leading out of it
    is refused, :meth:`Store.link_out`), no other file, network or extension install
    (``enable_external_access`` off), no spilling to a temporary folder (DuckDB's default
    ``.tmp`` in the current directory would be allowed too), and no setting can be changed
    back (``lock_configuration``). Queries go through :func:`check_read_only` first: the
    confinement keeps a query inside the stores, the check keeps it from writing there.

    ``references``: name -> a CSV or Parquet file outside the stores (e.g. a paper's table to
    compare with), read into an in-memory table of that name before the confinement starts.
    ``memory``: DuckDB's ``memory_limit`` (e.g. ``2GB``; None: DuckDB's default), a hard cap
    since nothing spills.
    """
    for store in stores:
        link = store.link_out()
        if link:
            raise StoreError(
                f"study '{store.study}': the link {link} leads out of its store; allowed: links "
                "inside the store only (remove it)"
            )
    config = {"autoinstall_known_extensions": False, "temp_directory": ""}
    con = duckdb.connect(config={**config, **({"memory_limit": memory} if memory else {})})
    names = dict.fromkeys(name for store in stores for name in store.tables())
    for name, path in (references or {}).items():
        if name in names:
            raise StoreError(f"--table {name}: the store has a table of that name")
        if path.suffix.lower() not in (".csv", ".parquet"):
            raise StoreError(f"--table {name}={path}: allowed: a .csv or .parquet file")
        reader = "read_csv" if path.suffix.lower() == ".csv" else "read_parquet"
        quoted = '"' + name.replace('"', '""') + '"'
        try:
            con.execute(f"CREATE TABLE {quoted} AS SELECT * FROM {reader}(?)", [str(path)])
        except duckdb.IOException as e:
            raise StoreError(f"--table {name}={path}: cannot read it ({e})") from None
    for name in names:
        files = [str(s.table(name).resolve()) for s in stores if s.table(name).is_file()]
        listed = ", ".join("'" + f.replace("'", "''") + "'" for f in files)
        quoted = '"' + name.replace('"', '""') + '"'
        con.execute(
            f"CREATE VIEW {quoted} AS SELECT * FROM read_parquet([{listed}], union_by_name = true)"
        )
    roots = [str(s.root.resolve()) + "/" for s in stores]
    allowed = ", ".join("'" + root.replace("'", "''") + "'" for root in roots)
    con.execute(f"SET allowed_directories = [{allowed}]")
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    return con


def studies(results: str | os.PathLike[str] | None = None) -> list[Store]:
    """Every study's store under the results directory (those with a runs.parquet)."""
    base = results_dir(results)
    return [Store(p.parent) for p in sorted(base.glob("*/runs.parquet"))]
