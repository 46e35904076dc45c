"""A researcher's own simulator under satsweep, with satsweep installed as a user installs it
(not the checkout): the engine contract's example program (docs/examples/mm1.py) in a
directory of its own, a design naming it by path, and the whole command line on it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from tests.support import REPO

# satsweep built and installed by pip, then an 18-run sweep through it
pytestmark = pytest.mark.slow

DESIGN = """\
study: queue
description: waiting time against load and service time distribution
program: ./mm1.py
factors:
  load: [0.3, 0.6, 0.9]
  service: [exp, det]
fixed:
  customers: 400
replications: 3
analysis:
  responses: [mean_wait, max_wait]
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict[str, str]:
    """satsweep installed from the repository into a directory of its own (a wheel built and
    installed by pip, as `pip install .` does; its dependencies are the environment's), and the
    environment that runs it."""
    target = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "--no-deps", "--target", str(target), str(REPO)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    env = {k: v for k, v in os.environ.items() if not k.startswith("SATSWEEP_")}
    env["PYTHONPATH"] = str(target)
    where = subprocess.run(
        [sys.executable, "-c", "import satsweep, satsweep.shipped as s; "
         "print(satsweep.__file__); print(s.path('Snakefile'))"],
        capture_output=True, text=True, env=env, cwd=target,
    )  # fmt: skip
    module, snakefile = where.stdout.split()
    assert Path(module).is_relative_to(target) and Path(snakefile).is_relative_to(target)
    return env


def satsweep(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "satsweep.cli", *args],
        capture_output=True, text=True, env=env, cwd=cwd, timeout=600,
    )  # fmt: skip


@pytest.fixture(scope="module")
def study(installed, tmp_path_factory) -> Path:
    """A researcher's directory: the program, the design, and after `satsweep run` the store."""
    home = tmp_path_factory.mktemp("researcher")
    shutil.copy(REPO / "docs" / "examples" / "mm1.py", home / "mm1.py")
    (home / "queue.yaml").write_text(DESIGN)
    plan = satsweep(installed, home, "plan", "queue.yaml", "--cores", "2")
    assert plan.returncode == 0, plan.stderr
    assert "6 configurations x 3 replications = 18 runs; 0 done, 18 to run" in plan.stdout
    run = satsweep(installed, home, "run", "queue.yaml", "--cores", "2")
    assert run.returncode == 0, run.stderr + run.stdout
    assert "queue: 18/18 runs done (18 now, 0 before), 0 failed" in run.stderr
    return home


def test_runs_land_in_the_store_under_the_current_directory(study, installed):
    store = study / "results" / "queue"
    con = duckdb.connect()
    runs = con.execute(f"FROM '{store / 'runs.parquet'}'").fetch_arrow_table()
    assert runs.num_rows == 18
    assert (
        runs.schema.field("load").type == "double" and runs.schema.field("served").type == "int64"
    )
    assert set(runs.column("program").to_pylist()) == {"mm1"}
    (waits,) = con.execute(f"SELECT count(*) FROM '{store / 'waits.parquet'}'").fetchone()
    assert waits == 18 * 400
    # the mean waiting time grows with the load, as the queue's theory says
    means = dict(
        con.execute(
            f"SELECT load, avg(mean_wait) FROM '{store / 'runs.parquet'}' "
            "WHERE service = 'exp' GROUP BY load"
        ).fetchall()
    )
    assert means[0.3] < means[0.6] < means[0.9]
    recorded = json.loads((store / "design.json").read_text())
    assert recorded["describe"]["name"] == "mm1"
    assert recorded["design"]["program"] == "./mm1.py"
    assert recorded["program"]["path"] == str(study / "mm1.py")
    assert recorded["design"]["factors"] == {"load": [0.3, 0.6, 0.9], "service": ["exp", "det"]}


def test_status_and_sql_see_the_program_tables(study, installed):
    status = satsweep(installed, study, "status", "queue.yaml")
    assert (
        status.returncode == 0
        and "queue: 18 done, 0 damaged, 0 missing, 0 failed of 18 runs" in status.stdout
    )
    sql = satsweep(
        installed, study, "sql", "--study", "queue", "--csv",
        "SELECT count(DISTINCT config_id) AS configs, count(*) AS rows FROM waits",
    )  # fmt: skip
    assert sql.returncode == 0, sql.stderr
    assert sql.stdout.splitlines() == ["configs,rows", f"6,{18 * 400}"]


def test_analyze_and_report_name_the_program_s_factors_and_units(study, installed):
    analyze = satsweep(installed, study, "analyze", "queue")
    assert analyze.returncode == 0, analyze.stderr
    for text in ("## mean_wait (s)", "## max_wait (s)", "| load (Erlang) | 0.3 |",
                 "| service | exp |", "| load:service |"):  # fmt: skip
        assert text in analyze.stdout, text
    made = satsweep(installed, study, "report", "queue")
    assert made.returncode == 0, made.stderr
    index = study / "results" / "queue" / "report" / "index.html"
    assert made.stdout.strip() == str(index)
    html = index.read_text()
    for text in ("factor load (Erlang)", "Results: mean mean_wait (s)", "mm1 1.0",
                 "--responses mean_wait,max_wait --factors load,service --by none"):  # fmt: skip
        assert text in html, text
    assert (index.parent / "mean_wait-effects.png").stat().st_size > 10_000
