"""The results store of a study (``results/<study>/``): its files, its recorded design, run
rows typed by the program's description, compaction and SQL views. Imports the design and
engine rooms.

pyarrow and DuckDB are imported inside the functions that use them (store/rows.py, whose every
function writes Arrow, where a run is written): a store that is only looked at needs neither,
and `satsweep status` or a `satsweep run` with nothing to do should not pay for them
(tests/test_layers.py checks it)."""

from satsweep.engine import KEY_COLUMNS, PROVENANCE_COLUMNS  # the run rows' (store/rows.py)
from satsweep.store.archive import ARCHIVE_SUFFIXES, is_archive, open_archive, write_archive
from satsweep.store.batches import RowBatch, discard_batches, read_batches
from satsweep.store.export import SQL_MEMORY, SQL_TIMEOUT, export_query, memory_bytes, query
from satsweep.store.files import write_atomically, write_csv, write_json, write_parquet
from satsweep.store.layout import StoreError, results_dir
from satsweep.store.runs import State
from satsweep.store.sql import add_functions, check_read_only, connect
from satsweep.store.store import Store, studies

__all__ = [
    "ARCHIVE_SUFFIXES",
    "KEY_COLUMNS",
    "PROVENANCE_COLUMNS",
    "RowBatch",
    "SQL_MEMORY",
    "SQL_TIMEOUT",
    "State",
    "Store",
    "StoreError",
    "add_functions",
    "check_read_only",
    "connect",
    "discard_batches",
    "export_query",
    "is_archive",
    "memory_bytes",
    "open_archive",
    "query",
    "read_batches",
    "results_dir",
    "studies",
    "write_archive",
    "write_atomically",
    "write_csv",
    "write_json",
    "write_parquet",
]
