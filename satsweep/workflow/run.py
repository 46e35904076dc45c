"""Running a sweep: a design's missing runs, then the store compacted.

:func:`run` starts, locally, one worker process per core itself (the Snakefile's `work` jobs,
:func:`satsweep.workflow.jobs.work_command`), and through a remote executor such as Ray
(:class:`Execution`) Snakemake over the Snakefile shipped with satsweep (``python -m
satsweep.workflow.snakemake_cli``) with the study's store as working directory; it watches the
store's files for progress and reports what was done, skipped and failed.
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import fcntl
import importlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from satsweep import shipped
from satsweep.design import Design, load_design
from satsweep.store import State, Store, discard_batches, read_batches, results_dir, write_json
from satsweep.store import holder
from satsweep.store.files import write_bytes
from satsweep.analysis import precision
from satsweep.workflow import schedule
from satsweep.workflow import jobs
from satsweep.workflow.jobs import JOBS_LOCK, STORE_FAILURES

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "SNAKEFILE",
    "compact",
    "Execution",
    "SweepBusy",
    "SweepReport",
    "lock_store",
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
    done_before: int = 0  # its runs in the store before the command
    grown: str = ""  # why the next round grows the runs, when it does

    @property
    def met(self) -> bool:
        return all(x.met for x in self.reached)


@dataclass
class SweepReport:
    """What a `satsweep run` did."""

    design: Design
    store: Store
    returncode: int  # the workers' (the first that failed), or Snakemake's
    done_before: int
    done_now: int
    state: State
    wall_seconds: float
    log: Path
    # a precision campaign's rounds, the last one's design is `design`
    rounds: list[Round] = field(default_factory=list)
    stored: bool = True  # False: the compaction failed (a full disk), the old tables are kept

    @property
    def ok(self) -> bool:
        return (
            self.returncode == 0
            and self.stored
            and not self.state.failed
            and not self.state.n_missing
        )


#: Executors that run Snakemake's jobs elsewhere (remote executors with a shipped profile).
PROFILES = shipped.path("ray_jobs", "profiles")

#: Jobs queued in a remote executor beyond its slots, per slot: a slot that frees up starts the
#: next job at once instead of at Snakemake's next status check.
QUEUED_PER_SLOT = 1


@dataclass(frozen=True)
class Execution:
    """Where the runs run: locally (``executor=None``: satsweep's own workers) or through a
    remote executor (Snakemake's jobs).

    ``jobs``: the executor's job slots (the cluster's CPU count); ``group_size``: runs per
    remote job (None: shrinking groups, see satsweep/workflow/schedule.py); ``profile``: a
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
    execution: Execution,
) -> list[str]:
    """The Snakemake command line of a run through a remote executor (the shipped Snakefile).

    With J slots: ``--executor E``, up to ``J x (1 + QUEUED_PER_SLOT)`` jobs submitted at once,
    ``--cores 1`` (a job runs its group's runs one after the other); the Snakefile makes a
    job of each group of the pass's plan (:func:`write_plan`, its path in the configuration).
    The workflow's configuration (:func:`workflow_config`) is the JSON file
    ``<store>/.satsweep-config.json``, which the caller writes. A local pass starts no
    Snakemake (:func:`start_workers`).
    """
    command = [
        sys.executable, "-m", "satsweep.workflow.snakemake_cli",
        "--snakefile", str(SNAKEFILE),
        "--directory", str(store_dir),
    ]  # fmt: skip
    slots = execution.jobs or cores
    profile = execution.profile_dir()
    if profile is not None:
        command += ["--profile", str(profile)]
    queue = slots * (1 + QUEUED_PER_SLOT)
    command += ["--executor", str(execution.executor), "--jobs", str(queue), "--cores", "1"]
    command += [
        "--configfile", str(store_dir / CONFIG_FILE),
        "--nolock",  # satsweep holds its own lock (below), which a SIGKILL cannot leave behind
        "--rerun-incomplete",
        # no metadata of Snakemake's own (the store records every run): its record of a job
        # imports pandas, 0.3 s at the end of each job, to see whether a parameter is a frame
        "--drop-metadata",
    ]  # fmt: skip
    if keep_going:
        command.append("--keep-going")
    # the runs only: satsweep compacts the store itself afterwards (compact)
    return [*command, "runs"]


#: The progress count waits this many times its own duration before the next one.
PROGRESS_SHARE = 50

#: The workflow's configuration in the store, a JSON file: Snakemake's ``--config key=value``
#: parses each value again as YAML (a ``#`` ends a path there, quotes vanish, ``: `` breaks it).
CONFIG_FILE = ".satsweep-config.json"


def workflow_config(
    design_path: Path, results: Path, cores: int, execution: Execution, plan: Path | None = None
) -> dict[str, object]:
    """The Snakefile's ``config`` (workflow/schemas/config.schema.yaml) through a remote
    executor: the design file, the results folder, the executor's slots and smallest group,
    and the pass's plan (:func:`write_plan`), whose path is all that travels to the jobs."""
    config: dict[str, object] = {"sweep": str(design_path), "results": str(results)}
    config["slots"] = execution.jobs or cores
    config["min_group_seconds"] = schedule.min_group_seconds(execution.executor)
    if execution.group_size:
        config["group_size"] = execution.group_size
    if plan is not None:
        config["plan"] = str(plan)
    return config


def runs_to_make(state: State) -> dict[str, Sequence[int]]:
    """The replications not done (missing, failed, or damaged: quarantined before the pass)
    of each configuration that has some, ascending."""
    redo: dict[str, set[int]] = collections.defaultdict(set)
    for run, _ in [*state.failed, *state.damaged]:
        redo[run.config_id].add(run.replication)
    todo: dict[str, Sequence[int]] = {}
    for config in state.incomplete_configurations():
        accounted = state.incomplete[config.index]
        r = state.design.replications_for(config.config_id)
        if not accounted:
            todo[config.config_id] = range(1, r + 1)
        else:
            again = redo.get(config.config_id, set())
            todo[config.config_id] = [
                k for k in range(1, r + 1) if k not in accounted or k in again
            ]
    return todo


def write_plan(
    design: Design, state: State, store: Store, pass_id: str, cores: int, execution: Execution
) -> Path | None:
    """Plans a remote pass: its groups of the runs ``state`` has not done
    (:func:`schedule.plan` over the executor's slots), written as
    ``workers/<pass>/plan.json``, whose path the Snakefile and every remote job read; None,
    and nothing written, when no run is to be made."""
    groups = schedule.plan(
        schedule.RunOrder(design),
        execution.jobs or cores,
        execution.group_size,
        schedule.min_group_seconds(execution.executor),
        runs_to_make(state),
    )
    if not groups.ranges:
        return None
    path = store.pass_folder(pass_id) / schedule.PLAN_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes(path, groups.to_json().encode())
    return path


#: The store's lock: `satsweep run` holds it, and so do its workers or its Snakemake (the
#: descriptor is passed on), so an orphaned one keeps the store locked as long as it works;
#: its holder writes itself down beside it (store/holder.py: host, pid, Slurm job).
LOCK_FILE = holder.LOCK_FILE
#: How long the workers (or Snakemake and its jobs) and their programs get to stop after an
#: interrupt (SIGINT to each) before they are sent SIGTERM, and then SIGKILL after as long again.
STOP_GRACE_S = 20.0


#: How long a lock that no live process holds open is waited for: a killed run's processes
#: leave /proc's descriptor lists a moment before the kernel releases their locks.
RELEASE_GRACE_S = 5.0


@contextmanager
def lock_store(store_dir: Path) -> Iterator[int]:
    """Locks the store (yields the lock's descriptor, for Snakemake to inherit); SweepBusy when
    another run, or an orphaned Snakemake or job of an earlier one, still writes to it."""
    store_dir.mkdir(parents=True, exist_ok=True)
    path = store_dir / LOCK_FILE
    with open(path, "a") as handle:
        holders = _take_lock(handle, path)
        if holders is not None:
            named = holder.read_holder(store_dir, check=False)  # held: the lock was refused
            said = f"; its lock names {named.describe()}" if named else ""
            raise SweepBusy(f"another satsweep run is using {store_dir}{_held_by(holders)}{said}")
        jobs = store_dir / JOBS_LOCK
        with open(jobs, "a") as job_lock:  # each job holds it shared while it runs
            holders = _take_lock(job_lock, jobs)
            if holders is not None:
                raise SweepBusy(
                    f"jobs of an earlier satsweep run still write to {store_dir}"
                    f"{_held_by(holders)}; wait until they end, or stop them"
                )
        with holder.holding(store_dir):  # who holds it, for those /proc does not show it to
            yield handle.fileno()


#: How long a lock held by a live process is tried again before a run is refused: longer than
#: another command's look at whether it is held (store/holder.py's ``is_held``).
GLANCE_S = 0.5


def _take_lock(handle, path: Path) -> set[int] | None:
    """Takes ``handle``'s lock (exclusive): None once taken, else the other processes that
    hold ``path`` open. A lock no process holds open is being released by an exiting one (a
    run just killed) and is waited for, up to :data:`RELEASE_GRACE_S`; one held is tried again
    for :data:`GLANCE_S` (`status` or `sql` looks whether it is held with a shared lock, an
    instant long)."""
    start = time.monotonic()
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return None
        except BlockingIOError:
            holders = _holders(path) - {os.getpid()}
            waited = time.monotonic() - start
            if (holders and waited > GLANCE_S) or waited > RELEASE_GRACE_S:
                return holders
        time.sleep(0.02)


# -- the processes of a run (Linux /proc) ---------------------------------------------------

Process = tuple[int, int]  # (pid, start time in clock ticks): a pid that is not reused


def _processes() -> dict[Process, int]:
    """Every live process (zombies excluded) and its parent's pid."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        fields = jobs.proc_stat(entry.name)
        if fields is not None and fields[0] not in "ZX":
            found[(int(entry.name), int(fields[19]))] = int(fields[1])
    return found


def kill_child_groups() -> None:
    """Kills the process group of each child of this process, each the leader of its own (a
    program run by :meth:`Program.run`, with its children): a thread waiting for one cannot
    be interrupted, its program can."""
    me = os.getpid()
    for (pid, _), parent in _processes().items():
        if parent == me:
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)


def _holders(path: Path) -> set[int]:
    """Pids of the processes that have ``path`` open."""
    target = str(path)
    pids = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if any(os.readlink(fd) == target for fd in (entry / "fd").iterdir()):
                    pids.add(int(entry.name))
            except OSError:
                continue
    return pids


def _command_of(pid: int) -> str:
    try:
        words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return "?"
    text = " ".join(w.decode(errors="replace") for w in words if w)
    return text if len(text) <= 100 else text[:97] + "..."


def _held_by(holders: set[int]) -> str:
    """`` (held by pid N: its command; ...)`` of the processes holding a lock file."""
    pids = sorted(holders)
    if not pids:
        return ""
    named = "; ".join(f"pid {pid}: {_command_of(pid)}" for pid in pids[:3])
    return f" (held by {named}{'; ...' if len(pids) > 3 else ''})"


def _family(started: list[subprocess.Popen], store_dir: Path, seen: set[Process]) -> set[Process]:
    """The live processes of a run: those it started (its workers, or Snakemake), the jobs
    holding the store's job lock, every descendant of these, and those of ``seen`` still alive
    (a job orphaned when Snakemake exits is no longer its descendant)."""
    live = _processes()
    holders = _holders(store_dir / JOBS_LOCK)
    for proc in started:
        if proc.returncode is None:  # once reaped, its pid may be another process's
            holders.add(proc.pid)
    family = {p for p in live if p[0] in holders} | (seen & live.keys())
    children: dict[int, list[Process]] = {}
    for p, parent in live.items():
        children.setdefault(parent, []).append(p)
    todo = list(family)
    while todo:
        for child in children.get(todo.pop()[0], []):
            if child not in family:
                family.add(child)
                todo.append(child)
    return family


def _signal(processes: set[Process], signum: int) -> None:
    for pid, _ in processes:
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass


def _stop(started: list[subprocess.Popen], store_dir: Path, warn: Callable[[str], None]) -> None:
    """Stops the processes a run started (its workers, or Snakemake and its jobs) and their
    programs as a terminal's Ctrl-C does (SIGINT to each: Snakemake alone would wait for its
    running jobs to end), and returns only when none is left: after STOP_GRACE_S the rest get
    SIGTERM, after as long again SIGKILL. A second interrupt meanwhile goes straight to
    SIGKILL."""
    hurry = False

    def hurry_up(signum: int, frame: object) -> None:
        nonlocal hurry
        hurry = True

    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        for s in previous:
            signal.signal(s, hurry_up)
    except ValueError:  # not the main thread: signals reach it anyway
        previous = {}
    try:
        seen = _family(started, store_dir, set())
        _signal(seen, signal.SIGINT)
        for signum in (signal.SIGTERM, signal.SIGKILL, None):
            deadline = time.monotonic() + STOP_GRACE_S
            while seen and time.monotonic() < deadline and not (hurry and signum):
                time.sleep(0.1)
                _ended(started)  # reaps them
                seen = _family(started, store_dir, seen)
            if not seen or signum is None:
                break
            signum = signal.SIGKILL if hurry else signum
            pids = ", ".join(str(pid) for pid, _ in sorted(seen))
            warn(f"the sweep's processes are still running: {signum.name} sent to pid {pids}")
            _signal(seen, signum)
        for proc in started:
            proc.wait()
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _die_with_parent() -> None:  # in the child, before exec: SIGTERM when satsweep dies
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    # A satsweep started in the background (`cmd &`, nohup, some batch systems) inherits SIGINT
    # ignored, and so would its workers or Snakemake: they must still stop on the SIGINT
    # satsweep sends them.
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
    if not _writable(Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache")):
        # Snakemake keeps a source cache there and dies with a traceback when it cannot (a
        # cluster node's read-only or missing HOME): a private one in the temporary folder
        env["XDG_CACHE_HOME"] = str(Path(tempfile.gettempdir()) / f"satsweep-cache-{os.getuid()}")
    return env


def _writable(folder: Path) -> bool:
    """Whether ``folder`` is, or can be made, a folder this process may write in."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK | os.X_OK)


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
    """Runs a sweep's missing runs (by local workers, or Snakemake through a remote executor)
    and compacts the store.

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
    with lock_store(store.root) as lock:
        # a precision campaign resumes from its last round (design.json); its state is the
        # first pass's too
        this_round: Design | None = store.round(design)
        before: State | None = store.state(this_round)
        warn_rebuilt(this_round, store, warn, before)
        if design.precision is None:
            return _run_once(design, store, results_path, cores, keep_going, on_progress,
                             poll_seconds, execution, warn, start, lock, before)  # fmt: skip
        # rounds until the targets
        rounds: list[Round] = []
        made = 0  # runs made by the rounds before this one
        while this_round is not None:
            report = _run_once(this_round, store, results_path, cores, keep_going, on_progress,
                               poll_seconds, execution, warn, start, lock, before)  # fmt: skip
            if rounds:  # "before": before this command, not before this round
                made += report.done_now
                report.done_now, report.done_before = made, rounds[0].done_before
            else:
                made = report.done_now
            before = None  # the next round's runs are other runs
            if not report.ok:
                return report
            now = precision.reached(str(store.runs_table), this_round)
            decision = precision.decide(this_round, str(store.runs_table), now)
            why = decision.why if decision is not None else ""
            rounds.append(Round(this_round, now, report.done_before, why))
            report.rounds = rounds
            this_round = decision.design if decision is not None else None
        return report


def warn_rebuilt(
    design: Design, store: Store, warn: Callable[[str], None], state: State | None = None
) -> None:
    """Warns when runs in the store were made by another build of the program, of the same
    version, than ``design``'s now (:func:`rebuilt_notice`), whether or not runs are to be
    added: with runs to add, the runs of one study would come from two binaries, which only
    the provenance would show. ``state``: the state of ``design`` at its store's round
    (:meth:`Store.round`) when the caller has it."""
    if state is None:
        state = store.state(store.round(design))
    notice = rebuilt_notice(design, store, state)
    if notice is not None:
        warn(notice)


def rebuilt_notice(design: Design, store: Store, state: State) -> str | None:
    """What `plan`, `status` and `run` say when runs in the store were made by another
    identity of the program (its sha256) than ``design``'s now, of the same version
    (:meth:`Store.other_builds`): how many, by which, and what to do; with runs to add
    (``state``: the design's at its round), that they will come from the other binary. None
    when every run was made by the program as it is now."""
    others = store.other_builds(design, state)
    if not others:
        return None
    program = design.executable
    n = sum(others.values())
    made = f"{n} run{'s' * (n != 1)} in {store.root} {'were' if n != 1 else 'was'} made by "
    if len(others) == 1:
        made += f"another build of the same version (sha256 {next(iter(others))})"
    else:
        said = ", ".join(f"sha256 {sha}: {k}" for sha, k in others.items())
        made += f"other builds of the same version ({said})"
    todo = state.n_missing + len(state.failed) + len(state.damaged)
    if todo:
        made += f"; the {todo} run{'s' * (todo != 1)} to make now will come from this one"
    # a crossed design's programs each by its own path (the crossed one has none)
    now = " and ".join(f"{p.path} has sha256 {p.sha256}" for p in program.programs())
    return (
        f"program: {design.describe.name} {design.describe.version} at {now}, but {made}. "
        f"A program whose results may change "
        f"should get a new version (and the study another name); `satsweep verify "
        f"{design.study} --sample N` reruns N stored runs with this one and compares them, "
        "`satsweep compare` a rerun in a study of its own with these runs"
    )


#: What the compaction after a sweep imports (pyarrow with numpy: 0.3 s on the 2-core
#: reference machine), loaded in a thread while the workers run rather than after them.
COMPACTION_MODULES = ("pyarrow.parquet", "satsweep.store.rows")


def _load_in_background(modules: tuple[str, ...]) -> threading.Thread:
    """Imports ``modules`` in a daemon thread, started; an import that fails there fails
    again, and is reported, where the module is used."""

    def load() -> None:
        for module in modules:
            with contextlib.suppress(Exception):
                importlib.import_module(module)

    thread = threading.Thread(target=load, name="satsweep-preload", daemon=True)
    thread.start()
    return thread


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
    lock: int,
    before: State | None = None,
) -> SweepReport:
    """One pass over ``design``'s missing runs (locally by workers this process starts, else
    by Snakemake), the store locked by the caller (``lock``: the lock's descriptor, which they
    hold too; ``before``: the design's state, when the caller has just read it)."""
    store.record(design)
    if before is None:
        before = store.state(design)
    store.repair(before, warn)
    # runs' scratch folders a killed satsweep left (no run of the store is left: lock_store)
    for left in store.scratch_dirs():
        shutil.rmtree(left, ignore_errors=True)
    done_before = len(before.done)
    log = store.logs / "snakemake.log"  # a remote pass's; a local one shows a worker's
    if not (before.n_missing or before.failed or before.damaged):
        if store.compaction_problem(before) is None:  # nothing to do: no process started
            if before.records_read:  # a store copied, or made before the cache: now it has one
                store.write_records_cache(design, before.seen)
            return SweepReport(design, store, 0, done_before, 0, before,
                               time.perf_counter() - start, log)  # fmt: skip
    # earlier passes' queues and workers' logs (no job of theirs is left: lock_store)
    shutil.rmtree(store.workers, ignore_errors=True)
    for old in _job_logs(store):
        old.unlink(missing_ok=True)  # a pass's jobs' logs are its own (store_errors)
    log.parent.mkdir(parents=True, exist_ok=True)
    pass_id = uuid.uuid4().hex[:12]
    started: list[subprocess.Popen] = []
    head = None
    try:
        if execution.remote:
            # the groups of the runs to make; none (only the compaction is due): no Snakemake
            plan = write_plan(design, before, store, pass_id, cores, execution)
            if plan is not None:
                started.append(
                    _start_snakemake(
                        design, store, results_path, cores, keep_going, execution, lock, log, plan
                    )
                )
        else:
            # first the head start, which claims the queue's first run, then as many workers
            # as runs to make, up to the cores
            head = jobs.HeadStart.of_pass(design, store, pass_id, cores, keep_going)
            workers = max(1, min(cores, before.total - len(before.done)))
            started += start_workers(design, store, pass_id, workers, keep_going, lock)
        loading = _load_in_background(COMPACTION_MODULES)
        finished = _Finished(store)
        while True:
            working = head is not None and head.step()
            # the head start's configuration runs even if every worker has ended before it
            if (returncode := _ended(started)) is not None and not working:
                break
            wait = poll_seconds
            if on_progress is not None:
                counted = time.perf_counter()
                on_progress(done_before + finished.count(), design.n_runs)
                # at most a fiftieth of a core, taken from the runs
                wait = max(wait, PROGRESS_SHARE * (time.perf_counter() - counted))
            if not working:
                _wait(started, wait)  # returns as soon as they have ended
    except BaseException:
        _stop(started, store.root, warn)
        raise
    finally:
        if head is not None:
            head.close()
    loading.join()  # not left importing while the interpreter exits
    final = store.state(design)
    stored = True
    due = store.compaction_problem(final) is not None  # Snakemake's onerror may have compacted
    # a local pass's workers' rows spare the compaction parsing their files (remote jobs keep
    # none); read into memory, their files go before the compaction writes (a disk nearly full)
    rows = {}
    if not execution.remote:
        folder = store.pass_folder(pass_id)
        rows = read_batches(folder) if due else {}
        discard_batches(folder)
        # the log to show: the first failed worker's (else the first worker's)
        failed = [k for k, proc in enumerate(started, 1) if proc.returncode]
        log = store.worker_log(failed[0] if failed else 1)
    if due:
        after = compact(store, design, warn, final, rows)  # every job has ended: state stands
        stored = after is not None
        final = store.state(design) if after is None else after  # quarantined: taken again
    if on_progress is not None:
        on_progress(len(final.done), design.n_runs)
    # a run done before may have been quarantined since (a damage only its sha256 showed)
    kept = {(r.config_id, r.replication) for r in before.done}
    done_now = sum((r.config_id, r.replication) not in kept for r in final.done)
    return SweepReport(
        design=design,
        store=store,
        returncode=returncode,
        done_before=len(final.done) - done_now,
        done_now=done_now,
        state=final,
        wall_seconds=time.perf_counter() - start,
        log=log,
        stored=stored,
    )


def _start_snakemake(
    design: Design,
    store: Store,
    results: Path,
    cores: int,
    keep_going: bool,
    execution: Execution,
    lock: int,
    log: Path,
    plan: Path,
) -> subprocess.Popen:
    """Starts Snakemake over the design through a remote executor (:func:`snakemake_command`)
    and the pass's ``plan`` (:func:`write_plan`), logging to ``log``, holding the store's lock
    (``lock``) and dying with this process."""
    design_path = design.source
    command = snakemake_command(design_path, results, store.root, cores, keep_going, execution)
    config = workflow_config(design_path, results, cores, execution, plan)
    write_json(store.root / CONFIG_FILE, config)  # a path is then never parsed again
    return _start(command, log, lock, env=snakemake_environment(execution.executor))


def start_workers(
    design: Design, store: Store, pass_id: str, workers: int, keep_going: bool, lock: int
) -> list[subprocess.Popen]:
    """Starts a local pass's worker processes, the Snakefile's `work` jobs
    (:func:`satsweep.workflow.jobs.work_command`) without Snakemake, whose start (1.8 core
    seconds, mostly imports, on the 2-core reference machine) and DAG were a local pass's
    largest fixed cost (docs/performance.md). Each works in the store, logs to
    ``logs/worker-<k>.log``, holds the store's lock (``lock``: an orphaned worker keeps the
    store locked while it runs) and dies with this process."""
    store.pass_folder(pass_id).mkdir(parents=True, exist_ok=True)  # the queue's folder
    started: list[subprocess.Popen] = []
    try:
        for k in range(1, workers + 1):
            output = str(store.worker_file(pass_id, k))
            command = jobs.work_command(str(design.source), output, keep_going, os.getpid())
            log = store.worker_log(k)
            started.append(_start(command, log, lock, stdin=subprocess.DEVNULL, cwd=store.root))
    except BaseException:  # e.g. no process left to start: none of the pass runs
        for proc in started:
            proc.kill()  # just started: no program of its own yet, or one dying with it
            proc.wait()
        raise
    return started


def _start(command: list[str], log: Path, lock: int, **options: Any) -> subprocess.Popen:
    """Starts ``command`` (a worker, or Snakemake) logging to ``log``, holding the store's lock
    (``lock``: an orphan keeps the store locked while it runs) and dying with this process;
    ``options``: Popen's others."""
    with open(log, "w") as out:
        return subprocess.Popen(
            command,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=_die_with_parent,
            pass_fds=(lock,),
            **options,
        )


def _ended(started: list[subprocess.Popen]) -> int | None:
    """None while a process of ``started`` runs, else the first nonzero exit code among them
    (0: every one succeeded)."""
    codes = [proc.poll() for proc in started]
    if None in codes:
        return None
    return next((code for code in codes if code), 0)


def _wait(started: list[subprocess.Popen], timeout: float) -> None:
    """Waits up to ``timeout`` seconds for every process of ``started`` to end."""
    deadline = time.monotonic() + timeout
    with contextlib.suppress(subprocess.TimeoutExpired):
        for proc in started:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))


def compact(
    store: Store,
    design: Design,
    warn: Callable[[str], None],
    state: State | None = None,
    parsed: Mapping[str, pa.Table] | None = None,
) -> State | None:
    """Compacts the store's finished runs of ``design`` into its tables, in this process (a
    Snakemake job would start Python and the store's stack again). What it says goes to
    ``logs/collect.log``, as the ``collect`` job's would: a full disk is its last line, which
    `run` and `status` show. ``state`` and ``parsed``: as :meth:`Store.collect` takes them. The store's state
    after it; None when it failed, the previous tables are then kept."""
    said: list[str] = []
    after = jobs.compact(store, design, said.append, state, parsed)
    for line in said[:-1]:  # its warnings (a run damaged since, quarantined)
        warn(line)
    with contextlib.suppress(OSError):  # the disk may be full: the summary says it still
        (store.logs / "collect.log").write_text("".join(f"{line}\n" for line in said))
    return after


def log_tail(path: Path, lines: int = 15) -> str:
    """The last lines of a log file (empty when it does not exist)."""
    try:
        return "\n".join(path.read_text(errors="replace").rstrip().splitlines()[-lines:])
    except OSError:
        return ""


class _Finished:
    """The runs a pass has stored so far, from its jobs' logs (a line :data:`jobs.DONE` each),
    read as they grow: counting the store would read every configuration's folder, 20 ms at
    10^3 configurations and 0.2 s at 10^4."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.read: dict[Path, int] = {}  # each log's bytes counted, up to its last whole line
        self.runs = 0

    def count(self) -> int:
        marker = jobs.DONE.encode()
        for log in _job_logs(self.store):
            offset = self.read.get(log, 0)
            try:
                with open(log, "rb") as f:
                    f.seek(offset)
                    grown = f.read()
            except OSError:
                continue
            whole = grown.rfind(b"\n") + 1
            self.runs += grown.count(marker, 0, whole)
            self.read[log] = offset + whole
        return self.runs


def _job_logs(store: Store) -> list[Path]:
    """The logs of the last pass's jobs: the local workers' (and the head start's) and the
    remote groups'."""
    return [
        *store.logs.glob(jobs.HEAD_START_LOG),
        *sorted(store.logs.glob("worker-*.log")),
        *sorted(store.logs.glob(f"{schedule.GROUP_PREFIX}*.log")),
    ]


def store_errors(state: State) -> list[str]:
    """Why jobs could not write the store (a full disk: "No space left on device"): the last
    log line of the compaction and of the last pass's jobs, when it says so (at most 20)."""
    store = state.store
    logs = [store.logs / "collect.log", *_job_logs(store)]
    said = []
    for log in logs:
        last = log_tail(log, 1)
        if last.startswith(STORE_FAILURES):
            said.append(f"{last} ({log.relative_to(store.root)})")
    return said[:20]


def estimate_seconds(state: State, cores: int) -> tuple[float, int] | None:
    """(estimated wall seconds of the missing runs on `cores`, runs it is based on), if known."""
    seconds = state.store.elapsed_seconds(state.done)
    if not seconds:
        return None
    todo = state.n_missing + len(state.failed) + len(state.damaged)
    return sum(seconds) / len(seconds) * todo / max(cores, 1), len(seconds)


def hinted_seconds(state: State, cores: int) -> float | None:
    """Estimated wall seconds of the missing runs on ``cores`` by the program's cost hint
    (:meth:`Description.estimated_seconds`: core-seconds per run), for a plan before any run
    has finished; None for a program without one."""
    design = state.design
    if not design.executable.has_cost:
        return None
    done = collections.Counter(r.config_id for r in state.done)
    seconds = 0.0
    for config in state.incomplete_configurations():
        todo = design.replications_for(config.config_id) - done[config.config_id]
        seconds += design.executable.estimated_seconds(config.params) * todo
    return seconds / max(cores, 1)
