"""Shared fixtures: the built satnet binaries (./setup.sh builds them)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from satsweep import engine

BUILD = engine.REPO_ROOT / "sim" / "build"


@pytest.fixture(scope="session")
def satnet() -> Path:
    """The satnet binary."""
    return engine.satnet_binary()


def run_satnet_cli(*flags: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Runs satnet with raw command-line flags and captures its output."""
    return subprocess.run(
        [str(engine.satnet_binary()), *flags], capture_output=True, text=True, cwd=cwd
    )
