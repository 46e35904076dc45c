"""Three Slurm nodes on this one machine (`local-cluster.sh start --nodes 3`): each slurmd in its
own network and UTS namespace (hostname nodeI, address 198.51.100.(10+I) on a bridge), one
slurmctld in the root namespace. Real daemons, bounded in time, needs root (CI runs as root).

conftest's module fixture `nodes3` stops the session's single-node cluster if it runs (`slurm`
starts it again for any later module that asks for it), starts 3 nodes, and at the end stops
them and checks that none of their namespaces, links or daemons is left. It restarts nothing.
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

from tests.support.slurm import (
    ADDRESSES,
    NETNS,
    NODES,
    SLURM_SCRIPT,
    alive,
    explain,
    netns,
    recorded_pids,
    run,
    stop_and_check_nothing_left,
)
from tests.support.slurm import local_cluster as cluster


@pytest.mark.cluster
def test_three_nodes_with_own_hostnames_and_addresses(nodes3):
    start = cluster("start", "--nodes", "3")
    assert start.returncode == 0 and start.stdout.startswith("already running:"), explain(start)
    status = cluster("status")
    assert status.returncode == 0, explain(status)
    for node, ns in zip(NODES, NETNS):
        assert f"{node}: netns {ns}, {ADDRESSES[node]}" in status.stdout, status.stdout

    states = dict(
        line.split() for line in run("sinfo", "-h", "-N", "-o", "%N %T").stdout.splitlines()
    )
    assert states == {n: "idle" for n in NODES}, states

    hostnames = run("srun", "-N3", "hostname").stdout.split()
    assert sorted(hostnames) == list(NODES)
    # The machine's hostname is untouched (each slurmd has its own UTS namespace).
    assert run("hostname").stdout.strip() not in NODES

    addresses = run("srun", "-N3", "hostname", "-I").stdout.split()
    assert len(addresses) == 3 and set(addresses) == set(ADDRESSES.values()), addresses

    # task/none: every node's tasks may run on every core (task/affinity would pin all three
    # nodes' tasks to CPU 0 and run them one at a time).
    allowed = run("srun", "-N3", "grep", "Cpus_allowed_list", "/proc/self/status").stdout
    cores = os.cpu_count() or 1
    expected = "0" if cores == 1 else f"0-{cores - 1}"
    assert allowed.split().count(expected) == 3, allowed


LISTEN = """
import socket, sys
s = socket.create_server(("0.0.0.0", 47001))
s.settimeout(30)
conn, peer = s.accept()
conn.sendall((socket.gethostname() + " " + peer[0]).encode())
conn.close()
"""

CONNECT = """
import socket, sys, time
deadline = time.monotonic() + 20
while True:
    try:
        c = socket.create_connection(("198.51.100.11", 47001), timeout=2)
        break
    except OSError:
        if time.monotonic() > deadline:
            raise
        time.sleep(0.1)
print(c.recv(100).decode())
"""


@pytest.mark.cluster
def test_nodes_reach_each_other(nodes3):
    # Plain reachability from node2's namespace to node1's address and to the root namespace
    # (a refused connection to a closed port is an answer: the path is open).
    for target in ("198.51.100.11", "198.51.100.1"):
        proc = subprocess.run(
            [
                "ip",
                "netns",
                "exec",
                "satsweep-node2",
                sys.executable,
                "-c",
                f"import socket; s = socket.socket(); s.settimeout(3)\n"
                f"try: s.connect(('{target}', 9))\nexcept ConnectionRefusedError: print('refused')",
            ],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert proc.returncode == 0 and proc.stdout.strip() == "refused", explain(proc)

    # A job on node1 listens; a job on node2 connects to node1's address (Ray's head and its
    # workers, in part 2, talk like this).
    server = subprocess.Popen(
        ["srun", "-w", "node1", "-N1", "-n1", sys.executable, "-c", LISTEN],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        client = subprocess.run(
            ["srun", "-w", "node2", "-N1", "-n1", sys.executable, "-c", CONNECT],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert client.returncode == 0, explain(client)
        # node1's job saw node2's address as the peer: no NAT, no proxy in between.
        assert client.stdout.strip() == "node1 198.51.100.12", client.stdout
        out, err = server.communicate(timeout=30)
        assert server.returncode == 0, err
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


@pytest.mark.cluster
def test_stop_removes_only_what_it_made(nodes3):
    """stop removes the nodes' namespaces, links and daemons, kills by PID what a job left in a
    node's namespace, and leaves a namespace, a link and a process of someone else alone."""
    # A process that escaped its job step (setsid, reparented to init) on node2.
    run("srun", "-w", "node2", "sh", "-c", "setsid sleep 300 </dev/null >/dev/null 2>&1 &")
    slurmd2 = recorded_pids()["slurmd node2"]
    deadline = time.monotonic() + 10
    while True:
        left = {int(p) for p in run("ip", "netns", "pids", "satsweep-node2").stdout.split()}
        left.discard(slurmd2)
        if left or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert left, "the job's leftover process did not appear"

    run("ip", "netns", "add", "other-test")
    other = None
    try:
        run("ip", "link", "add", "other-test-br", "type", "bridge")
        other = subprocess.Popen(["ip", "netns", "exec", "other-test", "sleep", "300"])
        seconds = stop_and_check_nothing_left(
            nodes3["netns"] | {"other-test"}, nodes3["links"] | {"other-test-br"}
        )
        print(f"stop: {seconds:.2f} s")
        assert not [pid for pid in left if alive(pid)], left
        assert other.poll() is None, "stop killed a process in a namespace it did not make"
        assert cluster("status").returncode == 3
    finally:
        if other is not None and other.poll() is None:
            other.kill()
            other.wait()
        subprocess.run(["ip", "link", "del", "other-test-br"], capture_output=True)
        run("ip", "netns", "del", "other-test")
    assert "other-test" not in netns()


@pytest.mark.cluster
def test_nodes_need_root():
    """Without root, start --nodes and stop with recorded namespaces say what needs root."""
    state = Path(tempfile.mkdtemp(prefix="satsweep-slurm-noroot-"))
    state.chmod(0o777)
    try:
        env = [f"SATSWEEP_SLURM_STATE={state}", "PATH=/usr/sbin:/usr/bin:/sbin:/bin"]
        cmd = ["/usr/bin/env", "-i", *env, str(SLURM_SCRIPT)]
        if os.geteuid() == 0:
            runuser = shutil.which("runuser") or "/usr/sbin/runuser"
            cmd = [runuser, "-u", "nobody", "--", *cmd]
        start = subprocess.run(
            [*cmd, "start", "--nodes", "2"], capture_output=True, text=True, timeout=60
        )
        assert start.returncode == 1, explain(start)
        assert "start --nodes 2 needs root: network namespaces, veth links and a bridge" in (
            start.stderr
        ), start.stderr
        (state / "made").write_text("netns satsweep-node1\n")
        stop = subprocess.run([*cmd, "stop"], capture_output=True, text=True, timeout=60)
        assert stop.returncode == 1, explain(stop)
        assert "network namespaces, veth links and bridge" in stop.stderr
        assert "needs root" in stop.stderr
        bad = subprocess.run(
            [*cmd, "start", "--nodes", "0"], capture_output=True, text=True, timeout=60
        )
        assert bad.returncode == 1 and "--nodes takes a number from 1 to" in bad.stderr
    finally:
        shutil.rmtree(state)
