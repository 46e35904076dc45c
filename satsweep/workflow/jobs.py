"""The workflow's jobs as a small command, so that a job or worker starts only what it needs.

    python -m satsweep.workflow.jobs simulate SWEEP MARKER          # a group of runs, remotely
    python -m satsweep.workflow.jobs work SWEEP WORKER_FILE KEEP_GOING PID  # a local worker
    python -m satsweep.workflow.jobs collect SWEEP COMPACTION           # compact the store

Paths of the outputs locate the store (``<results>/<study>/...``), so a job needs no other
configuration and runs the same under any Snakemake executor with a shared file system.

Locally a sweep is one worker per core rather than one job per configuration (`satsweep run`
starts them itself, a Snakemake started by hand as its `work` jobs): each worker takes the next
run from a queue that the workers of a pass share (a counter under a file lock, over the runs
longest first, a configuration's replications in a row: :class:`schedule.RunOrder`), so a run
costs no Python start and no Snakemake job, a configuration's replications spread over the
cores, and the cores stay busy until the queue is empty. While the workers start, before any
of them has taken a run, `satsweep run` may take short ones from the same queue itself
(:class:`HeadStart`). A remote job runs a group of runs of the same order, which its pass's
plan names (:func:`simulate`, :class:`schedule.RunGroups`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import importlib.abc
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Collection, Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import satsweep
from satsweep.design import Configuration, Design, Run, load_design
from satsweep.engine import SimulationError
from satsweep.store import RowBatch, State, Store, write_json
from satsweep.workflow import schedule

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "DONE",
    "HEAD_START_MAX_SECONDS",
    "HeadStart",
    "JOBS_LOCK",
    "compact",
    "proc_stat",
    "provenance",
    "simulate_run",
    "work",
    "work_command",
]

#: A lock file in the store that every job holds shared while it runs: `satsweep run` starts
#: only when it can take it exclusively, so no orphaned job of an earlier run still writes.
JOBS_LOCK = ".satsweep.jobs.lock"
#: What a job's log says after a run's key when it has stored the run (`satsweep run` counts
#: these lines for its progress).
DONE = ": done (--run="
#: How a job's last log line starts when the store could not be written (satsweep run and
#: status show such lines: the cause of a failure that leaves no failed run behind).
STORE_FAILURES = ("compaction failed", "cannot write the store")


@cache
def _git(directory: Path, *args: str) -> str | None:
    try:
        proc = subprocess.run(
            ["git", *args], cwd=directory, capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


@cache
def _project(directory: Path) -> dict[str, Any]:
    status = _git(directory, "status", "--porcelain", "--untracked-files=no")
    return {
        "git_commit": _git(directory, "rev-parse", "HEAD"),
        "git_dirty": None if status is None else bool(status),
    }


def provenance(design: Design, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What every run of this process (crossed: of the simulator ``params`` name) shares: the
    program,
    satsweep, the git state of the project the design file is in (None outside git), the host,
    the engine the program runs on (:attr:`Program.engine`, None for none). These and each
    run's own ``started_at`` and ``elapsed_seconds`` are the engine's PROVENANCE_COLUMNS, which
    the store checks (store/rows.py)."""
    program = design.executable
    program = program.program_for(params) if params is not None else program
    return {
        "program": program.name,
        "program_version": program.description.version,
        "program_sha256": program.sha256,
        "satsweep_version": satsweep.__version__,
        **_project(design.source.parent),
        "host": socket.gethostname(),
        "engine": program.engine,
    }


def simulate_run(
    design: Design, run: Run, store: Store, rows: RowBatch | None = None
) -> str | None:
    """Runs one simulation into the store; None when it succeeded, else what went wrong (also
    recorded in the run's ``.failed.json``). ``rows``: where a worker keeps the rows it stored,
    for the compaction."""
    program = design.executable
    out = store.run_file(run, ".json")
    out.parent.mkdir(parents=True, exist_ok=True)
    started_at = dt.datetime.now(dt.UTC).replace(tzinfo=None)  # naive UTC: no pytz needed
    start = time.perf_counter()
    try:
        # in the store, wherever the process is (a job's is the store, `satsweep run`'s not)
        result = program.run(
            run.params,
            run.run,
            out,
            timeout=design.resources.timeout_s,
            cwd=store.root,
            scratch_dir=store.scratch_dir(run),  # in the store: a pass sweeps what a kill left
        )
        elapsed = time.perf_counter() - start
        facts = {
            **provenance(design, run.params),
            "started_at": started_at,
            "elapsed_seconds": elapsed,
        }
        written = store.write_run(design, run, result, facts)
    except SimulationError as e:
        failure = e
    except Exception as e:  # the run fails, not the job: else every rerun would meet it again
        if not store.record_file(run).is_file():  # no half-stored run may count as done
            for path in store.run_files(run, design.describe.tables):
                with contextlib.suppress(OSError):  # e.g. a folder in its place: not a run
                    path.unlink(missing_ok=True)
        failure = SimulationError(f"satsweep could not run or store it: {_error(e)}", None)
    else:
        if rows is not None:  # after the run is stored: a cache, which cannot fail it
            rows.add(written)
        return None
    store.write_failure(
        run,
        {
            "config_id": run.config_id,
            "replication": run.replication,
            "command": program.command(run.params, run.run, out)[1:],
            "returncode": failure.returncode,
            "message": failure.message,
            "stderr_tail": failure.stderr_tail,
            "started_at": started_at.isoformat(),
        },
    )
    return f"{run.config_id}/r{run.replication} {failure}"


def simulate(sweep: str, marker: str) -> int:
    """A remote job: the runs of its group of the pass's plan not done yet, one after the
    other in this one process (a group costs one Python start, not one a run). MARKER
    (``<store>/workers/<pass>/<group>.json``) names the group, the plan is beside it
    (:data:`schedule.PLAN_FILE`), and is written when every run of the group is done. A
    configuration's manifest (``complete-<r>.json``) is written by whichever job finds its
    last replication done. 1 if any run failed (the group's other runs still run)."""
    output = Path(marker)
    store = Store(output.parents[2])
    _hold_jobs_lock(store)
    # the round `satsweep run` recorded last, as the Snakefile takes it
    design = store.round(store.bind(load_design(sweep, max_runs=None)))
    groups = schedule.RunGroups.from_json((output.parent / schedule.PLAN_FILE).read_text())
    order = schedule.RunOrder(design)
    if groups.order != order.digest():
        _say(f"{sweep} has changed since this pass was planned: run the sweep again")
        return 1
    done = failures = 0
    for position, replications in order.spans(*groups.range_of(output.stem)):
        config = order.configurations[position]
        # its runs here are this job's alone: no other job writes their files
        _remove_temporaries(store, config.config_id, replications)
        failed = 0
        for k in replications:
            run = config.run(design, k)
            if store.is_done(run):
                continue
            problem = simulate_run(design, run, store)
            if problem is None:
                _say(f"{run.config_id}/r{run.replication}{DONE}{run.run})")
                done += 1
            else:
                _say(problem)
                failed += 1
        if not failed:
            _write_manifest_when_complete(store, design, config)
        failures += failed
    if failures:
        _say(f"{failures} of the runs of group {output.stem} failed")
        return 1
    write_json(output, {"runs": done})
    return 0


def _write_manifest_when_complete(store: Store, design: Design, config: Configuration) -> None:
    """Writes the configuration's manifest (``complete-<r>.json``) when all its replications
    are done. Each job asks after storing its runs of the configuration, whose records are
    written before: of two jobs finishing its last runs, the later sees both."""
    runs = config.runs(design)
    manifest = store.manifest_file(config.config_id, len(runs))
    if not manifest.is_file() and all(store.is_done(run) for run in runs):
        write_json(
            manifest,
            {
                "config_id": config.config_id,
                "params": config.params,
                "replications": {r.replication: r.run for r in runs},
            },
        )


def work_command(sweep: str, worker_file: str, keep_going: bool, parent: int) -> list[str]:
    """The command of a local worker (:func:`work`), which `satsweep run` starts itself and
    the Snakefile's `work` rule as a job: ``parent`` is the pid of the process that starts it."""
    return [sys.executable, "-m", "satsweep.workflow.jobs", "work", sweep, worker_file,
            str(int(keep_going)), str(parent)]  # fmt: skip


def work(sweep: str, worker_file: str, keep_going: str, parent: str) -> int:
    """A local worker: takes runs from its pass's queue (:class:`_Pending`) and runs them
    until the queue is empty, then writes WORKER_FILE
    (``<store>/workers/<pass>/worker-<k>.json``). After a failed run, unless KEEP_GOING is 1,
    it and the pass's other workers take no more runs (the runs going on finish, as
    Snakemake's jobs do), nor once the process that started it (pid PARENT: `satsweep run`, or
    a Snakemake started by hand) is gone: an orphaned worker ends with its run. 1 if a run
    failed or the queue was left."""
    output = Path(worker_file)
    store = Store(output.parents[2])
    _hold_jobs_lock(store)
    design = store.round(store.bind(load_design(sweep, max_runs=None)))
    queue = output.parent
    stop = queue / "stop"
    pending = _Pending(design, store)
    starter = _Process(int(parent))
    keep = keep_going == "1"
    done = failures = 0
    rows = RowBatch()
    with _Queue(queue / "next") as claims:
        while keep or not stop.exists():
            if not starter.alive():
                _say(f"its parent (pid {parent}) is gone: no more runs taken")
                return 1
            index = claims.take(pending=pending)
            if index is None or index >= len(pending.order):
                break
            failures += _run_taken(pending, index, stop, keep, _say, rows)
            done += 1
    _keep_rows(rows, queue, output.stem)
    if failures:
        _say(f"{failures} of {done} runs failed")
        return 1
    write_json(output, {"runs": done})
    return 0


def _run_taken(
    pending: _Pending,
    index: int,
    stop: Path,
    keep_going: bool,
    log: Callable[[str], None],
    rows: RowBatch | None = None,
) -> int:
    """Runs the run taken from the pass's queue at ``index``: 1 if it failed (and then, unless
    ``keep_going``, the pass is stopped), else 0."""
    run = pending.order.at(index)[1]
    problem = simulate_run(pending.design, run, pending.store, rows)
    if problem is None:
        log(f"{run.config_id}/r{run.replication}{DONE}{run.run})")
        return 0
    log(problem)
    if not keep_going:
        stop.touch()
    return 1


def _keep_rows(rows: RowBatch, folder: Path, name: str) -> None:
    """The rows a worker stored, as a batch for the compaction (store/batches.py); one that
    cannot be written (a full disk) is left out: the runs' files are parsed instead."""
    with contextlib.suppress(OSError):
        rows.write(folder, name)


def proc_stat(pid: int | str) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command's name (the state first, the start
    time in clock ticks at [19]), None when there is no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2 :].split()


class _Process:
    """A process by its pid and start time, which a reused pid does not share."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.started = self._started()

    def _started(self) -> str | None:
        """Its start time in clock ticks, None when it is gone (or a zombie)."""
        fields = proc_stat(self.pid)
        return None if fields is None or fields[0] in "ZX" else fields[19]

    def alive(self) -> bool:
        return self.started is not None and self._started() == self.started


class _Pending:
    """A local pass's runs (:class:`schedule.RunOrder`) as its queue hands them out: under
    the queue's lock, :meth:`next` passes over the runs done already and, when a
    configuration's first run is handed out, removes the temporaries a killed attempt left in
    its folder (before any other taker of the pass can write there)."""

    def __init__(self, design: Design, store: Store) -> None:
        self.design = design
        self.store = store
        self.order = schedule.RunOrder(design)

    def next(self, taken: int) -> int:
        """The first index from ``taken`` (the queue's count) whose run is not done; the
        order's length when none is left."""
        index, end = taken, len(self.order)
        while index < end:
            position, run = self.order.at(index)
            if not self.store.is_done(run):
                if self.order.starts[position] >= taken:  # none of its runs handed out yet
                    _remove_temporaries(self.store, run.config_id)
                return index
            index += 1
        return end


def _remove_temporaries(
    store: Store, config_id: str, replications: Collection[int] | None = None
) -> None:
    """Removes the temporaries (``.<name>.tmp.<pid>``, store/files.py) of a killed attempt in
    a configuration's folder: every one, or only those of ``replications`` (``.r<k>.*``, a
    remote job's runs: other jobs may be writing the folder's other runs)."""
    with contextlib.suppress(FileNotFoundError), os.scandir(store.run_dir(config_id)) as found:
        for entry in found:  # not Path.glob: a tenth of a millisecond a configuration
            if ".tmp." in entry.name and (
                replications is None or _replication_of(entry.name) in replications
            ):
                os.unlink(entry.path)


def _replication_of(temporary: str) -> int | None:
    """k of a run's temporary ``.r<k>.<suffix>.tmp.<pid>``, None for another file's."""
    match = _RUN_TEMPORARY.match(temporary)
    return int(match[1]) if match else None


#: A run's temporary: ``.r<k>.`` then its file's suffix, ``.tmp.`` and the writer's pid.
_RUN_TEMPORARY = re.compile(r"\.r([0-9]+)\..*\.tmp\.")


class _Queue:
    """The next index in a pass's queue: a counter in a file, taken under an exclusive lock,
    so every run (or index) goes to exactly one taker of the pass."""

    def __init__(self, path: Path) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)

    def __enter__(self) -> _Queue:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        os.close(self.fd)

    def take(self, only_after: int | None = None, pending: _Pending | None = None) -> int | None:
        """The next index, counted as taken (with ``pending``: its next run not done); with
        ``only_after``, only if the count is still exactly that (else None: another taker has
        come)."""
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        try:
            taken = int(os.pread(self.fd, 32, 0) or b"0")
            if only_after is not None and taken != only_after:
                return None
            index = taken if pending is None else pending.next(taken)
            os.pwrite(self.fd, f"{index + 1:<20d}".encode(), 0)  # fixed width: no truncation
            return index
        finally:
            fcntl.flock(self.fd, fcntl.LOCK_UN)


#: The longest run (estimated seconds by the program's cost hint) that :class:`HeadStart`
#: runs: its last one may still run when the workers have started, one process beyond
#: ``--cores`` for at most about this long.
HEAD_START_MAX_SECONDS = 1.0

#: The log of :class:`HeadStart`, beside the workers' (``logs/worker-<k>.log``).
HEAD_START_LOG = "head-start.log"


class HeadStart:
    """`satsweep run`'s own process as a worker of its pass until its workers start.

    The workers take about half a second to start (a Python each, its imports, the design
    loaded again). Meanwhile `satsweep run`, which has the design and the store loaded, takes
    runs from the pass's queue as a worker does, one per
    :meth:`step`, and stops for good at the first one a worker has taken before it (the
    queue's count is then no longer its own), after a failed run (which stops the pass, as a
    worker's does, unless ``keep_going``), or when the queue is empty. Its log,
    ``logs/head-start.log``, says what a worker's says.

    Only locally, on two cores or more, and for a program with a cost hint whose longest
    run is estimated at HEAD_START_MAX_SECONDS or less (:meth:`of_pass`): one with
    long runs, or runs of unknown length, would run beside the workers for as long.
    """

    def __init__(self, store: Store, pass_id: str, keep_going: bool, pending: _Pending) -> None:
        self.pending = pending  # the workers' order
        self.keep_going = keep_going
        folder = store.pass_folder(pass_id)
        folder.mkdir(parents=True, exist_ok=True)
        self.stop = folder / "stop"
        self.claims = _Queue(folder / "next")
        store.logs.mkdir(parents=True, exist_ok=True)
        self.log = open(store.logs / HEAD_START_LOG, "a", buffering=1)  # noqa: SIM115
        self.rows = RowBatch()
        # the queue's first run, claimed now, before the workers start
        self.first = self.claims.take(only_after=0, pending=pending)
        self.count: int | None = None  # the queue's count after its last take, once it ran

    @classmethod
    def of_pass(
        cls, design: Design, store: Store, pass_id: str, cores: int, keep_going: bool
    ) -> HeadStart | None:
        """The head start of a local pass over ``design`` on ``cores`` cores, None when it
        gets none; made before the pass's workers start, it has claimed the queue's first
        run."""
        if cores < 2 or not design.executable.has_cost:
            return None
        pending = _Pending(design, store)
        first = pending.order.configurations[:1]
        if not first or schedule.run_seconds(design, first[0]) > HEAD_START_MAX_SECONDS:
            return None
        return cls(store, pass_id, keep_going, pending)

    def step(self) -> bool:
        """Runs the next run if no worker has taken one since its last; False, and closed,
        once it takes no more."""
        if self.log.closed:
            return False
        if self.keep_going or not self.stop.exists():
            if self.count is None:
                _pyarrow_without_pandas()  # imported now: the workers have been started
                index = self.first
            else:
                index = self.claims.take(only_after=self.count, pending=self.pending)
            if index is not None and index < len(self.pending.order):
                self.count = index + 1
                _run_taken(self.pending, index, self.stop, self.keep_going, self._say, self.rows)
                return True
        self.close()
        return False

    def close(self) -> None:
        if not self.log.closed:
            self.claims.close()
            self.log.close()
            _keep_rows(self.rows, self.stop.parent, "head-start")

    def _say(self, message: str) -> None:
        self.log.write(f"{message}\n")


def collect(sweep: str, compaction: str) -> int:
    """Compacts the design's finished runs into the store's tables; COMPACTION
    (``<store>/compaction.json``) is written last."""
    store = Store(Path(compaction).parent)
    _hold_jobs_lock(store)
    design = store.bind(load_design(sweep, max_runs=None))
    design = store.round(design)  # a precision campaign: the round `satsweep run` recorded
    return 0 if compact(store, design, _say) is not None else 1


def compact(
    store: Store,
    design: Design,
    say: Callable[[str], None],
    state: State | None = None,
    parsed: Mapping[str, pa.Table] | None = None,
) -> State | None:
    """Compacts the design's finished runs into the store's tables, saying what it did (its
    warnings, then the runs compacted) or, last, why it could not (STORE_FAILURES[0]: a full
    disk, the previous tables stay as they were). ``state`` and ``parsed``: as
    :meth:`Store.collect` takes them. The store's state after it, None when it could not."""
    try:
        after = store.collect(design, warn=say, state=state, parsed=parsed)
    except OSError as e:
        say(f"{STORE_FAILURES[0]}, the previous tables are kept: {e.strerror or e}")
        return None
    say(f"{len(after.done)} of {design.n_runs} runs in {store.runs_table}")
    return after


def _hold_jobs_lock(store: Store) -> None:
    """Holds the store's JOBS_LOCK shared until this process ends."""
    try:
        fd = os.open(store.root / JOBS_LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        fcntl.flock(fd, fcntl.LOCK_SH)  # a `satsweep run` holds it exclusively only briefly
    except OSError:  # a file system without locks: the store's own lock still guards it
        pass


def _error(e: Exception) -> str:
    """An unexpected error, for a run's failure record: its class and the start of its text."""
    text = str(e)
    return f"{e.__class__.__name__}: {text[:200]}{'...' if len(text) > 200 else ''}"


def _say(message: str) -> None:
    print(message, flush=True)


class _WithoutPandas(importlib.abc.MetaPathFinder):
    """Refuses pandas while it is on ``sys.meta_path``."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name.partition(".")[0] == "pandas":
            raise ModuleNotFoundError(f"no {name} in a satsweep job", name=name)


def _pyarrow_without_pandas() -> None:
    """pyarrow imports pandas, when it is installed, at its first array (0.25 s of CPU, a
    quarter of a job's start) only to ask whether the values are pandas objects, which a job's
    never are: its first array here finds no pandas, and pyarrow keeps that answer. pandas is
    allowed again afterwards (an adapter may use it; pyarrow imports it when asked to convert)."""
    import pyarrow as pa

    finder = _WithoutPandas()
    sys.meta_path.insert(0, finder)
    try:
        pa.array([0])
    finally:
        sys.meta_path.remove(finder)


def main(argv: list[str] | None = None) -> int:
    # SIGTERM (Snakemake's or an executor's cancel) as Ctrl-C: the running program is stopped
    # with its process group instead of running on without its job
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    _pyarrow_without_pandas()
    args = sys.argv[1:] if argv is None else argv
    commands: dict[str, tuple[Callable[..., int], range]] = {  # the arguments each takes
        "simulate": (simulate, range(2, 3)),
        "work": (work, range(4, 5)),
        "collect": (collect, range(2, 3)),
    }
    if not args or args[0] not in commands or len(args) - 1 not in commands[args[0]][1]:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        return commands[args[0]][0](*args[1:])
    except OSError as e:  # a full disk: said on the log's last line, which satsweep shows
        where = f" ({e.filename})" if e.filename else ""
        _say(f"{STORE_FAILURES[1]}: {e.strerror or e}{where}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
