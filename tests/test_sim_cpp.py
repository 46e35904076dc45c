"""The C++ test suites of sim/ (ns-3 TestSuites of the model, the contract and the programs, in
sim-test), one pytest case per suite.

The suites are read from the sources (their `TestSuite("name", ...)` lines), so collecting runs
nothing; test_the_binary_has_the_sources_suites checks that the build lists the same. How full a
run is (ns-3's --fullness: QUICK, EXTENSIVE, TAKES_FOREVER) comes from SIM_TEST_FULLNESS;
unset, it is EXTENSIVE under CI=true (.ci/run) and QUICK elsewhere."""

from __future__ import annotations

import os
import re
import subprocess

import pytest

from tests.support import REPO
from tests.support.programs import TEST_BINARY

pytestmark = pytest.mark.programs

FULLNESS = ("QUICK", "EXTENSIVE", "TAKES_FOREVER")
#: pytest-timeout's limit per suite at each fullness: EXTENSIVE's satnet-tcp-flavor alone took
#: ~20 min of wall time on the loaded 2-core machine (~3 min of CPU)
TIMEOUT = {"QUICK": 600, "EXTENSIVE": 3600, "TAKES_FOREVER": 4 * 3600}
SUITES = sorted(
    name
    for source in (REPO / "sim" / "test").glob("*.cc")
    for name in re.findall(r'TestSuite\("([^"]+)"', source.read_text())
)


def _fullness() -> str:
    """The ns-3 test fullness of this session (SIM_TEST_FULLNESS, else by CI)."""
    default = "EXTENSIVE" if os.environ.get("CI") == "true" else "QUICK"
    chosen = os.environ.get("SIM_TEST_FULLNESS", default)
    if chosen not in FULLNESS:
        raise pytest.UsageError(f"SIM_TEST_FULLNESS={chosen}: one of {', '.join(FULLNESS)}")
    return chosen


#: read once, at import (an environment variable; nothing runs)
SESSION_FULLNESS = _fullness()


def test_the_binary_has_the_sources_suites():
    listing = subprocess.run(
        [str(TEST_BINARY), "--list"], capture_output=True, text=True, check=True
    ).stdout
    assert sorted(line.split()[-1] for line in listing.splitlines() if line.strip()) == SUITES


@pytest.mark.timeout(TIMEOUT[SESSION_FULLNESS])
@pytest.mark.parametrize("suite", SUITES)
def test_suite(suite: str):
    proc = subprocess.run(
        [str(TEST_BINARY), f"--suite={suite}", f"--fullness={SESSION_FULLNESS}", "--verbose"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "FAIL" not in proc.stdout, proc.stdout
