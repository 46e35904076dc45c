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

from satsweep import engine, shipped, store
from satsweep.workflow import schedule
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

SNAKEFILE = shipped.path("Snakefile")


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
PROFILES = shipped.path("ray_jobs", "profiles")

#: Jobs queued in a remote executor beyond its slots, per slot: a slot that frees up starts the
#: next job at once instead of at Snakemake's next status check.
QUEUED_PER_SLOT = 1


@dataclass(frozen=True)
class Execution:
    """Where Snakemake runs the jobs: locally (``executor=None``) or through a remote executor.

    ``jobs``: the executor's job slots (the cluster's CPU count); ``group_size``: configurations
    per remote job (None: shrinking groups, see satsweep/schedule.py); ``profile``: a Snakemake
    profile directory (default: ``ray_jobs/profiles/<executor>`` when it exists).
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


def snakemake_command(
    design_path: Path,
    results: Path,
    store_dir: Path,
    cores: int,
    keep_going: bool,
    execution: Execution = LOCAL,
    design: Design | None = None,
) -> list[str]:
    """The Snakemake command line of a run (the Snakefile of this repository).

    Locally: ``--cores N``. Through a remote executor with J slots: ``--executor E``, up to
    ``J x (1 + QUEUED_PER_SLOT)`` jobs submitted at once, and the `simulate` jobs batched into
    the group jobs of :func:`satsweep.schedule.plan` (``--config slots=J`` and the executor's
    ``min_group_seconds``, which the Snakefile passes to the same plan, and
    ``--group-components`` so that each group is one job, run one configuration after the
    other: ``--cores 1``, a group job asks for one CPU).
    """
    command = [
        sys.executable, "-m", "snakemake",
        "--snakefile", str(SNAKEFILE),
        "--directory", str(store_dir),
    ]  # fmt: skip
    settings = [f"sweep={design_path}", f"results={results}"]
    if execution.remote:
        slots = execution.jobs or cores
        profile = execution.profile_dir()
        if profile is not None:
            command += ["--profile", str(profile)]
        queue = slots * (1 + QUEUED_PER_SLOT)
        command += ["--executor", str(execution.executor), "--jobs", str(queue), "--cores", "1"]
        floor = schedule.min_group_seconds(execution.executor)
        settings += [f"slots={slots}", f"min_group_seconds={floor:g}"]
        if execution.group_size:
            settings.append(f"group_size={execution.group_size}")
        if design is None:
            design = load_design(design_path)
        groups = schedule.plan(design, slots, execution.group_size, floor).group_sizes()
        command += ["--group-components", *(f"{g}={n}" for g, n in groups.items())]
    else:
        command += ["--cores", str(cores)]
    command += [
        "--config", *settings,
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


#: Snakemake executor plugins installed apart from site-packages (setup.sh), one directory per
#: executor name: Snakemake imports every plugin it can find in every process it starts.
EXECUTOR_PLUGINS = Path(sys.prefix) / "executor-plugins"


def executor_plugin_path(executor: str | None) -> Path | None:
    """The directory to put on PYTHONPATH for Snakemake's ``--executor``, if it has one."""
    path = EXECUTOR_PLUGINS / str(executor)
    return path if executor and path.is_dir() else None


def snakemake_environment(executor: str | None = None) -> dict[str, str]:
    """The environment of a Snakemake run: this checkout's satsweep first on PYTHONPATH (the
    jobs import it, before any installed copy), and the executor's plugin if installed apart."""
    env = dict(os.environ)
    plugin = executor_plugin_path(executor)
    paths = [
        str(engine.REPO_ROOT),
        *([str(plugin)] if plugin else []),
        *filter(None, env.get("PYTHONPATH", "").split(os.pathsep)),
    ]
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
            design,
        )
        with open(log, "w") as out:
            proc = subprocess.Popen(
                command,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=snakemake_environment(execution.executor),
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
