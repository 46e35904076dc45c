"""``satsweep studies``: the studies of a results directory, their state, size and last change."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from satsweep.cli.common import Subparsers, add_results_option, study_names
from satsweep.design import DesignError
from satsweep.store import Store, StoreError, results_dir


@dataclass(frozen=True)
class Summary:
    """One study as `satsweep studies` lists it; the run counts are None without a recorded
    design (a store made before design.json, or one that cannot be read: ``problem``)."""

    study: str
    program: str | None  # its name
    runs: int | None
    done: int | None
    failed: int | None
    missing: int | None  # never run, or damaged (the next run redoes them)
    bytes: int
    changed: str | None  # the last change of any of its files, UTC, ISO 8601
    problem: str | None = None


def add(commands: Subparsers) -> None:
    """Adds ``studies``."""
    p = commands.add_parser(
        "studies",
        aliases=["list"],  # what a new user types first
        help="list the studies in the results directory: runs done/failed/missing, size, "
        "last change",
        description=_studies.__doc__,
    )
    add_results_option(p)
    p.add_argument("--json", action="store_true", help="print JSON, one object per study")
    p.set_defaults(func=_studies)


def summary(root: Path) -> Summary:
    """The state of the store at ``root``: the runs of its recorded design (at its last round
    for a precision campaign), its size on disk and its last change."""
    size, last = _disk(root)
    changed = (
        None
        if last is None
        else dt.datetime.fromtimestamp(last, dt.UTC).isoformat(timespec="seconds")
    )
    store = Store(root)
    try:
        design = store.design()
        if design is not None:
            state = store.state(store.round(store.bind(design)))
    except (DesignError, StoreError) as e:
        return Summary(root.name, None, None, None, None, None, size, changed, str(e))
    if design is None:
        return Summary(root.name, None, None, None, None, None, size, changed, "no design.json")
    return Summary(
        root.name,
        design.describe.name,
        state.total,
        len(state.done),
        len(state.failed),
        state.n_missing + len(state.damaged),
        size,
        changed,
    )


def _disk(root: Path) -> tuple[int, float | None]:
    """The bytes the files under ``root`` take on disk (links not followed) and the latest
    modification time among them (None for none)."""
    size, last = 0, None
    for folder, _, files in os.walk(root):
        for name in files:
            try:
                info = os.lstat(os.path.join(folder, name))
            except OSError:  # removed meanwhile
                continue
            size += info.st_blocks * 512 if hasattr(info, "st_blocks") else info.st_size
            last = info.st_mtime if last is None else max(last, info.st_mtime)
    return size, last


def _bytes(n: int) -> str:
    """``n`` bytes as a person reads them (1.8 MiB)."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def _studies(args: argparse.Namespace) -> int:
    """`satsweep studies`: the studies in the results directory (folders with a design.json or
    a runs.parquet), each with its program, its runs done, failed and missing of its recorded
    design, its size on disk and its last change (UTC). `satsweep status STUDY` lists a
    study's runs."""
    summaries = [summary(results_dir(args.results) / name) for name in study_names(args.results)]
    if args.json:
        print(json.dumps([asdict(s) for s in summaries], indent=1))
        return 0
    if not summaries:
        print(f"no study in {results_dir(args.results)}: `satsweep run DESIGN.yaml` makes one")
        return 0
    header = ("study", "program", "runs", "done", "failed", "missing", "size", "changed (UTC)")
    rows = [
        (
            s.study,
            s.program or f"({s.problem})",
            *("?" if n is None else str(n) for n in (s.runs, s.done, s.failed, s.missing)),
            _bytes(s.bytes),
            "-" if s.changed is None else s.changed[:16].replace("T", " "),
        )
        for s in summaries
    ]
    # plain columns, one line per study however narrow the terminal (`ls -l`'s way): a boxed
    # table squeezed into 80 columns truncates the names it is there to show
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
    numeric = range(2, 7)
    for row in (header, *rows):
        cells = [
            c.rjust(w) if i in numeric else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))
        ]
        print("  ".join(cells).rstrip())
    return 0
