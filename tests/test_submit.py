"""`satsweep submit` on a real local Slurm, and `satsweep run --executor ray` on a real Ray cluster.

Slurm: conftest's session fixture (`ray_jobs/slurm/local-cluster.sh`, stopped at the end of the
session). Ray: the clusters of tests/test_ray_executor.py (head + worker node processes on this
machine, token authentication on, stopped by PID). Each path must give the same rows as a local
run of the same sweep: same seeds, same metric values.
"""

from __future__ import annotations

import re
import secrets
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import duckdb
import pytest

from satsweep import cli
from satsweep.store import PROVENANCE_COLUMNS
from satsweep.cluster import submit
from satsweep.design import load_design
from satsweep.workflow.jobs import DONE
from tests.support import REPO
from tests.support.processes import mentioning, wait_until
from tests.support.ray import RAY, base_env, token_cluster
from tests.support.sweeps import NORMAL, sweep_file

SMOKE = REPO / "sweeps" / "smoke.yaml"
IGNORED = set(PROVENANCE_COLUMNS) | {"wall_seconds", "peak_rss_mb"}  # machine, not model
JOB_TIMEOUT = 150


# -- helpers ---------------------------------------------------------------------------------


def metric_rows(store_dir: Path) -> dict[tuple[str, int], dict]:
    """runs.parquet keyed by (config_id, replication), without provenance or wall-time columns;
    fails on a run present twice."""
    cursor = duckdb.connect().execute(
        "SELECT * FROM read_parquet(?)", [str(store_dir / "runs.parquet")]
    )
    names = [d[0] for d in cursor.description]
    rows = [dict(zip(names, row)) for row in cursor.fetchall()]
    keyed = {(r["config_id"], r["replication"]): r for r in rows}
    assert len(keyed) == len(rows), "a run is in runs.parquet twice"
    return {k: {c: v for c, v in r.items() if c not in IGNORED} for k, r in keyed.items()}


def squeue_active() -> set[str]:
    out = subprocess.run(
        ["squeue", "-h", "-o", "%i"], capture_output=True, text=True, timeout=30
    ).stdout
    return set(out.split())


def job_state(job_id: str) -> str:
    out = subprocess.run(
        ["squeue", "-h", "-t", "all", "-j", job_id, "-o", "%T"],
        capture_output=True,
        text=True,
        timeout=30,
    ).stdout
    return out.strip()


def wait_job(job_id: str, timeout: float = JOB_TIMEOUT) -> str:
    state = submit.wait(job_id, timeout=timeout, poll=0.5)
    if state.active:
        subprocess.run(["scancel", job_id])
        pytest.fail(f"Slurm job {job_id} still {state.state} after {timeout} s")
    return job_state(job_id)


def job_processes(job_id: str) -> dict[int, str]:
    """Processes of a job's Ray (its temp dir is in their command lines) or of its slurmstepd."""
    return mentioning(f"satsweep-ray-{job_id}", f"slurmstepd: [{job_id}.")


def job_files(store_dir: Path, job_id: str) -> list[Path]:
    """Everything the job wrote that could hold the token: logs and the job's directory."""
    slurm = store_dir / "slurm"
    files = [slurm / f"{job_id}.out", *(slurm / job_id).glob("*")]
    files += list(store_dir.glob("logs/*.log")) + list(store_dir.rglob(".snakemake/**/*.log"))
    return [f for f in files if f.is_file()]


def head_address(output: Path) -> str:
    """The Ray head's address as the batch script logs it once the head is up."""
    m = re.search(r"Ray head up at ([\d.]+:\d+)", output.read_text())
    assert m, output.read_text()
    return m[1]


def cli_submit(sweep: Path, results: Path, *extra: str) -> str:
    assert cli.main(["submit", str(sweep), "--results", str(results), *extra]) == 0
    jobs = submit.recorded_jobs(load_design(sweep), results)
    return str(jobs[-1]["job_id"])


@pytest.fixture(scope="module")
def local_smoke(tmp_path_factory) -> dict:
    """sweeps/smoke.yaml through the local executor: the reference rows."""
    results = tmp_path_factory.mktemp("local")
    assert cli.main(["run", str(SMOKE), "--results", str(results), "--cores", "2"]) == 0
    return metric_rows(results / "smoke")


# -- Slurm + Ray -----------------------------------------------------------------------------


@pytest.mark.cluster
@pytest.mark.programs
@pytest.mark.slow
def test_submit_smoke_gives_the_local_rows(slurm, local_smoke, tmp_path, capsys):
    results = tmp_path / "results"
    t0 = time.monotonic()
    job_id = cli_submit(SMOKE, results, "--nodes", "1")
    assert capsys.readouterr().out.strip() == job_id
    assert wait_job(job_id) == "COMPLETED"
    print(f"smoke through Slurm+Ray: {time.monotonic() - t0:.1f} s submit to done")
    store_dir = results / "smoke"
    rows = metric_rows(store_dir)
    assert len(rows) == 8
    assert rows == local_smoke  # same runs, same seeds, same metrics

    output = (store_dir / "slurm" / f"{job_id}.out").read_text()
    # the wait for the nodes ends when they are all there, or when the driver has ended first
    assert re.search(
        r"Ray up: (all 1 node\(s\) registered: 2 CPUs|the driver ended with 2 of 2)", output
    ), output
    assert "satsweep run exited with 0" in output and "Ray stopped; exit code 0" in output
    token_at = re.search(r"Ray token at (/proc/\d+/fd/\d+)", output)
    assert token_at and not Path(token_at[1]).exists()  # gone with the batch script
    assert not Path(f"/tmp/satsweep-ray-{job_id}").exists()
    assert not job_processes(job_id)
    # satsweep status: the run counts and the Slurm job's state
    assert cli.main(["status", str(SMOKE), "--results", str(results)]) == 0
    status = capsys.readouterr().out
    assert "smoke: 8 done, 0 damaged, 0 missing, 0 failed" in status
    assert f"Slurm job {job_id}" in status and "COMPLETED" in status


@pytest.mark.cluster
@pytest.mark.slow
def test_scancel_mid_sweep_then_resubmit(slurm, tmp_path, capsys):
    """Cancel lands mid-sweep: Ray and the jobs go; the resubmission completes the sweep with
    every run once. While the job runs: a client without the token is refused; after it, the
    token is in none of the job's files."""
    # 18 runs of normal.py that sleep 5 s each (45 s on 2 slots, no CPU): the token checks
    # below cannot outlast the sweep, on a fast machine or a loaded one
    sweep = sweep_file(tmp_path, "cancel", replications=3, delay=5.0)
    results = tmp_path / "results"
    store_dir = results / "cancel"
    before = squeue_active()
    job_id = cli_submit(sweep, results)
    output = store_dir / "slurm" / f"{job_id}.out"
    done = lambda: len(list(store_dir.glob("runs/*/r?.record.json")))  # noqa: E731
    wait_until(lambda: done() >= 2, JOB_TIMEOUT, "2 runs done by the first job")

    # The running cluster: the token file is private, and a client without it is refused.
    token_file = Path(re.search(r"Ray token at (/proc/\d+/fd/\d+)", output.read_text())[1])
    token = token_file.read_text()
    assert len(token) == 64 and token_file.stat().st_mode & 0o077 == 0
    assert (store_dir / "slurm" / job_id).stat().st_mode & 0o077 == 0
    address = head_address(output)
    home = tmp_path / "home"  # no ~/.ray/auth_token either
    home.mkdir()
    no_token = base_env() | {"HOME": str(home)}
    env_with = no_token | {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(token_file)}
    env_wrong = no_token | {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
    for env, refused in ((no_token, True), (env_wrong, True), (env_with, False)):
        status = subprocess.run(
            [str(RAY), "status", f"--address={address}"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        said = status.stdout + status.stderr
        if refused:
            assert status.returncode != 0 and "InvalidAuthToken" in said, said[-2000:]
        else:
            assert status.returncode == 0 and "CPU" in said, said[-2000:]

    assert done() < 18, "the sweep finished before the cancel: make it longer"
    subprocess.run(["scancel", job_id], check=True, timeout=30)
    assert wait_job(job_id, timeout=60) == "CANCELLED"
    # Nothing of the job is left: Ray, its workers and jobs, the program, job steps.
    wait_until(lambda: not job_processes(job_id), 30, "no process of the cancelled job")
    wait_until(lambda: not mentioning(str(store_dir)), 30, "no process on the store")
    assert job_id not in squeue_active()
    text = output.read_text()
    assert "SIGTERM (scancel)" in text and "Ray stopped" in text, text
    assert not token_file.exists()
    assert not Path(f"/tmp/satsweep-ray-{job_id}").exists()
    survivors = {p: p.stat().st_mtime_ns for p in store_dir.glob("runs/*/r?.record.json")}
    assert 2 <= len(survivors) < 18

    again = cli_submit(sweep, results)
    assert again != job_id
    assert wait_job(again) == "COMPLETED"
    rows = metric_rows(store_dir)  # fails on duplicates
    assert len(rows) == 18
    assert {p: p.stat().st_mtime_ns for p in survivors} == survivors  # runs kept, not redone
    assert not list(store_dir.glob("runs/*/*.tmp.*"))
    wait_until(lambda: not job_processes(again), 30, "no process of the second job")
    assert squeue_active() <= before
    for f in job_files(store_dir, job_id) + job_files(store_dir, again):
        assert token not in f.read_text(errors="replace"), f"the token is in {f}"
    capsys.readouterr()


BAD = [
    (["--partition", "no-such-partition"], "--partition: unknown partition 'no-such-partition'"),
    (["--nodes", "0"], "--nodes: 0 is not allowed; allowed: an integer >= 1"),
    (["--nodes", "5"], "--nodes: 5 is more than partition"),
    (["--time", "soon"], "--time: 'soon' is not a Slurm time; allowed:"),
    (["--mem", "lots"], "--mem: 'lots' is not a memory size; allowed:"),
    (["--cpus-per-node", "64"], "--cpus-per-node: 64 is more than the nodes"),
]


@pytest.mark.cluster
@pytest.mark.programs
@pytest.mark.parametrize("args,message", BAD, ids=[a[0] for a, _ in BAD])
def test_bad_input_is_refused_before_anything_is_submitted(slurm, tmp_path, capsys, args, message):
    before = squeue_active()
    results = tmp_path / "results"
    assert cli.main(["submit", str(SMOKE), "--results", str(results), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("satsweep submit: error: ") and message in err, err
    assert len(err.splitlines()) == 1
    assert not results.exists()  # nothing written
    assert squeue_active() == before  # nothing submitted


@pytest.mark.programs
def test_no_slurm_installed_is_a_clear_error(tmp_path, capsys, monkeypatch):
    bin_dir = tmp_path / "bin"  # a PATH without sbatch (and the other Slurm commands)
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    results = tmp_path / "results"
    assert cli.main(["submit", str(SMOKE), "--results", str(results)]) == 2
    err = capsys.readouterr().err.strip()
    assert "satsweep submit: error: Slurm not found: no sbatch" in err, err
    assert not results.exists()


@pytest.mark.programs
def test_bad_design_is_refused_like_run(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text(SMOKE.read_text().replace("replications: 2", "replications: 0"))
    assert cli.main(["submit", str(bad), "--results", str(tmp_path / "r")]) == 2
    assert "replications: 0 is not allowed" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


# -- satsweep run --executor ray ---------------------------------------------------------------


@pytest.fixture(scope="module")
def ray_cluster():
    """test_ray_executor's cluster; its jobs import the installed satsweep."""
    with token_cluster() as c:
        yield c


def ray_run(cluster, sweep: Path, results: Path, *extra: str, timeout: float = 180):
    """`satsweep run SWEEP --executor ray` on ``cluster``."""
    env = cluster.env | {"SNAKEMAKE_RAY_ADDRESS": cluster.address}
    return subprocess.run(
        [sys.executable, "-m", "satsweep.cli", "run", str(sweep), "--results", str(results)]
        + ["--executor", "ray", *extra],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def ray_task_logs(store_dir: Path) -> list[Path]:
    """The logs of the Ray tasks of a run through the Ray executor, one per Snakemake job."""
    return list((store_dir / ".snakemake" / "ray_logs").rglob("*.log"))


@pytest.mark.programs
@pytest.mark.ray
@pytest.mark.slow
@pytest.mark.parametrize(("group_size", "tasks"), [("1", 8), ("3", 3), (None, 1)])
def test_run_through_ray_gives_the_local_rows(
    ray_cluster, local_smoke, tmp_path, group_size, tasks
):
    """Groups of 1 and 3 runs, and the automatic ones: the smoke sweep's 8 tiny runs (well
    under the smallest group's estimated seconds) make one group."""
    results = tmp_path / "results"
    t0 = time.monotonic()
    size = ["--group-size", group_size] if group_size else []
    proc = ray_run(ray_cluster, SMOKE, results, "--jobs", "2", *size)
    assert proc.returncode == 0, proc.stderr[-3000:]
    print(
        f"smoke through --executor ray, groups of {group_size or 'auto'}: {time.monotonic() - t0:.1f} s"
    )
    assert "8/8 runs done" in proc.stderr and "--executor ray" in proc.stderr
    store_dir = results / "smoke"
    assert metric_rows(store_dir) == local_smoke
    assert len(ray_task_logs(store_dir)) == tasks  # one Ray task per group of runs
    # every configuration's manifest, wherever its replications ran
    assert len(list(store_dir.glob("runs/*/complete-2.json"))) == 4
    assert ray_cluster.token not in proc.stderr + proc.stdout


@pytest.fixture
def three_nodes():
    """A Ray cluster of 3 nodes of 1 CPU each (head + 2 workers), token authentication on."""
    with token_cluster() as c:
        c.add_worker()
        c.wait_for_cpus(3)
        yield c


def made_by_group(store_dir: Path) -> dict[str, list[tuple[str, int]]]:
    """The runs each group job's log says it stored: {group: [(config_id, replication)]}."""
    made = {}
    for log in sorted(store_dir.glob("logs/sims*.log")):
        lines = [line.split(DONE)[0] for line in log.read_text().splitlines() if DONE in line]
        made[log.stem] = [(key.split("/r")[0], int(key.split("/r")[1])) for key in lines]
    return made


@pytest.mark.ray
@pytest.mark.slow
def test_two_configurations_of_many_runs_keep_three_ray_nodes_busy(three_nodes, tmp_path):
    """2 configurations x 24 runs of 1 s on 3 one-CPU nodes: the jobs are groups of runs, so
    both configurations' replications spread over more jobs than there are configurations, on
    every node (a configuration a job used at most 2); every run is made once, and each
    configuration's manifest written when its last replication landed."""
    path = tmp_path / "few.yaml"
    path.write_text(
        f"study: few\nprogram: {NORMAL}\nfactors:\n  a: [lo, hi]\nfixed:\n  delay: 1.0\n"
        "replications: 24\nbase_seed: 5\n"
    )
    results = tmp_path / "results"
    proc = ray_run(three_nodes, path, results, "--jobs", "3")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "48/48 runs done" in proc.stderr
    store_dir = results / "few"
    made = made_by_group(store_dir)
    everything = [run for runs in made.values() for run in runs]
    assert len(everything) == len(set(everything)) == 48  # each run once
    assert len(made) == 5  # 48 s over 2 x 3 shares, at least 10 s each: 10, 10, 10, 10, 8
    for config_id in {cid for cid, _ in everything}:
        assert sum(any(cid == config_id for cid, _ in runs) for runs in made.values()) == 3
    nodes = set()
    for log in ray_task_logs(store_dir):
        nodes.update(re.findall(r"ray node ([0-9a-f]+)", log.read_text()))
    assert len(ray_task_logs(store_dir)) == len(made) and len(nodes) == 3
    assert len(list(store_dir.glob("runs/*/complete-24.json"))) == 2
    keys = duckdb.execute(
        "SELECT config_id, replication FROM read_parquet(?)", [str(store_dir / "runs.parquet")]
    ).fetchall()
    assert sorted(keys) == sorted(everything)


# -- a precision campaign on either path -------------------------------------------------------

CAMPAIGN = (
    "study: campaign\nprogram: {program}\nfactors:\n  a: [lo, hi]\n  sd: [0.25, 1.5]\n"
    "replications: {{min: 3, max: 12, until: {{response: y, halfwidth: 0.5}}, "
    "over: configurations}}\n"
)


def campaign_rows(results: Path) -> list[tuple]:
    runs = results / "campaign" / "runs.parquet"
    return duckdb.sql(f"SELECT config_id, replication, y FROM '{runs}' ORDER BY ALL").fetchall()


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> tuple[Path, list[tuple], str]:
    """A precision campaign over configurations of tests/programs/normal.py, run locally (it
    stops at max 12 with the sd 1.5 configurations short of the target): its design file, the
    rows of every round and how its last round ends the CLI's line."""
    folder = tmp_path_factory.mktemp("campaign")
    design = folder / "campaign.yaml"
    design.write_text(CAMPAIGN.format(program=REPO / "tests" / "programs" / "normal.py"))
    assert cli.main(["run", str(design), "--results", str(folder / "r"), "--cores", "2"]) == 0
    rows = campaign_rows(folder / "r")
    counts = Counter(config_id for config_id, _, _ in rows).values()
    assert min(counts) < max(counts)  # the configurations have their own replications
    return design, rows, f"(r = {min(counts)}..{max(counts)}, {len(rows)} runs)"


@pytest.mark.ray
@pytest.mark.slow
def test_a_precision_campaign_through_ray_gives_the_local_rounds(ray_cluster, campaign, tmp_path):
    design, local, last = campaign
    results = tmp_path / "results"
    proc = ray_run(ray_cluster, design, results, "--jobs", "2", timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert f"stopped at max = 12 replications {last}" in proc.stderr
    assert campaign_rows(results) == local


@pytest.mark.ray
@pytest.mark.slow
def test_a_campaign_that_grows_its_runs_through_ray_gives_the_local_rounds(ray_cluster, tmp_path):
    """sweeps/ar1-run-length.yaml: a round grows the runs (other configurations, other
    config_ids); the Snakefile's jobs take each round's length from design.json and make the
    rows of the same campaign run locally, the shorter runs kept beside them."""
    sweep = REPO / "sweeps" / "ar1-run-length.yaml"

    def rows(results: Path) -> list[tuple]:
        runs = results / "ar1-run-length" / "runs.parquet"
        return duckdb.sql(
            f"SELECT config_id, replication, steps, mean_all FROM '{runs}' ORDER BY ALL"
        ).fetchall()

    local = tmp_path / "local"
    assert cli.main(["run", str(sweep), "--results", str(local), "--cores", "2"]) == 0
    results = tmp_path / "ray"
    proc = ray_run(ray_cluster, sweep, results, "--jobs", "2", timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    grown = re.findall(r"round r = 3, steps = (\d+):", proc.stderr)
    assert grown[0] == "60" and int(grown[1]) > 60, proc.stderr[-3000:]
    assert "precision met at r = " in proc.stderr
    assert rows(results) == rows(local) and {r[2] for r in rows(results)} == {int(grown[1])}
    made = sorted(
        p.parent.name for p in (results / "ar1-run-length" / "runs").glob("*/r1.record.json")
    )
    assert made == sorted(
        p.parent.name for p in (local / "ar1-run-length" / "runs").glob("*/r1.record.json")
    )
    assert len(made) == 4  # two configurations of 60 steps, two of the grown length


def crossed_rows(results: Path) -> list[tuple]:
    """A crossed store's runs: key, simulator, program and its sha256, the response."""
    runs = results / "queues" / "runs.parquet"
    return duckdb.sql(
        "SELECT config_id, replication, simulator, program, program_sha256, mean_wait "
        f"FROM '{runs}' ORDER BY ALL"
    ).fetchall()


@pytest.fixture(scope="module")
def crossed(tmp_path_factory) -> tuple[Path, list[tuple]]:
    """tests/test_crossed.py's design (the M/M/1 and M/D/1 programs as the levels of the
    factor simulator), run locally: its file and rows."""
    from tests.test_crossed import CROSSED

    folder = tmp_path_factory.mktemp("crossed")
    design = folder / "queues.yaml"
    design.write_text(CROSSED)
    assert cli.main(["run", str(design), "--results", str(folder / "r"), "--cores", "2"]) == 0
    rows = crossed_rows(folder / "r")
    assert {r[2] for r in rows} == {"mm1", "md1"} and all(r[2] == r[3] for r in rows)
    return design, rows


@pytest.mark.ray
@pytest.mark.slow
def test_a_crossed_design_through_ray_gives_each_run_from_its_own_program(
    ray_cluster, crossed, tmp_path
):
    """Each job runs each of its runs with its simulator's program: the local rows, program
    and sha256 included."""
    design, local = crossed
    proc = ray_run(ray_cluster, design, tmp_path / "ray", "--jobs", "2", timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "12/12 runs done" in proc.stderr and "--executor ray" in proc.stderr
    assert crossed_rows(tmp_path / "ray") == local


@pytest.mark.cluster
@pytest.mark.slow
def test_a_precision_campaign_through_submit_gives_the_local_rounds(slurm, campaign, tmp_path):
    """The rounds run inside one Slurm allocation: one job, the same rows as locally."""
    design, local, last = campaign
    results = tmp_path / "results"
    job_id = cli_submit(design, results, "--nodes", "1")
    assert wait_job(job_id) == "COMPLETED"
    output = (results / "campaign" / "slurm" / f"{job_id}.out").read_text()
    assert f"stopped at max = 12 replications {last}" in output, output[-3000:]
    assert campaign_rows(results) == local
    assert len(submit.recorded_jobs(load_design(design), results)) == 1


@pytest.mark.cluster
@pytest.mark.slow
def test_a_crossed_design_through_submit_gives_the_local_rows(slurm, crossed, tmp_path):
    """The crossed design as one Slurm job: each run from its simulator's program, the rows
    of the local executor."""
    design, local = crossed
    results = tmp_path / "results"
    job_id = cli_submit(design, results, "--nodes", "1")
    assert wait_job(job_id) == "COMPLETED"
    output = (results / "queues" / "slurm" / f"{job_id}.out").read_text()
    assert "12/12 runs done" in output, output[-3000:]
    assert crossed_rows(results) == local


@pytest.mark.parametrize(
    ("limit", "seconds"),
    [("90", 5400), ("1:30", 90), ("2:00:00", 7200), ("1-2", 93600), ("1-2:03", 93780),
     ("1-0:0:5", 86405), ("infinite", None)],
)  # fmt: skip
def test_time_limits_in_seconds(limit, seconds):
    """Slurm's time formats, for the SIGTERM lead of short limits (a quarter of one under 4 min)."""
    assert submit.time_seconds(submit.check_time(limit)) == seconds
