"""The runs in a store: which of a design's runs are done, damaged, failed or missing (State),
each run's files written before the record that vouches for them (record-last: a run is done
only when its record is there and its files match it), and the quarantine of damaged runs."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from satsweep.design import Configuration, Design, Run
from satsweep.engine import file_sha256
from satsweep.store import folds
from satsweep.store.files import (
    parquet_bytes,
    parquet_table,
    write_atomically,
    write_bytes,
    write_json,
)
from satsweep.store.layout import (
    RECORD,
    ROW,
    ROW_SHA256,
    Layout,
    read_columns,
    readable,
    row_matches,
    row_sha256,
    row_value,
    run_file_name,
    vouched_names,
)

if TYPE_CHECKING:
    import pyarrow as pa

    from satsweep.store.store import Store

#: What :meth:`Runs.verify` says of a run that has not finished (no record, no run row).
NOT_DONE = "not done"
_NONE: frozenset[int] = frozenset()


class Seen(NamedTuple):
    """What the quick look takes from a run's record (:func:`seen_in`)."""

    made: object  # the run number the run was made with (None in a record of before them)
    files: dict[str, Any]  # the files it vouches for, by name: bytes, mtime_ns, sha256, rows
    within: bool  # whether the record holds the run's row (else r<k>.parquet does)
    row_sha256: object  # the row's sha256 when it holds it


def seen_in(record: Any) -> Seen:
    """:class:`Seen` of a parsed record; TypeError or KeyError when it is not one."""
    files = record["files"]
    if not isinstance(files, dict):
        raise TypeError(files)
    within = ROW in record  # the run's row is in its record, not a file of its own
    if within and not isinstance(record[ROW], dict):
        raise TypeError(record[ROW])
    return Seen(record.get("run"), files, within, record.get(ROW_SHA256))


def identity(stat: os.stat_result) -> list[int]:
    """A file's identity for the records' cache: inode, size, modification and change times
    (a file rewritten, replaced, copied or touched has another)."""
    return [stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns]


def read_record(path: str | os.PathLike[str]) -> tuple[Any, list[int] | None]:
    """A record file parsed, and its :func:`identity` when the file did not change while it
    was read (else None: what was read is not to be cached under it)."""
    with open(path, "rb") as handle:
        before = identity(os.fstat(handle.fileno()))
        record = json.loads(handle.read())
        unchanged = identity(os.fstat(handle.fileno())) == before
    return record, before if unchanged else None


#: The records' cache's format (:meth:`Runs.records_cache_entries`): a cache of another is
#: not read. Each entry: the record file's identity (4 ints), then its :class:`Seen`.
CACHE_FORMAT = 1
_IDENTITY = 4  # the ints of identity()
_CACHED = _IDENTITY + len(Seen._fields)
_FILES, _WITHIN = (_IDENTITY + Seen._fields.index(name) for name in ("files", "within"))


def cache_entry(identity_read: list[int], seen: Seen) -> list:
    """A run's entry in the records' cache: its record file's identity, then :class:`Seen`."""
    return [*identity_read, *seen]


def _file_entry(stat: os.stat_result, sha256: str, rows: int) -> dict[str, Any]:
    """A file's entry in its run's record."""
    return {"bytes": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": sha256, "rows": rows}


def _digest_line(run: Run, folder: str, seen: Seen | None) -> bytes:
    """What a done run adds to the digest of a store's runs (:attr:`State.digest`): its key,
    its run number and the sha256 of its run row as its record gives it (of the row it holds,
    or of its file in ``folder`` for a run stored before records held the row), or read for a
    run made before records (a run redone gets another row: its start time at least)."""
    row = run_file_name(run.replication)
    if seen is None:
        recorded = file_sha256(f"{folder}/{row}")
    else:
        recorded = seen.row_sha256 if seen.within else seen.files[row].get("sha256")
    return f"{run.config_id}/r{run.replication}:{run.run}:{recorded}\n".encode()


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
    #: the done runs made before records, which have none (:meth:`Runs.repair` writes theirs)
    unrecorded: list[Run] = field(default_factory=list)
    #: the configurations (by index) with a run not done, and their replications that are
    #: done, failed or damaged (the others are missing)
    incomplete: dict[int, frozenset[int]] = field(default_factory=dict)
    #: sha256 over the done runs, in order, each with its run number and its row's sha256
    #: (_digest_line): compaction.json keeps that of the runs compacted
    #: (:meth:`Store.compaction_problem`)
    digest: str = ""
    #: the records' cache of the done runs as this state saw them (each record taken from the
    #: cache or read), and how many were read: :meth:`Runs.write_records_cache` takes them
    seen: dict[str, list] = field(default_factory=dict, repr=False)
    records_read: int = 0
    #: the done runs whose files are in a fold (store/folds.py), by key (``<config_id>/r<k>``)
    folded: dict[str, folds.Folded] = field(default_factory=dict, repr=False)
    #: the folds whose index cannot be read (number, what is wrong): :meth:`Runs.repair`
    #: quarantines them (their runs, not seen, are missing)
    broken_folds: list[tuple[int, str]] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.design.n_runs

    @property
    def n_missing(self) -> int:
        """Runs never run (or whose files were removed): no record, no run row, no failure."""
        return self.total - len(self.done) - len(self.failed) - len(self.damaged)

    def incomplete_configurations(self) -> Iterator[Configuration]:
        """The configurations with a run not done."""
        if not self.incomplete:  # a complete store: no configuration to expand
            return
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


class Runs(Layout):
    """The runs of designs in a store: their state, their writing, their quarantine."""

    def is_done(self, run: Run) -> bool:
        """Whether the run has finished (its record, or a run row of a store made before
        records, or it is in a fold; :meth:`verify` says whether its files are intact)."""
        if self.record_file(run).is_file() or self.run_file(run).is_file():
            return True
        return run.replication in self.folded_runs().get(run.config_id, {})

    def verify(self, run: Run, tables: Iterable[str], deep: bool = False) -> str | None:
        """None when the run is done and its files are intact, else what is wrong (a run not
        done at all is :data:`NOT_DONE`). A file whose size or modification time differs from
        its record is read and its sha256 compared (a copied store stays intact); ``deep``
        reads every file. A run made before records existed is trusted when its files can be
        read as Parquet. A run made with another run number (--run) than ``run``'s, as its
        record or else its run row says, is not this run."""
        problem = self._verify(self.run_folder(run.config_id), run, list(tables), deep)[0]
        if problem is NOT_DONE:
            folded = self.folded_runs().get(run.config_id, {}).get(run.replication)
            if folded is not None:
                return self._folded_problem(run, folded, list(tables), deep)
        return problem

    def _folded_problem(
        self, run: Run, folded: folds.Folded, tables: list[str], deep: bool
    ) -> str | None:
        """:meth:`verify` of a run in a fold: its bytes against their sha256 there."""
        path = self.folds_dir / folds.data_name(folded.fold)
        key = f"{run.config_id}/r{run.replication}"
        check = self._deep_check(tables) if deep else None
        try:
            problems = folds.check_members(path, [(key, folded.seen, folded.members)], check)
        except OSError:
            return f"{path.name} is missing"
        return problems.get(key) or self._other_run(run, folded.seen[0])

    @staticmethod
    def _deep_check(tables: list[str]) -> Callable:
        """A deep look at a folded run (store/folds.py): its record parses and vouches for the
        fold's bytes of its files, its row matches its sha256, its tables are Parquet."""

        def check(key: str, members: dict[str, list], read: Callable) -> str | None:
            k = int(key.rpartition("/r")[2])
            record_name = run_file_name(k, RECORD)
            try:
                record = json.loads(read(members[record_name]))
                seen = seen_in(record)
            except (KeyError, OSError, ValueError, TypeError) as e:
                return f"{record_name} is unreadable ({e.__class__.__name__})"
            if seen.within and not row_matches(record):
                return f"{record_name}: its run row does not match its sha256"
            for name in vouched_names(k, tables, row=not seen.within):
                member = members.get(name)
                expected = seen.files.get(name)
                if member is None or not isinstance(expected, dict):
                    return f"{name} is missing"
                if member[2] != expected.get("sha256"):
                    return f"{name} does not match its sha256"
                try:
                    parquet_table(read(member))
                except Exception as e:  # pyarrow's errors: not a Parquet file
                    return f"{name} is not a Parquet file ({e.__class__.__name__})"
            return None

        return check

    def _verify(
        self,
        folder: str,
        run: Run,
        tables: list[str],
        deep: bool = False,
        cached: Seen | None = None,
    ) -> tuple[str | None, Seen | None, list[int] | None]:
        """:meth:`verify` of a run whose files are in ``folder``, what its record says (None
        without one) and, when it was read, the record file's identity (:func:`read_record`).
        Paths are strings: :meth:`state` calls it for every run. ``cached``: the record as
        the records' cache has it, its file unchanged since (:meth:`_cached`), taken instead
        of reading it unless ``deep``."""
        row = f"{folder}/{run_file_name(run.replication)}"
        record_name = run_file_name(run.replication, RECORD)
        read = None
        try:
            if cached is not None and not deep:
                seen = cached
            else:
                record, read = read_record(f"{folder}/{record_name}")
                seen = seen_in(record)
        except FileNotFoundError:
            if not os.path.isfile(row):
                return NOT_DONE, None, None
            # a run made before records: its files must parse
            names = vouched_names(run.replication, tables)
            problem = readable([Path(folder, name) for name in names])
            return problem or self._other_run(run, row_value(Path(row), "run")), None, None
        except (OSError, ValueError, KeyError, TypeError) as e:
            return f"{record_name} is unreadable ({e.__class__.__name__})", None, None
        made = seen.made
        if type(made) is not int and os.path.isfile(row):  # a record of before run numbers
            made = row_value(Path(row), "run")
        names = vouched_names(run.replication, tables, row=not seen.within)
        if seen.within and deep and not row_matches(record):
            return f"{record_name}: its run row does not match its sha256", seen, read
        problem = self._intact(folder, names, seen.files, deep) or self._other_run(run, made)
        return problem, seen, read

    @staticmethod
    def _cached(folder: str, run_key: str, replication: int, cache: dict[str, Any]) -> Seen | None:
        """The run's record as the records' cache has it when the record's file still has the
        identity the cache gives it (it is the file the last compaction read), else None."""
        entry = cache.get(run_key)
        # of the shape of an entry; its identity is then compared with the file's (ints)
        if type(entry) is not list or len(entry) != _CACHED or type(entry[_FILES]) is not dict:
            return None
        try:
            stat = os.stat(f"{folder}/r{replication}{RECORD}")
        except OSError:
            return None
        if type(entry[_WITHIN]) is not bool or identity(stat) != entry[:_IDENTITY]:
            return None
        return Seen(*entry[_IDENTITY:])

    def records_cache_entries(self, design: Design) -> dict[str, Any]:
        """The records' cache (:attr:`Layout.records_cache`) by run (``<config_id>/r<k>``),
        each entry the record file's :func:`identity` then its :class:`Seen` (the shape
        unchecked: :meth:`_cached`). Empty when the cache is missing, unreadable or made
        for another base_seed or streams: its entries are runs of the design it was written
        for (:meth:`write_records_cache`), their run numbers that design's."""
        try:
            with open(self.records_cache, "rb") as handle:
                cache = json.loads(handle.read())
            made_for = [cache["format"], cache["base_seed"], cache["streams"]]
            entries = cache["records"]
        except (OSError, ValueError, KeyError, TypeError):
            return {}
        ours = made_for == [CACHE_FORMAT, design.base_seed, design.streams]
        return entries if ours and isinstance(entries, dict) else {}

    def write_records_cache(self, design: Design, entries: dict[str, list]) -> None:
        """Writes the records' cache of ``design``'s done runs (atomically; compact JSON: it
        holds every done run): only runs made with its run numbers belong there."""
        cache = {"format": CACHE_FORMAT, "base_seed": design.base_seed, "streams": design.streams}
        text = json.dumps({**cache, "records": entries}, separators=(",", ":"))
        write_atomically(self.records_cache, lambda t: t.write_text(text))

    @staticmethod
    def _intact(folder: str, names: list[str], recorded: dict[str, Any], deep: bool) -> str | None:
        """None when the files ``names`` in ``folder`` match their record's ``files``, else
        what is wrong."""
        for name in names:
            expected = recorded.get(name)
            if not isinstance(expected, dict):
                return f"{name} is not in its record"
            path = f"{folder}/{name}"
            try:
                stat = os.stat(path)
            except OSError:
                return f"{name} is missing"
            if stat.st_size != expected.get("bytes"):
                return f"{name} has {stat.st_size} bytes, its record {expected.get('bytes')}"
            changed = stat.st_mtime_ns != expected.get("mtime_ns")
            if (deep or changed) and file_sha256(path) != expected.get("sha256"):
                return f"{name} does not match its sha256"
        return readable([Path(folder, name) for name in names]) if deep else None

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
        or missing, from the files alone; ``deep`` rereads every file. runs/ is read once; of
        each configuration with a directory there, the replications 1..r are looked at in
        turn, each with one read of its record (one stat of it when the records' cache has it:
        :meth:`_cached`) and one stat per file, until one is not done:
        then the directory is read once and only the replications with files are looked at
        (the listing of every directory cost a quarter of a complete store's state, and
        looking at every replication of a sparse store would cost its design's size)."""
        result = State(design, self)
        tables = list(design.describe.tables)
        present = self.configurations_with_files()
        cache = {} if deep else self.records_cache_entries(design)
        digest = hashlib.sha256()
        in_folds, result.broken_folds, trusted = self._folds_for(design, tables, deep)

        def take_folded(k: int, folded: folds.Folded) -> bool:
            """A run in a fold, done (True) or damaged."""
            made = folded.seen[0]
            run = config.run(design, k, made if trusted and type(made) is int else None)
            problem = folded.problem or self._other_run(run, made)
            if problem is not None:
                result.damaged.append((run, problem))
                return False
            result.done.append(run)
            result.folded[f"{config.config_id}/r{k}"] = folded
            digest.update(_digest_line(run, "", Seen(*folded.seen)))
            return True

        for config in design.iter_configurations():
            folded_here = in_folds.get(config.config_id, {})
            if config.config_id not in present and not folded_here:
                result.incomplete[config.index] = _NONE
                continue
            folder = self.run_folder(config.config_id)
            accounted = set()
            done = 0
            r = design.replications_for(config.config_id)
            # read at the first run not done (no folder: no run has files of its own)
            listed: dict[int, set[str]] | None = None if config.config_id in present else {}
            for k in range(1, r + 1):
                if listed is not None and k not in listed:
                    if k in folded_here:  # no file of its own: its fold's
                        done += take_folded(k, folded_here[k])
                        accounted.add(k)
                    continue  # no file: missing
                key = f"{config.config_id}/r{k}"
                cached = self._cached(folder, key, k, cache)
                # a record the last compaction read was made with the design's run number
                number = cached.made if cached is not None and type(cached.made) is int else None
                run = config.run(design, k, number)
                problem, seen, read = self._verify(folder, run, tables, deep, cached)
                if problem is not None and cached is not None:  # the record has the last word
                    run = config.run(design, k)
                    problem, seen, read = self._verify(folder, run, tables, deep)
                if problem is None:
                    result.done.append(run)
                    if seen is None:
                        result.unrecorded.append(run)
                    elif read is not None:
                        result.seen[key] = cache_entry(read, seen)
                        result.records_read += 1
                    elif cached is not None and not deep:
                        result.seen[key] = cache[key]
                    digest.update(_digest_line(run, folder, seen))
                    done += 1
                elif problem is not NOT_DONE:
                    result.damaged.append((run, problem))
                elif k in folded_here:  # no record of its own (a fold's removal cut short)
                    done += take_folded(k, folded_here[k])
                else:
                    if listed is None:
                        listed = self.replications_with_files(config.config_id, r)
                        if k not in listed:
                            continue
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

    def _folds_for(
        self, design: Design, tables: list[str], deep: bool
    ) -> tuple[dict, list[tuple[int, str]], bool]:
        """The folded runs (store/folds.py :func:`~folds.load`, checked, ``deep`` or by their
        .bin's identity) by config_id and replication, the folds that cannot be read, and
        whether the runs' numbers are the design's (each fold's index names the base_seed and
        streams its runs were made with). Kept for :meth:`folded_runs` (one copy in memory)."""
        try:
            stat = os.stat(self.folds_dir)
        except FileNotFoundError:
            return {}, [], False
        check = self._deep_check(tables) if deep else None
        folded, broken, made_for = folds.load(self.folds_dir, deep, check)
        self._folded, self._folded_mark = folded, (stat.st_ino, stat.st_mtime_ns)
        return folded, broken, made_for == {(design.base_seed, design.streams)}

    def write_run(
        self, design: Design, run: Run, result: dict, provenance: dict[str, Any]
    ) -> dict[str, tuple[str, pa.Table]]:
        """Stores a run's result and provenance (store/rows.py): its tables' rows, then the
        record that vouches for them and holds the run's row (the run is then done). Returns
        what it wrote, by suffix (``.<table>.parquet``): each file's sha256 and rows (a
        worker's :class:`RowBatch` keeps them for the compaction)."""
        from satsweep.store.rows import rows_table, run_values, table_rows  # pyarrow

        row = run_values(design, run, result, provenance)
        rows_table(design, [row])  # typed now: a value its column cannot take fails the run
        tables = table_rows(design, run, result)
        self.run_dir(run.config_id).mkdir(parents=True, exist_ok=True)
        files, written = {}, {}
        # the tables, then the record: each file hashed as it is written
        for name, rows in tables.items():
            path = self.run_file(run, f".{name}.parquet")
            data = parquet_bytes(rows)
            stat = write_bytes(path, data)
            sha256 = hashlib.sha256(data).hexdigest()
            files[path.name] = _file_entry(stat, sha256, rows.num_rows)
            written[f".{name}.parquet"] = (sha256, rows)
        self._write_record(run, files, row)
        self.run_file(run, ".failed.json").unlink(missing_ok=True)
        return written

    def write_record(self, run: Run, tables: Iterable[str]) -> None:
        """The record of a run's files as they are: size, modification time, sha256 and rows
        of each (a run made before records existed)."""
        import pyarrow.parquet as pq

        files = {}
        for path in self.run_files(run, tables):
            stat = path.stat()
            rows = pq.read_metadata(path).num_rows
            files[path.name] = _file_entry(stat, file_sha256(path), rows)
        self._write_record(run, files)

    def _write_record(
        self, run: Run, files: dict[str, dict[str, Any]], row: dict[str, Any] | None = None
    ) -> None:
        # the run number and base_seed it was made with: what makes it this run (:meth:`verify`)
        record = {"config_id": run.config_id, "replication": run.replication, "run": run.run}
        record.update(seed=run.seed, files=files)
        if row is not None:  # the run's row, and its sha256 as the digest and checks take it
            record.update({ROW: row, ROW_SHA256: row_sha256(row)})
        write_json(self.record_file(run), record)

    def write_failure(self, run: Run, record: dict[str, Any]) -> None:
        """Records why a run's last attempt failed."""
        write_json(self.run_file(run, ".failed.json"), record)

    def quarantine(self, run: Run) -> list[Path]:
        """Moves every file of a damaged run to ``quarantine/<time>/<config_id>/`` (nothing
        is deleted) and removes its configuration's job manifests, so that the next run
        redoes it. A run without a record of its own whose fold has it (store/folds.py) has
        its files copied there from the fold, and is dropped from the fold. Returns where the
        files went."""
        target = self._quarantine_dir() / run.config_id
        own = self.record_file(run).is_file() or self.run_file(run).is_file()
        moved = self.quarantine_own(run, target)
        folded = None if own else self.folded_runs().get(run.config_id, {}).get(run.replication)
        if folded is not None:
            key = f"{run.config_id}/r{run.replication}"
            files = folds.drop(self.folds_dir, folded.fold, {key}).get(key, {})
            moved += self._write_quarantined(target, files)
        self.invalidate(run.config_id)
        return moved

    @staticmethod
    def _write_quarantined(target: Path, files: dict[str, bytes]) -> list[Path]:
        """A folded run's files, as its fold has them, written into ``target``."""
        written = []
        for name, data in sorted(files.items()):
            target.mkdir(parents=True, exist_ok=True)
            write_bytes(target / name, data)
            written.append(target / name)
        return written

    def _quarantine_folded(self, state: State) -> dict[str, list[Path]]:
        """:meth:`quarantine` of the damaged runs of ``state`` that have no file of their own
        but a fold's: each fold's dropped at once (its index written once), their files copied
        out. Returns where each run's files went, by key."""
        by_fold: dict[int, dict[str, Run]] = {}
        for run, _ in state.damaged:
            folded = self.folded_runs().get(run.config_id, {}).get(run.replication)
            own = self.record_file(run).is_file() or self.run_file(run).is_file()
            if folded is not None and not own:
                by_fold.setdefault(folded.fold, {})[f"{run.config_id}/r{run.replication}"] = run
        moved: dict[str, list[Path]] = {}
        stamp = self._quarantine_dir()
        for fold, runs in by_fold.items():
            for key, files in folds.drop(self.folds_dir, fold, set(runs)).items():
                run = runs[key]
                moved[key] = [
                    *self.quarantine_own(run, stamp / run.config_id),
                    *self._write_quarantined(stamp / run.config_id, files),
                ]
                self.invalidate(run.config_id)
        return moved

    def quarantine_own(self, run: Run, target: Path) -> list[Path]:
        """Moves the files a run has of its own in its folder into ``target``."""
        moved = []
        for path in sorted(self.run_dir(run.config_id).glob(f"r{run.replication}.*")):
            target.mkdir(parents=True, exist_ok=True)
            os.replace(path, target / path.name)
            moved.append(target / path.name)
        return moved

    def _quarantine_dir(self) -> Path:
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S")
        return self.root / "quarantine" / stamp

    def quarantine_fold(self, fold: int) -> list[Path]:
        """Moves a fold whose index cannot be read (its .bin and index) to
        ``quarantine/<time>/folds/``: its runs, which no index vouches for, are run again."""
        target = self._quarantine_dir() / folds.FOLDS
        target.mkdir(parents=True, exist_ok=True)
        moved = []
        for name in (folds.index_name(fold), folds.data_name(fold)):
            if os.path.lexists(self.folds_dir / name):
                os.replace(self.folds_dir / name, target / name)
                moved.append(target / name)
        return moved

    def invalidate(self, config_id: str) -> None:
        """Removes the configuration's job manifests: the manifest says the job ran, not that
        its runs are still there, so Snakemake must look again."""
        for manifest in self.run_dir(config_id).glob("complete-*.json"):
            manifest.unlink(missing_ok=True)

    def repair(
        self, state: State, warn: Callable[[str], None], then: str = "it runs again"
    ) -> None:
        """Before a sweep: quarantines the damaged runs (a warning naming their files and
        ``then``, what becomes of the run), gives runs made before records a record, and
        invalidates the manifests of configurations whose runs are not all done, so that
        Snakemake runs their jobs again."""
        tables = list(state.design.describe.tables)
        for fold, problem in state.broken_folds:
            moved = self.quarantine_fold(fold)
            where = moved[0].parent if moved else self.root / "quarantine"
            warn(f"fold {fold} is damaged ({problem}): moved it to {where}; its runs {then}")
        from_folds = self._quarantine_folded(state)
        for run, problem in state.damaged:
            key = f"{run.config_id}/r{run.replication}"
            moved = from_folds[key] if key in from_folds else self.quarantine(run)
            where = moved[0].parent if moved else self.root / "quarantine"
            names = ", ".join(p.name for p in moved) or "no file"
            warn(
                f"{run.config_id}/r{run.replication} is damaged ({problem}): moved {names} to "
                f"{where}; {then}"
            )
        for run in state.unrecorded:
            self.write_record(run, tables)
        for config in state.incomplete_configurations():
            self.invalidate(config.config_id)

    def elapsed_seconds(self, runs: Iterable[Run]) -> list[float]:
        """The elapsed_seconds of these finished (and verified) runs."""
        values = []
        bins: dict[int, Any] = {}  # the folds' .bin files, opened once for every run
        try:
            for run in runs:
                row = self.stored_row(run, bins)
                if row is not None:
                    value = row.get("elapsed_seconds")
                else:  # a run stored before records held the row
                    value = self._row_file_value(run, "elapsed_seconds", bins)
                if value is not None:
                    values.append(value)
        finally:
            for handle in bins.values():
                handle.close()
        return values

    def _row_file_value(self, run: Run, column: str, bins: dict[int, Any]) -> Any:
        """``column`` of a run's row file r<k>.parquet (a run stored before records held the
        row), in its folder or its fold."""
        path = self.run_file(run)
        if not path.is_file():
            data = self.folded_file(run.config_id, run.replication, ".parquet", bins)
            table = parquet_table(data).select([column]) if data is not None else None
        else:
            table = read_columns(path, [column])
        return table.column(0).to_pylist()[0] if table is not None and table.num_rows else None

    def stored_row(self, run: Run, bins: dict[int, Any] | None = None) -> dict[str, Any] | None:
        """The run's row as its record holds it (:func:`satsweep.store.rows.run_values`), or
        None when its record does not (a run stored before records held the row: its file
        r<k>.parquet has it). ``bins``: as :meth:`folded_file` takes them."""
        try:
            record = json.loads(self.record_file(run).read_bytes())
        except FileNotFoundError:
            record = self.folded_record(run.config_id, run.replication, bins)
        row = record.get(ROW) if isinstance(record, dict) else None
        return row if isinstance(row, dict) else None
