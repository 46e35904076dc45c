"""The local Slurm of ray_jobs/slurm/local-cluster.sh: running it, its daemons, and its three
nodes of this machine (`start --nodes 3`: each slurmd in its own network and UTS namespace,
hostname nodeI, address 198.51.100.(10+I) on a bridge; one slurmctld in the root namespace)."""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from tests.support import REPO

SLURM_SCRIPT = REPO / "ray_jobs" / "slurm" / "local-cluster.sh"
SLURM_DAEMONS = ("slurmctld", "slurmd", "munged", "slurmstepd")
STATE = Path(os.environ.get("SATSWEEP_SLURM_STATE", "/tmp/satsweep-slurm"))
NODES = ("node1", "node2", "node3")
ADDRESSES = {"node1": "198.51.100.11", "node2": "198.51.100.12", "node3": "198.51.100.13"}
NETNS = tuple(f"satsweep-{n}" for n in NODES)
OURS = re.compile(r"^satsweep-")  # the prefix of every namespace and link the script makes


def local_cluster(*args: str, timeout: float = 120, **kwargs) -> subprocess.CompletedProcess:
    """Runs local-cluster.sh with the given arguments, capturing its output."""
    return subprocess.run(
        [str(SLURM_SCRIPT), *args], capture_output=True, text=True, timeout=timeout, **kwargs
    )


def explain(proc: subprocess.CompletedProcess) -> str:
    return f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"


def running_daemons() -> dict[str, list[str]]:
    """Slurm and munge processes on this machine, by name (pgrep -x: exact process names)."""
    found = {}
    for name in SLURM_DAEMONS:
        proc = subprocess.run(["pgrep", "-x", name], capture_output=True, text=True)
        if proc.stdout.split():
            found[name] = proc.stdout.split()
    return found


def run(*cmd: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """Runs a command that must succeed, capturing its output."""
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(cmd)}: {explain(proc)}"
    return proc


def netns() -> set[str]:
    return {line.split()[0] for line in run("ip", "netns", "list").stdout.splitlines() if line}


def links() -> set[str]:
    # "4: eth0: <...>" / "7: satsweep-v1@if2: <...>": the name, without the peer.
    names = re.findall(r"^\d+: ([^:@ ]+)", run("ip", "-o", "link", "show").stdout, re.M)
    return set(names)


def alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists()


def recorded_pids() -> dict[str, int]:
    """The daemons' PIDs from the state dir's pid files."""
    files = {"slurmctld": STATE / "slurmctld.pid", "munged": STATE / "munged.pid"}
    files |= {f"slurmd {n}": STATE / f"slurmd-{n}.pid" for n in NODES}
    return {k: int(f.read_text().strip()) for k, f in files.items() if f.exists()}


def start_three_nodes() -> dict[str, set[str]]:
    """Stops the single-node cluster if it runs and starts three nodes; returns the network
    namespaces and links there were before ("netns", "links")."""
    stop = local_cluster("stop", "--cancel-jobs")
    assert stop.returncode == 0, explain(stop)
    before_netns, before_links = netns(), links()
    assert not {n for n in before_netns | before_links if OURS.match(n)}, "leftovers of a run"
    t0 = time.monotonic()
    start = local_cluster("start", "--nodes", "3")
    started = time.monotonic() - t0
    if start.returncode != 0:
        local_cluster("stop", "--cancel-jobs")
        pytest.fail(f"local-cluster.sh start --nodes 3 failed:\n{explain(start)}")
    print(f"start --nodes 3: {started:.2f} s\n{start.stdout}")
    return {"netns": before_netns, "links": before_links}


def stop_and_check_nothing_left(before_netns: set[str], before_links: set[str]) -> float:
    """Stops the cluster; asserts none of its namespaces, links or daemons is left and nothing
    else changed. Returns how long stop took."""
    pids = recorded_pids()
    t0 = time.monotonic()
    stop = local_cluster("stop", "--cancel-jobs")
    seconds = time.monotonic() - t0
    assert stop.returncode == 0, explain(stop)
    assert not {n for n in netns() if OURS.match(n)}, netns()
    assert not {n for n in links() if OURS.match(n)}, links()
    assert netns() == before_netns
    assert links() == before_links
    assert running_daemons() == {}, running_daemons()
    assert not [k for k, pid in pids.items() if alive(pid)], pids
    assert not (STATE / "made").exists()
    return seconds
