"""Folds: the files of many compacted runs in one file, so that a store of 10^5-10^6 runs on a
shared file system costs a few files, not two to five per run (inode quotas, metadata load).

::

    folds/fold-<n>.bin     the folded runs' files, one after the other, byte for byte
    folds/fold-<n>.json    written last (the store's record-last rule): for each run its key,
                           what its record says (:class:`~satsweep.store.runs.Seen`) and where
                           each of its files is in the .bin (offset, length, sha256); and the
                           .bin's size, modification time and sha256

A fold is written after a compaction (:meth:`Compaction.collect`) when at least
:func:`fold_at` of its runs still have files of their own: the .bin, then the .json, both
synced, and only then the runs' own files are removed (the record first, so a run whose
removal a kill cut short is the fold's). A run is then done in the fold as it was in its
folder: a run with a record of its own takes precedence over a fold, and a later fold over an
earlier one, so no kill between the steps loses a run or counts it twice. A .bin without its
.json is a fold killed before it was vouched for: its runs still have their files, and the
next fold removes it.

A fold is checked as a run's files are: its .bin's size and modification time against its
.json, and when they differ (or ``deep``) each file's bytes against its sha256; a run whose
bytes do not match is damaged, and its quarantine copies its files out of the fold and drops
it from the .json, so that the next sweep runs it again.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from satsweep.engine import file_sha256
from satsweep.store.files import write_bytes

#: The folds' folder in a study's store.
FOLDS = "folds"
#: A fold's index in it: fold-<n>.json (its files: fold-<n>.bin).
_INDEX = re.compile(r"fold-([0-9]+)\.json")
_DATA = re.compile(r"fold-([0-9]+)\.bin")
#: The format of a fold's .json: an index of another is not read.
FORMAT = 1
#: Runs with files of their own that a compaction folds (unless $SATSWEEP_FOLD_AT says): a
#: store of fewer keeps every run's files where they are, which no file system minds.
FOLD_AT = 10_000
#: Runs per fold: what its index costs in memory when written or read.
FOLD_RUNS = 100_000


def fold_at() -> int:
    """The runs with files of their own a compaction folds at least ($SATSWEEP_FOLD_AT, else
    :data:`FOLD_AT`)."""
    value = os.environ.get("SATSWEEP_FOLD_AT", "")
    return int(value) if value.isdigit() and int(value) > 0 else FOLD_AT


@dataclass
class Folded:
    """A run in a fold: the fold's number, what the run's record says (the fields of
    :class:`~satsweep.store.runs.Seen`), where its files are in the fold's .bin (name ->
    offset, length, sha256), and what is wrong with them (None: intact)."""

    fold: int
    seen: list  # Seen's fields: made, files, within, row_sha256
    members: dict[str, list]
    problem: str | None = None


def data_name(fold: int) -> str:
    return f"fold-{fold:06d}.bin"


def index_name(fold: int) -> str:
    return f"fold-{fold:06d}.json"


def numbers(folder: Path) -> tuple[list[int], list[int]]:
    """The folds' numbers in ``folder`` that have an index, and those of every .bin."""
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return [], []
    indexed = sorted(int(m[1]) for n in names if (m := _INDEX.fullmatch(n)))
    data = sorted(int(m[1]) for n in names if (m := _DATA.fullmatch(n)))
    return indexed, data


def read_index(folder: Path, fold: int) -> dict[str, Any]:
    """A fold's index parsed and of its shape; ValueError (or OSError) when it is not."""
    index = json.loads((folder / index_name(fold)).read_bytes())
    if not isinstance(index, dict) or index.get("format") != FORMAT:
        raise ValueError("not a fold index of this format")
    if not isinstance(index.get("data"), dict) or not isinstance(index.get("runs"), list):
        raise ValueError("not a fold index")
    for entry in index["runs"]:  # of the shape the readers take without looking again
        key, seen, members = entry
        _, mark, k = key.rpartition("/r")
        if not (mark and k.isdigit() and len(seen) == 4 and isinstance(seen[1], dict)):
            raise ValueError(f"not a folded run: {key}")
        if type(seen[2]) is not bool or not isinstance(members, dict):
            raise ValueError(f"not a folded run: {key}")
        for member in members.values():
            offset, length, sha256 = member
            if type(offset) is not int or type(length) is not int or offset < 0 or length < 0:
                raise ValueError(f"not a folded file: {key}")
            if not isinstance(sha256, str):
                raise ValueError(f"not a folded file: {key}")
    return index


def member_bytes(handle: Any, member: list) -> bytes:
    """A folded file's bytes from its fold's open .bin (``member``: offset, length, sha256)."""
    offset, length = member[0], member[1]
    data = os.pread(handle.fileno(), length, offset)
    if len(data) != length:
        raise ValueError("the fold ends before the file")
    return data


def check_members(path: Path, runs: list, deep_check: Any) -> dict[str, str]:
    """Which runs (by key) of a fold's .bin have a file whose bytes are not those of its
    sha256 (or that ``deep_check(key, members, read)`` finds wrong), with what is wrong."""
    problems = {}
    with open(path, "rb") as handle:
        for key, _, members in runs:
            for name, member in members.items():
                try:
                    data = member_bytes(handle, member)
                except (OSError, ValueError):
                    problems[key] = f"{path.name} ends before its {name}"
                    break
                if hashlib.sha256(data).hexdigest() != member[2]:
                    problems[key] = f"{name} in {path.name} does not match its sha256"
                    break
            else:
                if deep_check is not None:
                    problem = deep_check(key, members, lambda m, h=handle: member_bytes(h, m))
                    if problem is not None:
                        problems[key] = f"{problem} (in {path.name})"
    return problems


def load(folder: Path, deep: bool = False, deep_check: Any = None) -> tuple[dict, list, set]:
    """Every folded run by config_id and replication (``{cid: {k: Folded}}``, a later fold's
    run over an earlier's), the folds that cannot be read (number, what is wrong) and the
    (base_seed, streams) their runs were made with. A fold whose .bin has another size or
    modification time than its index gives (or every fold, when ``deep``) has its runs' bytes
    checked (:func:`check_members`)."""
    indexed, _ = numbers(folder)
    folded: dict[str, dict[int, Folded]] = {}
    unreadable = []
    made_for = set()
    for fold in indexed:
        try:
            index = read_index(folder, fold)
            said = index["data"]
            runs = index["runs"]
            made_for.add(tuple(index["made_for"]))
        except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError) as e:
            unreadable.append((fold, f"{index_name(fold)} is unreadable ({e.__class__.__name__})"))
            continue
        path = folder / data_name(fold)
        try:
            stat = os.stat(path)
            as_written = stat.st_size == said.get("bytes") and stat.st_mtime_ns == said.get(
                "mtime_ns"
            )
            problems = {} if as_written and not deep else check_members(path, runs, deep_check)
        except OSError as e:  # no .bin: the index vouches for nothing there is
            unreadable.append((fold, f"{path.name} is unreadable ({e.__class__.__name__})"))
            continue
        for key, seen, members in runs:
            config_id, _, k = key.rpartition("/r")
            folded.setdefault(config_id, {})[int(k)] = Folded(
                fold, seen, members, problems.get(key)
            )
    return folded, unreadable, made_for


def write_fold(
    folder: Path,
    fold: int,
    runs: Iterable[tuple[str, list, list[tuple[str, bytes]]]],
    made_for: tuple[int, int],
) -> list[str]:
    """Writes fold ``fold`` of ``runs`` (key, Seen's fields, the run's files as (name, bytes),
    its record first, taken one at a time), made with ``made_for`` (base_seed, streams): the
    .bin, then its index, each synced before the next step. Returns the runs' keys (none, and
    no fold, without runs)."""
    folder.mkdir(parents=True, exist_ok=True)
    entries = []
    digest = hashlib.sha256()
    data_path = folder / data_name(fold)
    temporary = folder / f".{data_path.name}.tmp.{os.getpid()}"
    try:
        with open(temporary, "wb") as out:
            offset = 0
            for key, seen, files in runs:
                members = {}
                for name, data in files:
                    out.write(data)
                    digest.update(data)
                    members[name] = [offset, len(data), hashlib.sha256(data).hexdigest()]
                    offset += len(data)
                entries.append([key, seen, members])
            out.flush()
            os.fsync(out.fileno())
        if entries:
            os.replace(temporary, data_path)
    finally:
        temporary.unlink(missing_ok=True)
    if not entries:
        return []
    stat = os.stat(data_path)
    data = {"bytes": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": digest.hexdigest()}
    write_index(folder, fold, {"data": data, "made_for": list(made_for), "runs": entries})
    return [entry[0] for entry in entries]


def write_index(folder: Path, fold: int, index: dict[str, Any]) -> None:
    """A fold's index (atomically, synced with its folder): its .bin's identity, the
    base_seed and streams of its runs, and its runs."""
    text = json.dumps({"format": FORMAT, **index}, separators=(",", ":"))
    write_bytes(folder / index_name(fold), text.encode())
    sync_folder(folder)


def sync_folder(folder: Path) -> None:
    """Syncs a folder's entries (a rename into it), so that a fold is on disk before the runs'
    own files are removed."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def drop(folder: Path, fold: int, keys: set[str]) -> dict[str, dict[str, bytes]]:
    """Drops the runs ``keys`` from fold ``fold``'s index (their files stay in its .bin,
    unreferenced) and returns their files' bytes by key (as the .bin has them now), for their
    quarantine. The index is written again under the .bin's identity now only when every run
    it keeps matches its sha256 (else under the old one, so that the next look checks them)."""
    index = read_index(folder, fold)
    path = folder / data_name(fold)
    kept, taken = [], {}
    intact = True
    with open(path, "rb") as handle:
        for entry in index["runs"]:
            key, _, members = entry
            files = {}
            for name, member in members.items():
                try:
                    data = member_bytes(handle, member)
                except (OSError, ValueError):
                    intact = intact and key in keys
                    continue  # what the .bin no longer has cannot be moved
                if key in keys:
                    files[name] = data
                elif hashlib.sha256(data).hexdigest() != member[2]:
                    intact = False
            if key in keys:
                taken[key] = files
            else:
                kept.append(entry)
    if intact:
        stat = os.stat(path)
        sha256 = file_sha256(path)
        index["data"] = {"bytes": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": sha256}
    write_index(folder, fold, {**index, "runs": kept})
    return taken
