"""The results store of a study: one directory per study under the results directory
(its files: store/layout.py). :class:`Store` is the store's one face, made of its parts:

- store/layout.py: where the files are (:class:`Layout`), the results directory;
- store/recorded.py: the recorded design (design.json) and the checks against it;
- store/runs.py: the runs' state, their record-last writes and the quarantine;
- store/compaction.py: the compacted tables and their check;
- store/sql.py: the DuckDB views and the read-only check of a query.
"""

from __future__ import annotations

import os

from satsweep.design import Design
from satsweep.store import holder
from satsweep.store.compaction import Compaction
from satsweep.store.layout import RECORD, StoreError, results_dir
from satsweep.store.recorded import RecordedDesign
from satsweep.store.sql import Views

__all__ = ["Store", "studies"]


class Store(RecordedDesign, Compaction, Views):
    """One study's store (``<results>/<study>/``): its paths, its recorded design, the state
    of a design's runs in it, the writing of runs, compaction and a DuckDB view of it."""

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
                store.not_compacted()
                or f"no study named '{study}' (no {store.runs_table}): run its sweep first"
            )
        return store

    def not_compacted(self) -> str | None:
        """What to say of a study whose store has runs (or a recorded design) but no compacted
        tables yet, e.g. while a job runs it: how many runs are done, who is running them (the
        store's lock, store/holder.py) or what compacts them. None when there is no such study
        (no runs, no design.json) or its tables are there."""
        if self.runs_table.is_file():
            return None
        done = sum(1 for _ in self.root.glob(f"runs/*/r*{RECORD}"))
        done += sum(len(runs) for runs in self.folded_runs().values())
        if not done and not self.design_file.is_file():
            return None
        runs = f"{done} done run{'s' * (done != 1)}" if done else "no done run yet"
        if holder.is_held(self.root):
            held = holder.read_holder(self.root, check=False)
            by = held.describe() if held is not None else "a process that did not name itself"
            return (
                f"study '{self.study}' has {runs}, not compacted yet (no {self.runs_table.name}): "
                f"being run by {by}, which compacts them at its end; `satsweep status "
                f"{self.study}` shows its progress"
            )
        return (
            f"study '{self.study}' has {runs}, not compacted yet (no {self.runs_table.name}): "
            f"`satsweep run {self.study}` "
            + ("compacts them (after running any still missing)" if done else "runs them")
        )

    def __repr__(self) -> str:
        return f"Store({str(self.root)!r})"


def studies(results: str | os.PathLike[str] | None = None) -> list[Store]:
    """Every study's store under the results directory (those with a runs.parquet)."""
    base = results_dir(results)
    return [Store(p.parent) for p in sorted(base.glob("*/runs.parquet"))]
