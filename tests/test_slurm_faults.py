"""`satsweep submit --nodes 3` on three Slurm nodes of this machine (`local-cluster.sh start
--nodes 3`: each slurmd in its own network and UTS namespace), and what faults do to the store.

The sweeps run tests/programs/normal.py, whose runs last `delay` seconds and whose y is known
from the run's random stream, so every row can be checked. Each fault test ends with every run
in the store exactly once, with the value its stream gives, and no process of the job left in
any node's namespace. Real daemons, bounded in time, cleaning up by PID; needs root.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import duckdb
import pytest

from satsweep import cli
from satsweep.cluster import submit
from satsweep.design import load_design
from tests.support.processes import wait_until as _wait_until
from tests.support.slurm import NETNS, explain
from tests.support.slurm import local_cluster as cluster
from tests.support.sweeps import sweep_file

# Each test bounds its waits (JOB_TIMEOUT and fewer); the time-limit one is the suite's longest.
pytestmark = [
    pytest.mark.cluster,
    pytest.mark.slow,
    pytest.mark.timeout(900),
    pytest.mark.usefixtures("nodes3"),
]

MEANS = {"lo": 9.0, "hi": 11.0}, {1: -0.5, 2: 0.0, 3: 0.5}  # normal.py's BASE + shifts
JOB_TIMEOUT = 240
#: A run on a node lost silently is run again within this (ray_jobs/README-slurm.md: Ray's
#: health checks mark the node dead, then the executor's next look at the nodes resubmits it).
LOST_RUN_BOUND_S = 60


def checked_rows(store_dir: Path, expected: int) -> list[tuple]:
    """The store's runs: (config_id, replication, host), each once, each y the one its stream
    gives (normal.py draws y ~ Normal(mean, 1) from --run)."""
    rows = duckdb.sql(
        f"SELECT config_id, replication, host, run, a, b, y FROM '{store_dir / 'runs.parquet'}'"
    ).fetchall()
    keys = [(c, k) for c, k, *_ in rows]
    assert len(keys) == len(set(keys)) == expected, (len(keys), len(set(keys)), expected)
    for _, _, _, run, a, b, y in rows:
        assert y == random.Random(run).gauss(MEANS[0][a] + MEANS[1][b], 1.0)
    return [(c, k, host) for c, k, host, *_ in rows]


def submit_job(sweep: Path, results: Path, *extra: str) -> str:
    assert cli.main(["submit", str(sweep), "--results", str(results), "--nodes", "3", *extra]) == 0
    return str(submit.recorded_jobs(load_design(sweep), results)[-1]["job_id"])


def job_state(job_id: str) -> str:
    return subprocess.run(
        ["squeue", "-h", "-t", "all", "-j", job_id, "-o", "%T"],
        capture_output=True,
        text=True,
        timeout=30,
    ).stdout.strip()


def wait_state(
    job_id: str, states: set[str], timeout: float = JOB_TIMEOUT, store_dir: Path | None = None
) -> str:
    """The job's state once it is one of ``states``; fails naming the state it stayed in (and,
    given the job's store, what the cluster and the job were doing: :func:`job_report`)."""
    deadline = time.monotonic() + timeout
    while (state := job_state(job_id)) not in states:
        if time.monotonic() > deadline:
            report = "" if store_dir is None else "\n" + job_report(job_id, store_dir)
            pytest.fail(
                f"job {job_id} still {state or 'unknown to squeue'} after {timeout:g} s, "
                f"not in {sorted(states)}{report}",
                pytrace=False,
            )
        time.sleep(0.2)
    return state


def job_report(job_id: str, store_dir: Path) -> str:
    """What a failed wait needs to explain itself: the job's and the nodes' Slurm states, the
    job's log and its Ray nodes' logs, the Ray daemons' fatal errors and what runs in the nodes."""

    def out(*cmd: str) -> str:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        return (proc.stdout + proc.stderr).strip()

    def tail(path: Path, lines: int) -> str:
        try:
            return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
        except OSError as e:
            return f"({e.strerror})"

    parts = [
        f"squeue: {out('squeue', '-h', '-t', 'all', '-o', '%i %T %M %N %r')}",
        f"sinfo: {out('sinfo', '-h', '-N', '-o', '%N %T %E')}",
        f"--- {job_id}.out (last 30 lines):\n{tail(store_dir / 'slurm' / f'{job_id}.out', 30)}",
    ]
    for log in sorted((store_dir / "slurm" / job_id).glob("ray-*.log")):
        parts.append(f"--- {log.name} (last 8 lines):\n{tail(log, 8)}")
    # Ray's daemons log a fatal error as a " C " line (e.g. the raylet's start timing out).
    for raylet in sorted(Path("/tmp").glob(f"satsweep-ray-{job_id}*/session_*/logs/raylet.out")):
        fatal = [line[:300] for line in tail(raylet, 400).splitlines() if " C " in line[:40]]
        if fatal:
            parts.append(f"--- {raylet}: {fatal[0]}")
    for ns in NETNS:
        parts.append(f"--- processes in {ns}: {namespace_processes(ns) or 'none'}")
    return "\n".join(parts)


def done(store_dir: Path) -> int:
    return len(list(store_dir.glob("runs/*/r*.record.json")))


def wait_runs(store_dir: Path, runs: int, job_id: str) -> None:
    """Waits until the store holds ``runs`` runs; fails with :func:`job_report` as soon as the
    job has ended short of them, or after JOB_TIMEOUT seconds."""
    t0 = time.monotonic()
    while done(store_dir) < runs:
        state = job_state(job_id)
        waited = time.monotonic() - t0
        if (state and state not in submit.ACTIVE) or waited > JOB_TIMEOUT:
            pytest.fail(
                f"{done(store_dir)} of {runs} runs done after {waited:.0f} s, job {job_id} "
                f"{state or 'unknown to squeue'}\n{job_report(job_id, store_dir)}",
                pytrace=False,
            )
        time.sleep(0.2)


def wait_completed(job_id: str, store_dir: Path) -> None:
    """Waits until the job has ended COMPLETED. The bound is on a stall, not on the whole job: it
    fails once no run has been added to the store for JOB_TIMEOUT seconds (a loaded machine only
    makes a sweep slower, a hang adds nothing), or as soon as the job ends otherwise."""
    last, seen = time.monotonic(), done(store_dir)
    while (state := job_state(job_id)) in submit.ACTIVE or not state:
        if (now := done(store_dir)) != seen:
            last, seen = time.monotonic(), now
        elif time.monotonic() - last > JOB_TIMEOUT:
            break
        time.sleep(0.5)
    if state != "COMPLETED":
        pytest.fail(
            f"job {job_id} {state or 'unknown to squeue'}, {done(store_dir)} runs in the store, "
            f"none added in the last {time.monotonic() - last:.0f} s\n"
            f"{job_report(job_id, store_dir)}",
            pytrace=False,
        )


def namespace_processes(ns: str) -> list[str]:
    """The command lines of the processes in node namespace ``ns`` (its slurmd aside)."""
    pids = subprocess.run(
        ["ip", "netns", "pids", ns], capture_output=True, text=True, timeout=30
    ).stdout.split()
    found = []
    for pid in pids:
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if cmd and not cmd.startswith("slurmd"):
            found.append(f"{pid} {cmd[:160]}")
    return found


def nothing_of_the_job_left() -> bool:
    return not any(namespace_processes(ns) for ns in NETNS)


def lose_node(ns: str, silent: bool = False) -> int:
    """A node fails: every process in its namespace (slurmd, the job's steps, Ray, the runs) is
    killed. Returns how many. ``silent``: its link goes down first, as when a node loses power:
    nothing it does while dying reaches the others. Killed with the link up, the kernel closes
    the processes' connections (Ray sees the node go at once) and its slurmd or srun may still
    tell the other nodes to kill the steps it launched (seen: steps SIGKILLed within 4 ms of
    their srun's death), which no power failure does. (restart_lost_nodes, through
    local-cluster.sh start, brings the link up again.)"""
    if silent:
        subprocess.run(["ip", "-n", ns, "link", "set", "eth0", "down"], check=True, timeout=30)
    pids = subprocess.run(
        ["ip", "netns", "pids", ns], capture_output=True, text=True, timeout=30
    ).stdout.split()
    for pid in pids:
        try:
            os.kill(int(pid), signal.SIGKILL)
        except ProcessLookupError:
            pass
    return len(pids)


def wait_until_node2_runs_a_run(store_dir: Path) -> None:
    """Waits until 6 runs are done and node2 runs one: the moment to lose it."""

    def node2_runs_a_run() -> bool:
        return done(store_dir) >= 6 and any(
            "normal.py" in p for p in namespace_processes("satsweep-node2")
        )

    _wait_until(node2_runs_a_run, JOB_TIMEOUT, "node2 running a run, 6 runs done")


def restart_lost_nodes() -> None:
    start = cluster("start", "--nodes", "3")  # starts only the slurmds that are gone
    assert start.returncode == 0, explain(start)


def test_a_lost_node_leaves_the_sweep_to_the_others(tmp_path):
    """node2 fails mid-sweep (slurmd, its Ray worker and the run in flight killed): Ray's tasks
    there are retried on node1 and node3, the job goes on (--no-kill) and completes the sweep;
    Slurm marks node2 down and, once it is back, the job COMPLETED."""
    sweep = sweep_file(tmp_path, "lost", replications=6, delay=1.0)
    results = tmp_path / "results"
    store_dir = results / "lost"
    job = submit_job(sweep, results)

    wait_until_node2_runs_a_run(store_dir)
    before = done(store_dir)
    lose_node("satsweep-node2")
    output = store_dir / "slurm" / f"{job}.out"
    _wait_until(
        lambda: "satsweep run exited with" in output.read_text(), JOB_TIMEOUT, "the driver's end"
    )
    assert "satsweep run exited with 0" in output.read_text(), output.read_text()
    rows = checked_rows(store_dir, 36)  # every run once, each its stream's value
    log = (store_dir / "logs" / "snakemake.log").read_text()
    assert "lost its Ray worker" in log and "resubmitting, retry 1/" in log, log[-3000:]
    hosts = [host for *_, host in rows]
    print(f"node2 lost with {before} of 36 runs done; after: 36 runs, duplicates 0, per node "
          f"{ {h: hosts.count(h) for h in sorted(set(hosts))} }")  # fmt: skip
    restart_lost_nodes()
    assert wait_state(job, {"COMPLETED", "FAILED", "CANCELLED", "NODE_FAIL"}) == "COMPLETED"
    _wait_until(nothing_of_the_job_left, 30, "no process of the job in the nodes")


def test_scancel_mid_sweep_then_resubmit(tmp_path):
    """scancel while runs are in flight on three nodes: no Ray, Snakemake or run process is left
    in any node's namespace; a new submission completes what is missing, keeps the runs done
    (not rerun) and duplicates nothing. The store's host column shows runs on every node."""
    sweep = sweep_file(tmp_path, "cancel3", replications=6, delay=1.0)
    results = tmp_path / "results"
    store_dir = results / "cancel3"
    job = submit_job(sweep, results)
    _wait_until(lambda: done(store_dir) >= 6, JOB_TIMEOUT, "6 runs done")
    subprocess.run(["scancel", job], check=True, timeout=30)
    assert wait_state(job, {"CANCELLED", "COMPLETED"}, timeout=90) == "CANCELLED"
    _wait_until(nothing_of_the_job_left, 30, "no process of the job in the nodes")
    survivors = {p: p.stat().st_mtime_ns for p in store_dir.glob("runs/*/r*.record.json")}
    assert 6 <= len(survivors) < 36
    again = submit_job(sweep, results)
    wait_completed(again, store_dir)
    hosts = {host for *_, host in checked_rows(store_dir, 36)}
    assert hosts == {"node1", "node2", "node3"}  # the jobs ran on every node
    assert {p: p.stat().st_mtime_ns for p in survivors} == survivors  # kept, not redone
    print(f"scancel: {len(survivors)} of 36 runs before, 36 after, duplicates 0")
    _wait_until(nothing_of_the_job_left, 30, "no process of the second job in the nodes")


def test_the_time_limit_then_resubmit(tmp_path, capsys):
    """A job whose --time ends mid-sweep: the batch script gets SIGTERM a quarter of the limit
    before it (--signal=B:TERM@30 for 2 minutes; Slurm may send it up to 60 s earlier), tears
    Ray down as for scancel and says TIMEOUT; `submit --wait` and `status` say TIMEOUT, the runs
    left, the time the cost hint expects for them and to raise --time; a new submission
    completes the sweep. Two minutes, not one: on a loaded CI machine Ray's start on three
    nodes took the whole 45 s that a 1-minute limit leaves before the signal."""
    sweep = sweep_file(tmp_path, "limit", replications=30, delay=2.0)  # ~120 s on 3 nodes
    results = tmp_path / "results"
    store_dir = results / "limit"
    capsys.readouterr()
    args = ["submit", str(sweep), "--results", str(results), "--nodes", "3", "--time", "2"]
    assert cli.main([*args, "--wait"]) == 1  # runs missing
    summary = capsys.readouterr().err
    job = str(submit.recorded_jobs(load_design(sweep), results)[-1]["job_id"])
    state = wait_state(job, {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"}, timeout=60)
    output = (store_dir / "slurm" / f"{job}.out").read_text()
    assert "TIMEOUT: time limit reached" in output and "Ray stopped" in output, output
    assert "raise --time" in output, output
    assert state in {"FAILED", "TIMEOUT"}, state  # FAILED: the script ended before the limit
    _wait_until(nothing_of_the_job_left, 30, "no process of the job in the nodes")
    survivors = {p: p.stat().st_mtime_ns for p in store_dir.glob("runs/*/r*.record.json")}
    before = len(survivors)
    assert before < 180, "the sweep finished inside the limit: make it longer"
    # none done would leave nothing to keep: the test would pass without testing that
    assert before > 0, "no run finished inside the limit (a machine too loaded for this test?)"
    # normal.py's cost hint: a run lasts its delay (2 s), on 3 slots
    left = 180 - before
    expects = str(dt.timedelta(seconds=round(left * 2.0 / 3)))
    said = (
        f"TIMEOUT: time limit reached with {left} of 180 runs left, the program's cost hint "
        f"expects {expects} for them on 3 slots: raise --time (it was 2) and submit again"
    )
    assert f"Slurm job {job}: TIMEOUT" in summary and said in summary, summary
    assert cli.main(["status", str(sweep), "--results", str(results)]) == 3
    status = capsys.readouterr().out
    assert f"Slurm job {job} " in status and "): TIMEOUT, " in status, status
    assert said in status, status
    again = submit_job(sweep, results)
    wait_completed(again, store_dir)
    checked_rows(store_dir, 180)
    assert {p: p.stat().st_mtime_ns for p in survivors} == survivors  # kept, not redone
    print(f"time limit ({state}): {before} of 180 runs before, 180 after, duplicates 0")


def test_the_head_node_lost_then_resubmit(tmp_path, capsys):
    """node1 fails (the batch script, the Ray head and the driver with it): the workers find
    the head gone and cancel the job, saying why in its log, which `satsweep status` shows;
    once node1 is back a new submission completes the sweep."""
    sweep = sweep_file(tmp_path, "head", replications=6, delay=1.0)
    results = tmp_path / "results"
    store_dir = results / "head"
    job = submit_job(sweep, results)
    wait_runs(store_dir, 6, job)
    before = done(store_dir)
    lose_node("satsweep-node1", silent=True)
    ended = {"CANCELLED", "COMPLETED", "FAILED", "NODE_FAIL"}
    state = wait_state(job, ended, 120, store_dir)
    assert state == "CANCELLED", job_report(job, store_dir)
    output = (store_dir / "slurm" / f"{job}.out").read_text()
    assert "error: the Ray head at 198.51.100.11:" in output and "is gone" in output, output
    capsys.readouterr()
    cli.main(["status", str(sweep), "--results", str(results)])
    status = capsys.readouterr().out
    assert f"Slurm job {job}" in status and "CANCELLED" in status and "is gone" in status
    restart_lost_nodes()
    left = {ns: namespace_processes(ns) for ns in NETNS}
    _wait_until(
        nothing_of_the_job_left, 60, f"no process of the job in the nodes (at first: {left})"
    )
    # the workers cleared their nodes' Ray temp dirs; the lost node's is what a lost node
    # leaves in its /tmp (here the machine's: removed so that the test leaves nothing behind)
    assert not list(Path("/tmp").glob(f"satsweep-ray-{job}-*"))
    shutil.rmtree(f"/tmp/satsweep-ray-{job}")
    again = submit_job(sweep, results)
    wait_completed(again, store_dir)
    checked_rows(store_dir, 36)
    print(f"head node lost: {before} of 36 runs before, 36 after, duplicates 0")


def test_a_node_lost_silently_mid_sweep(tmp_path):
    """node2 dies silently mid-sweep, as on a power failure: its link goes down, then every
    process there is killed, so no connection of its is closed and Ray learns of it only by its
    health checks. The run that was there is run again on node1 or node3 within the bound the
    docs state (ray_jobs/README-slurm.md), the driver ends by itself and the sweep completes."""
    sweep = sweep_file(tmp_path, "silent", replications=6, delay=1.0)
    results = tmp_path / "results"
    store_dir = results / "silent"
    job = submit_job(sweep, results)

    wait_until_node2_runs_a_run(store_dir)
    before = done(store_dir)
    lose_node("satsweep-node2", silent=True)
    lost_at = time.monotonic()
    log = store_dir / "logs" / "snakemake.log"
    _wait_until(
        lambda: "was on a dead Ray node" in log.read_text(),
        LOST_RUN_BOUND_S,
        "the lost run resubmitted",
    )
    resubmitted = time.monotonic() - lost_at
    output = store_dir / "slurm" / f"{job}.out"
    _wait_until(
        lambda: "satsweep run exited with" in output.read_text(), JOB_TIMEOUT, "the driver's end"
    )
    assert "satsweep run exited with 0" in output.read_text(), output.read_text()
    rows = checked_rows(store_dir, 36)
    hosts = [host for *_, host in rows]
    print(f"node2 lost silently with {before} of 36 runs done; its run resubmitted "
          f"{resubmitted:.0f} s later; after: 36 runs, duplicates 0, per node "
          f"{ {h: hosts.count(h) for h in sorted(set(hosts))} }")  # fmt: skip
    restart_lost_nodes()
    assert wait_state(job, {"COMPLETED", "FAILED", "CANCELLED", "NODE_FAIL"}) == "COMPLETED"
    _wait_until(nothing_of_the_job_left, 30, "no process of the job in the nodes")


def test_a_node_lost_while_ray_starts(tmp_path, monkeypatch):
    """node2's link is down from before the job starts (its slurmd alive, cut off): its Ray
    worker never registers; after the grace period (SATSWEEP_RAY_GRACE, 30 s here) the job goes
    on with the nodes that came (node1, and node3 unless its Ray start was slower still: it
    then joins later), saying so in its output, and the sweep completes without node2; once
    node2's link is back the job ends COMPLETED. Runs of 2 s: the sweep outlasts the grace."""
    monkeypatch.setenv("SATSWEEP_RAY_GRACE", "30")  # sbatch hands the environment to the job
    sweep = sweep_file(tmp_path, "start", replications=6, delay=2.0)
    results = tmp_path / "results"
    store_dir = results / "start"
    subprocess.run(["ip", "link", "set", "satsweep-v2", "down"], check=True, timeout=30)
    try:
        job = submit_job(sweep, results)
        output = store_dir / "slurm" / f"{job}.out"
        _wait_until(
            lambda: output.is_file() and "satsweep run exited with" in output.read_text(),
            JOB_TIMEOUT,
            "the driver's end",
        )
    finally:
        restart_lost_nodes()  # the link up again (slurmd stayed up)
    text = output.read_text()
    came = re.search(r"only ([12]) of 3 nodes registered after 30 s: going on with (\d)", text)
    assert came and came[1] == came[2], text
    assert "satsweep run exited with 0" in text, text
    hosts = {host for *_, host in checked_rows(store_dir, 36)}
    assert "node1" in hosts and "node2" not in hosts, hosts
    print(f"node2 cut off while Ray starts: {came[0]}; 36 runs on {sorted(hosts)}")
    assert wait_state(job, {"COMPLETED", "FAILED", "CANCELLED", "NODE_FAIL"}) == "COMPLETED"
    _wait_until(nothing_of_the_job_left, 30, "no process of the job in the nodes")
