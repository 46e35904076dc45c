"""The programs ./setup.sh builds (sim/): where its build tree is, and running them by hand."""

from __future__ import annotations

import subprocess
from pathlib import Path

from satsweep.engine import USAGE_ERROR, Program
from tests.support import REPO

#: sim/'s build tree (the C++ test suites' sim-test stays there; the programs are installed).
BUILD = REPO / "sim" / "build"
#: The binary of sim/'s C++ test suites (tests/test_sim_cpp.py).
TEST_BINARY = BUILD / "sim-test"


def run_satnet_cli(*flags: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Runs satnet with raw command-line flags and captures its output."""
    path = Program.find("satnet", REPO).path
    return subprocess.run([str(path), *flags], capture_output=True, text=True, cwd=cwd)


def assert_usage_error(program: Program, flags: str, allowed: str, directory: Path) -> None:
    """Runs ``program`` with ``flags`` (space-separated) and ``--out`` into the empty
    ``directory``: it must exit 2 with one line naming the last flag and ``allowed``, and write
    nothing."""
    proc = subprocess.run(
        [str(program.path), *flags.split(), f"--out={directory / 'r.json'}"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == USAGE_ERROR
    line = proc.stderr.strip()
    assert "\n" not in line and flags.split()[-1].split("=")[0] in line and allowed in line, line
    assert list(directory.iterdir()) == []
