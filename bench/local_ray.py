"""A Ray cluster of one node on this machine for a benchmark's duration, stopped by PID.

`ray start --head --block` in a session of its own, loopback address, a free port, a private
--temp-dir, token authentication on (a fresh token in a 0600 file beside the temp dir, never in
a results directory), as tests/support/ray.py and ray_jobs/slurm/ray-cluster.sbatch start Ray;
it waits for the CPUs with ray_jobs/slurm/wait-for-ray.py. It is stopped by PID: SIGTERM to
`ray start`, then SIGKILL to whatever is left in its session or names its temp dir. Never
`ray stop`, which stops every Ray cluster on the machine, other people's too.

The Ray workers, and so the Snakemake jobs (which see their worker's environment), get this
process's PYTHONPATH with the executor plugin of this source tree first, so the jobs and the
plugin are those of the tree being measured.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PLUGIN_SRC = REPO / "ray_jobs" / "snakemake-executor-plugin-ray"
WAIT_FOR_RAY = REPO / "ray_jobs" / "slurm" / "wait-for-ray.py"
RAY = Path(sys.executable).with_name("ray")
START_SECONDS = 120  # a loaded machine took over a minute to start a head (ray-cluster.sbatch)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalRay:
    """The running cluster: ``env`` for its clients (the token's mode and file, the plugin on
    PYTHONPATH, SNAKEMAKE_RAY_ADDRESS), ``address``; :meth:`stop` ends it."""

    def __init__(self, root: Path, cpus: int) -> None:
        root.mkdir(parents=True)
        token = root / "auth_token"
        token.touch(mode=0o600)
        token.write_text(secrets.token_hex(32))
        self.root = root
        self.log = root / "ray-head.log"
        self.address = f"127.0.0.1:{free_port()}"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_", "SNAKEMAKE_RAY_"))}
        paths = [str(PLUGIN_SRC), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
        env |= {
            "RAY_AUTH_MODE": "token",
            "RAY_AUTH_TOKEN_PATH": str(token),
            "RAY_USAGE_STATS_ENABLED": "0",
            # `ray start --block` otherwise waits up to 30 s for running tasks on SIGTERM
            "RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S": "0",
        }
        self.env = env | {"SNAKEMAKE_RAY_ADDRESS": self.address}
        with self.log.open("wb") as log:
            self.head = subprocess.Popen(
                [
                    str(RAY),
                    "start",
                    "--head",
                    "--block",
                    f"--num-cpus={cpus}",
                    "--disable-usage-stats",
                    "--include-dashboard=false",
                    f"--port={self.address.rsplit(':', 1)[1]}",
                    "--node-ip-address=127.0.0.1",
                    f"--temp-dir={root / 'ray'}",
                ],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        waited = subprocess.run(
            [
                sys.executable,
                str(WAIT_FOR_RAY),
                self.address,
                "1",  # node
                str(cpus),
                str(START_SECONDS),
                str(self.head.pid),
            ],
            env=env,
            capture_output=True,
            text=True,
        )
        if waited.returncode != 0:
            left = self.stop()
            tail = self.log.read_text(errors="replace")[-2000:]
            raise SystemExit(
                f"the Ray head did not start: {waited.stderr.strip()}"
                f"{f'; processes left: {left}' if left else ''}\n{tail}"
            )

    def _ours(self) -> list[int]:
        """Live processes in the head's session or naming its temp dir, but this one."""
        marker = str(self.root / "ray")
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                stat = (entry / "stat").read_text()
                cmdline = (
                    (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                )
            except OSError:
                continue
            state, _ppid, _pgrp, session = stat.rsplit(")", 1)[1].split()[:4]
            if state != "Z" and (int(session) == self.head.pid or marker in cmdline):
                found.append(int(entry.name))
        return found

    def stop(self) -> list[int]:
        """SIGTERM to `ray start`, SIGKILL to what is left of it; returns the PIDs that
        survived even that (none, normally)."""
        if self.head.poll() is None:
            self.head.terminate()
            try:
                self.head.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        for pid in self._ours():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            self.head.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        time.sleep(0.5)  # the killed ones to be reaped by their parents
        return self._ours()
