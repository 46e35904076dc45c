"""Folds (issue 53, item 4): after a compaction, the files of the runs it compacted are folded
into a few files (store/folds.py), so that a done run costs a bounded, small number of files;
every run stays done, verified, quarantined when damaged and compacted once, through a kill at
any step of the fold."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from satsweep.design import load_design
from satsweep.store import Store
from satsweep.store import folds as folding
from satsweep.workflow.jobs import provenance
from tests.support.cli import run_cli

# each test makes its store with a sweep (or 1500 runs written and compacted, then killed)
pytestmark = pytest.mark.slow

MM1 = Path(__file__).resolve().parents[1] / "docs" / "examples" / "mm1.py"
NORMAL = Path(__file__).resolve().parent / "programs" / "normal.py"
#: the contract's example (a table of its own, `waits`): 6 configurations x 2 replications
MM1_DESIGN = """\
study: toy
program: {program}
factors:
  load: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
fixed:
  customers: 20
replications: 2
"""


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    path = tmp_path / "toy.yaml"
    path.write_text(MM1_DESIGN.format(program=MM1))
    return path


def sweep(capsys, design: Path, fold_at: int, monkeypatch) -> tuple[int, str, str]:
    """`satsweep run` of ``design`` into tmp/results, folding from ``fold_at`` runs."""
    monkeypatch.setenv("SATSWEEP_FOLD_AT", str(fold_at))
    return run_cli(capsys, "run", design, "--results", design.parent / "results", "--cores", 2)


def table(store: Path, name: str = "runs") -> list[dict]:
    """A compacted table's rows, in the order of their runs."""
    rows = pq.read_table(store / f"{name}.parquet").to_pylist()
    return sorted(rows, key=lambda row: (row["config_id"], row["replication"], str(row)))


def own_files(store: Path) -> list[Path]:
    """The files runs have of their own under runs/."""
    return [p for p in (store / "runs").rglob("r*") if p.is_file()]


@pytest.fixture
def compacted(toy, capsys, monkeypatch) -> tuple[Path, list[dict], list[dict]]:
    """The toy study run without folding: its store, and its runs' and waits' rows."""
    assert sweep(capsys, toy, 10**6, monkeypatch)[0] == 0
    store = toy.parent / "results" / "toy"
    assert len(own_files(store)) == 12 * 3  # r<k>.json, r<k>.record.json, r<k>.waits.parquet
    return store, table(store), table(store, "waits")


def test_a_compaction_folds_the_runs_files_and_every_run_stays_done_and_the_same(
    toy, compacted, capsys, monkeypatch
):
    store, runs, waits = compacted
    (store / "compaction.json").unlink()  # the next run compacts, and folds, again
    code, _, _ = sweep(capsys, toy, 4, monkeypatch)
    assert code == 0
    assert own_files(store) == [] and not any((store / "runs").iterdir())  # folders too
    assert sorted(p.name for p in (store / "folds").iterdir()) == [
        "fold-000001.bin",
        "fold-000001.json",
    ]
    assert table(store) == runs and table(store, "waits") == waits  # not a value changed
    design = load_design(toy)
    state = Store(store).state(design)
    assert len(state.done) == 12 and len(state.folded) == 12 and not state.damaged
    assert all(Store(store).is_done(run) for run in state.done)
    code, out, _ = run_cli(capsys, "status", toy, "--results", store.parent, "--verify")
    assert code == 0 and "toy: 12 done, 0 damaged, 0 missing, 0 failed of 12 runs" in out, out
    assert run_cli(capsys, "plan", toy, "--results", store.parent)[0] == 0  # rows from the fold
    assert len(Store(store).elapsed_seconds(state.done)) == 12
    # compacted again from the fold alone (its records and tables): the same rows, once each
    (store / "compaction.json").unlink()
    assert sweep(capsys, toy, 4, monkeypatch)[0] == 0
    assert table(store) == runs and table(store, "waits") == waits
    assert len(list((store / "folds").iterdir())) == 2  # nothing more to fold


def test_runs_added_to_a_folded_store_are_compacted_with_it_and_folded_into_a_second_fold(
    toy, compacted, capsys, monkeypatch
):
    store, runs, _ = compacted
    (store / "compaction.json").unlink()
    assert sweep(capsys, toy, 4, monkeypatch)[0] == 0
    toy.write_text(toy.read_text().replace("replications: 2", "replications: 3"))
    code, _, err = sweep(capsys, toy, 4, monkeypatch)
    assert code == 0, err
    after = table(store)
    assert len(after) == 18 and len({(r["config_id"], r["replication"]) for r in after}) == 18
    assert [r for r in after if r["replication"] < 3] == runs
    assert own_files(store) == []
    assert {p.name for p in (store / "folds").iterdir()} >= {"fold-000002.json"}
    assert Store(store).compaction_problem(Store(store).state(load_design(toy))) is None


def member(store: Path, key: str, name: str) -> list:
    """Where a folded run's file is in fold 1's .bin: offset, length, sha256."""
    index = json.loads((store / "folds" / "fold-000001.json").read_text())
    return next(members for k, _, members in index["runs"] if k == key)[name]


def test_a_damaged_run_in_a_fold_is_seen_quarantined_and_run_again_alone(
    toy, compacted, capsys, monkeypatch
):
    store, runs, waits = compacted
    (store / "compaction.json").unlink()
    assert sweep(capsys, toy, 4, monkeypatch)[0] == 0
    victim = runs[3]
    key = f"{victim['config_id']}/r{victim['replication']}"
    offset, length, _ = member(store, key, f"r{victim['replication']}.waits.parquet")
    data = store / "folds" / "fold-000001.bin"
    with open(data, "r+b") as handle:  # one byte of the run's table, the size unchanged
        handle.seek(offset + 8)
        byte = handle.read(1)
        handle.seek(offset + 8)
        handle.write(bytes([byte[0] ^ 0xFF]))
    code, out, _ = run_cli(capsys, "status", toy, "--results", store.parent)
    assert code == 3 and "11 done, 1 damaged" in out and key in out, out
    code, _, err = sweep(capsys, toy, 4, monkeypatch)
    assert code == 0 and f"{key} is damaged" in err and "moved" in err, err
    moved = list((store / "quarantine").rglob(f"r{victim['replication']}.waits.parquet"))
    assert len(moved) == 1 and moved[0].parent.name == victim["config_id"]
    after = table(store)
    assert len(after) == 12 and after != runs  # the run again: another start, same results
    same = ["config_id", "replication", "run", "mean_wait", "max_wait", "served"]
    assert [{c: r[c] for c in same} for r in after] == [{c: r[c] for c in same} for r in runs]
    assert table(store, "waits") == waits
    code, out, _ = run_cli(capsys, "status", toy, "--results", store.parent, "--verify")
    assert code == 0, out


def test_a_fold_whose_index_is_unreadable_is_quarantined_and_its_runs_run_again(
    toy, compacted, capsys, monkeypatch
):
    store, runs, waits = compacted
    (store / "compaction.json").unlink()
    assert sweep(capsys, toy, 4, monkeypatch)[0] == 0
    index = store / "folds" / "fold-000001.json"
    index.write_bytes(index.read_bytes()[:100])
    code, out, _ = run_cli(capsys, "status", toy, "--results", store.parent)
    assert code == 3 and "0 done" in out and "damaged fold 1: " in out, out
    code, _, err = sweep(capsys, toy, 4, monkeypatch)
    assert code == 0 and "fold 1 is damaged" in err, err
    assert {p.name for p in (store / "quarantine").rglob("fold-*")} == {
        "fold-000001.json",
        "fold-000001.bin",
    }
    assert table(store, "waits") == waits and len(table(store)) == 12


# --- a kill at any step of the fold: a store of synthetic runs, written by the store ---

NORMAL_DESIGN = """\
study: many
program: {program}
factors:
  a: [lo, hi]
  sd: [{levels}]
replications: 1
"""


def many_runs(folder: Path, configurations: int) -> tuple[Path, Path]:
    """A design of normal.py runs, every one done by :meth:`Store.write_run` (a synthetic
    result, no program start) and its result file, not compacted: (design, store)."""
    levels = ", ".join(f"{1 + i / 1000:.3f}" for i in range(configurations // 2))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "many.yaml"
    path.write_text(NORMAL_DESIGN.format(program=NORMAL, levels=levels))
    design = load_design(path)
    store = Store.of(design, folder / "results")
    store.record(design)
    shared = provenance(design)
    for config in design.iter_configurations():
        for run in config.runs(design):
            result = {"params": {"a": run.params["a"], "b": 1, "sd": run.params["sd"]},
                      "summary": {"y": float(run.run % 1000)}}  # fmt: skip
            store.run_dir(run.config_id).mkdir(parents=True, exist_ok=True)
            store.run_file(run, ".json").write_text(json.dumps(result))
            started = dt.datetime(2026, 12, 2, 8, 0, 0)
            store.write_run(design, run, result, {**shared, "started_at": started,
                                                  "elapsed_seconds": 0.01})  # fmt: skip
    return path, store.root


def cli_run(design: Path, fold_at: int) -> subprocess.Popen:
    env = {**os.environ, "SATSWEEP_FOLD_AT": str(fold_at)}
    results = design.parent / "results"
    return subprocess.Popen(
        [sys.executable, "-m", "satsweep.cli", "run", str(design), "--results", str(results)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def check_every_run_once(design_file: Path, store: Path, digest: str) -> None:
    """Every run done, none damaged, the same runs as before (their rows' sha256)."""
    state = Store(store).state(load_design(design_file))
    assert not state.damaged and state.n_missing == 0 and not state.failed
    assert state.digest == digest


@pytest.mark.timeout(1200)  # 9 sweeps of 1500 runs: about 3 min on a busy 2-core machine
def test_a_kill_at_any_instant_of_a_compaction_and_its_fold_loses_or_doubles_no_run(tmp_path):
    """`satsweep run` compacting and folding 1500 runs, killed (SIGKILL) at instants spread
    over its length: after each kill every run is done once and the same; a compaction after
    it holds every run once, with the rows of an unkilled one."""
    design, store = many_runs(tmp_path / "pristine", 1500)
    digest = Store(store).state(load_design(design)).digest
    reference = tmp_path / "reference"
    shutil.copytree(design.parent, reference)
    start = time.monotonic()
    proc = cli_run(reference / "many.yaml", 500)
    assert proc.wait(timeout=300) == 0, proc.stderr.read().decode()
    length = time.monotonic() - start
    expected = table(reference / "results" / "many")
    assert (reference / "results" / "many" / "folds" / "fold-000001.json").is_file()
    kills = 0
    for i in range(1, 8):
        copy = tmp_path / f"kill-{i}"
        shutil.copytree(design.parent, copy)
        proc = cli_run(copy / "many.yaml", 500)
        try:
            proc.wait(timeout=length * i / 8)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait(timeout=60)
        killed = copy / "results" / "many"
        check_every_run_once(copy / "many.yaml", killed, digest)
        (killed / "compaction.json").unlink(missing_ok=True)  # compacted (and folded) again
        proc = cli_run(copy / "many.yaml", 500)
        assert proc.wait(timeout=300) == 0, proc.stderr.read().decode()
        check_every_run_once(copy / "many.yaml", killed, digest)
        assert table(killed) == expected
        # folded but for fewer than SATSWEEP_FOLD_AT runs a fold cut short left as they were
        assert len(list((killed / "runs").rglob("r*.record.json"))) < 500
        shutil.rmtree(copy)
    assert kills >= 4  # most of the instants were inside the command


def test_every_step_of_a_fold_cut_short_leaves_every_run_done_once(tmp_path, monkeypatch):
    """The store as a kill leaves it after each step of a fold, made by the fold's own code:
    its .bin without its index; the fold whole, no run's files removed; some runs' records
    removed and their other files left. Each: every run done once, the same, and the next
    fold ends the job."""
    design_file, root = many_runs(tmp_path, 40)
    design = load_design(design_file)
    store = Store(root)
    store.collect(design, warn=pytest.fail)  # 40 < FOLD_AT: not folded
    digest = store.state(design).digest
    state = store.state(design)
    runs = [store._fold_entry(run, {}) for run in state.done]
    folding.write_fold(store.folds_dir, 1, runs, (design.base_seed, design.streams))
    index = store.folds_dir / folding.index_name(1)
    saved = index.read_bytes()
    index.unlink()  # the .bin renamed into place, its index not yet written
    check_every_run_once(design_file, root, digest)
    index.write_bytes(saved)  # the index written, no run's file removed yet
    check_every_run_once(design_file, root, digest)
    assert not Store(root).state(design).folded  # a record of its own comes first
    for run in state.done[:15]:  # some runs removed, the last only its record
        names = [f"r{run.replication}.record.json", f"r{run.replication}.json"]
        store._remove_run_files(run.config_id, names)
    store.record_file(state.done[15]).unlink()
    check_every_run_once(design_file, root, digest)
    assert len(Store(root).state(design).folded) == 16
    (root / "compaction.json").unlink()
    monkeypatch.setenv("SATSWEEP_FOLD_AT", "10")
    Store(root).collect(design, warn=pytest.fail)
    check_every_run_once(design_file, root, digest)
    assert own_files(root) == []  # the rest folded, the one cut short cleaned up
    assert len(table(root)) == 40
