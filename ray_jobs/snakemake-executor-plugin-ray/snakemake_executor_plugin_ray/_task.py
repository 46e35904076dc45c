"""What runs inside a Ray worker: one Snakemake job command, in a shell, under a guard.

Only the standard library is used here, so the function runs in any Ray worker that can import
this module (the worker nodes share the driver's virtual environment).

The job does not run as a direct child of the Ray worker but under a small guard process (a
second Python interpreter). The guard starts the shell in a session of its own and watches its
parent, the Ray worker: when that worker dies (its raylet or node was killed, the task was
cancelled with ``force=True``, the driver went away), the guard kills the job's whole process
group. Without it, a job whose worker died would keep running as an orphan and race against its
own retry on another node.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

# The guard: argv = [expected parent pid, shell command]; stdin/stdout/stderr are inherited.
# Exits with the job's exit status (128 + signal number if the job was killed by a signal).
GUARD = r"""
import os, signal, subprocess, sys
parent, command = int(sys.argv[1]), sys.argv[2]
job = subprocess.Popen(["/bin/bash", "-c", command], start_new_session=True)

def kill_job(*_):
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(job.pid, sig)
        except ProcessLookupError:
            break
        try:
            job.wait(timeout=2)
            break
        except subprocess.TimeoutExpired:
            pass
    os._exit(143)

signal.signal(signal.SIGTERM, kill_job)
signal.signal(signal.SIGINT, kill_job)
while True:
    try:
        code = job.wait(timeout=0.5)
        break
    except subprocess.TimeoutExpired:
        if os.getppid() != parent:
            kill_job()
# Whatever the shell left behind in its session goes too.
try:
    os.killpg(job.pid, signal.SIGKILL)
except ProcessLookupError:
    pass
sys.exit(128 - code if code < 0 else code)
"""

#: Environment variables never handed to a job (the job is user code, not a Ray client).
HIDDEN_ENV = ("RAY_AUTH_TOKEN",)

#: Bytes read from the end of the log to build the tail returned to the driver.
TAIL_BYTES = 64 * 1024


def tail(path: str, lines: int) -> str:
    """The last ``lines`` lines of the file at ``path`` ('' if it cannot be read)."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - TAIL_BYTES))
            data = f.read()
    except OSError:
        return ""
    text = data.decode("utf-8", errors="replace")
    return "\n".join(text.splitlines()[-lines:])


def run_command(
    command: str, workdir: str, logfile: str, env: dict[str, str], tail_lines: int
) -> tuple[int, str]:
    """Runs ``command`` with bash in ``workdir``, appending its output to ``logfile``.

    Returns the exit status (128 + N when killed by signal N) and the last ``tail_lines`` lines
    of the log. Each attempt (a retry after a lost worker appends to the same file) starts with
    a header naming the host, the Ray node and the time.
    """
    import ray  # available in any Ray worker; imported here to keep module import cheap

    job_env = {k: v for k, v in os.environ.items() if k not in HIDDEN_ENV}
    job_env.update(env)
    node = ray.get_runtime_context().get_node_id()
    os.makedirs(os.path.dirname(logfile), exist_ok=True)
    with open(logfile, "ab") as log:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        header = f"=== {stamp} host {socket.gethostname()} ray node {node} worker {os.getpid()}\n"
        log.write(header.encode())
        log.flush()
        guard = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", GUARD, str(os.getpid()), command],
            cwd=workdir,
            env=job_env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            code = guard.wait()
        except BaseException:
            # ray.cancel(force=False) raises KeyboardInterrupt here: stop the job first.
            guard.terminate()
            guard.wait()
            raise
    return code, tail(logfile, tail_lines)
