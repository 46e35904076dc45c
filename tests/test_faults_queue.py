"""Faults of a local pass whose queue hands out runs (issue 53, item 1): a configuration's
replications run by several workers at once, in one folder, and killed there."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from satsweep.design import load_design
from satsweep.store import Store
from satsweep.workflow import jobs
from tests.support.sweeps import NORMAL


def design_file(folder: Path, levels: list[str], replications: int, delay: float) -> Path:
    """normal.py's a (``levels``), ``replications`` runs of ``delay`` s each."""
    path = folder / "queue.yaml"
    path.write_text(
        f"study: queue\nprogram: {NORMAL}\nfactors:\n  a: {levels}\nfixed:\n  delay: {delay}\n"
        f"replications: {replications}\nbase_seed: 3\n"
    )
    return path


def test_a_configuration_s_temporaries_go_at_its_first_take_never_under_another_s_run(tmp_path):
    """Two takers share a configuration: the runs done before are passed over, a killed
    attempt's temporary in the configuration's folder goes when its first run is handed out,
    and the temporary of a run going on there (another taker's) stays at the next take."""
    design = load_design(design_file(tmp_path, ["lo", "hi"], replications=4, delay=0.0))
    store = Store.of(design, tmp_path / "results")
    design = store.bind(design)
    store.record(design)
    pending = jobs._Pending(design, store)
    first = pending.order.at(0)[1]
    assert jobs.simulate_run(design, first, store) is None  # r1 done before the pass
    folder = store.run_dir(first.config_id)
    killed = folder / ".r3.json.tmp.999999"
    killed.write_text("half")
    queue = tmp_path / "next"
    with jobs._Queue(queue) as one, jobs._Queue(queue) as two:
        assert one.take(pending=pending) == 1  # r1 passed over: r2
        assert not killed.exists()
        going = folder / ".r2.json.tmp.123"  # the first taker's run, writing
        going.write_text("half")
        assert two.take(pending=pending) == 2
        assert going.exists()
        assert one.take(pending=pending) == 3
        assert two.take(pending=pending) == 4  # the other configuration's first run
        assert pending.order.at(4)[1].config_id != first.config_id and going.exists()


def records(store: Path) -> dict[str, float]:
    """The runs' records: {path in the store: modification time}."""
    return {
        str(p.relative_to(store)): p.stat().st_mtime for p in store.glob("runs/*/*.record.json")
    }


@pytest.mark.slow
def test_a_sweep_killed_while_workers_share_a_configuration_then_rerun_runs_each_once(tmp_path):
    """One configuration of 12 runs on 2 cores, `satsweep run` and its workers killed (-9)
    mid-sweep, a killed attempt's temporary in the folder: the rerun keeps the runs done,
    makes the others once, and leaves no temporary."""
    path = design_file(tmp_path, ["lo"], replications=12, delay=0.2)
    results = tmp_path / "results"
    store = results / "queue"
    command = [sys.executable, "-m", "satsweep.cli", "run", str(path), "--results", str(results),
               "--cores", "2"]  # fmt: skip
    proc = subprocess.Popen(
        command,
        start_new_session=True,  # its own process group: satsweep, its workers, the programs
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while len(records(store)) < 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    survivors = records(store)
    assert 4 <= len(survivors) < 12, "the sweep was not interrupted in the middle"
    folder = next(store.glob("runs/*/"))
    (folder / ".r12.record.json.tmp.999999").write_text("half")  # a killed attempt's
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    after = records(store)
    assert len(after) == 12 and {k: after[k] for k in survivors} == survivors  # none redone
    keys = duckdb.execute(
        "SELECT config_id, replication FROM read_parquet(?)", [str(store / "runs.parquet")]
    ).fetchall()
    assert len(keys) == len(set(keys)) == 12  # every run exactly once
    assert not list(store.glob("runs/*/*.tmp.*"))
