"""The C++ test suites of sim/ (ns-3 TestSuites in satnet-test), one pytest case per suite."""

from __future__ import annotations

import subprocess

import pytest

from tests.support.programs import TEST_BINARY

pytestmark = pytest.mark.programs


def _suites() -> list[str]:
    listing = subprocess.run(
        [str(TEST_BINARY), "--list"], capture_output=True, text=True, check=True
    ).stdout
    return [line.split()[-1] for line in listing.splitlines() if line.strip()]


SUITES = _suites() if TEST_BINARY.is_file() else []  # none listed: skipped, needs programs


def test_suites_are_registered():
    assert {"satnet-atm"} <= set(SUITES), SUITES


@pytest.mark.parametrize("suite", SUITES)
def test_suite(suite: str):
    proc = subprocess.run(
        [str(TEST_BINARY), f"--suite={suite}", "--verbose"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "FAIL" not in proc.stdout, proc.stdout
