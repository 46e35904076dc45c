"""The guard: the process that ties a job's life to its Ray worker's. Standard library only.

A guard leaves for a session of its own (Ray kills a worker's process group, and with it
everything that stayed in it, when the worker exits), starts the job in a process group of its
own, and exits with the job's exit status (128 + N if the job was killed by signal N). It kills
the job's whole process group on SIGTERM and as soon as the process that started the guard
(its *watched parent*) is gone. The rest of the job's process group goes when the job ends.

Two ways in (see _task.py):

- as a script, ``python -I -S _guard.py WORKER COMMAND``: this process is the *relay*, the
  worker's child; it forks the guard, which runs COMMAND with bash, hands the guard's exit
  status back to the worker, and exits as soon as the worker is gone;
- from a warm Snakemake (_zygote.py), which forks a guard per job with :func:`guard`: the warm
  process itself is then the watched parent, and it leaves with its worker.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import NoReturn

#: Seconds between checks that the watched parent is still there.
WATCH_INTERVAL_S = 0.5

#: Seconds the job's process group gets between SIGTERM and SIGKILL.
TERM_GRACE_S = 2.0


def exit_code(status: int) -> int:
    """The exit status of a process that ended with wait status ``status``, as a shell gives
    it: its own, or 128 + N if signal N killed it."""
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code


def on_orphaned(parent: int, action: Callable[[], object]) -> None:
    """Calls ``action()`` (in a daemon thread) once this process's parent is not ``parent``."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCH_INTERVAL_S)
        action()

    threading.Thread(target=watch, daemon=True).start()


def guard(parent: int, start_job: Callable[[], int]) -> NoReturn:
    """Guards a job, in a freshly forked process whose parent is ``parent``; never returns.

    ``start_job()`` starts the job in a process group of its own and returns its PID (which is
    the group's id). It is called before this process starts any thread, so a job it forks
    starts single-threaded.
    """
    os.setsid()
    job = start_job()

    def kill_job(*_: object) -> None:
        try:
            os.killpg(job, signal.SIGTERM)
            for _ in range(int(TERM_GRACE_S * 10)):
                time.sleep(0.1)
                os.killpg(job, 0)  # ProcessLookupError once the group is gone
            os.killpg(job, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os._exit(143)

    # Handlers only now: a job started with these set would inherit an ignored SIGINT.
    signal.signal(signal.SIGTERM, kill_job)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    on_orphaned(parent, kill_job)
    _, status = os.waitpid(job, 0)
    # Whatever the job left behind in its process group goes too.
    try:
        os.killpg(job, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os._exit(exit_code(status))


def start_shell(command: str) -> int:
    """Starts ``bash -c command`` in a session of its own; returns its PID."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            for ignored_by_python in (signal.SIGPIPE, signal.SIGXFSZ):
                signal.signal(ignored_by_python, signal.SIG_DFL)
            os.execv("/bin/bash", ["/bin/bash", "-c", command])
        finally:
            os._exit(127)
    return pid


def relay(worker: int, command: str) -> NoReturn:
    """The worker's child: forks a guard that runs ``command`` with bash; exits with the
    guard's status, or as soon as ``worker`` is gone (the guard then kills the job)."""
    me = os.getpid()
    pid = os.fork()
    if pid == 0:
        guard(me, lambda: start_shell(command))
    on_orphaned(worker, lambda: os._exit(1))
    _, status = os.waitpid(pid, 0)
    os._exit(exit_code(status))


if __name__ == "__main__":
    relay(int(sys.argv[1]), sys.argv[2])
