"""The results store of a study: one directory per study under the results directory.

::

    results/<study>/
      study.json                      the study's identity (base_seed), written on its first run
      runs/<config_id>/r<k>.json      satnet's JSON result of replication k (written by satnet)
      runs/<config_id>/r<k>.connections.parquet   its connections, one row each
      runs/<config_id>/r<k>.parquet   its run row; written last: a run is done iff this exists
      runs/<config_id>/r<k>.failed.json   why the last attempt failed (removed on success)
      runs/<config_id>/complete-<r>.json  Snakemake's output of the configuration's job
      runs.parquet, connections.parquet   every finished run of the design, compacted by `collect`
      logs/                           Snakemake's and the jobs' logs
      .snakemake/                     Snakemake's metadata (`satsweep run` uses this directory)

Every file is written to a temporary name in the same directory and renamed, so a reader (or a
rerun after a kill) sees a whole file or none. The results directory is ``results`` in the
current directory, or ``$SATSWEEP_RESULTS`` (as :func:`satsweep.analysis.resolve_source`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import socket
import subprocess
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

import satsweep
from satsweep import engine
from satsweep.design import Design, DesignError, Run

__all__ = [
    "KEY_COLUMNS",
    "PROVENANCE_COLUMNS",
    "RunFailure",
    "State",
    "collect",
    "results_dir",
    "run_configuration",
    "state",
    "study_dir",
]

KEY_COLUMNS = ("study", "config_id", "replication", "seed", "run")
PROVENANCE_COLUMNS = (
    "satnet_version",
    "ns3_version",
    "satsweep_version",
    "git_commit",
    "git_dirty",
    "satnet_sha256",
    "host",
    "started_at",
    "elapsed_seconds",
)
STDERR_TAIL_LINES = 20


def results_dir(results: str | os.PathLike[str] | None = None) -> Path:
    """The results directory: ``results`` if given, else $SATSWEEP_RESULTS, else ./results."""
    return Path(results or os.environ.get("SATSWEEP_RESULTS") or "results").absolute()


def study_dir(design: Design, results: str | os.PathLike[str] | None = None) -> Path:
    return results_dir(results) / design.study


def run_dir(store: Path, config_id: str) -> Path:
    return store / "runs" / config_id


def run_file(store: Path, run: Run, suffix: str = ".parquet") -> Path:
    return run_dir(store, run.config_id) / f"r{run.replication}{suffix}"


def manifest_file(store: Path, config_id: str, replications: int) -> Path:
    return run_dir(store, config_id) / f"complete-{replications}.json"


# --- atomic writes ---------------------------------------------------------------------------


def _temporary(path: Path) -> Path:
    return path.with_name(f".{path.name}.tmp.{os.getpid()}")


def write_atomically(path: Path, write: Callable[[Path], None]) -> None:
    """Calls ``write(temporary)`` then renames the temporary file to ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = _temporary(path)
    try:
        write(temporary)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def write_json(path: Path, data: Any) -> None:
    write_atomically(path, lambda t: t.write_text(json.dumps(data, indent=1, default=str) + "\n"))


def write_parquet(path: Path, table: pa.Table) -> None:
    write_atomically(path, lambda t: pq.write_table(table, t))


# --- the study's identity ----------------------------------------------------------------------


def check_study(design: Design, store: Path, create: bool = True) -> None:
    """Refuses a design whose base_seed differs from the one the store's runs were made with."""
    identity = store / "study.json"
    if identity.is_file():
        recorded = json.loads(identity.read_text())
        if recorded.get("base_seed") != design.base_seed:
            raise DesignError(
                f"base_seed: {design.base_seed} differs from the base_seed "
                f"{recorded.get('base_seed')} of the runs in {store}; allowed: "
                f"{recorded.get('base_seed')}, or another study name (or remove {store})"
            )
    elif create:
        write_json(identity, {"study": design.study, "base_seed": design.base_seed})


# --- provenance --------------------------------------------------------------------------------


@cache
def _git(*args: str) -> str | None:
    try:
        proc = subprocess.run(
            ["git", *args], cwd=engine.REPO_ROOT, capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


@cache
def _provenance(satnet: Path) -> dict[str, Any]:
    commit = _git("rev-parse", "HEAD")
    status = _git("status", "--porcelain", "--untracked-files=no")
    return {
        "satsweep_version": satsweep.__version__,
        "git_commit": commit,
        "git_dirty": None if status is None else bool(status),
        "satnet_sha256": engine.file_sha256(satnet),
        "host": socket.gethostname(),
    }


# --- one run -----------------------------------------------------------------------------------


@dataclass
class RunFailure:
    """A run that produced no result."""

    run: Run
    returncode: int | None
    stderr_tail: str
    message: str

    def describe(self) -> str:
        head = f"{self.run.config_id}/r{self.run.replication} {self.message}"
        return f"{head}\n{self.stderr_tail}".rstrip()


def _cast(value: Any, kind: str) -> Any:
    if kind == "float" and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if kind == "str" and not isinstance(value, str):
        return engine.flag_value(value)
    return value


_ARROW = {"bool": pa.bool_(), "int": pa.int64(), "float": pa.float64(), "str": pa.string()}


def run_row(
    design: Design, run: Run, result: dict, started_at: dt.datetime, elapsed: float, satnet: Path
) -> tuple[pa.Table, pa.Table]:
    """The run's row (one-row table) and its connections' rows, typed."""
    types = {  # satnet's real-valued flags stay real even when every level is a whole number
        name: "float" if kind == "int" and name in engine.FLOAT_FIELDS else kind
        for name, kind in design.column_types().items()
    }
    columns: dict[str, tuple[Any, pa.DataType | None]] = {
        "study": (run.study, pa.string()),
        "config_id": (run.config_id, pa.string()),
        "replication": (run.replication, pa.int64()),
        "seed": (run.seed, pa.int64()),
        "run": (run.run, pa.int64()),
    }
    for name, kind in types.items():  # the design's values, typed across its levels
        columns[name] = (_cast(run.params[name], kind), _ARROW[kind])
    for name, value in result["params"].items():  # the rest of satnet's effective parameters
        if name not in columns:
            columns[name] = (engine.typed(name, value), None)
    summary = dict(result["summary"])
    version = str(summary.pop("version", ""))
    for name, value in summary.items():
        columns[name] = (engine.typed(name, value), None)
    provenance = {
        "satnet_version": version,
        "ns3_version": engine.ns3_version(version),
        **_provenance(satnet),
        "started_at": started_at,
        "elapsed_seconds": elapsed,
    }
    for name, value in provenance.items():
        columns[name] = (value, None)
    row = pa.table({name: pa.array([value], type=kind) for name, (value, kind) in columns.items()})
    names = dict.fromkeys(name for c in result["connections"] for name in c)
    n = len(result["connections"])
    connections = pa.table(
        {
            "study": pa.array([run.study] * n, pa.string()),
            "config_id": pa.array([run.config_id] * n, pa.string()),
            "replication": pa.array([run.replication] * n, pa.int64()),
            **{
                name: pa.array(
                    [engine.typed(name, c.get(name)) for c in result["connections"]],
                    pa.float64() if name in engine.FLOAT_FIELDS else None,
                )
                for name in names
            },
        }
    )
    return row, connections


def simulate(design: Design, run: Run, store: Path) -> RunFailure | None:
    """Runs one simulation into the store; returns its failure, or None when it succeeded."""
    satnet = engine.satnet_binary()
    json_file, failed = run_file(store, run, ".json"), run_file(store, run, ".failed.json")
    json_file.parent.mkdir(parents=True, exist_ok=True)
    started_at = dt.datetime.now(dt.UTC).replace(tzinfo=None)  # naive UTC: no pytz needed
    start = time.perf_counter()
    try:
        result = engine.run_satnet(run.flags(), out=json_file)
    except engine.SimulationError as e:
        failure = RunFailure(run, e.returncode, e.stderr_tail, "satnet failed")
    except (OSError, ValueError) as e:  # cannot start satnet, or unreadable JSON
        failure = RunFailure(run, None, "", f"failed: {e}")
    else:
        elapsed = time.perf_counter() - start
        try:
            row, connections = run_row(design, run, result, started_at, elapsed, satnet)
        except (KeyError, TypeError, ValueError, AttributeError, pa.ArrowException) as e:
            failure = RunFailure(run, 0, "", f"result does not follow the contract: {e!r}")
        else:
            write_parquet(run_file(store, run, ".connections.parquet"), connections)
            write_parquet(run_file(store, run), row)  # last: the run is done
            failed.unlink(missing_ok=True)
            return None
    write_json(
        failed,
        {
            "config_id": run.config_id,
            "replication": run.replication,
            "command": engine.satnet_flags(run.flags()),
            "returncode": failure.returncode,
            "message": failure.message,
            "stderr_tail": failure.stderr_tail,
            "started_at": started_at.isoformat(),
        },
    )
    return failure


def run_configuration(
    design: Design,
    config_id: str,
    results: str | os.PathLike[str] | None = None,
    log: Callable[[str], None] = print,
) -> list[RunFailure]:
    """A configuration's job: runs its replications that are not done yet, one after the other.

    Writes the job's manifest (``complete-<r>.json``) when all replications are done; returns
    the failures (the other replications still run).
    """
    store = study_dir(design, results)
    check_study(design, store)
    config = design.configuration(config_id)
    # temporaries of a killed attempt (only this job writes into this directory)
    for stale in run_dir(store, config_id).glob("*.tmp.*"):
        stale.unlink(missing_ok=True)
    failures = []
    for run in config.runs(design):
        if run_file(store, run).is_file():
            log(f"{run.config_id}/r{run.replication}: done before, skipped")
            continue
        failure = simulate(design, run, store)
        if failure is None:
            log(f"{run.config_id}/r{run.replication}: done (--run={run.run})")
        else:
            log(failure.describe())
            failures.append(failure)
    if not failures:
        write_json(
            manifest_file(store, config_id, design.replications),
            {
                "config_id": config_id,
                "params": config.params,
                "replications": {r.replication: r.run for r in config.runs(design)},
            },
        )
    return failures


# --- the state of a sweep ----------------------------------------------------------------------


@dataclass
class State:
    """Which runs of a design are done, failed (last attempt) or missing."""

    design: Design
    store: Path
    done: list[Run] = field(default_factory=list)
    failed: list[tuple[Run, dict]] = field(default_factory=list)
    missing: list[Run] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.design.n_runs


def state(design: Design, results: str | os.PathLike[str] | None = None) -> State:
    """Looks at the store's files (no Snakemake involved)."""
    store = study_dir(design, results)
    result = State(design, store)
    for run in design.runs():
        if run_file(store, run).is_file():
            result.done.append(run)
            continue
        failed = run_file(store, run, ".failed.json")
        try:
            result.failed.append((run, json.loads(failed.read_text())))
        except (OSError, ValueError):
            result.missing.append(run)
    return result


def count_done(design: Design, store: Path) -> int:
    return sum(run_file(store, run).is_file() for run in design.runs())


def elapsed_seconds(files: Iterable[Path]) -> list[float]:
    """The elapsed_seconds of the run rows in ``files``."""
    values = []
    for path in files:
        table = pq.read_table(path, columns=["elapsed_seconds"])
        values.extend(v for v in table.column(0).to_pylist() if v is not None)
    return values


# --- compaction --------------------------------------------------------------------------------


def _concat(paths: list[Path]) -> pa.Table | None:
    tables = [pq.read_table(p) for p in paths]
    return pa.concat_tables(tables, promote_options="permissive") if tables else None


def collect(
    design: Design,
    results: str | os.PathLike[str] | None = None,
    runs_out: Path | None = None,
    connections_out: Path | None = None,
) -> int:
    """Compacts the design's finished runs into runs.parquet and connections.parquet.

    Only runs of the current design are included (in its order: configuration, replication), so
    the store never holds a run twice or a run of an older version of the design. Returns the
    number of runs.
    """
    store = study_dir(design, results)
    done = [run for run in design.runs() if run_file(store, run).is_file()]
    runs = _concat([run_file(store, run) for run in done])
    connections = _concat([run_file(store, run, ".connections.parquet") for run in done])
    if runs is None:
        runs = pa.table({name: pa.array([], pa.string()) for name in ("study", "config_id")})
        connections = runs
    write_parquet(connections_out or store / "connections.parquet", connections)
    write_parquet(runs_out or store / "runs.parquet", runs)
    return len(done)
