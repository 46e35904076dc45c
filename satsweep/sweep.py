"""Running a sweep: Snakemake (the repository's Snakefile) over a design.

:func:`run` starts ``python -m snakemake`` (locally, or through a remote executor such as Ray:
:class:`Execution`) with the study's store as working directory, watches
the store's files for progress, and reports what was done, skipped and failed. :func:`plan` and
:func:`open_store` serve ``satsweep plan`` and ``satsweep sql``.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb

from satsweep import engine, store
from satsweep.design import Design, load_design

__all__ = [
    "SNAKEFILE",
    "Execution",
    "SweepBusy",
    "SweepReport",
    "open_store",
    "run",
    "snakemake_command",
]

SNAKEFILE = engine.REPO_ROOT / "Snakefile"


class SweepBusy(RuntimeError):
    """Another `satsweep run` of the same study holds its store."""


class StoreError(ValueError):
    """A store (or a query over it) that cannot be opened."""


@dataclass
class SweepReport:
    """What a `satsweep run` did."""

    design: Design
    store: Path
    returncode: int  # Snakemake's
    done_before: int
    done_now: int
    state: store.State
    wall_seconds: float
    log: Path

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.state.failed and not self.state.missing


#: Executors that run Snakemake's jobs elsewhere (remote executors with a shipped profile).
PROFILES = engine.REPO_ROOT / "ray_jobs" / "profiles"

#: How many groups of configurations per job slot a remote run aims for by default: enough
#: groups to balance the slots at the end of the sweep, few enough to amortise each remote
#: job's start-up (~2 s of a `python -m snakemake --mode remote`), see workflow/README.md.
GROUPS_PER_SLOT = 6


@dataclass(frozen=True)
class Execution:
    """Where Snakemake runs the jobs: locally (``executor=None``) or through a remote executor.

    ``jobs``: remote jobs at once (the cluster's CPU count); ``group_size``: configurations per
    remote job (None: automatic, see :func:`group_size`); ``profile``: a Snakemake profile
    directory (default: ``ray_jobs/profiles/<executor>`` when it exists).
    """

    executor: str | None = None
    jobs: int | None = None
    group_size: int | None = None
    profile: Path | None = None

    @property
    def remote(self) -> bool:
        return self.executor not in (None, "local")

    def profile_dir(self) -> Path | None:
        if self.profile is not None:
            return Path(self.profile).absolute()
        shipped = PROFILES / str(self.executor)
        return shipped if self.remote and (shipped / "config.yaml").is_file() else None


LOCAL = Execution()


def group_size(n_configurations: int, slots: int, per_slot: int = GROUPS_PER_SLOT) -> int:
    """Configurations per remote job: about ``per_slot`` jobs per slot, at least 1 each."""
    return max(1, -(-n_configurations // (max(slots, 1) * per_slot)))


def snakemake_command(
    design_path: Path,
    results: Path,
    store_dir: Path,
    cores: int,
    keep_going: bool,
    execution: Execution = LOCAL,
    n_configurations: int = 1,
) -> list[str]:
    """The Snakemake command line of a run (the Snakefile of this repository).

    Locally: ``--cores N``. Through a remote executor: ``--executor E --jobs J`` and the
    `simulate` jobs batched into groups of ``group_size`` configurations that run one after the
    other in one remote job (``--groups simulate=sims --group-components sims=K --cores 1``:
    a group job then asks for one CPU).
    """
    command = [
        sys.executable, "-m", "snakemake",
        "--snakefile", str(SNAKEFILE),
        "--directory", str(store_dir),
    ]  # fmt: skip
    if execution.remote:
        jobs = execution.jobs or cores
        size = execution.group_size or group_size(n_configurations, jobs)
        profile = execution.profile_dir()
        if profile is not None:
            command += ["--profile", str(profile)]
        command += ["--executor", str(execution.executor), "--jobs", str(jobs), "--cores", "1"]
        if size > 1:
            command += ["--groups", "simulate=sims", "--group-components", f"sims={size}"]
    else:
        command += ["--cores", str(cores)]
    command += [
        "--config", f"sweep={design_path}", f"results={results}",
        "--nolock",  # satsweep holds its own lock (below), which a SIGKILL cannot leave behind
        "--rerun-incomplete",
        # Snakemake takes an existing runs.parquet as up to date even when run manifests are
        # missing (as for deleted temp files): forcing the cheap compaction makes it need them.
        "--forcerun", "collect",
    ]  # fmt: skip
    if keep_going:
        command.append("--keep-going")
    return command


@contextmanager
def _lock(store_dir: Path) -> Iterator[None]:
    store_dir.mkdir(parents=True, exist_ok=True)
    with open(store_dir / ".satsweep.lock", "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SweepBusy(f"another satsweep run is using {store_dir}") from None
        yield


def _die_with_parent() -> None:  # in the child, before exec: SIGTERM when satsweep dies
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    # the jobs import this satsweep (the repository's), before any installed copy
    paths = [str(engine.REPO_ROOT), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    return env


def run(
    design_path: str | os.PathLike[str],
    cores: int = 1,
    keep_going: bool = False,
    results: str | os.PathLike[str] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    poll_seconds: float = 0.5,
    execution: Execution = LOCAL,
) -> SweepReport:
    """Runs a sweep's missing runs through Snakemake and compacts the store.

    Raises DesignError (bad file, or base_seed changed), FileNotFoundError (no satnet) and
    SweepBusy before anything runs. ``on_progress(done, total)`` is called as runs finish.
    """
    design_path = Path(design_path).absolute()
    design = load_design(design_path)
    engine.satnet_binary()
    results_path = store.results_dir(results)
    store_dir = store.study_dir(design, results_path)
    if (store_dir / "study.json").is_file():
        store.check_study(design, store_dir, create=False)
    start = time.perf_counter()
    with _lock(store_dir):
        store.check_study(design, store_dir)
        done_before = store.count_done(design, store_dir)
        log = store_dir / "logs" / "snakemake.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        command = snakemake_command(
            design_path,
            results_path,
            store_dir,
            cores,
            keep_going,
            execution,
            len(design.configurations),
        )
        with open(log, "w") as out:
            proc = subprocess.Popen(
                command,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=_environment(),
                preexec_fn=_die_with_parent,
            )
            try:
                while proc.poll() is None:
                    if on_progress is not None:
                        on_progress(store.count_done(design, store_dir), design.n_runs)
                    time.sleep(poll_seconds)
            except BaseException:
                proc.send_signal(signal.SIGINT)  # Snakemake stops its jobs and cleans up
                proc.wait()
                raise
        final = store.state(design, results_path)
        if on_progress is not None:
            on_progress(len(final.done), design.n_runs)
    return SweepReport(
        design=design,
        store=store_dir,
        returncode=proc.returncode,
        done_before=done_before,
        done_now=len(final.done) - done_before,
        state=final,
        wall_seconds=time.perf_counter() - start,
        log=log,
    )


def log_tail(path: Path, lines: int = 15) -> str:
    """The last lines of a log file (empty when it does not exist)."""
    try:
        return "\n".join(path.read_text(errors="replace").rstrip().splitlines()[-lines:])
    except OSError:
        return ""


def estimate_seconds(state: store.State, cores: int) -> tuple[float, int] | None:
    """(estimated wall seconds of the missing runs on `cores`, runs it is based on), if known."""
    files = [store.run_file(state.store, run) for run in state.done]
    seconds = store.elapsed_seconds(files)
    if not seconds:
        return None
    todo = len(state.missing) + len(state.failed)
    return sum(seconds) / len(seconds) * todo / max(cores, 1), len(seconds)


def open_store(
    study: str | None = None, results: str | os.PathLike[str] | None = None
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB database with views `runs` and `connections` over the store.

    With a study: its runs.parquet and connections.parquet; without: every study's, unioned by
    column name.
    """
    base = store.results_dir(results)
    if study is not None:
        runs = [base / study / "runs.parquet"]
        if not runs[0].is_file():
            raise StoreError(f"no study named '{study}' (no {runs[0]}): run its sweep first")
    else:
        runs = sorted(base.glob("*/runs.parquet"))
        if not runs:
            raise StoreError(f"no study in {base} (no {base}/*/runs.parquet): run a sweep first")
    con = duckdb.connect()
    for view, files in (
        ("runs", runs),
        ("connections", [p.with_name("connections.parquet") for p in runs]),
    ):
        listed = ", ".join("'" + str(p).replace("'", "''") + "'" for p in files)
        con.execute(
            f"CREATE VIEW {view} AS SELECT * FROM read_parquet([{listed}], union_by_name = true)"
        )
    return con
