"""`satsweep submit`: a sweep as one Slurm batch job that runs a Ray cluster in its allocation.

:func:`submit` checks everything it can before anything is written or submitted (the design,
Slurm's presence and controller, the partition, the node count, CPU, memory and time formats),
copies the shipped ``ray_jobs/slurm/ray-cluster.sbatch`` to ``results/<study>/slurm/``, submits it with
``sbatch`` and records the job in ``results/<study>/slurm/jobs.jsonl``. :func:`job_status` says
what Slurm knows of the study's last job (``satsweep status``).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from satsweep import shipped
from satsweep.analysis import precision
from satsweep.design import MAX_RUNS, Design, load_design
from satsweep.store import State, Store, results_dir, write_atomically
from satsweep.workflow.run import SweepBusy, estimate_seconds, hinted_seconds, lock_store

__all__ = [
    "BATCH_SCRIPT",
    "JobState",
    "NothingToRun",
    "SubmitError",
    "Submission",
    "job_status",
    "nothing_to_run",
    "submit",
]

BATCH_SCRIPT = shipped.path("ray_jobs", "slurm", "ray-cluster.sbatch")
SLURM_TIMEOUT_S = 30

#: Memory each Ray node keeps for itself (ray-cluster.sbatch's RAY_RESERVE_MB) plus headroom.
RAY_RESERVE_MB = 1280
#: Job states in which a job still holds (or waits for) its allocation.
ACTIVE = {"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING"}

# Slurm's --time formats: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S (and "infinite"/"unlimited").
#: Seconds before the time limit at which the batch script gets SIGTERM to tear Ray down
#: (ray-cluster.sbatch's --signal); a quarter of a limit under 4 times as long. Slurm may send
#: it up to 60 s earlier still (sbatch(1): "due to the resolution of event handling").
SIGNAL_LEAD_S = 60
_TIME = re.compile(r"\d+(:\d{1,2}){0,2}|\d+-\d+(:\d{1,2}){0,2}|infinite|unlimited", re.I)
_MEM = re.compile(r"(\d+)([KMGT]?)", re.I)
_MEM_UNITS = {"K": 1 / 1024, "": 1, "M": 1, "G": 1024, "T": 1024 * 1024}


class SubmitError(ValueError):
    """Bad input or no usable Slurm: nothing was submitted or written."""


class NothingToRun(Exception):
    """The study has nothing for a job to do (:func:`nothing_to_run`): nothing was submitted
    or written; the message says so."""


@dataclass
class Partition:
    name: str
    default: bool
    nodes: int
    cpus: int  # CPUs of its smallest node
    mem_mb: int  # memory of its smallest node
    state: str


@dataclass
class Submission:
    """A submitted job, as recorded in results/<study>/slurm/jobs.jsonl."""

    job_id: str
    study: str
    sweep: str
    results: str
    partition: str
    nodes: int
    cpus_per_node: int
    mem: str
    time: str | None
    submitted_at: str
    output: str
    command: list[str]


# --- Slurm ----------------------------------------------------------------------------------


def _slurm(*args: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(
            list(args), capture_output=True, text=True, timeout=SLURM_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired:
        raise SubmitError(
            f"Slurm did not answer: '{' '.join(args)}' took more than {SLURM_TIMEOUT_S} s; "
            "allowed: a running slurmctld (check 'scontrol ping')"
        ) from None


def check_slurm() -> None:
    """sbatch on PATH and a controller that answers."""
    missing = [c for c in ("sbatch", "squeue", "sinfo", "scontrol") if shutil.which(c) is None]
    if missing:
        raise SubmitError(
            f"Slurm not found: no {', '.join(missing)} on PATH; allowed: a machine with Slurm's "
            "client commands (ray_jobs/README-slurm.md), or 'satsweep run' to run locally"
        )
    ping = _slurm("scontrol", "ping")
    if ping.returncode != 0 or "UP" not in ping.stdout:
        said = (ping.stdout + ping.stderr).strip().splitlines()
        raise SubmitError(
            f"the Slurm controller does not answer ({said[-1] if said else 'no output'}); "
            "allowed: a running slurmctld (check 'scontrol ping')"
        )


def partitions() -> dict[str, Partition]:
    """The cluster's partitions (sinfo), with their node count and smallest node."""
    proc = _slurm("sinfo", "-h", "-o", "%R|%P|%D|%c|%m|%a")
    if proc.returncode != 0:
        raise SubmitError(f"sinfo failed: {proc.stderr.strip()}")
    found: dict[str, Partition] = {}
    for line in proc.stdout.splitlines():
        try:
            name, flagged, nodes, cpus, mem, avail = line.strip().split("|")
            row = Partition(
                name,
                flagged.endswith("*"),
                int(nodes),
                int(cpus.rstrip("+")),
                int(mem.rstrip("+")),
                avail,
            )
        except ValueError:
            continue
        if name in found:  # one line per node state: add the nodes, keep the smallest node
            known = found[name]
            known.nodes += row.nodes
            known.cpus, known.mem_mb = min(known.cpus, row.cpus), min(known.mem_mb, row.mem_mb)
            known.default = known.default or row.default
        else:
            found[name] = row
    return found


def _mem_mb(text: str) -> int:
    m = _MEM.fullmatch(text.strip())
    if m is None:
        raise SubmitError(
            f"--mem: '{text}' is not a memory size; allowed: an integer with an optional unit "
            "K, M (default), G or T, e.g. 4G or 8000"
        )
    mb = int(int(m[1]) * _MEM_UNITS[m[2].upper()])
    if mb < RAY_RESERVE_MB + 256:
        raise SubmitError(
            f"--mem: {text} is too small; allowed: at least {RAY_RESERVE_MB + 256}M per node "
            f"(Ray keeps {RAY_RESERVE_MB}M for itself)"
        )
    return mb


def check_time(text: str) -> str:
    if not _TIME.fullmatch(text.strip()):
        raise SubmitError(
            f"--time: '{text}' is not a Slurm time; allowed: minutes, MM:SS, HH:MM:SS, "
            "D-HH, D-HH:MM or D-HH:MM:SS, e.g. 90 or 2:00:00"
        )
    return text.strip()


def time_seconds(limit: str) -> int | None:
    """A Slurm time limit (:func:`check_time`) in seconds; None for no limit."""
    if limit.lower() in ("infinite", "unlimited"):
        return None
    days, _, clock = limit.rpartition("-")
    parts = [int(p) for p in clock.split(":")]
    if days:  # D-HH[:MM[:SS]]
        hours, minutes, seconds = (parts + [0, 0])[:3]
        return int(days) * 86400 + hours * 3600 + minutes * 60 + seconds
    if len(parts) == 1:  # minutes
        return parts[0] * 60
    if len(parts) == 2:  # MM:SS
        return parts[0] * 60 + parts[1]
    return parts[0] * 3600 + parts[1] * 60 + parts[2]


# --- the study's jobs ------------------------------------------------------------------------


def slurm_dir(design: Design, results: str | os.PathLike[str] | None) -> Path:
    return Store.of(design, results).root / "slurm"


def recorded_jobs(design: Design, results: str | os.PathLike[str] | None) -> list[dict]:
    path = slurm_dir(design, results) / "jobs.jsonl"
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return []
    jobs = []
    for line in lines:
        try:
            jobs.append(json.loads(line))
        except ValueError:
            continue
    return jobs


@dataclass
class JobState:
    job_id: str
    state: str  # Slurm's (RUNNING, COMPLETED, CANCELLED, ...), or "finished"/"unknown"
    detail: str

    @property
    def active(self) -> bool:
        return self.state in ACTIVE


def _exit_line(output: Path) -> str | None:
    """What the batch script logged last about the driver (its exit code), if readable."""
    try:
        lines = output.read_text(errors="replace").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        if "TIMEOUT:" in line:  # said by job_status from the job's time-limit marker
            continue
        if "satsweep run exited with" in line or "SIGTERM" in line or "error:" in line:
            return line.split("] ", 1)[-1]
    return None


def timed_out(job: dict) -> str | None:
    """What the batch script recorded when the time limit's signal stopped the recorded job
    (its ``<job id>/time-limit`` marker), or None."""
    output = Path(job.get("output", ""))
    try:
        return (output.with_suffix("") / "time-limit").read_text().strip() or "time limit"
    except (OSError, ValueError):
        return None


def job_status(job: dict) -> JobState:
    """What squeue knows of a recorded job; after MinJobAge Slurm forgets finished jobs. A job
    that the time limit's signal stopped is TIMEOUT, whatever state Slurm gives its early exit
    (FAILED)."""
    state = _squeue_status(job)
    said = timed_out(job)
    if said is not None and not state.active and state.state != "TIMEOUT":
        was = "" if state.state in ("finished", "unknown") else f"Slurm says {state.state}; "
        return JobState(state.job_id, "TIMEOUT", f"{was}{said}; {state.detail}")
    return state


def time_limit_note(state: State, job: dict) -> str:
    """What a job stopped by its time limit (``job``: its line of jobs.jsonl) leaves, for
    `status` and `submit --wait`: the runs left, the time the program's cost hint expects for
    them on the job's slots (else the runs done so far), and to raise --time."""
    left = state.n_missing + len(state.failed) + len(state.damaged)
    slots = int(job.get("nodes") or 1) * int(job.get("cpus_per_node") or 1)
    limit = f" (it was {job['time']})" if job.get("time") else ""
    seconds, basis = hinted_seconds(state, slots), "the program's cost hint expects"
    if seconds is None and (measured := estimate_seconds(state, slots)) is not None:
        seconds, basis = measured[0], f"{measured[1]} runs done suggest"
    expects = "" if seconds is None else f", {basis} {_duration(seconds)} for them"
    return (
        f"TIMEOUT: time limit reached with {left} of {state.total} runs left{expects} on "
        f"{slots} slot{'s' * (slots != 1)}: raise --time{limit} and submit again"
    )


def _duration(seconds: float) -> str:
    return str(dt.timedelta(seconds=round(seconds)))


def _squeue_status(job: dict) -> JobState:
    job_id = str(job["job_id"])
    if shutil.which("squeue") is None:
        return JobState(job_id, "unknown", "no squeue on this machine")
    try:
        proc = subprocess.run(
            ["squeue", "-h", "-t", "all", "-j", job_id, "-o", "%T|%M|%N|%r"],
            capture_output=True,
            text=True,
            timeout=SLURM_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        return JobState(job_id, "unknown", "squeue did not answer")
    line = proc.stdout.strip().splitlines()
    exit_line = _exit_line(Path(job.get("output", "")))
    if proc.returncode == 0 and line:
        state, elapsed, nodes, reason = (line[0].split("|") + ["", "", ""])[:4]
        detail = f"{elapsed} elapsed"
        if nodes:
            detail += f" on {nodes}"
        if state == "PENDING" and reason and reason != "None":
            detail += f" ({reason})"
        if state not in ACTIVE and exit_line:
            detail += f"; {exit_line}"
        return JobState(job_id, state, detail)
    if proc.returncode == 0 or "Invalid job id" in proc.stderr:
        detail = "no longer known to Slurm (finished jobs are forgotten after MinJobAge)"
        return JobState(job_id, "finished", detail + (f"; {exit_line}" if exit_line else ""))
    return JobState(job_id, "unknown", proc.stderr.strip() or "squeue failed")


# --- submit ----------------------------------------------------------------------------------


def _check_not_running(design: Design, results: str | os.PathLike[str] | None) -> None:
    jobs = recorded_jobs(design, results)
    if jobs:
        last = job_status(jobs[-1])
        if last.active:
            raise SubmitError(
                f"Slurm job {last.job_id} of study '{design.study}' is still {last.state}; "
                f"allowed: one job per study at a time (wait for it, or scancel {last.job_id})"
            )
    try:  # the lock a `satsweep run` of the study (or its orphaned Snakemake or jobs) holds
        with lock_store(Store.of(design, results).root):
            pass
    except SweepBusy as e:
        raise SubmitError(f"{e}; allowed: one run per study at a time") from None


def nothing_to_run(design: Design, store: Store) -> str | None:
    """What `submit` says instead of submitting when a job would run nothing: every run of the
    study's round done (none missing, failed or damaged) and, for a precision campaign, its
    targets decided (no next round). With tables not current, that `satsweep run` compacts
    them without a job (a campaign's job would decide its next round from them: submitted).
    None when there are runs to run."""
    this_round = store.round(design)
    state = store.state(this_round)
    if state.n_missing or state.failed or state.damaged:
        return None
    stale = store.compaction_problem(state)
    if this_round.precision is not None:
        if stale is not None:
            return None
        table = str(store.runs_table)
        if precision.next_round(this_round, table, precision.reached(table, this_round)):
            return None
    done = f"study '{design.study}': {len(state.done)}/{state.total} runs done"
    if stale is not None:
        return (
            f"nothing to run, no job submitted: {done}; its tables are not current ({stale}): "
            f"`satsweep run {design.study}` compacts them here, without a job"
        )
    what = "its precision targets decided, " if this_round.precision is not None else ""
    return f"nothing to run, no job submitted: {done}, {what}its tables current"


def submit(
    sweep: str | os.PathLike[str],
    nodes: int = 1,
    partition: str | None = None,
    time_limit: str | None = None,
    mem: str | None = None,
    cpus_per_node: int | None = None,
    results: str | os.PathLike[str] | None = None,
    max_runs: int | None = MAX_RUNS,
) -> Submission:
    """Validates everything, then submits the sweep's batch job; returns what was submitted.

    Raises DesignError (as `satsweep run`) and SubmitError before
    anything is written or submitted, and NothingToRun when the study has nothing for a job
    to do (:func:`nothing_to_run`: before Slurm is asked anything).
    """
    design_path = Path(sweep).absolute()
    design = load_design(design_path, max_runs=max_runs)
    results_path = results_dir(results)
    store = Store.of(design, results_path)
    design = store.bind(design)
    if nodes < 1:
        raise SubmitError(f"--nodes: {nodes} is not allowed; allowed: an integer >= 1")
    if cpus_per_node is not None and cpus_per_node < 1:
        raise SubmitError(f"--cpus-per-node: {cpus_per_node} is not allowed; allowed: >= 1")
    if time_limit is not None:
        time_limit = check_time(time_limit)
    mem_mb = _mem_mb(mem) if mem is not None else None
    said = nothing_to_run(design, store)
    if said is not None:  # before Slurm is asked anything: a job would only start Ray to stop
        raise NothingToRun(said)

    check_slurm()
    known = partitions()
    if partition is None:
        defaults = [p for p in known.values() if p.default]
        if not defaults:
            raise SubmitError(
                f"--partition: the cluster has no default partition; allowed: "
                f"{', '.join(sorted(known)) or '(none)'}"
            )
        part = defaults[0]
    elif partition in known:
        part = known[partition]
    else:
        raise SubmitError(
            f"--partition: unknown partition '{partition}'; allowed: "
            f"{', '.join(sorted(known)) or '(none)'}"
        )
    if part.state != "up":
        raise SubmitError(f"--partition: partition '{part.name}' is {part.state}; allowed: up")
    if nodes > part.nodes:
        raise SubmitError(
            f"--nodes: {nodes} is more than partition '{part.name}' has; allowed: 1 to {part.nodes}"
        )
    cpus = cpus_per_node or part.cpus
    if cpus > part.cpus:
        raise SubmitError(
            f"--cpus-per-node: {cpus} is more than the nodes of '{part.name}' have; allowed: "
            f"1 to {part.cpus}"
        )
    if mem_mb is None:  # every job's mem_mb at once, plus what Ray keeps
        mem_mb = min(part.mem_mb, cpus * design.resources.mem_mb + RAY_RESERVE_MB + 256)
    if mem_mb > part.mem_mb:
        raise SubmitError(
            f"--mem: {mem} is more than the nodes of '{part.name}' have; allowed: up to "
            f"{part.mem_mb}M"
        )
    _check_not_running(design, results_path)

    # Everything checked: now write and submit (a campaign keeps the round it recorded).
    store.record(store.round(design))
    job_root = slurm_dir(design, results_path)
    job_root.mkdir(parents=True, exist_ok=True)
    script = job_root / BATCH_SCRIPT.name
    write_atomically(script, lambda t: shutil.copyfile(BATCH_SCRIPT, t))
    output = job_root / "%j.out"
    command = [
        "sbatch",
        "--parsable",
        f"--job-name=satsweep-{design.study}",
        f"--partition={part.name}",
        f"--nodes={nodes}",
        "--ntasks-per-node=1",
        f"--cpus-per-task={cpus}",
        f"--mem={mem_mb}M",
        f"--output={output}",
        f"--chdir={Path.cwd()}",
        # a failed node ends only its own Ray worker (its Ray tasks are retried on the others),
        # not the job; the batch node failing still ends it
        "--no-kill",
    ]
    lead = SIGNAL_LEAD_S
    if time_limit is not None:
        command.append(f"--time={time_limit}")
        seconds = time_seconds(time_limit)
        if seconds is not None and seconds < 4 * SIGNAL_LEAD_S:  # the lead inside the limit
            lead = seconds // 4
            command.append(f"--signal=B:TERM@{lead}")
    command += [str(script), str(design_path), "--results", str(results_path)]
    if design.most_runs > MAX_RUNS:  # taken here with --max-runs: the job's run takes it too
        command += ["--max-runs", str(design.most_runs)]
    env = dict(os.environ)
    env.update(
        SATSWEEP_PYTHON=sys.executable,
        SATSWEEP_JOB_ROOT=str(job_root),
        SATSWEEP_SIGNAL_LEAD=str(lead),  # to tell the time limit's SIGTERM from scancel's
    )
    proc = subprocess.run(
        command, capture_output=True, text=True, timeout=SLURM_TIMEOUT_S, env=env, check=False
    )
    if proc.returncode != 0:
        said = proc.stderr.strip().splitlines()
        raise SubmitError(f"sbatch refused the job: {said[-1] if said else proc.returncode}")
    job_id = proc.stdout.strip().split(";")[0]
    submission = Submission(
        job_id=job_id,
        study=design.study,
        sweep=str(design_path),
        results=str(results_path),
        partition=part.name,
        nodes=nodes,
        cpus_per_node=cpus,
        mem=f"{mem_mb}M",
        time=time_limit,
        submitted_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        output=str(job_root / f"{job_id}.out"),
        command=command,
    )
    with open(job_root / "jobs.jsonl", "a") as handle:
        handle.write(json.dumps(asdict(submission)) + "\n")
    return submission


def wait(
    job_id: str, timeout: float | None = None, poll: float = 1.0, output: str = ""
) -> JobState:
    """Waits until the job has left the queue's active states (or ``timeout`` seconds);
    ``output``, the job's log as recorded, tells a time limit (:func:`timed_out`)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        state = job_status({"job_id": job_id, "output": output})
        if not state.active or (deadline is not None and time.monotonic() > deadline):
            return state
        time.sleep(poll)
