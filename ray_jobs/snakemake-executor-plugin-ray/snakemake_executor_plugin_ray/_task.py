"""What runs inside a Ray worker: one Snakemake job, under a guard (_guard.py).

A Snakemake job is a ``python -m snakemake ... --mode remote`` command. By default the worker
keeps a warm Snakemake (_zygote.py: an interpreter that has imported Snakemake once) and forks
each job from it, which saves the ~1 s of CPU that importing Snakemake costs every job. Any other
command, or with warm start off, runs cold: a relay process (the worker's child) forks a guard
that runs the command with bash.

Either way the job runs in a session of its own under a guard, and dies with its worker whatever
happened: the raylet or node was killed, the task was cancelled with ``force=True``, the driver
went away, or the raylet killed the worker's process group and children (Ray's per-worker
process groups and ``kill_child_processes_on_worker_exit``, which by themselves would orphan the
job below them). Without this, a job whose worker died would keep running and race against its
own retry on another node.

Only the standard library is used here, so the function runs in any Ray worker that can import
this module (the worker nodes share the driver's virtual environment).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from typing import BinaryIO

HERE = os.path.dirname(os.path.abspath(__file__))
GUARD = os.path.join(HERE, "_guard.py")
ZYGOTE = os.path.join(HERE, "_zygote.py")

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


#: Characters that a shell would expand or interpret: a command with any of them runs in bash.
SHELL_SYNTAX = frozenset("$`\\*?[]{}~#;&|<>()!\n")


#: What an attempt's header says of its Ray node (run_command writes it first of all).
_HEADER_NODE = re.compile(rb"=== [^\n]* ray node ([0-9a-f]+) worker ")


def node_of(logfile: str, offset: int) -> str | None:
    """The Ray node (its hex id) of the attempt whose header starts at ``offset`` of
    ``logfile``; None while that attempt has not started (or its header cannot be read)."""
    try:
        with open(logfile, "rb") as f:
            f.seek(offset)
            head = f.read(512)
    except OSError:
        return None
    found = _HEADER_NODE.match(head)
    return found[1].decode() if found else None


def snakemake_argv(command: str) -> list[str] | None:
    """``[PYTHON, "-m", "snakemake", ARGS...]`` if ``command`` is just that, with nothing that a
    shell would expand or interpret (so the words mean the same without bash); else None."""
    if SHELL_SYNTAX.intersection(command):
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if len(words) < 3 or words[1:3] != ["-m", "snakemake"] or not os.path.isabs(words[0]):
        return None
    return words


class WarmSnakemakeExited(RuntimeError):
    """The worker's warm Snakemake is gone (its guards then kill their jobs)."""


class WarmSnakemake:
    """This worker's warm Snakemake (_zygote.py), for jobs with one Python, working directory
    and environment. ``problem`` says why it cannot be used (None if it can)."""

    def __init__(self, python: str, workdir: str, env: dict[str, str]) -> None:
        self.key = self.key_of(python, workdir, env)
        self.proc = subprocess.Popen(
            [python, ZYGOTE], cwd=workdir, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        try:
            hello = self._next("ready")
            self.problem = None if hello["ready"] else hello.get("problem") or "not ready"
        except WarmSnakemakeExited:
            self.problem = "it exited while starting"

    @staticmethod
    def key_of(python: str, workdir: str, env: dict[str, str]) -> tuple:
        """What a warm Snakemake is started with, and so what jobs it can run."""
        return (python, workdir, sorted(env.items()))

    def _next(self, kind: str, guard: int | None = None) -> dict:
        """The next message of ``kind`` (about ``guard`` if given); others are skipped: the
        "exited" of a job cancelled earlier may still come."""
        while True:
            line = self.proc.stdout.readline()  # type: ignore[union-attr]
            if not line:
                raise WarmSnakemakeExited("the warm Snakemake of this Ray worker exited")
            message = json.loads(line)
            if kind in message and (guard is None or message[kind] == guard):
                return message

    def run(self, args: list[str], workdir: str, logfile: str) -> int:
        """Runs ``python -m snakemake ARGS`` in ``workdir`` as a fork of the warm Snakemake,
        its output appended to ``logfile``; returns its exit status."""
        request = {"args": args, "cwd": workdir, "logfile": logfile}
        self.proc.stdin.write(json.dumps(request).encode() + b"\n")  # type: ignore[union-attr]
        self.proc.stdin.flush()  # type: ignore[union-attr]
        guard = None
        try:
            guard = self._next("started")["started"]
            return self._next("exited", guard)["code"]
        except WarmSnakemakeExited:
            raise
        except BaseException:
            # ray.cancel(force=False) raises KeyboardInterrupt here: the guard kills the job.
            if guard is None:
                guard = self._next("started")["started"]
            try:
                os.kill(guard, signal.SIGTERM)
            except ProcessLookupError:
                pass
            raise

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        """Lets the warm Snakemake go (it exits when its stdin closes)."""
        self.proc.stdin.close()  # type: ignore[union-attr]
        self.proc.wait()


_warm: WarmSnakemake | None = None


def warm_snakemake(python: str, workdir: str, env: dict[str, str]) -> WarmSnakemake:
    """The worker's warm Snakemake for these jobs: started by the first, kept for the next."""
    global _warm
    if (
        _warm is None
        or _warm.key != WarmSnakemake.key_of(python, workdir, env)
        or (_warm.problem is None and not _warm.alive())
    ):
        if _warm is not None and _warm.alive():
            _warm.close()
        _warm = WarmSnakemake(python, workdir, env)
    return _warm


def run_cold(command: str, workdir: str, env: dict[str, str], log: BinaryIO) -> int:
    """Runs ``command`` with bash under a relay and a guard; returns its exit status."""
    relay = subprocess.Popen(
        [sys.executable, "-I", "-S", GUARD, str(os.getpid()), command],
        cwd=workdir,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        return relay.wait()
    except BaseException:
        # ray.cancel(force=False) raises KeyboardInterrupt here: the relay goes, so the
        # guard kills the job within a second.
        relay.kill()
        relay.wait()
        raise


def run_command(
    command: str,
    workdir: str,
    logfile: str,
    env: dict[str, str],
    tail_lines: int,
    warm: bool = True,
) -> tuple[int, str]:
    """Runs a job's ``command`` in ``workdir``, appending its output to ``logfile``.

    With ``warm``, a ``python -m snakemake ...`` command runs as a fork of the worker's warm
    Snakemake; any other command (or without ``warm``) runs with bash. Returns the exit status
    (128 + N when killed by signal N) and the last ``tail_lines`` lines of the log. Each attempt
    (a retry after a lost worker appends to the same file) starts with a header naming the
    host, the Ray node, the worker and the time.
    """
    import ray  # available in any Ray worker; imported here to keep module import cheap

    job_env = {k: v for k, v in os.environ.items() if k not in HIDDEN_ENV}
    job_env.update(env)
    node = ray.get_runtime_context().get_node_id()
    os.makedirs(os.path.dirname(logfile), exist_ok=True)
    with open(logfile, "ab") as log:
        # The node first, before anything that takes time: the driver reads it here to find
        # the attempts that were on a node Ray reports dead (node_of).
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        log.write(
            f"=== {stamp} host {socket.gethostname()} ray node {node} worker {os.getpid()}".encode()
        )
        log.flush()
        argv = snakemake_argv(command) if warm else None
        zygote = warm_snakemake(argv[0], workdir, job_env) if argv else None
        warm_ok = zygote is not None and zygote.problem is None
        start = "warm start" if warm_ok else "cold start"
        if zygote is not None and zygote.problem is not None:
            start += f" ({zygote.problem})"
        log.write(f", {start}\n".encode())
        log.flush()
        if warm_ok:
            code = zygote.run(argv[3:], workdir, logfile)  # type: ignore[union-attr,index]
        else:
            code = run_cold(command, workdir, job_env, log)
    return code, tail(logfile, tail_lines)
