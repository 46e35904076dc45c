"""``satsweep verify``: reruns stored runs and says, field by field, whether they reproduce.

Each chosen run is made again the way a workflow job makes it (:func:`~satsweep.workflow.jobs.
simulate_run`: the design's program, the run's parameters and its ``--run``) into a store in a
temporary directory, never into the study's; its run row and its tables' rows are then compared
with the stored ones, value by value. The program found now is named when its sha256 is not the
one the runs record, and so is every other provenance column that differs (satsweep's version,
the git commit, the host): the causes a difference may have.
"""

from __future__ import annotations

import itertools
import math
import random
import secrets
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from satsweep.design import Design, Run
from satsweep.engine import (
    PROVENANCE_COLUMNS,
    TABLE_KEY_COLUMNS,
    Program,
    ProgramError,
)
from satsweep.engine.crossed import Crossed
from satsweep.store import Store, StoreError
from satsweep.workflow.jobs import provenance, simulate_run

__all__ = ["Check", "Verification", "VerifyError", "completeness", "verify"]

#: The provenance columns that describe the environment (the rest say when and how long).
ENVIRONMENT = tuple(c for c in PROVENANCE_COLUMNS if c not in ("started_at", "elapsed_seconds"))


class VerifyError(Exception):
    """The runs cannot be rerun (no runs, no recorded design, no program); says why."""


@dataclass(frozen=True)
class Check:
    """One rerun: its run, the fields whose values differ (field, stored, rerun) and, when the
    rerun failed, why."""

    config_id: str
    replication: int
    run: int
    differences: list[tuple[str, Any, Any]] = field(default_factory=list)
    failure: str | None = None
    #: the fields the rerun has and the stored tables have not (a program that now declares
    #: a parameter or a field more): not compared
    added: list[str] = field(default_factory=list)

    @property
    def reproduced(self) -> bool:
        return self.failure is None and not self.differences

    @property
    def first(self) -> str | None:
        """The first field that differs (the run's own before its tables'), or None."""
        return self.differences[0][0] if self.differences else None


@dataclass(frozen=True)
class Verification:
    """The reruns, the seed that chose them (None: all), and the environment's differences:
    (provenance column, the values the chosen runs record, the value now)."""

    checks: list[Check]
    seed: int | None
    environment: list[tuple[str, list[Any], Any]]
    #: What makes the store other than the whole study (:func:`completeness`), one line each.
    completeness: list[str] = field(default_factory=list)
    #: The fields left uncompared: declared ``reproducible: false`` (``table.column`` for a
    #: table's), measurements of the machine rather than of the model.
    unchecked: list[str] = field(default_factory=list)
    #: The fields the reruns have and the stored tables have no column for (:attr:`Check.added`).
    added: list[str] = field(default_factory=list)

    @property
    def reproduced(self) -> bool:
        return not self.completeness and all(c.reproduced for c in self.checks)


def _same(a: Any, b: Any) -> bool:
    """Exactly equal; NaN equals NaN (a program may report one, and must again)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


def _program(design: Design, recorded: dict[str, Any], source: Path | None = None) -> Program:
    """The recorded design's program as found now: by the name or path the design gives it,
    relative to ``source``, the folder of the design file in an unpacked archive (the program
    unpacked beside it, :func:`~satsweep.store.archive.unpack_program`), and nowhere else;
    without it, relative to the recorded design file's folder (as `run` found it), else at
    the path the store recorded. A crossed design's: each simulator's, found so."""
    if design.simulators is not None:
        members = {}
        for level, simulator in design.simulators.items():
            spec = design.model_copy(update={"program": simulator.program,
                                             "adapter_options": simulator.adapter_options,
                                             "simulators": None})  # fmt: skip
            paths = recorded.get("simulators", {}).get(level, {})
            members[level] = _program(spec, {**recorded, "program": paths}, source)
        return Crossed.of(members)
    if source is not None:
        try:
            return Program.find(design.program, source, design.adapter_options)
        except ProgramError as e:
            raise VerifyError(f"program (from the archive): {e}") from None
    recorded_source = recorded.get("source")
    base = Path(recorded_source).parent if recorded_source else Path.cwd()
    try:
        return Program.find(design.program, base, design.adapter_options)
    except ProgramError as first:
        path = Path(recorded.get("program", {}).get("path", ""))
        if path.is_file():
            return Program.at(path)
        raise VerifyError(f"program: {first}") from None


def _rows(path: Path) -> list[dict]:
    import pyarrow.parquet as pq

    return pq.read_table(path).to_pylist() if path.is_file() else []


#: The runs a completeness problem names; the rest are counted.
MOST_NAMED = 10


def _named(keys: Iterable[tuple[str, int]], count: int) -> str:
    """``config_id/r<k>`` of the first :data:`MOST_NAMED` runs, and how many more there are."""
    shown = [f"{cid}/r{k}" for cid, k in itertools.islice(keys, MOST_NAMED)]
    return ", ".join(shown) + (f" and {count - len(shown)} more" if count > len(shown) else "")


def completeness(store: Store, design: Design) -> list[str]:
    """What makes ``store``'s tables other than exactly ``design``'s runs as their compaction
    wrote them, one line each (empty: nothing), runs named ``config_id/r<k>`` (the first
    :data:`MOST_NAMED`, the rest counted). ``design``: the recorded design at its round
    (:meth:`~satsweep.store.Store.round`). The tables' rows and sha256 are compared with
    compaction.json, and runs.parquet's runs with the design's, which are iterated, not
    listed: a run missing (failed, not run, or lost), held more than once, or not the
    design's."""
    import pyarrow.parquet as pq

    problems = store.tables_problems(design)
    keys = pq.read_table(store.runs_table, columns=["config_id", "replication"])
    held = Counter(zip(keys.column(0).to_pylist(), keys.column(1).to_pylist(), strict=True))
    others = set(held)  # what is left once the design's runs are taken out
    missing: list[tuple[str, int]] = []
    lacking = expected = 0
    for config in design.iter_configurations():
        cid = config.config_id
        for k in range(1, design.replications_for(cid) + 1):
            expected += 1
            if (cid, k) in held:
                others.discard((cid, k))
            else:
                lacking += 1
                if len(missing) < MOST_NAMED:
                    missing.append((cid, k))
    if lacking:
        problems.append(f"runs.parquet lacks {lacking} of the design's {expected} runs "
                        f"(failed, not run or lost): {_named(missing, lacking)}")  # fmt: skip
    twice = sorted(key for key, n in held.items() if n > 1)
    if twice:
        problems.append(f"runs.parquet holds {len(twice)} run(s) more than once: "
                        f"{_named(twice, len(twice))}")  # fmt: skip
    if others:
        problems.append(f"runs.parquet holds {len(others)} run(s) the design does not have: "
                        f"{_named(sorted(others), len(others))}")  # fmt: skip
    return problems


def _compare(
    stored: dict[str, Any], rerun: dict[str, Any], skip: Sequence[str], added: list[str]
) -> list:
    """The fields of two rows whose values differ: (field, stored, rerun). A field of the
    rerun that the stored row has no column for (not one holding NULL) cannot be compared: it
    goes to ``added`` instead."""
    added += [k for k in rerun if k not in stored and k not in skip and k not in added]
    names = [k for k in stored if k not in skip]
    return [
        (k, stored.get(k), rerun.get(k)) for k in names if not _same(stored.get(k), rerun.get(k))
    ]


def _check(
    design: Design, row: dict[str, Any], stored: dict[str, dict[tuple, list]], scratch: Store
) -> Check:
    """Reruns the stored run ``row`` into ``scratch`` and compares it with the ``stored`` rows
    of each table, by (config_id, replication)."""
    cid, k = row["config_id"], row["replication"]
    try:
        run: Run = design.configuration(cid).run(design, k)
    except (KeyError, ValueError):
        return Check(cid, k, row["run"], failure="not a configuration of the recorded design")
    if run.run != row["run"]:
        return Check(cid, k, row["run"], [("run", row["run"], run.run)],
                     "its recorded --run is not the one the design gives it")  # fmt: skip
    problem = simulate_run(design, run, scratch)
    if problem is not None:
        return Check(cid, k, run.run, failure=problem)
    from satsweep.store.rows import rows_table  # pyarrow

    rerun = rows_table(design, [scratch.stored_row(run)]).to_pylist()[0]
    # a field the program declares a measurement of its machine differs on every rerun
    describe = design.describe
    added: list[str] = []
    skip = [*PROVENANCE_COLUMNS, *describe.not_reproducible()]
    differences = _compare(row, rerun, skip, added)
    for table in describe.tables:
        skip = [*TABLE_KEY_COLUMNS, *describe.not_reproducible(table)]
        mine = _rows(scratch.run_file(run, f".{table}.parquet"))
        theirs = stored[table].get((cid, k), [])
        if len(mine) != len(theirs):
            differences.append((f"{table}: rows", len(theirs), len(mine)))
            continue
        new: list[str] = []
        for i, (a, b) in enumerate(zip(theirs, mine, strict=True)):
            differences += [
                (f"{table}[{i}].{name}", x, y) for name, x, y in _compare(a, b, skip, new)
            ]
        added += [f"{table}.{name}" for name in new]
    return Check(cid, k, run.run, differences, added=added)


def verify(
    store: Store,
    sample: int | None = None,
    seed: int | None = None,
    log: Callable[[str], None] = lambda line: None,
    source: Path | None = None,
) -> Verification:
    """Reruns ``sample`` of the store's runs chosen at random with ``seed`` (a new one, which
    the result keeps, when None), or every run (``sample`` None), each into a store in a
    temporary directory, and compares them with the stored ones (:class:`Check`). First,
    whether the store holds exactly the recorded design's runs (:func:`completeness`); a run
    held more than once is rerun once. ``log`` gets a line per rerun. The study's store is
    only read. ``source``: the store is an unpacked archive, whose program is found relative to
    this folder (:func:`_program`). Raises :class:`VerifyError` when there is nothing to rerun
    or no way to."""
    try:
        design, recorded = store.design(), store.recorded()
    except StoreError as e:
        raise VerifyError(str(e)) from None
    if design is None or recorded is None:
        raise VerifyError(f"{store.root} has no recorded design (design.json): nothing to rerun")
    rows = _rows(store.runs_table)
    if not rows:
        raise VerifyError(f"study '{store.study}' has no finished runs ({store.runs_table})")
    problems = completeness(store, store.round(design))
    rows = list({(r["config_id"], r["replication"]): r for r in rows}.values())
    if sample is not None:
        seed = secrets.randbelow(2**31) if seed is None else seed
        rows = random.Random(seed).sample(rows, min(sample, len(rows)))
    else:
        seed = None
    program = _program(design, recorded, source)
    design = design.model_copy()
    design._executable = program
    # the provenance's git state is the one of the design file's folder, as at run
    design._source = Path(recorded.get("source") or store.design_file)
    nows = [provenance(design, r) for r in rows]  # crossed: each run's own program
    environment = [
        (column, sorted({r.get(column) for r in rows}, key=str),
         ", ".join(sorted({str(n[column]) for n in nows})))
        for column in ENVIRONMENT
        if column in nows[0] and any(r.get(column) != n[column] for r, n in zip(rows, nows))
    ]  # fmt: skip
    # each table read once, not once per rerun
    stored: dict[str, dict[tuple, list]] = {}
    for table in design.describe.tables:
        by_run = stored.setdefault(table, {})
        for r in _rows(store.table(table)):
            by_run.setdefault((r["config_id"], r["replication"]), []).append(r)
    scratch_dir = Path(tempfile.mkdtemp(prefix="satsweep-verify-"))
    try:
        scratch = Store(scratch_dir / store.study)
        checks = []
        for row in sorted(rows, key=lambda r: (r["config_id"], r["replication"])):
            check = _check(design, row, stored, scratch)
            said = "reproduced" if check.reproduced else "DIFFERS"
            if check.first is not None:
                said += f", first in {check.first}"
            log(f"{check.config_id}/r{check.replication} (--run={check.run}): {said}")
            checks.append(check)
    finally:
        shutil.rmtree(scratch_dir, ignore_errors=True)
    describe = design.describe
    unchecked = [
        *describe.not_reproducible(),
        *(f"{t}.{c}" for t in describe.tables for c in describe.not_reproducible(t)),
    ]
    added = list(dict.fromkeys(name for check in checks for name in check.added))
    return Verification(checks, seed, environment, problems, unchecked, added)
