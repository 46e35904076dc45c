"""Faults of a store's bookkeeping (issue 28, items 5 and 7): compacted tables that no longer
hold the done runs (a compaction killed half way, a table truncated, replaced or removed, runs
redone since), which `status` must see, and a store whose design.json is gone, whose runs still
say which base_seed they were made with."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from satsweep import cli
from tests.support.stores import as_stored_before

# each test makes its store with a sweep through Snakemake (~6 s of CPU)
pytestmark = pytest.mark.slow

MM1 = Path(__file__).resolve().parents[1] / "docs" / "examples" / "mm1.py"
TOY = """\
study: {study}
program: {program}
factors:
  load: [0.3, 0.6]
fixed:
  customers: 20
replications: {r}
"""


def design(path: Path, study: str = "toy", r: int = 1, extra: str = "") -> Path:
    """Writes the toy design of the contract's example program (2 configurations) to path."""
    path.write_text(TOY.format(study=study, program=MM1, r=r) + extra)
    return path


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    """The toy design run once for the module (2 runs), and beside it the study `other`, the
    same design with base_seed 9 and 2 replications (4 runs): the results folder."""
    home = tmp_path_factory.mktemp("pristine")
    for path in (
        design(home / "toy.yaml"),
        design(home / "other.yaml", "other", 2, "base_seed: 9\n"),
    ):
        args = ["run", str(path), "--results", str(home / "results"), "--cores", "2"]
        assert cli.main(args) == 0
    return home / "results"


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    return design(tmp_path / "toy.yaml")


@pytest.fixture
def done(toy, pristine, tmp_path) -> Path:
    """A copy of the toy study's store as its run left it (2 runs), and of `other`'s."""
    shutil.copytree(pristine, tmp_path / "results", copy_function=shutil.copy2)
    return tmp_path / "results" / "toy"


def satsweep(*args: str) -> int:
    return cli.main(list(args))


def status(toy: Path, store: Path, capsys) -> tuple[int, str]:
    capsys.readouterr()
    code = satsweep("status", str(toy), "--results", str(store.parent))
    return code, capsys.readouterr().out


def run_toy(toy: Path, store: Path, capsys) -> str:
    capsys.readouterr()
    assert satsweep("run", str(toy), "--results", str(store.parent), "--cores", "2") == 0
    return capsys.readouterr().err


def rows(store: Path, name: str = "runs") -> int:
    return pq.read_metadata(store / f"{name}.parquet").num_rows


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def snapshot(store: Path) -> dict[str, str]:
    """sha256 of every file of the store but its logs and Snakemake's metadata."""
    return {
        str(p.relative_to(store)): digest(p)
        for p in sorted(store.rglob("*"))
        if p.is_file() and not {"logs", ".snakemake"} & set(p.relative_to(store).parts)
    }


def truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def flip_a_byte(path: Path) -> None:
    """One byte of the first column's data changed (the footer, at the end, intact): same
    size, same rows."""
    data = bytearray(path.read_bytes())
    data[8] ^= 0xFF
    path.write_bytes(bytes(data))


def first_row_only(path: Path) -> None:
    pq.write_table(pq.read_table(path).slice(0, 1), path)


def as_many_rows_of_other(path: Path) -> None:
    """Another study's runs, as many as the toy study's (2)."""
    other = path.parents[1] / "other" / "runs.parquet"
    pq.write_table(pq.read_table(other).slice(0, 2), path)


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (lambda s: truncate(s / "runs.parquet"), "runs.parquet is not a Parquet file"),
        (lambda s: first_row_only(s / "runs.parquet"), "runs.parquet holds 1 of 2 done runs"),
        (
            lambda s: shutil.copy2(s.parent / "other" / "runs.parquet", s / "runs.parquet"),
            "runs.parquet holds 4 runs, 2 are done",
        ),
        (lambda s: as_many_rows_of_other(s / "runs.parquet"), "runs.parquet has "),
        (
            lambda s: flip_a_byte(s / "runs.parquet"),
            "runs.parquet is not the file its compaction wrote (another sha256)",
        ),
        (lambda s: (s / "waits.parquet").unlink(), "waits.parquet is missing"),
        (
            lambda s: (s / "compaction.json").unlink(),
            "the 2 done runs are not compacted (no compaction.json)",
        ),
    ],
    ids=[
        "truncated",
        "fewer rows",
        "another study's",
        "another study's, as many rows",
        "a changed byte",
        "removed table",
        "no compaction.json",
    ],
)
def test_status_sees_tables_that_do_not_hold_the_done_runs(toy, done, capsys, damage, said):
    """status exits 3 and says what is wrong with the tables; `satsweep run` with nothing to
    run compacts them again."""
    damage(done)
    code, out = status(toy, done, capsys)
    assert code == 3, out
    assert "toy: 2 done, 0 damaged, 0 missing, 0 failed of 2 runs" in out
    assert f"tables stale or damaged: {said}" in out, out
    assert "`satsweep run` compacts them again" in out
    assert "toy: 2/2 runs done (0 now, 2 before)" in run_toy(toy, done, capsys)
    assert rows(done) == 2 and rows(done, "waits") == 2 * 20
    assert status(toy, done, capsys)[0] == 0


def test_status_sees_a_compaction_killed_half_way(toy, done, tmp_path, capsys):
    """A kill during the final compaction leaves the previous compaction.json and runs.parquet
    (renamed into place last) and either table: status says the tables are stale."""
    before = tmp_path / "before"
    before.mkdir()
    for name in ("runs.parquet", "waits.parquet", "compaction.json"):
        shutil.copy2(done / name, before / name)
    design(toy, r=2)
    assert "toy: 4/4 runs done (2 now, 2 before)" in run_toy(toy, done, capsys)
    for killed in ("before the renames", "between the renames"):
        for name in ("runs.parquet", "compaction.json"):
            shutil.copy2(before / name, done / name)
        if killed == "before the renames":
            shutil.copy2(before / "waits.parquet", done / "waits.parquet")
        code, out = status(toy, done, capsys)
        assert code == 3 and "toy: 4 done, 0 damaged, 0 missing, 0 failed of 4 runs" in out
        assert "tables stale or damaged: runs.parquet holds 2 of 4 done runs" in out, out
    assert "toy: 4/4 runs done (0 now, 4 before)" in run_toy(toy, done, capsys)
    assert rows(done) == 4 and rows(done, "waits") == 4 * 20
    assert status(toy, done, capsys)[0] == 0


def test_status_sees_a_run_redone_since_the_compaction(toy, done, capsys):
    """A run redone by its job (as a kill before the compaction would leave it): as many runs
    and rows as compacted, but not the same runs."""
    from satsweep.design import load_design
    from satsweep.store import Store
    from satsweep.workflow import run

    run_dir = sorted((done / "runs").iterdir())[0]
    for path in run_dir.iterdir():
        path.unlink()
    store = Store(done)
    loaded = store.bind(load_design(toy))
    remote = run.Execution("ray", jobs=1)  # a remote pass's plan: one group of the lost run
    plan = run.write_plan(loaded, store.state(loaded), store, "0a1b2c", 1, remote)
    job = [sys.executable, "-m", "satsweep.workflow.jobs", "simulate", str(toy),
           str(plan.with_name("sims1.json"))]  # fmt: skip
    subprocess.run(job, check=True, capture_output=True, timeout=120)
    assert (run_dir / "complete-1.json").is_file() and rows(done) == 2
    code, out = status(toy, done, capsys)
    assert code == 3 and "toy: 2 done, 0 damaged, 0 missing, 0 failed of 2 runs" in out
    assert "tables stale or damaged: the tables hold other runs than the 2 done now" in out, out
    run_toy(toy, done, capsys)
    assert status(toy, done, capsys)[0] == 0


def forget_run_numbers(store: Path, design_file: Path) -> None:
    """Records as satsweep wrote them before they kept the run number and base_seed (and so
    before they held the run's row)."""
    as_stored_before(store, design_file)
    for path in (store / "runs").glob("*/r*.record.json"):
        record = json.loads(path.read_text())
        del record["run"], record["seed"]
        path.write_text(json.dumps(record))


@pytest.mark.parametrize("records", ["with run numbers", "of before run numbers"])
def test_a_store_without_design_json_keeps_its_base_seed(toy, done, capsys, records):
    """Without design.json the runs themselves say which base_seed they were made with (their
    records, or else their run rows): another base_seed is refused as design.json would
    refuse it, and nothing in the store changes."""
    (done / "design.json").unlink()
    if records != "with run numbers":
        forget_run_numbers(done, toy)
    files = snapshot(done)
    other = design(toy.with_name("seed9.yaml"), extra="base_seed: 9\n")
    for command in ("plan", "status", "run"):
        assert satsweep(command, str(other), "--results", str(done.parent)) == 2
        err = capsys.readouterr().err
        assert (
            f"satsweep {command}: error: base_seed: 9 differs from the base_seed 1 of the runs "
            in err
        )
        assert err.count("\n") == 1, err
    assert snapshot(done) == files  # no run added, no table or record rewritten
    assert status(toy, done, capsys)[0] == 0  # the store's own design: every run still done


def test_a_run_of_another_base_seed_is_not_counted_as_done(toy, done, capsys):
    """The second replications of a store made with base_seed 9 put beside the first of the
    toy study's (base_seed 1), as a study that lost its design.json once gets them: they are
    not the toy design's runs. A design of base_seed 9 is refused (the store's first run says
    base_seed 1); the design of base_seed 1 counts them damaged and redoes them."""
    for source in (done.parent / "other" / "runs").iterdir():
        for path in source.glob("r2.*"):
            shutil.copy2(path, done / "runs" / source.name / path.name)
    design(toy, r=2)
    code, out = status(toy, done, capsys)
    assert code == 3 and "toy: 2 done, 2 damaged, 0 missing, 0 failed of 4 runs" in out, out
    assert "/r2: it was made with --run=" in out and "(another base_seed or streams)" in out
    seed9 = design(toy.with_name("seed9.yaml"), r=2, extra="base_seed: 9\n")
    assert satsweep("run", str(seed9), "--results", str(done.parent)) == 2
    assert "base_seed: 9 differs from the base_seed 1 of the runs" in capsys.readouterr().err
    err = run_toy(toy, done, capsys)
    assert "/r2 is damaged (it was made with --run=" in err
    assert "toy: 4/4 runs done (2 now, 2 before)" in err
    assert status(toy, done, capsys)[0] == 0


def test_a_row_batch_gives_back_each_files_rows_and_keeps_no_more_than_its_bound(
    tmp_path, monkeypatch
):
    """A worker's row batch (store/batches.py) combines its runs' tables every COMBINE runs
    (a one-row table costs 19 KB as an object of its own): each file's rows come back under
    its sha256 as they were stored, runs of no rows and of many alike; it keeps no run that
    would take it past MAX_BYTES (the compaction parses their files)."""
    import pyarrow as pa

    from satsweep.store import RowBatch, read_batches
    from satsweep.store.files import parquet_bytes

    monkeypatch.setattr(RowBatch, "COMBINE", 2)
    schema = pa.schema({"config_id": pa.string(), "replication": pa.int64(), "w": pa.float64()})
    runs = []
    for k, count in enumerate([1, 0, 3, 1, 2]):
        rows = pa.Table.from_pylist(
            [{"config_id": "c", "replication": k, "w": 10 + i / 3} for i in range(count)], schema
        )
        row = pa.Table.from_pylist([{"config_id": "c", "replication": k, "w": k}], schema)
        runs.append({suffix: (hashlib.sha256(parquet_bytes(t)).hexdigest(), t)
                     for suffix, t in ((".waits.parquet", rows), (".parquet", row))})  # fmt: skip
    batch = RowBatch()
    for written in runs:
        batch.add(written)
    batch.write(tmp_path, "worker-1")
    back = read_batches(tmp_path)
    assert len(back) == 10
    for written in runs:
        for sha256, table in written.values():
            assert back[sha256].equals(table)
    bounded = RowBatch()
    monkeypatch.setattr(RowBatch, "MAX_BYTES", runs[0][".parquet"][1].nbytes * 5)
    for written in runs:
        bounded.add(written)
    (tmp_path / "bounded").mkdir()
    bounded.write(tmp_path / "bounded", "worker-2")
    kept = read_batches(tmp_path / "bounded")
    assert 0 < len(kept) < 10 and all(table.equals(back[sha]) for sha, table in kept.items())
    assert bounded.nbytes <= RowBatch.MAX_BYTES
    # rows it cannot combine or write out (no memory, say): no batch, rather than an index out
    # of step with its rows
    monkeypatch.setattr(RowBatch, "MAX_BYTES", 64 << 20)
    failing, unwritten = RowBatch(), RowBatch()
    for written in runs[:3]:
        failing.add(written)
        unwritten.add(written)

    def no_memory(tables):
        raise pa.ArrowMemoryError("cannot allocate")

    monkeypatch.setattr(pa, "concat_tables", no_memory)
    for written in runs[3:]:
        failing.add(written)
    assert failing.stopped and not failing.slices
    (tmp_path / "failing").mkdir()
    failing.write(tmp_path / "failing", "worker-3")
    unwritten.write(tmp_path / "failing", "worker-4")
    assert not list((tmp_path / "failing").iterdir())


def test_the_state_finds_every_run_past_a_gap_in_the_replications(done, tmp_path):
    """The state looks at a configuration's replications in turn until one is not done, then
    at those with files only: a run past a missing one still counts, a failure past it too, and
    the replications without files are missing."""
    from satsweep.design import load_design
    from satsweep.store import Store

    other = done.parent / "other"  # 2 configurations x 2 replications, made with base_seed 9
    wider = design(tmp_path / "other.yaml", "other", 4, "base_seed: 9\n")
    store = Store(other)
    first, second = sorted((other / "runs").iterdir())
    for path in first.glob("r1.*"):
        path.unlink()  # replication 1 gone: 2 is done past it
    (first / "r3.failed.json").write_text(json.dumps({"message": "it crashed"}))
    state = store.state(store.bind(load_design(wider)))
    assert sorted((r.config_id, r.replication) for r in state.done) == [
        (first.name, 2), (second.name, 1), (second.name, 2)
    ]  # fmt: skip
    assert [(r.config_id, r.replication) for r, _ in state.failed] == [(first.name, 3)]
    assert sorted((r.config_id, r.replication) for r in state.missing()) == [
        (first.name, 1), (first.name, 4), (second.name, 3), (second.name, 4)
    ]  # fmt: skip
    assert state.n_missing == 4 and not state.damaged
