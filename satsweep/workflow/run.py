"""Running a sweep: Snakemake (the Snakefile shipped with satsweep) over a design.

:func:`run` starts ``python -m snakemake`` (locally, or through a remote executor such as Ray:
:class:`Execution`) with the study's store as working directory, watches the store's files for
progress, and reports what was done, skipped and failed.
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
from dataclasses import dataclass, field
from pathlib import Path

from satsweep import shipped
from satsweep.design import Design, load_design
from satsweep.store import State, Store, results_dir
from satsweep.analysis import precision
from satsweep.workflow import schedule

__all__ = [
    "SNAKEFILE",
    "Execution",
    "SweepBusy",
    "SweepReport",
    "run",
    "snakemake_command",
]

SNAKEFILE = shipped.path("Snakefile")


class SweepBusy(RuntimeError):
    """Another `satsweep run` of the same study holds its store."""


@dataclass(frozen=True)
class Round:
    """One round of a precision campaign: its design (the replications of every configuration)
    and how near each target was after it."""

    design: Design
    reached: list[precision.Reached]

    @property
    def met(self) -> bool:
        return all(x.met for x in self.reached)


@dataclass
class SweepReport:
    """What a `satsweep run` did."""

    design: Design
    store: Store
    returncode: int  # Snakemake's
    done_before: int
    done_now: int
    state: State
    wall_seconds: float
    log: Path
    # a precision campaign's rounds, the last one's design is `design`
    rounds: list[Round] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.state.failed and not self.state.n_missing


#: Executors that run Snakemake's jobs elsewhere (remote executors with a shipped profile).
PROFILES = shipped.path("ray_jobs", "profiles")

#: Jobs queued in a remote executor beyond its slots, per slot: a slot that frees up starts the
#: next job at once instead of at Snakemake's next status check.
QUEUED_PER_SLOT = 1


@dataclass(frozen=True)
class Execution:
    """Where Snakemake runs the jobs: locally (``executor=None``) or through a remote executor.

    ``jobs``: the executor's job slots (the cluster's CPU count); ``group_size``: configurations
    per remote job (None: shrinking groups, see satsweep/workflow/schedule.py); ``profile``: a
    Snakemake profile directory (default: the shipped ``ray_jobs/profiles/<executor>`` when it
    exists).
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
    """The Snakemake command line of a run (the shipped Snakefile).

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
            design = load_design(design_path, max_runs=None)
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
    # A satsweep started in the background (`cmd &`, nohup, some batch systems) inherits SIGINT
    # ignored, and so would Snakemake: it must still stop on the SIGINT satsweep sends it.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


#: Snakemake executor plugins installed apart from site-packages (setup.sh), one directory per
#: executor name: Snakemake imports every plugin it can find in every process it starts.
EXECUTOR_PLUGINS = Path(sys.prefix) / "executor-plugins"


def executor_plugin_path(executor: str | None) -> Path | None:
    """The directory to put on PYTHONPATH for Snakemake's ``--executor``, if it has one."""
    path = EXECUTOR_PLUGINS / str(executor)
    return path if executor and path.is_dir() else None


def snakemake_environment(executor: str | None = None) -> dict[str, str]:
    """The environment of a Snakemake run: the executor's plugin first on PYTHONPATH if it is
    installed apart. The jobs import the satsweep this process runs from."""
    env = dict(os.environ)
    plugin = executor_plugin_path(executor)
    if plugin is not None:
        paths = [str(plugin), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    return env


def run(
    design: Design | str | os.PathLike[str],
    cores: int = 1,
    keep_going: bool = False,
    results: str | os.PathLike[str] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    poll_seconds: float = 0.5,
    execution: Execution = LOCAL,
    warn: Callable[[str], None] = print,
) -> SweepReport:
    """Runs a sweep's missing runs through Snakemake and compacts the store.

    ``design``: a loaded design, or its file. Raises DesignError (bad file, an unusable
    program, or a design that cannot share the study's store) and SweepBusy before anything
    runs. Damaged runs are quarantined first (:meth:`Store.repair`; ``warn`` names their
    files) and run again. ``on_progress(done, total)`` is called as runs finish.
    """
    if not isinstance(design, Design):
        design = load_design(design)
    results_path = results_dir(results)
    store = Store.of(design, results_path)
    design = store.bind(design)
    start = time.perf_counter()
    with _lock(store.root):
        if design.precision is None:
            return _run_once(design, store, results_path, cores, keep_going, on_progress,
                             poll_seconds, execution, warn, start)  # fmt: skip
        # rounds: resume from the last round (design.json), then until the targets
        this_round: Design | None = store.round(design)
        rounds = []
        while this_round is not None:
            report = _run_once(this_round, store, results_path, cores, keep_going, on_progress,
                               poll_seconds, execution, warn, start)  # fmt: skip
            if not report.ok:
                return report
            now = precision.reached(str(store.runs_table), this_round)
            rounds.append(Round(this_round, now))
            report.rounds = rounds
            this_round = precision.next_round(this_round, str(store.runs_table), now)
        return report


def _run_once(
    design: Design,
    store: Store,
    results_path: Path,
    cores: int,
    keep_going: bool,
    on_progress: Callable[[int, int], None] | None,
    poll_seconds: float,
    execution: Execution,
    warn: Callable[[str], None],
    start: float,
) -> SweepReport:
    """One Snakemake pass over ``design``'s missing runs, the store locked by the caller."""
    design_path = design.source
    store.record(design)
    before = store.state(design)
    store.repair(before, warn)
    done_before = len(before.done)
    log = store.logs / "snakemake.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    command = snakemake_command(
        design_path,
        results_path,
        store.root,
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
                    on_progress(store.count_done(design), design.n_runs)
                time.sleep(poll_seconds)
        except BaseException:
            proc.send_signal(signal.SIGINT)  # Snakemake stops its jobs and cleans up
            proc.wait()
            raise
    final = store.state(design)
    if on_progress is not None:
        on_progress(len(final.done), design.n_runs)
    return SweepReport(
        design=design,
        store=store,
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


def estimate_seconds(state: State, cores: int) -> tuple[float, int] | None:
    """(estimated wall seconds of the missing runs on `cores`, runs it is based on), if known."""
    seconds = state.store.elapsed_seconds(state.done)
    if not seconds:
        return None
    todo = state.n_missing + len(state.failed) + len(state.damaged)
    return sum(seconds) / len(seconds) * todo / max(cores, 1), len(seconds)
