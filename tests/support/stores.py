"""Stores as satsweep made them before: what the tests of its reading of old stores start
from."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from satsweep.design import load_design
from satsweep.store import Store
from satsweep.store.files import parquet_bytes
from satsweep.store.rows import rows_table


def as_stored_before(store: Path, design_file: Path) -> None:
    """The store's runs as satsweep stored them before records held the run's row: the row in
    a file r<k>.parquet of its own, which the record vouches for (the stores made then)."""
    design = Store(store).bind(load_design(design_file))
    for path in sorted(store.glob("runs/*/r*.record.json")):
        record = json.loads(path.read_text())
        data = parquet_bytes(rows_table(design, [record.pop("row")]))
        del record["row_sha256"]
        row = path.with_name(f"r{record['replication']}.parquet")
        row.write_bytes(data)
        entry = {"bytes": len(data), "mtime_ns": row.stat().st_mtime_ns, "rows": 1,
                 "sha256": hashlib.sha256(data).hexdigest()}  # fmt: skip
        record["files"] = {row.name: entry, **record["files"]}
        path.write_text(json.dumps(record, indent=1) + "\n")
    Store(store).collect(design)  # compaction.json's digest, of the rows' files then


def compacted_here(store: Path, design_file: Path) -> None:
    """The store compacted again where it is: its records' cache is then of these very files
    (a copy's is of the files it was copied from, and its quick look reads every record)."""
    Store(store).collect(Store(store).bind(load_design(design_file)))
