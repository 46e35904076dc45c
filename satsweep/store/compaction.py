"""Compaction: a design's done runs into one file per table (runs.parquet, <table>.parquet),
written beside the old ones and renamed into place so that no row is ever lost, and the check
that the tables hold exactly the done runs as their last compaction wrote them
(compaction.json)."""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from satsweep.design import Design
from satsweep.engine import file_sha256
from satsweep.store import folds
from satsweep.store.files import parquet_table, write_json
from satsweep.store.layout import RECORD, ROW, StoreError, row_matches, run_file_name
from satsweep.store.runs import Runs, State, cache_entry, read_record, seen_in

if TYPE_CHECKING:
    import pyarrow as pa


#: Rows from records made into one table at a time: a row as a dict costs about 2 KB, in a
#: table its 20 values 200 bytes.
ROWS_AT_ONCE = 4096
#: What becomes of a run the compaction quarantines: the sweep's runs are over by then.
AFTER_THE_RUNS = "left out of the tables; the next sweep runs it again"


def _footer_rows(path: Path) -> tuple[str | None, int]:
    """(None, the rows its Parquet footer gives) for a table, or (what is wrong, 0)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return None, pq.read_metadata(path).num_rows
    except FileNotFoundError:
        return f"{path.name} is missing", 0
    except (OSError, pa.ArrowException) as e:
        return f"{path.name} is not a Parquet file ({e.__class__.__name__})", 0


class Compaction(Runs):
    """A store's compacted tables: written from its runs, and checked against them."""

    def collect(
        self,
        design: Design,
        warn: Callable[[str], None] = print,
        state: State | None = None,
        parsed: Mapping[str, pa.Table] | None = None,
    ) -> State:
        """Compacts the design's finished runs into runs.parquet and one file per table.

        Only runs of the current design are included (in its order: configuration,
        replication), so the store never holds a run twice or a run of an older version of
        the design. Every run is verified as it is read: each file read once, its sha256
        compared with its record's (as :meth:`verify` does, deep); a damaged run is
        quarantined with a warning and left out. The new tables are written beside the old
        ones and renamed into place, the run table last, then compaction.json: a failure
        leaves the previous tables as they were. compaction.json keeps the tables' rows, sizes
        and sha256 and the digest of the runs compacted (:attr:`State.digest`), against which
        :meth:`compaction_problem` checks them. Then the runs' own files are folded
        (:meth:`fold`, store/folds.py) when there are enough of them.

        ``state``: the design's state as the caller has just taken it (no job writes any
        more), not taken again here. ``parsed``: rows by the sha256 of the file they were
        stored in (store/batches.py): a file read with that sha256 is not parsed again.
        Returns the store's state after the compaction: its done runs are the runs compacted.
        """
        import pyarrow as pa
        import pyarrow.parquet as pq

        from satsweep.store.rows import run_schema, table_schema

        tables = list(design.describe.tables)
        state = self.state(design) if state is None else state
        self.repair(state, warn, AFTER_THE_RUNS)
        parsed = parsed or {}
        done = self._read_done(state, tables, parsed)
        if done is None:  # a file damaged that its size and time did not show: the runs
            state = self.state(design, deep=True)  # verified again, deeply, and quarantined
            self.repair(state, warn, AFTER_THE_RUNS)
            done = self._read_done(state, tables, parsed)
            if done is None:
                raise StoreError(f"the runs in {self.root} changed during their compaction")
        read, seen = done
        schemas = {"runs": (run_schema(design), "")}
        for name in tables:
            schemas[name] = (table_schema(design, name), f".{name}")
        written: dict[str, tuple[Path, int]] = {}
        try:
            for name in [*tables, "runs"]:
                schema, infix = schemas[name]
                parts = read[f"{infix}.parquet"]
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
        try:
            folded: set[str] | None = self.fold(state)
        except OSError as e:  # the tables stand: the runs keep their files, or the folds had
            warn(f"the runs' files were not folded ({e.strerror or e}); the next compaction "
                 "folds them")  # fmt: skip
            folded = None
        for key in folded or ():  # their records are gone: the fold's index stands for them
            seen.pop(key, None)
        self.write_records_cache(design, seen)  # last: the tables stand without it
        if state.damaged or folded or folded is None:  # quarantined, folded: another state
            return self.state(design)
        return state

    def fold(self, state: State) -> set[str]:
        """Folds the done runs of ``state`` that still have files of their own into folds
        (store/folds.py), when there are at least :func:`~folds.fold_at` of them: each fold
        written and synced, then its runs' own files removed (the record first) and their
        folders when empty. Also removes what a fold killed half way left: a .bin without its
        index, the files of runs whose record a fold removed. Call it after a compaction of
        ``state`` (its runs verified), while no job writes. Returns the runs folded, by key."""
        indexed, data = folds.numbers(self.folds_dir)
        for fold in set(data) - set(indexed):  # a fold killed before its index: its runs
            (self.folds_dir / folds.data_name(fold)).unlink(missing_ok=True)  # have their files
        present = self.configurations_with_files()
        by_folder: dict[str, set[int]] = {}
        for key in state.folded:
            config_id, _, k = key.rpartition("/r")
            if config_id in present:
                by_folder.setdefault(config_id, set()).add(int(k))
        for config_id, folded_here in by_folder.items():  # files left by a removal cut short
            listed = self.replications_with_files(config_id, max(folded_here))
            for k in folded_here & set(listed):
                if RECORD not in listed[k]:  # else a record of its own: not the fold's run
                    names = [run_file_name(k, suffix) for suffix in listed[k]]
                    self._remove_run_files(config_id, names)
            self._remove_folder(config_id)
        own = [r for r in state.done if f"{r.config_id}/r{r.replication}" not in state.folded]
        if len(own) < folds.fold_at():
            return set()
        design = state.design
        made_for = (design.base_seed, design.streams)
        number = max([0, *indexed, *data])
        done: set[str] = set()
        listing: dict[str, dict[int, set[str]]] = {}  # the folder of the runs being folded
        for start in range(0, len(own), folds.FOLD_RUNS):
            chunk = own[start : start + folds.FOLD_RUNS]
            entries = (self._fold_entry(run, listing) for run in chunk)
            number += 1
            names: dict[str, list[str]] = {}  # each run's files, its record first

            def named(entry):
                names[entry[0]] = [name for name, _ in entry[2]]
                return entry

            keys = folds.write_fold(
                self.folds_dir, number, (named(e) for e in entries if e is not None), made_for
            )
            for key in keys:
                config_id = key.rpartition("/r")[0]
                self._remove_run_files(config_id, names[key])
                done.add(key)
            for config_id in {key.rpartition("/r")[0] for key in keys}:
                self._remove_folder(config_id)
        return done

    def _fold_entry(
        self, run, listing: dict[str, dict[int, set[str]]]
    ) -> tuple[str, list, list[tuple[str, bytes]]] | None:
        """A run's entry in a fold: its key, what its record says and its files (its record
        first, then the others of its folder: r<k>.*), or None when its record does not read
        or does not vouch for them as they are now (the run stays where it is). ``listing``:
        its configuration's folder as listed for the run before it, if that was of the same."""
        if run.config_id not in listing:
            listing.clear()
            listing[run.config_id] = self.replications_with_files(run.config_id, 1 << 62)
        record_name = run_file_name(run.replication, RECORD)
        suffixes = sorted(listing[run.config_id].get(run.replication, ()))
        folder = self.run_dir(run.config_id)
        try:
            files = [(record_name, (folder / record_name).read_bytes())]
            seen = seen_in(json.loads(files[0][1]))
            for suffix in suffixes:
                name = run_file_name(run.replication, suffix)
                if name != record_name and not name.endswith(".failed.json"):
                    files.append((name, (folder / name).read_bytes()))
        except (OSError, ValueError, KeyError, TypeError):
            return None
        for name, data in files:
            expected = seen.files.get(name)
            if isinstance(expected, dict) and hashlib.sha256(data).hexdigest() != expected.get(
                "sha256"
            ):
                return None
        return f"{run.config_id}/r{run.replication}", list(seen), files

    def _remove_run_files(self, config_id: str, names: list[str]) -> None:
        """Removes a folded run's files of its own, ``names`` in that order (its record first,
        so that a kill in between leaves the run its fold's)."""
        folder = self.run_folder(config_id)
        for name in names:
            if not name.endswith(".failed.json"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(f"{folder}/{name}")

    def _remove_folder(self, config_id: str) -> None:
        """Removes a configuration's folder when its runs are folded and it is empty."""
        with contextlib.suppress(OSError):  # other files in it
            os.rmdir(self.run_folder(config_id))

    def _read_done(
        self, state: State, tables: list[str], parsed: Mapping[str, pa.Table]
    ) -> tuple[dict[str, list[pa.Table]], dict[str, list]] | None:
        """Every done run's rows of ``state`` (by suffix: ``.parquet`` for the run table,
        ``.<table>.parquet``): a run's row from its record, checked against its sha256 there
        (from its file r<k>.parquet for a run stored before records held it), each file read
        once, its sha256 compared with its record's and parsed (or its rows taken from
        ``parsed`` under that sha256); None when one does not match or parse (a run damaged
        since: :meth:`collect` verifies them all again). And the records' cache of these
        runs, each record as it was read here (:meth:`Runs.records_cache_entries`)."""
        import pyarrow as pa

        from satsweep.store.rows import rows_table

        design = state.design
        suffixes = [f".{name}.parquet" for name in tables]
        read: dict[str, list[pa.Table]] = {suffix: [] for suffix in [".parquet", *suffixes]}
        held: list[dict] = []  # the rows from records, made one table before the next file's
        seen_now: dict[str, list] = {}  # the records' cache to come (Runs.records_cache_entries)

        def take(table: pa.Table | None = None) -> None:
            if held:
                read[".parquet"].append(rows_table(design, held))
                held.clear()
            if table is not None:
                read[".parquet"].append(table)

        bins: dict[int, Any] = {}  # the folds' .bin files, open
        for run in state.done:
            try:  # every done run has a record (:meth:`repair` wrote those that had none)
                folded = state.folded.get(f"{run.config_id}/r{run.replication}")
                if folded is not None:
                    record, as_read = self._folded_read(folded, run, bins), None
                else:
                    record, as_read = read_record(self.record_file(run))
                seen = seen_in(record)
                if type(seen.made) is int and seen.made != run.run:  # replaced since the state
                    return None
                files, within = seen.files, seen.within
                if within:
                    if not row_matches(record):
                        return None
                    held.append(record[ROW])
                    if len(held) == ROWS_AT_ONCE:
                        take()
                for suffix in suffixes if within else [".parquet", *suffixes]:
                    path = self.run_file(run, suffix)
                    if folded is not None:
                        data = folds.member_bytes(bins[folded.fold], folded.members[path.name])
                    else:
                        data = path.read_bytes()
                    sha256 = hashlib.sha256(data).hexdigest()
                    if sha256 != files[path.name]["sha256"]:
                        return None
                    rows = parsed.get(sha256)
                    table = parquet_table(data) if rows is None else rows
                    if suffix == ".parquet":
                        take(table)
                    else:
                        read[suffix].append(table)
                if as_read is not None:  # else the record changed as it was read: not cached
                    seen_now[f"{run.config_id}/r{run.replication}"] = cache_entry(as_read, seen)
            except (OSError, ValueError, KeyError, TypeError, AttributeError, pa.ArrowException):
                for handle in bins.values():
                    handle.close()
                return None
        for handle in bins.values():  # a few: a fold holds up to FOLD_RUNS runs
            handle.close()
        try:
            take()
        except (ValueError, TypeError, pa.ArrowException):
            return None
        return read, seen_now

    def _folded_read(self, folded: folds.Folded, run, bins: dict[int, Any]) -> dict:
        """A folded run's record from its fold's .bin (opened into ``bins``), checked against
        its sha256 there; ValueError when it does not match."""
        if folded.fold not in bins:
            bins[folded.fold] = open(self.folds_dir / folds.data_name(folded.fold), "rb")
        member = folded.members[run_file_name(run.replication, RECORD)]
        data = folds.member_bytes(bins[folded.fold], member)
        if hashlib.sha256(data).hexdigest() != member[2]:
            raise ValueError("a folded record does not match its sha256")
        return json.loads(data)

    def tables_problems(self, design: Design) -> list[str]:
        """What differs between the store's tables and compaction.json, one line each (empty:
        nothing): each table's rows (from its Parquet footer) and sha256, and the runs it
        counted against runs.parquet's rows. Needs no run file: an archive's store has none."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            compaction = json.loads(self.compaction_file.read_text())
            compacted, runs = compaction["tables"], compaction["runs"]
            if not isinstance(compacted, dict):
                raise TypeError(compacted)
        except FileNotFoundError:
            return ["compaction.json is missing: the tables cannot be checked against their "
                    "compaction"]  # fmt: skip
        except (OSError, ValueError, KeyError, TypeError) as e:
            return [f"compaction.json is unreadable ({e.__class__.__name__})"]
        problems = []
        for name in ["runs", *design.describe.tables]:
            path, expected = self.table(name), compacted.get(name)
            if not isinstance(expected, dict):
                problems.append(f"compaction.json records no table {name}")
                continue
            try:
                rows = pq.read_metadata(path).num_rows
            except FileNotFoundError:
                problems.append(f"{path.name} is missing")
                continue
            except (OSError, pa.ArrowException) as e:
                problems.append(f"{path.name} is not a Parquet file ({e.__class__.__name__})")
                continue
            if rows != expected.get("rows"):
                problems.append(f"{path.name} has {rows} rows, compaction.json records "
                                f"{expected.get('rows')}")  # fmt: skip
            # a store compacted before compaction.json kept hashes has none to compare
            if "sha256" in expected and file_sha256(path) != expected["sha256"]:
                problems.append(f"{path.name} is not the file its compaction wrote (another "
                                "sha256 than compaction.json's)")  # fmt: skip
            if name == "runs" and rows != runs:
                problems.append(f"compaction.json counts {runs} runs, {path.name} has {rows} rows")
        return problems

    def compaction_problem(self, state: State, deep: bool = False) -> str | None:
        """None when the compacted tables hold exactly the done runs of ``state`` (its design's
        :meth:`state`) as their last compaction wrote them, else what is wrong: a compaction
        killed half way, runs done or redone since, a table truncated, replaced or removed.
        Cheap: compaction.json, each table's size and modification time, and
        :attr:`State.digest`; a table's Parquet metadata and sha256 only when its size or
        modification time is not what its compaction recorded (or ``deep``): a file that has
        them is the one its compaction wrote, as a run's file is (:meth:`Runs.verify`)."""
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
                stat = path.stat()
            except FileNotFoundError:
                return f"{path.name} is missing"
            except OSError as e:
                return f"{path.name} is not a Parquet file ({e.__class__.__name__})"
            as_written = (
                not deep
                and stat.st_size == expected.get("bytes")
                and stat.st_mtime_ns == expected.get("mtime_ns")
                and type(expected.get("rows")) is int
            )
            if as_written:  # the file its compaction wrote: no need of pyarrow to count rows
                rows = expected["rows"]
            else:
                problem, rows = _footer_rows(path)
                if problem is not None:
                    return problem
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
