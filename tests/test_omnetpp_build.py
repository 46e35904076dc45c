"""omnetpp/build.sh's refusals, which cost no build: an installation that is not one, sources
that are missing or do not match their checksums. The build itself (about 8 minutes cold, then
cached) is `./setup.sh`, which .ci/run runs; tests/test_omnetpp.py uses it."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.support import REPO

BUILD = REPO / "omnetpp" / "build.sh"


def build(tmp_path, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in ("OMNETPP_ROOT", "INET_ROOT")}
    clean |= {"SATSWEEP_CACHE": str(tmp_path / "cache"), **env}
    return subprocess.run(
        [str(BUILD), str(tmp_path / "omnetpp.env")],
        capture_output=True,
        text=True,
        timeout=60,
        env=clean,
    )


def test_an_installation_without_opp_run_is_refused(tmp_path):
    proc = build(tmp_path, OMNETPP_ROOT=str(tmp_path), INET_ROOT=str(tmp_path))
    assert proc.returncode == 1
    assert f"OMNETPP_ROOT={tmp_path} has no bin/opp_run" in proc.stderr
    assert not (tmp_path / "omnetpp.env").exists() and not (tmp_path / "cache").exists()


@pytest.mark.parametrize("case", ["missing", "tampered"])
def test_sources_missing_or_not_matching_their_checksums_are_refused(tmp_path, case):
    sources = tmp_path / "vendor"
    if case == "tampered":
        sources.mkdir()
        for name in ("omnetpp-6.1.0-src.tar.gz", "inet-4.5.4-src.tar.gz"):
            (sources / name).write_bytes(b"not the release")
        (sources / "SHA256SUMS").write_text(
            f"{'0' * 64}  omnetpp-6.1.0-src.tar.gz\n{'0' * 64}  inet-4.5.4-src.tar.gz\n"
        )
    proc = build(tmp_path, OMNETPP_SOURCES=str(sources))
    assert proc.returncode == 1
    said = {
        "missing": f"no OMNeT++ sources: {sources} does not exist; allowed: OMNETPP_SOURCES=DIR",
        "tampered": "do not match their SHA256SUMS",
    }[case]
    assert said in proc.stderr, proc.stderr
    assert not (tmp_path / "omnetpp.env").exists() and not (tmp_path / "cache").exists()
