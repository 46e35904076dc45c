"""What runs inside a Ray worker: one Snakemake job command, in a shell, under a guard.

Only the standard library is used here, so the function runs in any Ray worker that can import
this module (the worker nodes share the driver's virtual environment).

The job does not run as a direct child of the Ray worker but under two small processes (one
Python interpreter that forks): a *relay*, the worker's child, and below it a *guard*, the parent
of the job's shell, which runs in a session (and process group) of its own. The relay hands the
job's exit status back to the worker and exits as soon as its worker is gone; the guard kills
the job's whole process group as soon as its relay is gone. So the job dies with its worker
whatever happened: the raylet or node was killed, the task was cancelled with ``force=True``,
the driver went away, or the raylet killed the worker's process group and children (Ray's
per-worker process groups and ``kill_child_processes_on_worker_exit``, which by themselves
would orphan the job below them; the guard leaves that group for a session of its own).
Without this, a job whose worker died would keep running and race against its own retry on
another node.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

# argv = [the Ray worker's pid, shell command]; stdout/stderr are inherited (the job's log).
# Exits with the job's exit status (128 + N if the job was killed by signal N).
GUARD = r"""
import os, signal, subprocess, sys, threading, time
worker, command = int(sys.argv[1]), sys.argv[2]

def on_orphaned(parent, action):
    # A thread that calls action() once this process's parent is no longer `parent`.
    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        action()
    threading.Thread(target=watch, daemon=True).start()

relay = os.getpid()
guard = os.fork()
if guard:
    # Relay: the worker's child. Passes on the guard's exit status; leaves when the worker dies.
    on_orphaned(worker, lambda: os._exit(1))
    _, status = os.waitpid(guard, 0)
    os._exit(os.waitstatus_to_exitcode(status) % 256)

# Guard: out of the worker's process group, which Ray kills as a whole when the worker exits.
os.setsid()
job = subprocess.Popen(["/bin/bash", "-c", command], start_new_session=True)

def kill_job(*_):
    try:
        os.killpg(job.pid, signal.SIGTERM)
        for _ in range(20):
            time.sleep(0.1)
            os.killpg(job.pid, 0)  # ProcessLookupError once the group is gone
        os.killpg(job.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os._exit(143)

signal.signal(signal.SIGTERM, kill_job)
signal.signal(signal.SIGINT, signal.SIG_IGN)
on_orphaned(relay, kill_job)
code = job.wait()
# Whatever the job left behind in its process group goes too.
try:
    os.killpg(job.pid, signal.SIGKILL)
except ProcessLookupError:
    pass
os._exit(128 - code if code < 0 else code)
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
        relay = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", GUARD, str(os.getpid()), command],
            cwd=workdir,
            env=job_env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            code = relay.wait()
        except BaseException:
            # ray.cancel(force=False) raises KeyboardInterrupt here: the relay goes, so the
            # guard kills the job within a second.
            relay.kill()
            relay.wait()
            raise
    return code, tail(logfile, tail_lines)
