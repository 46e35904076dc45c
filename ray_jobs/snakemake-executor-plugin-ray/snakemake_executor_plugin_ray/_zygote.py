"""A warm Snakemake for one Ray worker: imports Snakemake once, then forks each job from it.

Every Snakemake job a remote executor runs is ``python -m snakemake ... --mode remote``, and
about 1 s of CPU of each goes into importing Snakemake and collecting its plugins before the
job's own work starts. This process pays that once per Ray worker: _task.py starts it (as
``python _zygote.py``, with the jobs' Python, working directory and environment) and asks it for
each job; it forks a guard (_guard.py) per job, and the guard forks the job, which runs
Snakemake's command line from the modules already imported. It starts no thread, so forking it
is safe.

Protocol on stdin/stdout, one JSON object per line:

    <- {"ready": true}                      Snakemake imported (or false, with "problem")
    -> {"args": [...], "cwd": ..., "logfile": ...}   args: what follows ``-m snakemake``
    <- {"started": GUARD_PID}
    <- {"exited": GUARD_PID, "code": N}     the job's exit status (128 + N: killed by signal N)

It exits when its worker does (or closes stdin); every guard then kills its job, as a relay
does in the cold path.
"""

from __future__ import annotations

import atexit
import json
import os
import runpy
import select
import sys
import threading
import traceback
from typing import NoReturn

from _guard import (
    WATCH_INTERVAL_S,
    exit_code,
    guard,
)  # this script's directory comes first on sys.path


def send(message: dict[str, object]) -> None:
    """One line to the worker (unbuffered: a fork must not inherit pending output)."""
    os.write(1, (json.dumps(message) + "\n").encode())


def preload() -> str | None:
    """Imports what every ``python -m snakemake`` imports; the reason if it cannot be used."""
    try:
        os.close(os.pidfd_open(os.getpid()))  # how finished jobs are noticed (Linux >= 5.3)
    except (AttributeError, OSError) as e:
        return f"no pidfd_open here ({e})"
    try:
        import snakemake.cli

        snakemake.cli.get_argument_parser()  # imports and collects the installed plugins
    except Exception as e:  # noqa: BLE001 - reported to the worker, which then runs cold
        return f"cannot import Snakemake: {type(e).__name__}: {e}"
    if threading.active_count() != 1:
        return "importing Snakemake started threads, so forking it is unsafe"
    return None


def system_exit_status(code: object) -> int:
    """The process exit status for ``SystemExit(code)``, as the interpreter computes it."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def run_snakemake(args: list[str], cwd: str) -> NoReturn:
    """In a fresh fork: does what ``python -m snakemake ARGS`` does in ``cwd``, then exits."""
    code = 1
    try:
        os.setsid()
        os.chdir(cwd)
        sys.path[0] = cwd  # `python -m` puts the working directory first
        sys.argv = ["snakemake", *args]
        try:
            runpy.run_module("snakemake", run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as e:
            code = system_exit_status(e.code)
        except KeyboardInterrupt:
            code = 130
        except BaseException:  # noqa: BLE001 - reported as the interpreter would
            traceback.print_exc()
        # What the interpreter does at exit: wait for non-daemon threads, run atexit handlers.
        threading._shutdown()  # type: ignore[attr-defined]
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001 - nothing left to report to
                pass
        os._exit(code)


def start_snakemake(args: list[str], cwd: str) -> int:
    """Forks the job (it makes itself a process group of its own); returns its PID."""
    pid = os.fork()
    if pid == 0:
        run_snakemake(args, cwd)
    return pid


def fork_guard(request: dict, inherited: list[int]) -> int:
    """Forks a guard for one job request; returns its PID. ``inherited``: descriptors of this
    process that the guard closes (the other guards' pidfds)."""
    me = os.getpid()
    pid = os.fork()
    if pid:
        return pid
    try:
        for fd in inherited:
            os.close(fd)
        # The job's output goes to its log; the worker's pipes stay with this process.
        log = os.open(request["logfile"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(null)
        os.close(log)
        guard(me, lambda: start_snakemake(request["args"], request["cwd"]))
    finally:
        os._exit(1)


def main() -> None:
    worker = os.getppid()
    problem = preload()
    send({"ready": problem is None, "problem": problem})
    if problem:
        return
    guards: dict[int, int] = {}  # pidfd -> guard PID
    pending = b""
    while True:
        ready, _, _ = select.select([0, *guards], [], [], WATCH_INTERVAL_S)
        if os.getppid() != worker:
            return  # the worker is gone; the guards see this process go and kill their jobs
        for fd in ready:
            if fd != 0:
                pid = guards.pop(fd)
                os.close(fd)
                _, status = os.waitpid(pid, 0)
                send({"exited": pid, "code": exit_code(status)})
                continue
            data = os.read(0, 1 << 16)
            if not data:
                return  # the worker let go of this process
            pending += data
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                pid = fork_guard(json.loads(line), list(guards))
                guards[os.pidfd_open(pid)] = pid
                send({"started": pid})


if __name__ == "__main__":
    main()
