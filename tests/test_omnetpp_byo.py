"""Issue 29, item 5: docs/omnetpp.md's walkthrough "Bring your own OMNeT++ study", run as a
user runs it: its shell blocks, in a folder outside the checkout, on OMNeT++'s sample fifo
(copied, not changed), with the declaration of its YAML block.

Then every run of the store is repeated by OMNeT++ itself: the ini's own run of the same
configuration (``opp_run -r i``, where the ini sets the variable) given the run's random streams
records the same summary scalars and the same vector as the store holds, to the last digit.
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from satsweep.engine import omnetpp as adapter
from satsweep.store import Store
from tests.support import REPO

pytestmark = [pytest.mark.omnetpp, pytest.mark.slow]

SECTION = (
    (REPO / "docs" / "omnetpp.md")
    .read_text()
    .split("## Bring your own OMNeT++ study", 1)[1]
    .split("\n## ", 1)[0]
)
#: The walkthrough's code blocks, in order: (language, text).
BLOCKS = re.findall(r"```(\w+)\n(.*?)```", SECTION, flags=re.DOTALL)
CONFIG = "TandemQueueExperiment"


def sh(text: str, cwd: Path) -> str:
    """Runs a shell block of the walkthrough as a user with satsweep's environment active."""
    env = {
        **os.environ,
        "VIRTUAL_ENV": sys.prefix,
        "PATH": f"{Path(sys.prefix) / 'bin'}{os.pathsep}{os.environ['PATH']}",
    }
    proc = subprocess.run(
        ["bash", "-e", "-c", text], cwd=cwd, env=env, capture_output=True, text=True, timeout=900
    )
    assert proc.returncode == 0, f"{text}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def digest(folder: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.iterdir())
        if p.is_file()
    }


@pytest.fixture(scope="module")
def walked(tmp_path_factory) -> Path:
    """The walkthrough done, steps 1 to 3; its folder."""
    assert [language for language, _ in BLOCKS] == ["sh", "yaml", "sh", "sh"]
    folder = tmp_path_factory.mktemp("byo")
    assert not folder.resolve().is_relative_to(REPO.resolve())
    sh(BLOCKS[0][1], folder)  # copy, build, import
    declaration = folder / "fifo" / adapter.DECLARATION
    text = declaration.read_text()
    declaration.write_text(text[: text.index("summary:")] + BLOCKS[1][1])
    said = sh(BLOCKS[2][1], folder)  # check, run, query
    assert "ran without an error" in said and "34.4162" in said
    return folder


def test_the_sample_is_used_unmodified(walked):
    omnetpp, _ = adapter.installation()
    original = digest(omnetpp / "samples" / "fifo")
    copied = digest(walked / "fifo")
    assert {name: copied[name] for name in original} == original


def test_the_import_made_opp_runall_s_runs(walked):
    runs = Store(walked / "results" / "tandem").runs_table
    rows = duckdb.sql(
        f"SELECT serviceTimeMean, count(*) FROM '{runs}' GROUP BY 1 ORDER BY 1"
    ).fetchall()
    assert rows == [(1.5, 2), (2.5, 2)]


def scavetool_csv(*args: str) -> list[dict[str, str]]:
    omnetpp, _ = adapter.installation()
    proc = subprocess.run(
        [
            str(omnetpp / "bin" / "opp_scavetool"),
            "export",
            "-x",
            "precision=17",
            "-F",
            "CSV-R",
            "-o",
            "-",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return list(csv.DictReader(io.StringIO(proc.stdout)))


def own_run(walked: Path, index: int, run_number: int, out: Path) -> tuple[dict, list]:
    """The ini's own run ``index`` of the configuration with the streams of satsweep's run
    ``run_number``: its summary scalars and its lifetime vector (times, values)."""
    omnetpp, _ = adapter.installation()
    printed = sh(
        f"satsweep-omnetpp --ini fifo/omnetpp.ini --config {CONFIG} --run={run_number} "
        "--print-command",
        walked,
    )
    streams = [
        word
        for word in shlex.split(printed)
        if word.startswith(("--rng-class=", "--satsweep-run=")) or "satsweeprng" in word
    ]
    assert len(streams) == 3, printed
    fifo = walked / "fifo"
    command = [
        str(omnetpp / "bin" / "opp_run"), "-u", "Cmdenv", "-c", CONFIG, "-r", str(index),
        "-n", ".", "-lfifo", f"--result-dir={out}", *streams, "omnetpp.ini",
    ]  # fmt: skip
    proc = subprocess.run(command, cwd=fifo, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    scalars = {
        (row["module"], row["name"]): float(row["value"])
        for row in scavetool_csv("-T", "s", *map(str, out.glob("*.sca")))
        if row["type"] == "scalar"
    }
    vector = next(
        row
        for row in scavetool_csv("-T", "v", *map(str, out.glob("*.vec")))
        if row["type"] == "vector" and row["name"] == "lifetime:vector"
    )
    times = [float(t) for t in vector["vectime"].split()]
    values = [float(v) for v in vector["vecvalue"].split()]
    return scalars, list(zip(times, values, strict=True))


def test_every_run_is_what_the_ini_s_own_run_records_with_its_streams(walked, tmp_path):
    store = Store(walked / "results" / "tandem")
    runs = duckdb.sql(
        f"SELECT config_id, replication, run, serviceTimeMean, lifetime, queue2 "
        f"FROM '{store.runs_table}' ORDER BY serviceTimeMean, replication"
    ).fetchall()
    table = store.runs_table.with_name("lifetimes.parquet")
    # the ini's run numbers: serviceTimeMean 1.5s is runs 0 and 1, 2.5s runs 2 and 3
    index = {1.5: 0, 2.5: 2}
    for config_id, replication, run, mean, lifetime, queue2 in runs:
        scalars, samples = own_run(walked, index[mean], run, tmp_path / str(run))
        assert lifetime == scalars[("TandemQueues.sink", "lifetime:mean")]
        assert queue2 == scalars[("TandemQueues.fifo2", "qlen:timeavg")]
        bins: dict[int, list[float]] = {}
        for t, v in samples:
            bins.setdefault(math.floor(t / 20 + 1e-9), []).append(v)
        expected = [(20.0 * k, sum(vs) / len(vs)) for k, vs in sorted(bins.items())]
        stored = duckdb.sql(
            f"SELECT time, value FROM '{table}' WHERE config_id = '{config_id}' "
            f"AND replication = {replication} ORDER BY time"
        ).fetchall()
        assert [t for t, _ in stored] == [t for t, _ in expected]
        assert all(math.isclose(a, b, rel_tol=1e-12) for (_, a), (_, b) in zip(stored, expected))


def test_the_walkthrough_quotes_what_its_runs_give(walked):
    said = sh(BLOCKS[3][1], walked)  # the documented --print-command
    run = int(re.search(r"--satsweep-run=(\d+)", said).group(1))
    store = Store(walked / "results" / "tandem")
    lifetime, queue2 = duckdb.sql(
        f"SELECT lifetime, queue2 FROM '{store.runs_table}' WHERE run = {run}"
    ).fetchone()
    assert "serviceTime=truncnormal(2.5s,1s)" in said
    assert f"`lifetime:mean` {lifetime:.14g}" in SECTION
    assert f"`qlen:timeavg` {queue2:.14g}" in SECTION
