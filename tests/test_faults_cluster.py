"""Faults of the Slurm batch job's Ray cluster (ray_jobs/slurm/ray-cluster.sbatch), issue 28
item 10: the teardown must end only its own job's Ray processes (a job whose Ray temp dir name
starts with another's, /tmp/satsweep-ray-123 and /tmp/satsweep-ray-1234, is not its), and the
job's Ray token must be nowhere `satsweep sql` reads or on any disk, also when the batch
script is killed with SIGKILL before its teardown.

Real processes with crafted command lines; the Slurm tests submit real jobs of
tests/programs/normal.py to the local Slurm (conftest's `slurm` fixture) and clean up by PID.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from satsweep import cli
from satsweep.cluster import submit
from satsweep.design import load_design
from tests.support import REPO
from tests.support.processes import mentioning
from tests.support.sweeps import sweep_file

SBATCH = REPO / "ray_jobs" / "slurm" / "ray-cluster.sbatch"
LEFTOVERS = REPO / "ray_jobs" / "slurm" / "ray-leftovers.sh"
JOB_TIMEOUT = 150
TOKEN_AT = re.compile(r"Ray token at (/proc/\d+/fd/\d+)")


def until(condition, timeout: float, what: str, poll: float = 0.2) -> None:
    """Waits until ``condition()`` is true; fails naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {what}")
        time.sleep(poll)


def named(argv0: str) -> subprocess.Popen:
    """A real process whose command line is ``argv0`` (spaces and all) followed by "600"."""
    proc = subprocess.Popen(["bash", "-c", 'exec -a "$0" sleep 600', argv0])
    cmdline = Path(f"/proc/{proc.pid}/cmdline")
    until(lambda: cmdline.read_bytes().startswith(argv0.encode()), 10, f"exec of {argv0}")
    return proc


def leftovers(ray_tmp: str, *how: str) -> set[int]:
    """The PIDs ``ray_leftovers RAY_TMP [any-node]`` (ray-leftovers.sh, which the batch script
    and the workers source) names."""
    proc = subprocess.run(
        ["bash", "-c", 'source "$0" && ray_leftovers "$@"', str(LEFTOVERS), ray_tmp, *how],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return {int(pid) for pid in proc.stdout.split()}


def test_teardown_names_only_its_own_jobs_processes():
    """Job N's teardown matches its temp dir (and its worker nodes' N-<node>) as whole paths:
    job N4's processes, whose paths have job N's as a prefix, are not its. A worker node's
    matches only its own N-<node>."""
    job = random.randrange(10**8, 10**9)  # no real job's id
    own = f"/tmp/satsweep-ray-{job}"
    head = [
        f"raylet --temp_dir={own} --x",
        f"gcs_server --log_dir={own}/session_1/logs",
        f"default_worker.py --session-dir={own}/session_1",
    ]
    node2 = [f"ray start --temp-dir {own}-node2", f"raylet --temp_dir={own}-node2/session_1"]
    node22 = [f"ray start --temp-dir {own}-node22"]
    others = [
        f"raylet --temp_dir={own}4 --x",
        f"gcs_server --log_dir={own}4/session_1/logs",
        f"ray start --temp-dir {own}4-node2",
        f"tail -f {own}.log",
        f"tool --path=/data{own}",
    ]
    procs = {argv0: named(argv0) for argv0 in head + node2 + node22 + others}
    # Ray's agents rename themselves: known by a file they hold in the temp dir
    logs = Path(f"{own}-node2/session_1/logs")
    logs.mkdir(parents=True)
    agent = "ray::DashboardAgent"
    procs[agent] = subprocess.Popen(
        ["bash", "-c", 'exec -a "$0" sleep 600 3>>"$1"', agent, str(logs / "agent.log")]
    )
    until(lambda: (logs / "agent.log").exists(), 10, "the agent's log")
    node2.append(agent)
    try:
        for found, expected in [
            (leftovers(own, "any-node"), head + node2 + node22),  # the batch script's teardown
            (leftovers(f"{own}-node2"), node2),  # node2's worker (ray-worker.sh)
        ]:
            assert found == {procs[a].pid for a in expected}, {
                a: procs[a].pid in found for a in procs
            }
    finally:
        for proc in procs.values():
            proc.kill()
            proc.wait()
        shutil.rmtree(f"{own}-node2")


# -- on the local Slurm -------------------------------------------------------------------------


def submit_job(sweep: Path, results: Path) -> str:
    assert cli.main(["submit", str(sweep), "--results", str(results), "--nodes", "1"]) == 0
    return str(submit.recorded_jobs(load_design(sweep), results)[-1]["job_id"])


def token_path(log: Path) -> Path:
    """Where the running job's Ray reads its token (the batch script logs the path)."""
    until(lambda: log.is_file() and TOKEN_AT.search(log.read_text()), 60, "the token's path")
    return Path(TOKEN_AT.search(log.read_text())[1])


def files_holding(token: str, *roots: Path, since: float = 0.0) -> list[Path]:
    """Regular files under ``roots`` (changed since ``since``, at most 1 MiB) holding ``token``."""
    found = []
    for root in roots:
        for folder, _, names in os.walk(root):
            for name in names:
                path = Path(folder, name)
                try:
                    st = path.lstat()
                    if not path.is_file() or st.st_size > 1 << 20 or st.st_mtime < since:
                        continue
                    if token.encode() in path.read_bytes():
                        found.append(path)
                except OSError:
                    continue
    return found


def sql(results: Path, study: str, query: str) -> subprocess.CompletedProcess:
    command = ["sql", "--results", str(results), "--study", study, "--csv", query]
    return subprocess.run(
        [sys.executable, "-m", "satsweep.cli", *command],
        capture_output=True,
        text=True,
        timeout=60,
    )


def read_text(path: Path) -> str:
    return f"SELECT content FROM read_text('{path}')"


def job_pids(job_id: str, *texts: str) -> list[int]:
    """Processes (not this one) whose command line names the job's Ray temp dirs or ``texts``."""
    return list(mentioning(f"/tmp/satsweep-ray-{job_id}/", f"/tmp/satsweep-ray-{job_id} ", *texts))


@pytest.mark.cluster
@pytest.mark.slow
def test_token_is_nowhere_sql_reads_and_other_jobs_survive_the_teardown(slurm, tmp_path):
    """While the job runs, no file under the results holds its token and `satsweep sql` reads
    neither the token's old place (the job's directory under the store) nor its new one; the
    teardown at the job's end leaves a process of "job <id>0" alone; after the job the token is
    gone."""
    results = tmp_path / "results"
    store = results / "tok"
    # A first, local round, so that the store has its runs.parquet and `satsweep sql` opens it
    # while the job adds replications.
    first = sweep_file(tmp_path, "tok", 1, 1.0)
    assert cli.main(["run", str(first), "--results", str(results), "--cores", "2"]) == 0
    t0 = time.time()
    job_id = submit_job(sweep_file(tmp_path, "tok", 3, 1.0), results)
    other = named(f"raylet --temp_dir=/tmp/satsweep-ray-{job_id}0/session_1 --x")
    try:
        log = store / "slurm" / f"{job_id}.out"
        path = token_path(log)
        token = path.read_text()
        assert re.fullmatch(r"[0-9a-f]{64}", token)
        until(lambda: "Ray up" in log.read_text(), 60, "Ray up")
        assert not files_holding(token, results)
        assert not list(results.rglob("*token*"))
        # sql reaches the job's directory (its log is read), but no token is there or at /proc
        seen = sql(results, "tok", read_text(store / "slurm" / f"{job_id}.out"))
        assert seen.returncode == 0 and "Ray up" in seen.stdout, seen.stderr
        for where in (store / "slurm" / job_id / "ray-token", path):
            said = sql(results, "tok", read_text(where))
            assert token not in said.stdout + said.stderr, said
        assert submit.wait(job_id, timeout=JOB_TIMEOUT, poll=0.5).state in ("COMPLETED", "finished")
        assert "Ray stopped; exit code 0" in log.read_text()
        assert other.poll() is None, "the teardown killed another job's process"
        assert not path.exists()
        assert not files_holding(token, results, Path("/tmp"), Path("/dev/shm"), since=t0)
    finally:
        other.kill()
        other.wait()


@pytest.mark.cluster
@pytest.mark.slow
def test_token_is_gone_when_the_batch_script_is_killed(slurm, tmp_path):
    """SIGKILL to the batch script (no teardown runs): its token path vanishes with it, and no
    file under the results, Ray's temp dirs left behind, /tmp or /dev/shm holds the token."""
    results = tmp_path / "results"
    store = results / "kill"
    t0 = time.time()
    job_id = submit_job(sweep_file(tmp_path, "kill", 4, 2.0), results)
    log = store / "slurm" / f"{job_id}.out"
    try:
        path = token_path(log)
        token = path.read_text()
        assert len(token) == 64
        until(
            lambda: len(list(store.glob("runs/*/r?.record.json"))) >= 2, JOB_TIMEOUT, "2 runs done"
        )
        batch = int(path.parts[2])
        subprocess.run(["scancel", "--batch", "--signal=KILL", job_id], check=True, timeout=30)
        until(lambda: not Path(f"/proc/{batch}").exists(), 30, "the batch script killed")
        assert not path.exists()
        assert "Ray stopped" not in log.read_text()  # no teardown ran
        left = [Path(p) for p in Path("/tmp").glob(f"satsweep-ray-{job_id}*")]
        holding = files_holding(token, results, *left, Path("/tmp"), Path("/dev/shm"), since=t0)
        assert not holding, holding
        until(lambda: not submit.job_status({"job_id": job_id}).active, 60, "the job's end")
    finally:
        subprocess.run(["scancel", job_id], timeout=30)
        # What the killed script could not stop: its driver and Ray's orphans (by PID).
        until(lambda: not kill_all(job_pids(job_id, str(store))), 60, "the job's processes gone")
        for left in Path("/tmp").glob(f"satsweep-ray-{job_id}*"):  # Ray's temp dir, no teardown
            shutil.rmtree(left)


def kill_all(pids: list[int]) -> list[int]:
    """SIGKILL to each of ``pids``; returns those that were there."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return pids
