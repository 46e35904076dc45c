"""The study's design as the report finds it in the store, and the units of its columns.

This module is a stand-in, kept apart so it can be swapped whole: the store will keep its
design (``design.json``) and the units will come from the program's self-description. Until
then it finds the factors from the configurations' manifests or the varying columns
(:func:`study_design`), arranges them for the paper's layout (:func:`default_factors`) and
labels columns from the fixed :data:`UNITS` (:func:`unit`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from satsweep import engine, store

__all__ = ["UNITS", "StudyDesign", "default_factors", "study_design", "unit"]

#: Units of the columns the report labels (axes, table headers); others are shown without.
UNITS = {
    "efficiency": "fraction of capacity",
    "fairness": "index, 0 to 1",
    "bufferRtt": "RTT x bandwidth",
    "buffer": "RTT x bandwidth",  # the reference table's name
    "bufferCells": "cells",
    "simTime": "s",
    "delay": "s",
    "accessDelay": "s",
    "bottleneckRate": "bit/s",
    "accessRate": "bit/s",
    "capacity_bps": "bit/s",
    "goodput_bps": "bit/s",
    "offered_bps": "bit/s",
    "mss": "bytes",
    "window": "bytes",
    "ssthresh": "bytes",
    "wall_seconds": "s",
    "elapsed_seconds": "s",
    "peak_rss_mb": "MB",
}

#: satnet's flag names (`satnet --help`): the columns that may be factors when a store has no
#: manifests to say which are.
KNOWN_FLAGS = (
    "accessDelay", "accessRate", "bottleneckRate", "bufferCells", "bufferRtt", "clients",
    "delay", "drop", "epdThreshold", "flavor", "link", "minRto", "mss", "out", "run", "sdZ",
    "seed", "simTime", "ssthresh", "tick", "window", "workload",
)  # fmt: skip


def unit(name: str) -> str:
    """``name`` with its unit, e.g. ``efficiency (fraction of capacity)``; bare without one."""
    return f"{name} ({UNITS[name]})" if name in UNITS else name


@dataclass(frozen=True)
class StudyDesign:
    """The factors of the study in the store (design order), its fixed parameters, and how
    they were found."""

    factors: dict[str, int]  # factor -> number of levels in the store, in design order
    fixed: dict[str, str]  # parameter -> its one value (as text)
    source: str  # "the configurations' manifests" or "the varying parameter columns"


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _columns(con: duckdb.DuckDBPyConnection) -> list[str]:
    return [row[0] for row in con.execute("DESCRIBE runs").fetchall()]


def _distinct(con: duckdb.DuckDBPyConnection, columns: Sequence[str]) -> int:
    quoted = ", ".join(_quote(c) for c in columns)
    (n,) = con.execute(f"SELECT count(*) FROM (SELECT DISTINCT {quoted} FROM runs)").fetchone()  # type: ignore[misc]
    return int(n)


def _value(con: duckdb.DuckDBPyConnection, column: str) -> str:
    (value,) = con.execute(f"SELECT any_value({_quote(column)}) FROM runs").fetchone()  # type: ignore[misc]
    return engine.value_text(value)


def study_design(store_dir: Path, con: duckdb.DuckDBPyConnection) -> StudyDesign:
    """The factors of the study whose runs are the table ``runs`` of ``con``.

    The design's parameters (factors and fixed, in the design's order) are those of the
    configurations' manifests ``runs/<config_id>/complete-<r>.json``; its factors are the
    parameters that take more than one value in the runs. Without manifests (e.g. a table
    compacted elsewhere) the candidates are the columns named after satnet flags that are
    constant within each configuration, in column order (the store writes the design's columns
    first), and a candidate determined by the factors already found (e.g. ``bufferCells`` by
    ``link`` and ``bufferRtt``, ``delay`` by ``link``) is a derived parameter, not a factor.
    """
    columns = _columns(con)
    names: list[str] = []
    if "config_id" in columns:
        for (config_id,) in con.execute("SELECT DISTINCT config_id FROM runs").fetchall():
            manifests = sorted((store_dir / "runs" / str(config_id)).glob("complete-*.json"))
            for manifest in manifests:
                try:
                    names = list(json.loads(manifest.read_text())["params"])
                except (OSError, ValueError, KeyError, TypeError):
                    continue
                break
            if names:
                break
    if names:
        levels = {n: _distinct(con, [n]) for n in names if n in columns}
        return StudyDesign(
            {n: k for n, k in levels.items() if k > 1},
            {n: _value(con, n) for n, k in levels.items() if k == 1},
            "the configurations' manifests",
        )
    skip = set(store.KEY_COLUMNS) | set(store.PROVENANCE_COLUMNS) | {"out"}
    candidates = [c for c in columns if c in KNOWN_FLAGS and c not in skip]
    found: dict[str, int] = {}
    fixed: dict[str, str] = {}
    for column in candidates:
        levels = _distinct(con, [column])
        if levels < 2:
            fixed[column] = _value(con, column)
            continue
        if "config_id" in columns:
            quoted = _quote(column)
            (varies,) = con.execute(  # type: ignore[misc]
                f"SELECT count(*) FROM (SELECT config_id FROM runs GROUP BY config_id "
                f"HAVING count(DISTINCT {quoted}) > 1)"
            ).fetchone()
            if varies:
                continue
        if found and _distinct(con, [*found, column]) == _distinct(con, list(found)):
            continue  # a function of the factors found so far: derived, not a factor
        found[column] = levels
    return StudyDesign(found, fixed, "the varying parameter columns")


def default_factors(design: StudyDesign, by: str | None) -> list[str]:
    """The design's factors but ``by``, arranged for the paper's layout (see
    :func:`results_table`): a buffer factor (name starting with ``buffer``) last, so it makes the
    columns; the others by number of levels, fewest first (ties in design order), so the
    outer rows are the factor with fewest levels (the paper: drop x flavor rows)."""
    factors = [f for f in design.factors if f != by]
    buffer = next((f for f in factors if f.startswith("buffer")), None)
    rest = sorted((f for f in factors if f != buffer), key=lambda f: design.factors[f])
    return [*rest, buffer] if buffer else rest
