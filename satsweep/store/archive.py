"""A study in one file (``satsweep archive``), and a study read back from it (``satsweep
verify ARCHIVE``).

The archive is a tar.gz of one folder, ``<study>/``::

    design.json       the design of the runs, the program's path, sha256 and --describe
    program.json      the program's name, version, path, sha256 and --describe, on their own
    runs.parquet, <table>.parquet, compaction.json   the store's compacted tables
    design.yaml       the design file the study was run from, when it is still there
    environment.txt   the Python packages installed where the archive was made, one
                      ``name==version`` a line (pip freeze's form); what each run ran with
                      (program sha256, satsweep version, git commit, host) is in runs.parquet

It is written to a temporary name beside the target and renamed; the store is only read.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import tarfile
import tempfile
from collections.abc import Iterator
from importlib.metadata import distributions
from pathlib import Path

from satsweep.store.files import write_atomically
from satsweep.store.layout import StoreError
from satsweep.store.store import Store

__all__ = ["ARCHIVE_SUFFIXES", "environment", "is_archive", "open_archive", "write_archive"]

ARCHIVE_SUFFIXES = (".tar.gz", ".tgz")


def is_archive(text: str) -> bool:
    """Whether a STUDY argument names an archive file (by its suffix)."""
    return text.lower().endswith(ARCHIVE_SUFFIXES)


def environment() -> str:
    """The Python packages of this environment, ``name==version`` a line, sorted by name."""
    found = {(d.metadata["Name"] or "").lower(): d.version for d in distributions()}
    return "".join(f"{name}=={v}\n" for name, v in sorted(found.items()) if name)


def _add_text(tar: tarfile.TarFile, name: str, text: str) -> None:
    data = text.encode()
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), 0o644
    tar.addfile(info, io.BytesIO(data))


def write_archive(store: Store, target: Path) -> list[str]:
    """Writes the archive of ``store`` to ``target`` (see the module) and returns the names in
    it. Raises StoreError, writing nothing, when the store has no recorded design or no runs."""
    recorded = store.recorded()
    if not recorded or "describe" not in recorded:
        raise StoreError(f"{store.root} has no recorded design (design.json): nothing to archive")
    if not store.runs_table.is_file():
        raise StoreError(f"study '{store.study}' has no finished runs ({store.runs_table})")
    files = [store.design_file, *(store.table(t) for t in store.tables())]
    if store.compaction_file.is_file():
        files.append(store.compaction_file)
    source = Path(recorded["source"]) if recorded.get("source") else None
    program = {**recorded.get("program", {}), "describe": recorded["describe"]}
    names: list[str] = []

    def write(temporary: Path) -> None:
        with tarfile.open(temporary, "w:gz") as tar:
            for path in files:
                tar.add(path, f"{store.study}/{path.name}", recursive=False)
            if source is not None and source.is_file():
                tar.add(source, f"{store.study}/design.yaml", recursive=False)
            _add_text(tar, f"{store.study}/program.json", json.dumps(program, indent=1) + "\n")
            _add_text(tar, f"{store.study}/environment.txt", environment())
            names.extend(tar.getnames())

    write_atomically(target, write)
    return names


@contextlib.contextmanager
def open_archive(path: Path) -> Iterator[Store]:
    """The study of an archive (:func:`write_archive`), unpacked into a temporary directory
    that is removed afterwards. Raises StoreError when ``path`` is not such an archive."""
    scratch = Path(tempfile.mkdtemp(prefix="satsweep-archive-"))
    try:
        try:
            with tarfile.open(path, "r:gz") as tar:
                tops = {Path(name).parts[0] for name in tar.getnames()}
                if len(tops) != 1:
                    raise StoreError(f"{path}: not a study's archive (one folder at its top)")
                tar.extractall(scratch, filter="data")  # no paths out of scratch, no links
        except (OSError, tarfile.TarError) as e:
            raise StoreError(f"{path}: cannot read the archive: {e}") from None
        store = Store(scratch / tops.pop())
        if not store.design_file.is_file():
            raise StoreError(f"{path}: not a study's archive (no design.json)")
        yield store
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
