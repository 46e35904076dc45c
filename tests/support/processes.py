"""This machine's processes, as /proc shows them, and waiting for a condition: what tests that
start real processes (sweeps, Ray, Slurm jobs) check and clean up by PID."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import NamedTuple

import pytest


class Process(NamedTuple):
    pid: int
    comm: str
    state: str  # R, S, Z, ...
    session: int
    cmdline: str  # its arguments separated by spaces


def processes() -> list[Process]:
    """Every process this user can see but this one."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        comm = stat[stat.index("(") + 1 : stat.rindex(")")]
        state, _ppid, _pgrp, session = stat.rsplit(")", 1)[1].split()[:4]
        found.append(Process(int(entry.name), comm, state, int(session), cmdline))
    return found


def mentioning(*texts: str) -> dict[int, str]:
    """Processes (pid -> command line) whose command line contains any of ``texts``."""
    return {p.pid: p.cmdline for p in processes() if any(t in p.cmdline for t in texts)}


def in_sessions(sessions: set[int]) -> list[int]:
    """Processes in any of the process sessions ``sessions`` that have not ended. A zombie
    has: only its reaping is left, and one orphaned (a shell of pyenv's shims killed with its
    program's process group) waits for init's, which comes late on some machines, or never."""
    return [p.pid for p in processes() if p.session in sessions and p.state != "Z"]


def wait_until(predicate, timeout: float, what: str, interval: float = 0.2):
    """Polls ``predicate`` until it gives a true value, which it returns; fails the test naming
    ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    pytest.fail(f"timed out after {timeout:g} s waiting for {what}")
