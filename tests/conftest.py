"""Shared fixtures: the repository, the built satnet program (./setup.sh builds and installs
it), a local Slurm."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from satsweep.engine import USAGE_ERROR, Program

#: The repository (the tests use its sweeps, scripts and build tree).
REPO = Path(__file__).resolve().parent.parent
BUILD = REPO / "sim" / "build"


@pytest.fixture(scope="session")
def satnet() -> Program:
    """The satnet program, as a design naming it finds it."""
    return Program.find("satnet", REPO)


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


SLURM_SCRIPT = REPO / "ray_jobs" / "slurm" / "local-cluster.sh"
SLURM_DAEMONS = ("slurmctld", "slurmd", "munged", "slurmstepd")


def running_daemons() -> dict[str, list[str]]:
    """Slurm and munge processes on this machine, by name (pgrep -x: exact process names)."""
    found = {}
    for name in SLURM_DAEMONS:
        proc = subprocess.run(["pgrep", "-x", name], capture_output=True, text=True)
        if proc.stdout.split():
            found[name] = proc.stdout.split()
    return found


def _local_cluster(*args: str, timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(SLURM_SCRIPT), *args], capture_output=True, text=True, timeout=timeout
    )


def _start_slurm() -> None:
    proc = _local_cluster("start", timeout=300)
    if proc.returncode != 0:
        pytest.fail(
            f"local-cluster.sh start failed; these tests need it:\nexit {proc.returncode}\n"
            f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
        )


@pytest.fixture(scope="session")
def _slurm_session() -> Iterator[None]:
    """Stops the local Slurm (jobs cancelled) at the end of a session that used it, so a test
    run leaves no Slurm or munge daemon behind (also one started before the tests)."""
    yield
    stop = _local_cluster("stop", "--cancel-jobs", timeout=120)
    assert stop.returncode == 0, f"exit {stop.returncode}\n{stop.stdout}\n{stop.stderr}"
    left = running_daemons()
    assert not left, f"left running after stop: {left}"


@pytest.fixture(scope="module")
def slurm(_slurm_session) -> Iterator[None]:
    """A running local single-node Slurm (local-cluster.sh) for each module that asks for it,
    stopped at the end of the session. Started per module (`start` is idempotent: ~0.2 s when
    it already runs), not once per session, because another module (tests/test_slurm_nodes.py)
    may stop it to run its 3-node cluster. Installing the packages from nothing takes ~13 s
    (plus apt-get update on a fresh machine)."""
    _start_slurm()
    yield
