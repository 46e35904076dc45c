"""Snakemake executor plugin for Ray: ``snakemake --executor ray --ray-address HOST:PORT``.

One Snakemake job = one Ray task. The task runs the job's ``python -m snakemake ... --mode remote``
command (built by Snakemake, with the driver's Python) in the workflow directory on whichever
Ray node has room, so every node must see the project directory and the virtual environment
at the same paths (a shared file system, as on a Slurm cluster).
"""

import functools
import os
import re
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, AsyncGenerator, Optional

from snakemake_interface_common.exceptions import WorkflowError
from snakemake_interface_executor_plugins.executors.base import SubmittedJobInfo
from snakemake_interface_executor_plugins.executors.remote import RemoteExecutor
from snakemake_interface_executor_plugins.jobs import JobExecutorInterface
from snakemake_interface_executor_plugins.settings import CommonSettings, ExecutorSettingsBase

from . import _task

__all__ = ["Executor", "ExecutorSettings", "common_settings", "ray_resources"]

LOG_DIR = os.path.join(".snakemake", "ray_logs")

# `ray` is imported where it is used, not here: Snakemake imports every installed executor
# plugin in every Snakemake process, including each remote job's, and `import ray` costs
# ~0.4 s there.


@functools.cache
def lost_errors() -> tuple[type[Exception], ...]:
    """Failures of the machinery rather than of the job: the job is resubmitted."""
    import ray

    return (
        ray.exceptions.WorkerCrashedError,
        ray.exceptions.NodeDiedError,
        ray.exceptions.LocalRayletDiedError,
        ray.exceptions.ObjectLostError,
        ray.exceptions.OutOfMemoryError,
        ray.exceptions.RaySystemError,
    )


#: How long the driver waits for the cluster's GCS to answer before giving up.
PROBE_TIMEOUT_S = 15.0

#: How long a view of the cluster's nodes is reused to check that a job fits somewhere and
#: that no job is on a node Ray reports dead: the most a run waits, once Ray has marked its node
#: dead, to be resubmitted (ray_jobs/README.md).
NODES_TTL_S = 10.0


def _setting(default: object, help: str, env_var: bool = False) -> Any:
    """A plugin setting: ``--ray-<name>`` on the command line (and SNAKEMAKE_RAY_<NAME> with
    ``env_var``), optional, with its help text."""
    return field(default=default, metadata={"help": help, "env_var": env_var, "required": False})


@dataclass
class ExecutorSettings(ExecutorSettingsBase):
    address: Optional[str] = _setting(
        None,
        "Address of the running Ray cluster (HOST:PORT of the head's GCS). "
        "Falls back to RAY_ADDRESS. Required: the plugin never guesses.",
        env_var=True,
    )
    max_retries: int = _setting(
        2,
        "How often a job is resubmitted when its Ray worker or node dies under it "
        "(a job that fails by itself is not retried here: use Snakemake's --retries).",
    )
    ignore_memory: bool = _setting(
        False,
        "Do not reserve the job's mem_mb as Ray 'memory' (only CPUs are reserved).",
    )
    status_interval: float = _setting(
        1.0,
        "Seconds between status checks of the running jobs (a local, cheap check "
        "in Ray); replaces Snakemake's --seconds-between-status-checks.",
    )
    cold_start: bool = _setting(
        False,
        "Start each job's Snakemake afresh (python -m snakemake) instead of forking it from "
        "the warm Snakemake that each Ray worker keeps (saves ~1 s of CPU per job).",
    )
    log_tail: int = _setting(
        30,
        "Lines of a failed job's output shown in the error message.",
    )


common_settings = CommonSettings(
    # Jobs run on other machines that share the project directory (as Slurm nodes do).
    non_local_exec=True,
    implies_no_shared_fs=False,
    job_deploy_sources=False,
    pass_default_storage_provider_args=True,
    pass_default_resources_args=True,
    # Environment variables (--envvars) travel with the task, not on the command line.
    pass_envvar_declarations_to_cmd=False,
    auto_deploy_default_storage_provider=False,
    init_seconds_before_status_checks=1,
    pass_group_args=True,
)


def ray_resources(
    threads: int, resources: dict[str, object], reserve_memory: bool = True
) -> dict[str, float]:
    """The Ray resources for a job: its threads as CPUs and, unless told not to, its memory.

    ``mem_mib`` counts in MiB and ``mem_mb`` in MB (10**6 bytes), as Snakemake defines them;
    Ray's ``memory`` resource is in bytes.
    """
    request: dict[str, float] = {"CPU": float(max(1, threads))}
    if reserve_memory:
        mib, mb = resources.get("mem_mib"), resources.get("mem_mb")
        if isinstance(mib, int) and mib > 0:
            request["memory"] = float(mib * 2**20)
        elif isinstance(mb, int) and mb > 0:
            request["memory"] = float(mb * 10**6)
    return request


def fits(request: dict[str, float], nodes: list[dict[str, float]]) -> bool:
    """Whether one of ``nodes`` (their total resources) could ever run ``request``."""
    return any(all(node.get(k, 0.0) >= v for k, v in request.items()) for node in nodes)


def _describe(request: dict[str, float]) -> str:
    parts = [f"{request['CPU']:g} CPU"]
    if "memory" in request:
        parts.append(f"{request['memory'] / 2**30:.2f} GiB memory")
    return ", ".join(parts)


AUTH_HINT = (
    "Give the driver the cluster's token: RAY_AUTH_MODE=token and RAY_AUTH_TOKEN_PATH=<file> "
    "(or RAY_AUTH_TOKEN) in its environment."
)


def _is_auth_error(error: BaseException) -> bool:
    import ray

    seen: list[BaseException] = []
    while error is not None and error not in seen:
        seen.append(error)
        error = error.__cause__ or error.__context__
    return any(
        isinstance(e, ray.exceptions.AuthenticationError) or "InvalidAuthToken" in str(e)
        for e in seen
    )


def probe(address: str, timeout_s: float = PROBE_TIMEOUT_S) -> None:
    """Fails fast, with a clear message, if nobody answers at ``address`` or refuses us.

    ``ray.init`` retries for 20 s on a wrong token and longer on a dead address, logging a
    warning a second; a bare GCS client answers the same questions in under a second.
    Addresses that are not HOST:PORT ("auto", "ray://...") are left to ``ray.init``.
    """
    if not re.fullmatch(r"[\w.\-\[\]:]+:\d+", address):
        return
    try:
        from ray._raylet import GcsClient  # what `ray status` uses
    except ImportError:
        return
    outcome: list[BaseException | None] = []

    def connect() -> None:
        try:
            GcsClient(address=address)
            outcome.append(None)
        except BaseException as e:  # noqa: BLE001 - reported below
            outcome.append(e)

    thread = threading.Thread(target=connect, daemon=True)
    thread.start()
    thread.join(timeout_s)
    if not outcome:
        raise WorkflowError(f"No Ray cluster answered at {address} within {timeout_s:g} s.")
    error = outcome[0]
    if error is None:
        return
    if _is_auth_error(error):
        raise WorkflowError(
            f"The Ray cluster at {address} refused this client: the authentication token is "
            f"missing or wrong. {AUTH_HINT}"
        )
    raise WorkflowError(f"Cannot reach a Ray cluster at {address}: {_first_line(error)}")


class Executor(RemoteExecutor):
    def __post_init__(self) -> None:
        import ray

        settings: ExecutorSettings = self.workflow.executor_settings
        address = settings.address or os.environ.get("RAY_ADDRESS")
        if not address:
            raise WorkflowError(
                "No Ray cluster address: pass --ray-address HOST:PORT (or set "
                "SNAKEMAKE_RAY_ADDRESS or RAY_ADDRESS). The ray executor does not guess, since "
                "a stale record of an earlier cluster could point anywhere."
            )
        if settings.max_retries < 0 or settings.log_tail < 1 or settings.status_interval <= 0:
            raise WorkflowError(
                "--ray-max-retries must be >= 0, --ray-log-tail >= 1, --ray-status-interval > 0."
            )
        self.settings = settings
        self.address = address
        probe(address)
        try:
            ray.init(
                address=address,
                namespace="snakemake",
                log_to_driver=False,
                logging_level="warning",
            )
        except Exception as e:  # ConnectionError, AuthenticationError, RuntimeError
            hint = f" {AUTH_HINT}" if _is_auth_error(e) else ""
            raise WorkflowError(
                f"Cannot connect to the Ray cluster at {address}: {_first_line(e)}.{hint}"
            ) from None
        self.run_id = uuid.uuid4().hex[:8]
        self.workdir = os.path.abspath(str(self.workflow.workdir_init))
        self.next_seconds_between_status_checks = settings.status_interval
        self._remote = ray.remote(_task.run_command)
        self._nodes: list[dict[str, float]] = []
        self._dead: dict[str, str] = {}  # Ray nodes reported dead: id -> host
        self._nodes_at = float("-inf")
        cpus = ray.cluster_resources().get("CPU", 0)
        self.logger.info(
            f"Ray cluster at {address}: {len(self._alive_nodes())} node(s), {cpus:g} CPUs; "
            f"run {self.run_id}, job logs in {LOG_DIR}/"
        )

    # -- cluster view --------------------------------------------------------------------

    def _alive_nodes(self, refresh: bool = False) -> list[dict[str, float]]:
        import ray

        now = time.monotonic()
        if refresh or now - self._nodes_at > NODES_TTL_S:
            nodes = ray.nodes()
            self._nodes = [n["Resources"] for n in nodes if n.get("Alive")]
            self._dead = {
                n["NodeID"]: n.get("NodeManagerHostname", "?") for n in nodes if not n.get("Alive")
            }
            self._nodes_at = now
        return self._nodes

    def _fits_somewhere(self, request: dict[str, float]) -> bool:
        return fits(request, self._alive_nodes()) or fits(request, self._alive_nodes(refresh=True))

    # -- submission ------------------------------------------------------------------------

    def _logfile(self, job: JobExecutorInterface) -> str:
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", job.name)
        return os.path.join(self.workdir, LOG_DIR, name, f"{self.run_id}-{job.jobid}.log")

    def _submit(self, job_info: SubmittedJobInfo) -> None:
        aux = job_info.aux
        # Where this attempt's header will start in the job's log (attempts append to it): its
        # Ray node is read there (_task.node_of).
        try:
            aux["offset"] = os.path.getsize(aux["logfile"])
        except OSError:
            aux["offset"] = 0
        aux["node"] = None
        aux["dead_seen"] = set(self._dead)
        aux["ref"] = self._remote.options(
            num_cpus=aux["request"]["CPU"],
            memory=aux["request"].get("memory"),
            max_retries=0,  # lost workers are retried by check_active_jobs, visibly
            retry_exceptions=False,
            name=f"snakemake-{job_info.job.name}-{job_info.job.jobid}",
        ).remote(
            aux["command"],
            self.workdir,
            aux["logfile"],
            self.envvars(),
            aux["tail"],
            not self.settings.cold_start,
        )

    def run_jobs(self, jobs: list[JobExecutorInterface]) -> None:
        # Ray starts waiting tasks of one shape in submission order: submit the jobs of a batch
        # by the workflow's priority (highest first), so that a workflow that ranks its longest
        # jobs first does not end on one of them.
        super().run_jobs(sorted(jobs, key=lambda job: -getattr(job, "priority", 0)))

    def run_job(self, job: JobExecutorInterface) -> None:
        request = ray_resources(job.threads, dict(job.resources), not self.settings.ignore_memory)
        info = SubmittedJobInfo(
            job,
            aux={
                "request": request,
                "command": self.format_job_exec(job),
                "logfile": self._logfile(job),
                "tail": self.settings.log_tail,
                "attempt": 0,
            },
        )
        self._submit(info)
        info.external_jobid = aux_ref_hex(info)
        self.logger.debug(f"job {job.jobid}: Ray task {info.external_jobid}: {info.aux['command']}")
        self.report_job_submission(info)

    # -- status ----------------------------------------------------------------------------

    async def check_active_jobs(
        self, active_jobs: list[SubmittedJobInfo]
    ) -> AsyncGenerator[SubmittedJobInfo, None]:
        import ray

        if not active_jobs:
            return
        lost = lost_errors()
        refs = [info.aux["ref"] for info in active_jobs]
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0, fetch_local=False)
        ready = set(ready)
        for info in active_jobs:
            if info.aux["ref"] not in ready:
                if not self._fits_somewhere(info.aux["request"]):
                    ray.cancel(info.aux["ref"], force=True)
                    self.report_job_error(
                        info,
                        msg=f"No alive node of the Ray cluster can run this job: it asks "
                        f"for {_describe(info.aux['request'])}. Lower its threads or mem_mb, "
                        "or add bigger nodes. ",
                    )
                elif self._rerun_if_on_dead_node(info):
                    yield info
                continue
            try:
                code, tail = ray.get(info.aux["ref"])
            except lost as e:
                if info.aux["attempt"] < self.settings.max_retries:
                    info.aux["attempt"] += 1
                    self.logger.warning(
                        f"Job {info.job.jobid} ({info.job.name}) lost its Ray worker "
                        f"({type(e).__name__}); resubmitting, retry "
                        f"{info.aux['attempt']}/{self.settings.max_retries}."
                    )
                    self._submit(info)
                    info.external_jobid = aux_ref_hex(info)
                    yield info
                else:
                    self.report_job_error(
                        info,
                        msg=f"Job lost its Ray worker {info.aux['attempt'] + 1} time(s), "
                        f"giving up ({type(e).__name__}: {_first_line(e)}). ",
                        aux_logs=[info.aux["logfile"]],
                    )
                continue
            except ray.exceptions.RayError as e:
                self.report_job_error(
                    info,
                    msg=f"The Ray task of this job failed: {type(e).__name__}: {e}\n",
                    aux_logs=[info.aux["logfile"]],
                )
                continue
            if code == 0:
                self.report_job_success(info)
            else:
                self.report_job_error(
                    info,
                    msg=f"Job exited with status {code}. Last lines of its output "
                    f"({info.aux['logfile']}):\n{tail}\n",
                    aux_logs=[info.aux["logfile"]],
                )

    def _rerun_if_on_dead_node(self, info: SubmittedJobInfo) -> bool:
        """Resubmits a job whose attempt was on a node Ray reports dead, or had not started
        when a node died (it may have been placed there). Ray's owner does not fail a task on a
        node that died silently (link down, then its processes killed): no connection of the
        node's is closed, and the task stayed pending after Ray had marked the node dead, the
        sweep hanging until its time limit. Called at each status check; it sees node deaths
        within NODES_TTL_S (the view of the nodes is refreshed that often). False when the job
        has failed here instead (no retry left), True when it is still active."""
        import ray

        aux = info.aux
        if not self._dead:
            return True
        if aux["node"] is None:
            aux["node"] = _task.node_of(aux["logfile"], aux["offset"])
        node = aux["node"]
        if node is not None:
            if node not in self._dead:
                return True
            if aux["attempt"] >= self.settings.max_retries:
                self.report_job_error(
                    info,
                    msg=f"Job lost its Ray node ({self._dead[node]}) {aux['attempt'] + 1} "
                    "time(s), giving up. ",
                    aux_logs=[aux["logfile"]],
                )
                return False
            aux["attempt"] += 1
            said = (
                f"was on a dead Ray node ({self._dead[node]}, node {node[:8]}); resubmitting, "
                f"retry {aux['attempt']}/{self.settings.max_retries}."
            )
            # Nothing to cancel there: a cancel sent to a node that does not answer only waits.
        else:
            newly = sorted(self._dead[n] for n in set(self._dead) - aux["dead_seen"])
            if not newly:
                return True
            said = (
                f"had not started when Ray node(s) {', '.join(newly)} died: it may have been "
                "placed on a dead Ray node; resubmitting (not counted as a retry)."
            )
            try:  # if it waits in the queue of a live node, it goes from there
                ray.cancel(aux["ref"], force=True)
            except Exception as e:  # already finished, or the cluster is gone
                self.logger.debug(f"ray.cancel of job {info.job.jobid}: {e}")
        self.logger.warning(f"Job {info.job.jobid} ({info.job.name}) {said}")
        self._submit(info)
        info.external_jobid = aux_ref_hex(info)
        return True

    # -- cancellation and shutdown ---------------------------------------------------------

    def cancel_jobs(self, active_jobs: list[SubmittedJobInfo]) -> None:
        import ray

        if active_jobs:
            self.logger.info(f"Cancelling {len(active_jobs)} Ray task(s).")
        for info in active_jobs:
            ref = (info.aux or {}).get("ref")
            if ref is not None:
                try:
                    ray.cancel(ref, force=True)
                except Exception as e:  # already finished, or the cluster is gone
                    self.logger.debug(f"ray.cancel of job {info.job.jobid}: {e}")

    def shutdown(self) -> None:
        import ray

        super().shutdown()
        ray.shutdown()


def aux_ref_hex(info: SubmittedJobInfo) -> str:
    """The id of the job's current Ray task (its return object's id)."""
    return info.aux["ref"].hex()


def _first_line(e: Exception) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else ""
