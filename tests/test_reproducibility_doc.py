"""docs/reproducibility.md's walkthrough, run as a user runs it: its shell blocks, in order, in
a folder outside the checkout: a study archived, verified elsewhere with its model deleted,
and a new version of the model compared with the archive."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import REPO

pytestmark = pytest.mark.slow

SECTION = (REPO / "docs" / "reproducibility.md").read_text().split("## A walkthrough", 1)[1]
#: The walkthrough's shell blocks, in order.
BLOCKS = re.findall(r"```sh\n(.*?)```", SECTION, flags=re.DOTALL)


def sh(text: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    """A block run by bash -e with satsweep's environment active, wide enough not to wrap."""
    env = {
        **os.environ,
        "VIRTUAL_ENV": sys.prefix,
        "PATH": f"{Path(sys.prefix) / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "SATSWEEP_HOME": str(REPO),
        "COLUMNS": "200",
    }
    proc = subprocess.run(
        ["bash", "-e", "-c", text], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )
    if check:
        assert proc.returncode == 0, f"{text}\n{proc.stdout}\n{proc.stderr}"
    return proc


def test_the_walkthrough_archives_verifies_without_the_model_and_compares(tmp_path: Path):
    assert len(BLOCKS) == 3
    made = sh(BLOCKS[0], tmp_path)
    assert "queue/source/model/mm1.py" in made.stderr and "queue/source/queue.yaml" in made.stderr

    verified = sh(BLOCKS[1], tmp_path)
    assert not (tmp_path / "model").exists()  # the model is gone: the archive's copy ran
    assert verified.stdout.strip().endswith("30 of 30 runs reproduce exactly")

    compared = sh(BLOCKS[2], tmp_path / "reviewer", check=False)
    assert compared.returncode == 1, compared.stdout + compared.stderr  # --fail-if significant
    said = compared.stdout
    assert "30 pairs, paired by (config_id, replication)" in said
    moved = said.split("mean_wait: configurations beyond noise", 1)[1].split("max_wait", 1)[0]
    found = re.findall(r"load=(0\.\d), service=(\w+)", moved)
    assert sorted(found) == [("0.3", "det"), ("0.5", "det"), ("0.7", "det")], said
    row = next(line for line in said.splitlines() if line.startswith("│ mean_wait"))
    assert re.search(r"│\s+30 │\s+15 │", row), row  # the exponential ones bit-identical
    assert "3 configurations beyond noise" in compared.stderr
