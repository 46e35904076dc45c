"""A real single-node Slurm (ray_jobs/slurm/local-cluster.sh) and the Snakemake-on-Slurm profile.

The session fixture (`slurm`, in conftest.py: tests/test_submit.py uses it too) starts the
cluster (installing the Debian packages if missing, which needs root: CI runs as root) and stops
it at the end of the session, so a run leaves no Slurm or munge daemon behind. Its tests are
marked `cluster`: skipped without root, failed under CI=true.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from satsweep.workflow import run as sweep
from tests.support import REPO
from tests.support.slurm import SLURM_SCRIPT as SCRIPT
from tests.support.slurm import explain, running_daemons
from tests.support.slurm import local_cluster as cluster

PROFILE = REPO / "ray_jobs" / "profiles" / "slurm"
PARTITION = "debug"  # local-cluster.sh's default, and the profile's slurm_partition
FINAL_STATES = {
    "COMPLETED",
    "FAILED",
    "CANCELLED",
    "TIMEOUT",
    "NODE_FAIL",
    "OUT_OF_MEMORY",
    "BOOT_FAIL",
    "DEADLINE",
    "PREEMPTED",
}


def wait_job(job_id: str, timeout: float = 60) -> str:
    """Polls squeue until the job reaches a final state; returns it (fails after the bound)."""
    deadline = time.monotonic() + timeout
    state = ""
    while time.monotonic() < deadline:
        proc = subprocess.run(
            ["squeue", "-h", "-t", "all", "-j", job_id, "-o", "%T"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        state = proc.stdout.strip()
        if state in FINAL_STATES:
            return state
        time.sleep(0.1)
    pytest.fail(f"Slurm job {job_id} not finished after {timeout} s (state {state!r})")


@pytest.mark.cluster
def test_start_is_idempotent(slurm):
    proc = cluster("start")
    assert proc.returncode == 0, explain(proc)
    assert proc.stdout.startswith("already running:"), proc.stdout
    status = cluster("status")
    assert status.returncode == 0, explain(status)
    assert status.stdout.startswith("running:")
    assert PARTITION in status.stdout


@pytest.mark.cluster
def test_srun_and_sbatch(slurm, tmp_path):
    srun = subprocess.run(
        ["srun", "-N1", "-n1", "hostname"], capture_output=True, text=True, timeout=60
    )
    assert srun.returncode == 0, srun.stderr
    assert srun.stdout.strip()

    out = tmp_path / "job.txt"
    t0 = time.monotonic()
    sbatch = subprocess.run(
        [
            "sbatch",
            "--parsable",
            f"--output={tmp_path / 'slurm-%j.out'}",
            "--wrap",
            f'echo "job $SLURM_JOB_ID on $(hostname)" > {out}',
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert sbatch.returncode == 0, sbatch.stderr
    job_id = sbatch.stdout.strip().split(";")[0]
    assert wait_job(job_id) == "COMPLETED"
    latency = time.monotonic() - t0
    print(f"sbatch submit-to-done: {latency:.2f} s")
    assert out.read_text().startswith(f"job {job_id} on ")


@pytest.mark.cluster
def test_unknown_partition_is_refused_by_sbatch(slurm):
    # What Slurm itself says; satsweep submit's own check comes later.
    proc = subprocess.run(
        ["sbatch", "--partition=no-such-partition", "--wrap", "true"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert "invalid partition specified: no-such-partition" in proc.stderr
    assert "Batch job submission failed: Invalid partition name specified" in proc.stderr


SNAKEFILE = """\
rule all:
    input:
        expand("out/{i}.txt", i=range(4)),


rule one:
    output:
        "out/{i}.txt",
    shell:
        "echo $SLURM_JOB_ID > {output}"
"""


@pytest.mark.cluster
def test_snakemake_profile_runs_jobs_through_slurm(slurm, tmp_path):
    (tmp_path / "Snakefile").write_text(SNAKEFILE)
    cmd = [sys.executable, "-m", "snakemake", "--profile", str(PROFILE), "--executor", "slurm"]
    try:
        proc = subprocess.run(
            cmd,
            cwd=tmp_path,
            env=sweep.snakemake_environment("slurm"),  # the plugin is installed apart
            capture_output=True,
            text=True,
            timeout=150,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"snakemake through Slurm did not finish in 150 s:\n{exc.stderr}")
    assert proc.returncode == 0, explain(proc)
    job_ids = {(tmp_path / "out" / f"{i}.txt").read_text().strip() for i in range(4)}
    # Four Snakemake jobs, four Slurm jobs (the outputs hold $SLURM_JOB_ID).
    assert len(job_ids) == 4 and all(j.isdigit() for j in job_ids), job_ids
    # The profile's squeue status checks were honoured (sacct would hang without slurmdbd).
    assert "Falling back to 'sacct'" not in proc.stderr


def test_not_root_without_slurm_gives_clear_error():
    """Without root and without the packages, start explains what to do and changes nothing."""
    state = Path(tempfile.mkdtemp(prefix="satsweep-slurm-noroot-"))
    state.chmod(0o777)
    # /usr/sbin (slurmctld, slurmd, munged) off PATH: the script sees no Slurm installed.
    env = {"PATH": "/usr/bin:/bin", "SATSWEEP_SLURM_STATE": str(state)}
    cmd = ["/usr/bin/env", "-i", *(f"{k}={v}" for k, v in env.items()), str(SCRIPT), "start"]
    if os.geteuid() == 0:
        runuser = shutil.which("runuser") or "/usr/sbin/runuser"
        cmd = [runuser, "-u", "nobody", "--", *cmd]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    finally:
        shutil.rmtree(state)
    assert proc.returncode == 1, explain(proc)
    assert "Slurm is not installed and installing it needs root" in proc.stderr


@pytest.mark.cluster
def test_stop_leaves_nothing_and_start_brings_it_back(slurm):
    stop = cluster("stop")
    assert stop.returncode == 0, explain(stop)
    assert stop.stdout.startswith("slurm stopped:"), stop.stdout
    assert running_daemons() == {}
    status = cluster("status")
    assert status.returncode == 3, explain(status)
    assert status.stdout.startswith("stopped:")
    again = cluster("stop")
    assert again.returncode == 0 and again.stdout.startswith("slurm already stopped"), explain(
        again
    )

    start = cluster("start")
    assert start.returncode == 0, explain(start)
    assert start.stdout.startswith("slurm up:"), start.stdout
    assert cluster("status").returncode == 0
    srun = subprocess.run(["srun", "true"], capture_output=True, text=True, timeout=60)
    assert srun.returncode == 0, srun.stderr
