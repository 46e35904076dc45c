"""A local pass's queue hands out runs, not configurations (issue 53, item 1): the order
(schedule.RunOrder) and a sweep whose one configuration's replications spread over the cores
(the takes' faults: tests/test_faults_queue.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from satsweep.design import load_design
from satsweep.workflow import jobs, schedule
from satsweep.workflow import run as sweep
from tests.support.sweeps import NORMAL


def design_file(folder: Path, delays: list[float], replications: int) -> Path:
    """normal.py's a (lo, hi) x delay (``delays``), ``replications`` runs each; a run's cost
    hint is its delay."""
    path = folder / "queue.yaml"
    path.write_text(
        f"study: queue\nprogram: {NORMAL}\nfactors:\n  a: [lo, hi]\n  delay: {delays}\n"
        f"replications: {replications}\nbase_seed: 3\n"
    )
    return path


def test_the_run_order_is_longest_run_first_with_a_configuration_s_replications_in_a_row(
    tmp_path,
):
    design = load_design(design_file(tmp_path, [0.1, 0.3], replications=3))
    order = schedule.RunOrder(design)
    assert len(order) == design.n_runs == 12
    runs = [order.at(i)[1] for i in range(len(order))]
    assert sorted((r.config_id, r.replication) for r in runs) == sorted(
        (r.config_id, r.replication) for r in design.runs()
    )  # every run once
    delays = [design.configuration(r.config_id).params["delay"] for r in runs]
    assert delays == [0.3] * 6 + [0.1] * 6  # the longest runs first
    # each configuration's replications one after the other, 1..3
    assert [r.replication for r in runs] == [1, 2, 3] * 4
    assert len({r.config_id for r in runs[:3]}) == 1


@pytest.mark.slow
def test_one_configuration_s_replications_spread_over_the_cores(tmp_path):
    """One configuration of 8 runs of 0.25 s on 2 cores: more than one process makes its runs
    (before, one worker made them all), each run once."""
    path = tmp_path / "one.yaml"
    path.write_text(
        f"study: one\nprogram: {NORMAL}\nfactors:\n  a: [lo]\nfixed:\n  delay: 0.25\n"
        "replications: 8\nbase_seed: 5\n"
    )
    report = sweep.run(path, cores=2, results=tmp_path / "results")
    assert report.ok and report.done_now == 8
    made = {
        log.name: [line.split(":")[0] for line in log.read_text().splitlines() if jobs.DONE in line]
        for log in report.store.logs.glob("*.log")
    }
    everything = sorted(run for runs in made.values() for run in runs)
    assert everything == sorted(f"{r.config_id}/r{r.replication}" for r in report.design.runs())
    assert sum(bool(runs) for runs in made.values()) >= 2, made
