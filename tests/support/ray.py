"""A real Ray cluster of this machine for the tests: `ray start --head --block` and
`ray start --address=... --block` processes, each a raylet of its own (Ray accepts several nodes
per host), 1 CPU each, token authentication on (RAY_AUTH_MODE=token, a fresh token in a 0600 file
named by RAY_AUTH_TOKEN_PATH), a private --temp-dir. Every process is started in a session of its
own and stopped by PID: `ray stop` would also stop other people's Ray clusters on this machine.

Snakemake runs the executor plugin from the source tree (PYTHONPATH), so the tests check the code
in the working tree."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tests.support import REPO
from tests.support.processes import in_sessions, processes, wait_until

PLUGIN_SRC = REPO / "ray_jobs" / "snakemake-executor-plugin-ray"
RAY = Path(sys.executable).with_name("ray")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -- the cluster -----------------------------------------------------------------------------


@dataclass
class RayCluster:
    root: Path
    port: int
    token: str
    env: dict[str, str]
    nodes: list[subprocess.Popen] = field(default_factory=list)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _start(self, *args: str) -> subprocess.Popen:
        log = open(self.root / f"node{len(self.nodes)}.log", "wb")
        proc = subprocess.Popen(
            [str(RAY), "start", "--block", "--num-cpus=1", "--disable-usage-stats", *args],
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        self.nodes.append(proc)
        return proc

    def start_head(self) -> None:
        self._start(
            "--head",
            f"--port={self.port}",
            "--node-ip-address=127.0.0.1",
            "--include-dashboard=false",
            f"--temp-dir={self.root / 'ray'}",
        )

    def add_worker(self) -> subprocess.Popen:
        return self._start(f"--address={self.address}")

    def gcs_listening(self) -> bool:
        with socket.socket() as s:
            s.settimeout(1)
            return s.connect_ex(("127.0.0.1", self.port)) == 0

    def status(self, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(RAY), "status", f"--address={self.address}"],
            env=env or self.env,
            capture_output=True,
            text=True,
            timeout=60,
        )

    def cpus(self) -> tuple[float, float]:
        """(CPUs in use, CPUs registered)."""
        m = re.search(r"([\d.]+)/([\d.]+) CPU", self.status().stdout)
        return (float(m[1]), float(m[2])) if m else (0.0, 0.0)

    def wait_for_cpus(self, total: int, timeout: float = 60) -> None:
        wait_until(lambda: self.cpus()[1] == total, timeout, f"{total} CPUs registered")

    def wait_idle(self, timeout: float = 30) -> None:
        wait_until(lambda: self.cpus()[0] == 0.0, timeout, "all CPUs free", interval=0.5)

    def raylet_pid(self, node: subprocess.Popen) -> int:
        for p in processes():
            if p.comm == "raylet" and p.session == node.pid:
                return p.pid
        raise LookupError(f"no raylet under node {node.pid}")

    def stop(self) -> list[int]:
        """Stops every node by PID (workers first); returns the PIDs still alive after."""
        sessions = {p.pid for p in self.nodes}
        for proc in reversed(self.nodes):
            if proc.poll() is None:
                proc.terminate()
        for proc in reversed(self.nodes):
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                pass
        for pid in in_sessions(sessions):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.5)
        return in_sessions(sessions)


def base_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_", "SNAKEMAKE_RAY_"))}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PLUGIN_SRC), env.get("PYTHONPATH")]))
    env["RAY_USAGE_STATS_ENABLED"] = "0"
    env["RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S"] = "0"
    return env


@contextmanager
def token_cluster(extra_env: dict[str, str] | None = None) -> Iterator[RayCluster]:
    """Head (1 CPU) + one worker node (1 CPU), token authentication on; stopped by PID after,
    failing if any of its processes is left."""
    root = Path(tempfile.mkdtemp(prefix="satsweep-ray-", dir="/tmp"))
    token = secrets.token_hex(32)
    token_file = root / "auth_token"
    token_file.touch(mode=0o600)
    token_file.write_text(token)
    env = base_env() | {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(token_file)}
    c = RayCluster(root=root, port=free_port(), token=token, env=env | (extra_env or {}))
    try:
        c.start_head()
        wait_until(c.gcs_listening, 60, "the head's GCS port")
        c.add_worker()
        c.wait_for_cpus(2)
        yield c
    finally:
        left = c.stop()
        logs = {p.name: p.read_text(errors="replace")[-2000:] for p in root.glob("node*.log")}
        shutil.rmtree(root, ignore_errors=True)
        assert not left, f"Ray processes left behind: {left}; node logs: {logs}"
