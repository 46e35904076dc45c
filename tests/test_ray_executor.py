"""The Ray executor plugin against a real Ray cluster started here (head + worker nodes).

The cluster: tests/support/ray.py's `token_cluster` (head + worker node processes on this
machine, token authentication on, stopped by PID).

Snakemake runs the plugin from the source tree (PYTHONPATH), so these tests check the code in
the working tree; `test_installed_plugin_is_discovered` checks what setup.sh installed with
satsweep.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.processes import mentioning, wait_until
from tests.support.ray import PLUGIN_SRC, RAY, RayCluster, base_env, token_cluster

pytest.importorskip("ray")
pytest.importorskip("snakemake")
if not RAY.exists():
    pytest.skip(f"no ray command beside {sys.executable}", allow_module_level=True)

sys.path.insert(0, str(PLUGIN_SRC))
from snakemake_executor_plugin_ray import fits, ray_resources  # noqa: E402
from snakemake_executor_plugin_ray._task import node_of, snakemake_argv  # noqa: E402

pytestmark = pytest.mark.ray

SNAKEFILE = """\
N = int(config.get("count", 6))
SLEEP = config.get("pause", 1)
FAIL = int(config.get("fail", -1))

rule all:
    input: expand("out/{i}.txt", i=range(N))

rule job:
    output: "out/{i}.txt"
    params: fail=lambda wc: int(wc.i) == FAIL
    shell:
        "mkdir -p started; echo $RAY_RAYLET_PID > started/{wildcards.i}; "
        "if [ {params.fail} = True ]; then echo 'satsweep-test: job {wildcards.i} broke' >&2; "
        "exit 1; fi; "
        "sleep {SLEEP}; "
        "echo job {wildcards.i} raylet $RAY_RAYLET_PID host $(hostname) pid $$ > {output}"
"""


# -- the cluster -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster() -> Iterator[RayCluster]:
    with token_cluster() as c:
        yield c


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "Snakefile").write_text(SNAKEFILE)
    return tmp_path


@dataclass
class Run:
    returncode: int
    output: str
    seconds: float


def spawn_snakemake(
    cluster: RayCluster,
    workdir: Path,
    *args: str,
    env: dict[str, str] | None = None,
    address: bool = True,
) -> subprocess.Popen:
    """`snakemake --executor ray` in ``workdir``, in a session of its own (killable as a whole)."""
    cmd = [sys.executable, "-m", "snakemake", "--executor", "ray", "--jobs", "4"]
    if address:
        cmd += ["--ray-address", cluster.address]
    return subprocess.Popen(
        [*cmd, *args],
        cwd=workdir,
        env=env or cluster.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def finish(proc: subprocess.Popen, timeout: float) -> str:
    """Waits for ``proc``; kills its session and fails the test if it takes too long."""
    try:
        return proc.communicate(timeout=timeout)[0]
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out = proc.communicate()[0]
        pytest.fail(f"snakemake did not finish within {timeout} s:\n{out[-4000:]}")


def snakemake(
    cluster: RayCluster,
    workdir: Path,
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = 180,
    address: bool = True,
) -> Run:
    start = time.monotonic()
    proc = spawn_snakemake(cluster, workdir, *args, env=env, address=address)
    out = finish(proc, timeout)
    return Run(proc.returncode, out, time.monotonic() - start)


# -- tests -----------------------------------------------------------------------------------


def test_resources_map_threads_and_memory() -> None:
    assert ray_resources(4, {"mem_mb": 2000}) == {"CPU": 4.0, "memory": 2000 * 10**6}
    assert ray_resources(1, {"mem_mib": 1024, "mem_mb": 1074}) == {
        "CPU": 1.0,
        "memory": float(2**30),
    }
    assert ray_resources(0, {"mem_mb": "<TBD>"}) == {"CPU": 1.0}
    assert ray_resources(2, {"mem_mb": 500}, reserve_memory=False) == {"CPU": 2.0}
    nodes = [{"CPU": 1.0, "memory": 4e9}, {"CPU": 8.0, "memory": 1e9}]
    assert fits({"CPU": 8.0}, nodes)
    assert not fits({"CPU": 8.0, "memory": 2e9}, nodes)


# setup.sh's install: `pip install -e` alone maps the plugin by a finder Snakemake's discovery
# (pkgutil) does not see
@pytest.mark.programs
def test_installed_plugin_is_discovered() -> None:
    """setup.sh installed the plugin with satsweep (a regular package that Snakemake's plugin
    discovery finds) and it matches the source tree."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = "import snakemake_executor_plugin_ray as m, os; print(os.path.dirname(m.__file__))"
    found = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd="/", capture_output=True, text=True
    )
    assert found.returncode == 0, "plugin not installed: run ./setup.sh"
    installed = Path(found.stdout.strip())
    for src in (PLUGIN_SRC / "snakemake_executor_plugin_ray").glob("*.py"):
        assert (installed / src.name).read_text() == src.read_text(), (
            f"installed {src.name} differs from the source tree: rerun ./setup.sh"
        )
    helptext = subprocess.run(
        [sys.executable, "-m", "snakemake", "--help"], env=env, capture_output=True, text=True
    ).stdout
    for flag in ("--ray-address", "--ray-max-retries", "--ray-status-interval"):
        assert flag in helptext


@pytest.mark.slow
def test_sweep_completes_through_ray(cluster: RayCluster, workdir: Path) -> None:
    raylets = {cluster.raylet_pid(node) for node in cluster.nodes}
    run = snakemake(cluster, workdir, "--config", "count=6", "pause=1")
    assert run.returncode == 0, run.output[-4000:]
    outputs = sorted((workdir / "out").glob("*.txt"))
    assert len(outputs) == 6
    used = {int(p.read_text().split()[3]) for p in outputs}
    # Every job ran in a Ray worker of this cluster, and both nodes took jobs.
    assert used <= raylets and len(used) == 2, (used, raylets)
    logs = list((workdir / ".snakemake" / "ray_logs" / "job").glob("*.log"))
    assert len(logs) == 6
    # Every job forked from its worker's warm Snakemake.
    assert all(", warm start\n" in log.read_text() for log in logs)
    # Each log's header names the Ray node the job ran on, where the driver looks for it.
    nodes = {node_of(str(log), 0) for log in logs}
    assert len(nodes) == 2 and all(n and len(n) == 56 for n in nodes), nodes
    # The token never shows in what Snakemake or the jobs print.
    assert cluster.token not in run.output
    assert all(cluster.token not in log.read_text() for log in logs)
    # The warm Snakemakes go with their workers, which Ray stops once the driver is gone.
    wait_until(lambda: not mentioning("_zygote.py"), 30, "no warm Snakemake left")
    print(f"6 jobs (sleep 1) on 2 CPUs: {run.seconds:.1f} s")


@pytest.mark.slow
def test_cold_start_runs_each_job_in_a_fresh_snakemake(cluster: RayCluster, workdir: Path) -> None:
    run = snakemake(cluster, workdir, "--ray-cold-start", "--config", "count=2", "pause=0")
    assert run.returncode == 0, run.output[-4000:]
    logs = list((workdir / ".snakemake" / "ray_logs" / "job").glob("*.log"))
    assert len(logs) == 2
    assert all(", cold start\n" in log.read_text() for log in logs)


def test_an_attempts_node_is_read_from_its_header(tmp_path: Path) -> None:
    """The driver finds the node of a job's current attempt at the log's size when it submitted
    it: attempts append to one log, each starting with its header."""
    log = tmp_path / "job.log"
    first, second = "ab" * 28, "cd" * 28
    log.write_text(f"=== 2026-12-02 07:30:00 host node2 ray node {first} worker 17, warm start\n")
    log.write_text(log.read_text() + "the job's output\n")
    offset = log.stat().st_size  # the second attempt, submitted now, has not started
    assert node_of(str(log), 0) == first
    assert node_of(str(log), offset) is None
    with log.open("a") as f:  # the header's node is written before the start kind
        f.write(f"=== 2026-12-02 07:30:25 host node3 ray node {second} worker 18")
    assert node_of(str(log), offset) == second
    assert node_of(str(tmp_path / "none.log"), 0) is None


@pytest.mark.parametrize(
    "command",
    [
        "/venv/bin/python -m snakemake --snakefile '/a b/Snakefile' --target-jobs 'r:i=1'",
        "/venv/bin/python -m snakemake --config 'x=1' --mode remote",
    ],
)
def test_plain_snakemake_commands_can_start_warm(command: str) -> None:
    words = snakemake_argv(command)
    assert words is not None and words[:3] == ["/venv/bin/python", "-m", "snakemake"]
    assert words[4] in ("/a b/Snakefile", "x=1")


@pytest.mark.parametrize(
    "command",
    [
        "cd /w && /venv/bin/python -m snakemake",  # a prefix
        "X=1 /venv/bin/python -m snakemake",  # an assignment
        "/venv/bin/python -m snakemake --config x=$HOME",  # an expansion
        "/venv/bin/python -m snakemake out/*.txt",  # a glob
        "python -m snakemake",  # found on PATH by the shell
        "/venv/bin/python -m snakemake 'unbalanced",
        "/venv/bin/python script.py",
    ],
)
def test_other_commands_run_in_bash(command: str) -> None:
    assert snakemake_argv(command) is None


@pytest.mark.slow
def test_failing_job_is_reported_with_its_output(cluster: RayCluster, workdir: Path) -> None:
    run = snakemake(cluster, workdir, "--config", "count=2", "pause=0", "fail=1")
    assert run.returncode != 0
    assert "Job exited with status 1" in run.output, run.output[-4000:]
    assert "satsweep-test: job 1 broke" in run.output  # the tail of the job's output
    assert (workdir / "out" / "0.txt").exists()
    assert not (workdir / "out" / "1.txt").exists()


@pytest.mark.slow
def test_sweep_survives_killing_a_worker_raylet(cluster: RayCluster, workdir: Path) -> None:
    extra = cluster.add_worker()
    cluster.wait_for_cpus(3)
    victim = cluster.raylet_pid(extra)
    started = workdir / "started"
    proc = spawn_snakemake(cluster, workdir, "--jobs", "6", "--config", "count=5", "pause=3")
    try:

        def on_victim() -> bool:
            markers = started.glob("*") if started.exists() else []
            return any(p.read_text().strip() == str(victim) for p in markers)

        wait_until(on_victim, 60, "a job running on the extra node")
        os.kill(victim, signal.SIGKILL)
        killed_at = time.monotonic()
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    out = finish(proc, 180)
    print(f"sweep finished {time.monotonic() - killed_at:.1f} s after the raylet was killed")
    assert proc.returncode == 0, out[-4000:]
    assert "lost its Ray worker" in out and "resubmitting" in out
    outputs = sorted((workdir / "out").glob("*.txt"))
    assert len(outputs) == 5
    assert all(int(p.read_text().split()[3]) != victim for p in outputs)
    # The orphaned first attempt was killed by its guard, not left running.
    wait_until(lambda: not mentioning(str(workdir)), 10, "no job process left")
    cluster.wait_for_cpus(2)


@pytest.mark.slow
def test_ctrl_c_cancels_running_jobs(cluster: RayCluster, workdir: Path) -> None:
    cluster.wait_idle()
    proc = spawn_snakemake(cluster, workdir, "--config", "count=4", "pause=120")
    started = workdir / "started"
    try:
        wait_until(
            lambda: started.exists() and len(list(started.iterdir())) >= 2, 60, "2 jobs running"
        )
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    proc.send_signal(signal.SIGINT)  # what Ctrl-C in a terminal does
    out = finish(proc, 60)
    assert proc.returncode != 0
    assert "Cancelling" in out, out[-4000:]
    assert not list((workdir / "out").glob("*.txt"))
    wait_until(lambda: not mentioning(str(workdir)), 10, "no job process left")
    cluster.wait_idle()


@pytest.mark.slow
def test_missing_address_is_an_error(cluster: RayCluster, workdir: Path) -> None:
    run = snakemake(cluster, workdir, address=False, timeout=60)
    assert run.returncode != 0
    assert "No Ray cluster address" in run.output, run.output[-2000:]


@pytest.mark.slow
def test_client_without_token_is_refused(cluster: RayCluster, workdir: Path) -> None:
    home = workdir / "home"  # no ~/.ray/auth_token there either
    home.mkdir()
    no_token = base_env() | {"HOME": str(home)}
    wrong_token = no_token | {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
    for env in (no_token, wrong_token):
        status = cluster.status(env)
        assert status.returncode != 0
        assert "InvalidAuthToken" in status.stdout + status.stderr

    # A driver without the token: ray.init fails (2 connection attempts instead of 20) ...
    code = f"import ray; ray.init(address={cluster.address!r}); print('CONNECTED')"
    client = subprocess.run(
        [sys.executable, "-c", code],
        env=no_token | {"RAY_NUM_REDIS_GET_RETRIES": "2"},
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert client.returncode != 0 and "CONNECTED" not in client.stdout
    assert "InvalidAuthToken" in client.stderr

    # ... and the plugin says why, at once.
    run = snakemake(cluster, workdir, env=no_token, timeout=60)
    assert run.returncode != 0
    assert "refused this client" in run.output, run.output[-2000:]
    assert run.seconds < 20
