"""Faults a store must survive (issue "The store survives faults"): what `satsweep sql` may not
do to a store or to the files around it, bad command-line values, bad design files."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import signal
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv
import pyarrow.parquet as pq
import pytest

from satsweep import cli
from satsweep.design import load_design
from satsweep.store import Store
from satsweep.store.runs import identity
from tests.support.processes import in_sessions
from tests.support.stores import as_stored_before, compacted_here
from tests.support.sweeps import MM1, mm1_design, on_a_full_disk


@pytest.fixture
def results(tmp_path: Path) -> Path:
    """A results folder with one study's compacted table (no simulation needed)."""
    store = tmp_path / "results" / "demo"
    store.mkdir(parents=True)
    table = pa.table({"config_id": ["a", "a", "b"], "replication": [1, 2, 1], "y": [1.0, 2.0, 4.0]})
    pq.write_table(table, store / "runs.parquet")
    return tmp_path / "results"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sql(results: Path, *args: str) -> int:
    return cli.main(["sql", "--results", str(results), *args])


@pytest.mark.parametrize(
    ("query", "said"),
    [
        (
            "COPY (SELECT 1 AS a) TO '{store}/runs.parquet' (FORMAT parquet)",
            "COPY statement refused",
        ),
        ("COPY runs TO '{tmp}/x.csv'", "COPY statement refused"),
        ("ATTACH '{tmp}/x.db'", "ATTACH statement refused"),
        ("INSTALL httpfs", "statement refused"),
        ("SET enable_external_access = true", "SET statement refused"),
        ("SELECT 1; DROP VIEW runs", "DROP statement refused"),
        ("CREATE TABLE t AS SELECT * FROM runs", "CREATE statement refused"),
        ("SELECT * FROM read_csv('/etc/passwd')", "Permission Error"),
        ("SELECT * FROM read_parquet('{tmp}/elsewhere.parquet')", "Permission Error"),
    ],
)
def test_sql_reads_only_inside_the_store(results, capsys, query, said):
    store = results / "demo"
    tmp = results.parent
    pq.write_table(pa.table({"a": [1]}), tmp / "elsewhere.parquet")
    before = digest(store / "runs.parquet")
    files = sorted(p.name for p in tmp.iterdir())
    assert sql(results, "--study", "demo", query.format(store=store, tmp=tmp)) == 2
    err = capsys.readouterr().err
    assert err.startswith("satsweep sql: error: ") and said in err, err
    assert digest(store / "runs.parquet") == before
    assert sorted(p.name for p in tmp.iterdir()) == files  # nothing written beside the store


def test_sql_reads_a_reference_table_beside_the_store(results, capsys):
    """--table NAME=FILE: a table read before the confinement starts (a paper's results);
    the confinement holds for everything else."""
    paper = Path(__file__).resolve().parents[1] / "analysis" / "goyal98" / "goyal98-wan.csv"
    query = "SELECT count(*) AS n, round(avg(efficiency), 4) AS e FROM paper"
    assert sql(results, "--study", "demo", "--table", f"paper={paper}", "--csv", query) == 0
    assert capsys.readouterr().out.splitlines() == ["n,e", "24,0.7701"]
    for table, said in (
        (f"runs={paper}", "--table runs: the store has a table of that name"),
        (f"1x={paper}", "--table 1x="),
        (f"paper={paper.with_suffix('.json')}", "allowed: a .csv or .parquet file"),
        ("paper=/nonexistent.csv", "cannot read it"),
    ):
        assert sql(results, "--study", "demo", "--table", table, "SELECT 1") == 2
        assert said in capsys.readouterr().err
    query = f"SELECT * FROM read_csv('{paper}')"  # only the table, not its folder
    assert sql(results, "--study", "demo", "--table", f"paper={paper}", query) == 2
    assert "Permission Error" in capsys.readouterr().err


def test_sql_reads_every_file_of_the_store(results, capsys):
    store = results / "demo"
    query = f"SELECT count(*) AS n FROM read_parquet('{store}/runs.parquet')"
    assert sql(results, "--csv", query) == 0
    assert capsys.readouterr().out.splitlines() == ["n", "3"]
    assert sql(results, "--study", "demo", "--csv", "DESCRIBE runs") == 0
    assert "config_id" in capsys.readouterr().out


def test_sql_exports_with_out_outside_the_store_only(results, tmp_path, capsys):
    query = "SELECT config_id, avg(y) AS y FROM runs GROUP BY ALL ORDER BY ALL"
    csv_file, parquet_file = tmp_path / "means.csv", tmp_path / "means.parquet"
    assert sql(results, "--study", "demo", "--out", str(csv_file), query) == 0
    assert "2 rows -> " in capsys.readouterr().err
    assert pyarrow.csv.read_csv(csv_file).to_pylist() == [
        {"config_id": "a", "y": 1.5},
        {"config_id": "b", "y": 4.0},
    ]
    assert sql(results, "--out", str(parquet_file), query) == 0
    assert pq.read_table(parquet_file).num_rows == 2
    inside = results / "demo" / "export.csv"
    assert sql(results, "--study", "demo", "--out", str(inside), query) == 2
    assert "is inside the store" in capsys.readouterr().err and not inside.exists()
    assert sql(results, "--out", str(tmp_path / "x.json"), query) == 2
    assert "allowed: a file ending in .csv or .parquet" in capsys.readouterr().err
    assert sql(results, "--out", str(tmp_path / "no" / "x.csv"), query) == 2
    assert "does not exist" in capsys.readouterr().err


# -- bad input: one line, exit code 2, nothing written ------------------------------------------

TOY = mm1_design(program="{program}")


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    """A design of the contract's example program (docs/examples/mm1.py)."""
    path = tmp_path / "toy.yaml"
    path.write_text(TOY.format(program=MM1))
    return path


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"study: toy\nstudy: other\n", "line 2: key 'study' is given twice (first on line 1)"),
        (b"study: toy\nfactors:\n  load: [0.3]\n  load: [0.6]\n", "line 4: key 'load' is given"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not a text file (byte 0x89 at offset 0"),
        ("study: t\u00e9\n".encode("latin-1"), "not a text file (byte 0xe9 at offset 8"),
    ],
    ids=["duplicate top-level key", "duplicate factor", "binary", "latin-1"],
)
@pytest.mark.parametrize("command", ["plan", "run", "status"])
def test_a_bad_design_file_is_one_line_and_exit_2(tmp_path, capsys, command, content, said):
    path = tmp_path / "bad.yaml"
    path.write_bytes(content)
    assert cli.main([command, str(path), "--results", str(tmp_path / "results")]) == 2
    err = capsys.readouterr().err
    assert err == f"satsweep {command}: error: {path}: {err.split(f'{path}: ', 1)[1]}"
    assert said in err and err.count("\n") == 1, err
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize("command", ["run", "plan"])
@pytest.mark.parametrize("cores", ["0", "-1", "two"])
def test_cores_must_be_a_positive_integer(toy, tmp_path, capsys, command, cores):
    with pytest.raises(SystemExit) as exit_:
        cli.main([command, str(toy), "--results", str(tmp_path / "results"), "--cores", cores])
    assert exit_.value.code == 2
    assert f"--cores: {cores!r} is not allowed; allowed: an integer >= 1" in capsys.readouterr().err
    assert not (tmp_path / "results").exists()


@pytest.mark.slow
def test_status_tells_a_script_whether_the_study_is_complete(toy, tmp_path, capsys):
    results = str(tmp_path / "results")
    assert cli.main(["status", str(toy), "--results", results]) == 3  # nothing run yet
    assert cli.main(["run", str(toy), "--results", results, "--cores", "2"]) == 0
    assert cli.main(["status", str(toy), "--results", results]) == 0
    # another base_seed: plan and status refuse it as run does, exit code 2
    toy.write_text(toy.read_text() + "base_seed: 9\n")
    capsys.readouterr()
    for command in ("plan", "status", "run"):
        assert cli.main([command, str(toy), "--results", results]) == 2
        assert "base_seed: 9 differs from the base_seed 1" in capsys.readouterr().err


NEW_PARAMETER = """    {
        "name": "warmup",
        "type": "int",
        "default": 100,
        "help": "customers discarded before measuring",
    },
]
DESCRIPTION = {"""


def stored_mm1(toy, tmp_path) -> tuple[Path, str, Path]:
    """A copy of the M/M/1 example (to edit afterwards) whose toy study has been run: the
    program, the --results folder and the study's store."""
    program = tmp_path / "mm1.py"
    program.write_text(MM1.read_text())
    program.chmod(0o755)
    toy.write_text(TOY.format(program=program))
    results = str(tmp_path / "results")
    assert cli.main(["run", str(toy), "--results", results, "--cores", "2"]) == 0
    return program, results, tmp_path / "results" / "toy"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("edit", "said", "pin"),
    [
        # the default of service changed
        (('"default": "exp"', '"default": "det"'), "service exp -> det", "service: det"),
        # a parameter the store's runs were made without (satnet's slowStartRestart): whatever
        # its default selects may not be what they did
        (("]\nDESCRIPTION = {", NEW_PARAMETER), "warmup (none) -> 100", "warmup: 0"),
    ],
    ids=["changed default", "new parameter"],
)
def test_a_program_whose_defaults_changed_cannot_add_runs_to_the_store(
    toy, tmp_path, capsys, edit, said, pin
):
    """Runs made with one default and runs made with another would sit in one store as if
    alike: a design that leaves the parameter to the program is refused, one that sets it
    is not."""
    program, results, store = stored_mm1(toy, tmp_path)
    tables = {p.name: digest(p) for p in store.glob("*.parquet")}
    program.write_text(MM1.read_text().replace(*edit, 1))
    assert edit[1] in program.read_text()
    capsys.readouterr()
    for command in ("plan", "status", "run"):
        assert cli.main([command, str(toy), "--results", results]) == 2
        assert (
            f"program: mm1's defaults changed since the runs in {store} were made ({said}), "
            "so new runs would not be like them; allowed: another study name"
        ) in capsys.readouterr().err
    assert {p.name: digest(p) for p in store.glob("*.parquet")} == tables
    toy.write_text(toy.read_text().replace("  customers: 20\n", f"  customers: 20\n  {pin}\n"))
    assert cli.main(["plan", str(toy), "--results", results]) == 0


@pytest.mark.slow
def test_a_new_version_of_the_program_cannot_add_runs_to_the_store(toy, tmp_path, capsys):
    """A program whose behaviour changed says so by its version (satnet's ns2 model when a
    reading of ns-2's source was corrected): its runs would not be like the stored ones, so
    the store refuses them whatever the design sets."""
    program, results, store = stored_mm1(toy, tmp_path)
    tables = {p.name: digest(p) for p in store.glob("*.parquet")}
    runs = sorted(p.name for p in (store / "runs").rglob("*") if p.is_file())
    program.write_text(MM1.read_text().replace('"version": "1.0"', '"version": "1.1"', 1))
    capsys.readouterr()
    for command in ("plan", "status", "run"):
        assert cli.main([command, str(toy), "--results", results]) == 2
        assert (
            f"program: mm1 1.1 is not the version 1.0 the runs in {store} were made with, so new "
            "runs may not be like them; allowed: another study name"
        ) in capsys.readouterr().err
    assert {p.name: digest(p) for p in store.glob("*.parquet")} == tables
    assert sorted(p.name for p in (store / "runs").rglob("*") if p.is_file()) == runs
    toy.write_text(toy.read_text().replace("study: toy", "study: toy-1-1"))
    assert cli.main(["run", str(toy), "--results", results, "--cores", "2"]) == 0


def test_plan_and_status_of_a_huge_design_keep_to_its_configurations(toy, tmp_path, capsys):
    """10^4 configurations x 10^4 replications: refused with its size; with --max-runs, plan
    and status answer from one directory read per configuration (bench/bench_plan.py measures
    their time and memory)."""
    customers = ", ".join(str(c) for c in range(1, 5001))
    toy.write_text(
        toy.read_text()
        .replace("fixed:\n  customers: 20\n", f"  customers: [{customers}]\n")
        .replace("replications: 1", "replications: 10000")
    )
    results = str(tmp_path / "results")
    capsys.readouterr()
    for command in ("plan", "status", "run"):
        assert cli.main([command, str(toy), "--results", results]) == 2
        assert "10000 configurations x 10000 replications = 100000000 runs is more than " in (
            capsys.readouterr().err
        )
    huge = ["--results", results, "--max-runs", "100000000"]
    assert cli.main(["status", str(toy), *huge]) == 3
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("toy: 0 done, 0 damaged, 100000000 missing, 0 failed of 100000000")
    assert out[1].startswith("missing ") and out[1].endswith(" --load=0.3 --customers=1")
    assert out[21] == "... and 99999980 more"
    assert cli.main(["plan", str(toy), *huge, "--rows", "3"]) == 0
    out = capsys.readouterr().out
    assert "... and 9997 more configurations (--rows N shows more)" in out
    assert (
        "10000 configurations x 10000 replications = 100000000 runs; 0 done, 100000000 to run"
        in (out.replace("\n", " "))
    )
    assert not (tmp_path / "results" / "toy").exists()  # plan and status write nothing


# -- damaged or deleted run files are found, quarantined and redone ------------------------------


def run_toy(toy: Path, results: Path, capsys) -> str:
    """`satsweep run` of the toy design; returns what it said on stderr."""
    capsys.readouterr()
    assert cli.main(["run", str(toy), "--results", str(results), "--cores", "2"]) == 0
    return capsys.readouterr().err


def table_rows(store: Path, name: str = "runs") -> int:
    return pq.read_metadata(store / f"{name}.parquet").num_rows


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    """The toy design run once for the module: its results folder (2 runs)."""
    home = tmp_path_factory.mktemp("pristine")
    design = home / "toy.yaml"
    design.write_text(TOY.format(program=MM1))
    args = ["run", str(design), "--results", str(home / "results"), "--cores", "2"]
    assert cli.main(args) == 0
    return home / "results"


@pytest.fixture
def done(toy, pristine, tmp_path) -> Path:
    """A copy of the toy design's store, as the toy design's run left it (2 runs), compacted
    again where it is: its quick look takes the records from their cache, as in the store the
    run left."""
    shutil.copytree(pristine, tmp_path / "results", copy_function=shutil.copy2)
    compacted_here(tmp_path / "results" / "toy", toy)
    return tmp_path / "results" / "toy"


def one_run(store: Path) -> Path:
    """The run directory of the toy design's first configuration."""
    return sorted((store / "runs").iterdir())[0]


def damage_keeping_size_and_time(path: Path) -> None:
    """One byte in the middle of ``path`` changed, its size and modification time kept: only
    its sha256 tells."""
    kept = path.stat()
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    os.utime(path, ns=(kept.st_atime_ns, kept.st_mtime_ns))


def _edit_record(path: Path, **changes) -> None:
    """A run's record with these keys changed, its size and modification time not kept."""
    path.write_text(json.dumps({**json.loads(path.read_text()), **changes}, indent=1))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (
            lambda d: (d / "r1.waits.parquet").write_bytes(b"\x00garbage" * 50),
            "r1.waits.parquet has 400 bytes",
        ),  # fmt: skip
        (lambda d: (d / "r1.waits.parquet").write_bytes(b""), "r1.waits.parquet has 0 bytes"),
        (lambda d: (d / "r1.waits.parquet").unlink(), "r1.waits.parquet is missing"),
        (lambda d: (d / "r1.record.json").write_text("{"), "r1.record.json is unreadable"),
        (lambda d: _edit_record(d / "r1.record.json", row=[]), "r1.record.json is unreadable"),
    ],
    ids=["random bytes", "emptied table", "deleted table", "broken record", "row not a row"],
)
def test_a_damaged_run_is_shown_quarantined_and_redone(toy, done, capsys, damage, said):
    results = done.parent
    run_dir = one_run(done)
    damage(run_dir)
    compacted = (done / "runs.parquet").read_bytes()
    capsys.readouterr()
    assert cli.main(["status", str(toy), "--results", str(results)]) == 3
    out = capsys.readouterr().out
    assert "toy: 1 done, 1 damaged, 0 missing, 0 failed of 2 runs" in out
    assert f"damaged {run_dir.name}/r1: {said}" in out, out
    assert cli.main(["plan", str(toy), "--results", str(results)]) == 0
    assert "1 done, 1 to run" in capsys.readouterr().out
    assert (done / "runs.parquet").read_bytes() == compacted  # nothing touched the store yet
    err = run_toy(toy, results, capsys)
    assert f"warning: {run_dir.name}/r1 is damaged ({said}" in err
    assert "toy: 2/2 runs done (1 now, 1 before)" in err
    quarantined = list((done / "quarantine").glob(f"*/{run_dir.name}/*"))
    assert {p.name for p in quarantined} >= {"r1.json"}  # moved, not deleted
    assert table_rows(done) == 2 and table_rows(done, "waits") == 2 * 20
    assert cli.main(["status", str(toy), "--results", str(results)]) == 0


@pytest.mark.slow
def test_a_deleted_run_is_redone_although_its_job_ran(toy, done, capsys):
    run_dir = one_run(done)
    assert list((done / "workers").glob("*/worker-*.json"))  # the workers' outputs stand
    for path in run_dir.glob("r1.*"):
        path.unlink()
    assert "toy: 2/2 runs done (1 now, 1 before)" in run_toy(toy, done.parent, capsys)
    assert table_rows(done) == 2


@pytest.mark.slow  # a sweep or a real report: several seconds
@pytest.mark.parametrize("where", ["table", "row"])
def test_verify_rereads_what_a_quick_look_cannot_see(toy, done, capsys, where):
    """A table's file with one byte flipped, its size and time kept; or the run's row in its
    record edited, its sha256 there not: a quick look trusts both, --verify finds both."""
    if where == "table":  # one flipped byte, same size, same modification time
        damage_keeping_size_and_time(one_run(done) / "r1.waits.parquet")
        said = "r1.waits.parquet does not match its sha256"
    else:
        record = json.loads((one_run(done) / "r1.record.json").read_text())
        _edit_record(
            one_run(done) / "r1.record.json", row={**record["row"], "elapsed_seconds": -1.0}
        )
        said = "r1.record.json: its run row does not match its sha256"
    assert cli.main(["status", str(toy), "--results", str(done.parent)]) == 0
    assert cli.main(["status", str(toy), "--results", str(done.parent), "--verify"]) == 3
    assert said in capsys.readouterr().out


def test_a_record_changed_in_place_is_read_again_though_its_size_and_time_are_kept(
    toy, done, capsys
):
    """The quick look takes a record from the records' cache while the record's file has the
    identity the cache gives (inode, size, modification and change time). A record rewritten
    in place, its size and modification time put back, keeps its inode too, but not its change
    time: it is read again, and found unreadable."""
    record = one_run(done) / "r1.record.json"
    kept = record.stat()
    store = Store(done)
    cached = store.records_cache_entries(store.bind(load_design(toy)))
    assert cached[f"{record.parent.name}/r1"][:4] == identity(kept)  # the cache would answer
    with open(record, "r+b") as handle:  # in place: the same inode
        handle.write(b"[" + b" " * (kept.st_size - 2) + b"]")
    os.utime(record, ns=(kept.st_atime_ns, kept.st_mtime_ns))
    now = record.stat()
    assert (now.st_ino, now.st_size, now.st_mtime_ns) == (
        kept.st_ino,
        kept.st_size,
        kept.st_mtime_ns,
    )
    assert now.st_ctime_ns != kept.st_ctime_ns
    capsys.readouterr()
    assert cli.main(["status", str(toy), "--results", str(done.parent)]) == 3
    out = capsys.readouterr().out
    assert f"damaged {record.parent.name}/r1: r1.record.json is unreadable (TypeError)" in out, out


def _cache_of_another_seed(path: Path) -> None:
    path.write_text(json.dumps({**json.loads(path.read_text()), "base_seed": 9}))


def _cache_entries_of_another_shape(path: Path) -> None:
    cache = json.loads(path.read_text())
    first, second = sorted(cache["records"])
    cache["records"][first] = [1, 2, 3]
    cache["records"][second][5] = "files"
    path.write_text(json.dumps(cache))


def _cache_says_a_table_is_missing(path: Path) -> None:
    """Each entry's files as a record that vouches for no table would have them, the record
    files' identities kept: the cache's view shows every run damaged."""
    cache = json.loads(path.read_text())
    for entry in cache["records"].values():
        entry[5] = {}
    path.write_text(json.dumps(cache))


@pytest.mark.parametrize(
    "damage",
    [
        Path.unlink,
        lambda path: path.write_text('{"format": 1, "records": '),
        _cache_of_another_seed,
        _cache_entries_of_another_shape,
        _cache_says_a_table_is_missing,
    ],
    ids=[
        "removed",
        "cut short",
        "of another base_seed",
        "entries of another shape",
        "a run damaged by its word",
    ],
)
def test_the_records_cache_changes_no_answer(toy, done, capsys, damage):
    """The records' cache removed, cut short, made for another base_seed, with entries of
    another shape, or showing runs damaged that are not (a run is damaged only by what its
    record says): the same done runs, run numbers and digest as with it, each record read;
    the next compaction writes it again."""
    store = Store(done)
    design = store.bind(load_design(toy))

    def answer() -> tuple[list[tuple[str, int, int]], str, list]:
        state = store.state(design)
        done_runs = [(run.config_id, run.replication, run.run) for run in state.done]
        return done_runs, state.digest, state.damaged

    with_cache = answer()
    assert len(with_cache[0]) == 2 and len(store.records_cache_entries(design)) == 2
    damage(store.records_cache)
    assert answer() == with_cache
    capsys.readouterr()
    assert cli.main(["status", str(toy), "--results", str(done.parent)]) == 0
    store.collect(design)
    entries = store.records_cache_entries(design)
    assert sorted(entries) == sorted(f"{c}/r{k}" for c, k, _ in with_cache[0])
    for key, entry in entries.items():
        assert entry[:4] == identity((done / "runs" / f"{key}.record.json").stat())
    assert answer() == with_cache


def test_a_copied_store_gets_its_records_cache_from_a_run_with_nothing_to_do(
    toy, done, tmp_path, capsys
):
    """A copy's records' cache is of the files it was copied from: `status` reads every record
    and writes nothing; `satsweep run`, with nothing to do, writes the cache of the records it
    read, and the next look reads none."""
    copy = tmp_path / "copy"
    shutil.copytree(done.parent, copy, copy_function=shutil.copy2)
    store = Store(copy / "toy")
    design = store.bind(load_design(toy))
    assert store.state(design).records_read == 2  # each identity changed with the copy
    cache = store.records_cache.read_bytes()
    assert cli.main(["status", str(toy), "--results", str(copy)]) == 0
    assert store.records_cache.read_bytes() == cache
    assert "toy: 2/2 runs done (0 now, 2 before)" in run_toy(toy, copy, capsys)
    state = store.state(design)
    assert state.records_read == 0 and len(state.done) == 2
    for key, entry in store.records_cache_entries(design).items():
        assert entry[:4] == identity((store.root / "runs" / f"{key}.record.json").stat())


def test_a_copied_store_stays_intact(toy, done, tmp_path, capsys):
    copy = tmp_path / "copy"
    shutil.copytree(done.parent, copy)  # new modification times, same contents
    for path in copy.rglob("*.parquet"):
        os.utime(path)
    assert cli.main(["status", str(toy), "--results", str(copy)]) == 0


@pytest.mark.slow
@pytest.mark.parametrize("at_once", [1, 4096])
def test_a_store_whose_rows_are_files_of_their_own_is_read_and_grown(
    toy, done, capsys, monkeypatch, at_once
):
    """A store made before records held the run's row (a file r<k>.parquet each): its runs
    are done and intact, compacted to the same table, and a sweep adds runs of the record's
    layout beside them, the tables holding both in the design's order (the rows from records
    made into tables ``at_once`` at a time)."""
    from satsweep.store import compaction

    monkeypatch.setattr(compaction, "ROWS_AT_ONCE", at_once)
    compacted = pq.read_table(done / "runs.parquet")
    as_stored_before(done, toy)
    assert len(list(done.glob("runs/*/r1.parquet"))) == 2
    assert cli.main(["status", str(toy), "--results", str(done.parent), "--verify"]) == 0
    (done / "runs.parquet").unlink()
    assert "toy: 2/2 runs done (0 now, 2 before)" in run_toy(toy, done.parent, capsys)
    assert pq.read_table(done / "runs.parquet").equals(compacted)
    toy.write_text(toy.read_text().replace("replications: 1", "replications: 2"))
    assert "toy: 4/4 runs done (2 now, 2 before)" in run_toy(toy, done.parent, capsys)
    grown = pq.read_table(done / "runs.parquet")
    assert grown.column("replication").to_pylist() == [1, 2, 1, 2]
    assert grown.filter(pc.equal(grown["replication"], 1)).equals(compacted)
    assert len(list(done.glob("runs/*/r2.parquet"))) == 0  # the new runs' rows: in records
    assert table_rows(done, "waits") == 4 * 20
    assert cli.main(["status", str(toy), "--results", str(done.parent), "--verify"]) == 0


@pytest.mark.slow
def test_runs_made_before_records_are_kept_and_adopted(toy, done, capsys):
    as_stored_before(done, toy)  # then, a run's row was a file of its own
    records = sorted(done.glob("runs/*/r*.record.json"))
    assert len(records) == 2
    for record in records:
        record.unlink()
    assert cli.main(["status", str(toy), "--results", str(done.parent)]) == 0
    assert "toy: 2/2 runs done (0 now, 2 before)" in run_toy(toy, done.parent, capsys)
    assert sorted(done.glob("runs/*/r*.record.json")) == records


def test_a_failed_compaction_leaves_the_previous_tables(toy, done, monkeypatch):
    before = {name: (done / name).read_bytes() for name in ("runs.parquet", "waits.parquet")}
    writes = []

    def full_disk(table, where, *args, **kwargs):
        writes.append(where)
        if len(writes) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(table, where, *args, **kwargs)

    real = pq.write_table
    monkeypatch.setattr(pq, "write_table", full_disk)
    with pytest.raises(OSError):
        Store(done).collect(load_design(toy))
    assert {name: (done / name).read_bytes() for name in before} == before
    assert not list(done.glob(".*compacting*"))


@pytest.mark.parametrize("where", ["table", "row"])
def test_a_run_damaged_after_the_callers_state_is_left_out_of_the_compaction_and_its_state(
    toy, done, where
):
    """`satsweep run` hands the compaction the state it has just taken. A run changed after
    it so that only a sha256 tells (a table's file, its size and time kept; or its row edited
    in its record), is not compacted: it is quarantined, and the state returned, which the
    sweep's report shows, has it missing."""

    store = Store(done)
    design = store.bind(load_design(toy))
    state = store.state(design)
    assert len(state.done) == 2 and not state.damaged
    if where == "table":
        damaged = one_run(done) / "r1.waits.parquet"
        damage_keeping_size_and_time(damaged)
    else:
        damaged = one_run(done) / "r1.record.json"
        _edit_record(
            damaged, row={**json.loads(damaged.read_text())["row"], "elapsed_seconds": -1.0}
        )
    said = []
    after = store.collect(design, warn=said.append, state=state)
    assert len(after.done) == 1 and not after.damaged and after.n_missing == 1
    assert table_rows(done) == 1
    assert list((done / "quarantine").glob(f"*/{one_run(done).name}/{damaged.name}"))
    assert store.state(design).done == after.done
    # the sweep's runs are over: not "it runs again", which is what the sweep's start says
    assert len(said) == 1 and said[0].endswith(
        "left out of the tables; the next sweep runs it again"
    )


def test_the_compaction_takes_the_workers_rows_only_for_the_files_they_match(
    toy, done, monkeypatch, capsys
):
    """A local sweep's workers keep the rows they stored (store/batches.py), and the compaction
    takes them instead of parsing each run's file again: the same tables, byte for byte, as
    from the files alone. A batch is a cache under each file's sha256, never a source: a batch
    damaged is left aside, and a run's file damaged since is found by its sha256 as before.
    The sweep removes the batches once its compaction is done."""
    from satsweep.store import Store, compaction, read_batches
    from satsweep.workflow import run

    assert list(done.glob("workers/*/worker-*.json")) and not list(done.glob("workers/*/rows-*"))
    shutil.rmtree(done.parent)  # a sweep of its own, whose batches stay for this test
    monkeypatch.setattr(run, "discard_batches", lambda folder: None)
    run_toy(toy, done.parent, capsys)
    store = Store(done)
    design = store.bind(load_design(toy))
    (folder,) = (done / "workers").iterdir()
    parses = []

    def counted(data):
        parses.append(data)
        return real(data)

    real = compaction.parquet_table
    monkeypatch.setattr(compaction, "parquet_table", counted)

    def tables(parsed) -> dict[str, bytes]:
        parses.clear()
        (done / "runs.parquet").unlink()  # written again, not left as it was
        store.collect(design, state=store.state(design), parsed=parsed)
        return {name: (done / name).read_bytes() for name in ("runs.parquet", "waits.parquet")}

    from_files = tables(None)
    assert len(parses) == 2  # 2 runs: each its waits (a run's row is in its record)
    rows = read_batches(folder)
    assert len(rows) == 2
    assert tables(rows) == from_files and parses == []
    # a batch's file damaged, or its index cut short: that batch is left aside, the runs
    # whose rows it held are parsed from their files
    index = sorted(folder.glob("rows-*.json"))[0]
    own = {sha256 for slices in json.loads(index.read_bytes())["slices"].values()
           for sha256, _, _ in slices}  # fmt: skip
    waits = index.with_name(index.name.removesuffix(".json") + ".waits.parquet")
    kept = waits.read_bytes()
    for damage in [lambda: damage_keeping_size_and_time(waits),
                   lambda: index.write_bytes(index.read_bytes()[:-9])]:  # fmt: skip
        damage()
        left = read_batches(folder)
        assert set(left) == set(rows) - own
        assert tables(left) == from_files and len(parses) == len(own)
        waits.write_bytes(kept)
    # a run's table damaged after its batch was written: its sha256 tells, as without batches
    damage_keeping_size_and_time(one_run(done) / "r1.waits.parquet")
    said = []
    after = store.collect(design, warn=said.append, state=store.state(design), parsed=rows)
    assert len(after.done) == 1 and table_rows(done) == 1 and "does not match" in said[0]


def test_a_sweep_whose_compaction_quarantines_a_run_says_so_and_fails(toy, done, capsys):
    """A run damaged so that only its sha256 tells (its size and time kept) is found by the
    compaction at the end of the next sweep that has any work: the sweep says the run is left
    out until the next sweep, counts it neither as done before nor now, and exits 1; the
    sweep after it runs it again."""
    damage_keeping_size_and_time(one_run(done) / "r1.waits.parquet")
    (done / "runs.parquet").unlink()  # work for the sweep: the tables to write again
    results = str(done.parent)
    capsys.readouterr()
    assert cli.main(["run", str(toy), "--results", results, "--cores", "1"]) == 1
    out, err = capsys.readouterr()
    said = " ".join((out + err).split())
    assert "does not match its sha256" in said and "the next sweep runs it again" in said
    assert "toy: 1/2 runs done (0 now, 1 before), 0 failed, 1 not run;" in said
    assert "on 1 core" in said and "on 1 cores" not in said
    assert cli.main(["run", str(toy), "--results", results, "--cores", "1"]) == 0
    out, err = capsys.readouterr()
    assert "toy: 2/2 runs done (1 now, 1 before)" in " ".join((out + err).split())
    assert table_rows(done) == 2


def test_one_damaged_study_does_not_hide_the_others(results, capsys):
    other = results / "other"
    other.mkdir()
    (other / "runs.parquet").write_bytes(b"not parquet")
    assert sql(results, "--csv", "SELECT count(*) AS n FROM runs") == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == ["n", "3"]
    assert (
        "satsweep sql: warning: study 'other' left out: runs.parquet is not a Parquet file" in err
    )


# -- what the file system refuses: one line, no traceback ----------------------------------------

NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


@pytest.mark.root
def test_a_results_folder_the_user_cannot_write(tmp_path_factory, pristine):
    """As a user who may read but not write the results folder (setpriv, uid nobody; the
    tests run as root, as CI does)."""
    home = Path(tempfile.mkdtemp(prefix="satsweep-nobody-"))
    try:
        home.chmod(0o755)
        shutil.copytree(pristine, home / "results")  # root's, mode 755: readable, not writable
        design = home / "toy.yaml"
        design.write_text(TOY.format(program=MM1).replace("[0.3, 0.6]", "[0.3, 0.6, 0.9]"))
        env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / "no-cache")}
        for command in (["run", str(design)], ["report", "toy"]):
            proc = subprocess.run(
                [*NOBODY, sys.executable, "-m", "satsweep.cli", *command,
                 "--results", str(home / "results")],
                capture_output=True, text=True, env=env, cwd=home, timeout=120,
            )  # fmt: skip
            assert proc.returncode == 2, proc.stderr
            lines = proc.stderr.strip().splitlines()
            assert len(lines) == 1 and "Permission denied" in lines[0], proc.stderr
            assert f"satsweep {command[0]}: error: {home / 'results' / 'toy'}" in lines[0]
            assert "allowed: a results folder you may write" in lines[0]
        # nothing changed in the store
        assert not (home / "results" / "toy" / "report").exists()
    finally:
        shutil.rmtree(home)


# -- interruptions and a second run on the same store ---------------------------------------------

SLOW = TOY.replace("[0.3, 0.6]", "[0.3, 0.5, 0.7, 0.9]\n  service: [exp, det]").replace(
    "customers: 20", "customers: 30000"
)  # 8 runs of ~1.5 s


def start_run(design: Path, results: Path, background: bool = False) -> subprocess.Popen:
    """`satsweep run` in a session of its own; what it says goes to ``<results>.err``.
    ``background``: with SIGINT ignored, as a shell's `cmd &` or nohup starts it."""
    results.parent.mkdir(parents=True, exist_ok=True)
    ignore = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if background else None
    with open(f"{results}.err", "w") as err:  # a file: a full pipe would stall it
        return subprocess.Popen(
            [sys.executable, "-m", "satsweep.cli", "run", str(design), "--results",
             str(results), "--cores", "2"],
            stdout=subprocess.DEVNULL, stderr=err, start_new_session=True, preexec_fn=ignore,
        )  # fmt: skip


def wait_for_runs(run: subprocess.Popen, store: Path, n: int, timeout: float = 120) -> None:
    """Waits until ``n`` runs are in ``store``; fails at once, with what it said, if the
    `satsweep run` ``run`` (start_run's) ended before, instead of waiting out the timeout."""
    deadline = time.monotonic() + timeout
    while len(list(store.glob("runs/*/r*.record.json"))) < n:
        if run.poll() is not None:
            said = Path(f"{store.parent}.err").read_text()
            pytest.fail(f"satsweep run exited {run.returncode} before {n} runs:\n{said}")
        assert time.monotonic() < deadline, "the sweep did not get going"
        time.sleep(0.05)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("background", "stop"),
    [(False, signal.SIGINT), (True, signal.SIGTERM)],
    ids=["ctrl-c", "kill of a run started with cmd &"],
)
def test_ctrl_c_stops_the_sweep_and_keeps_finished_runs(tmp_path, capsys, background, stop):
    design = tmp_path / "slow.yaml"
    design.write_text(SLOW.format(program=MM1))
    results = tmp_path / "results"
    proc = start_run(design, results, background)
    wait_for_runs(proc, results / "toy", 3)
    proc.send_signal(stop)
    proc.wait(timeout=60)
    err = Path(f"{results}.err").read_text()
    assert proc.returncode == 130, err
    assert "satsweep run: error: interrupted: the sweep stopped; finished runs are kept" in err
    time.sleep(0.5)
    assert in_sessions({proc.pid}) == []  # no worker or program left behind
    kept = {p: p.stat().st_mtime_ns for p in (results / "toy").glob("runs/*/r*.record.json")}
    assert 3 <= len(kept) < 8
    capsys.readouterr()
    assert cli.main(["run", str(design), "--results", str(results), "--cores", "2"]) == 0
    assert f"toy: 8/8 runs done ({8 - len(kept)} now, {len(kept)} before)" in (
        capsys.readouterr().err
    )
    assert {p: p.stat().st_mtime_ns for p in kept} == kept  # none redone
    assert pq.read_metadata(results / "toy" / "runs.parquet").num_rows == 8


HOLD_LOCK = """\
import fcntl, sys
handle = open(sys.argv[1], "a")
fcntl.flock(handle, fcntl.LOCK_EX)
print("locked", flush=True)
sys.stdin.readline()  # held until told
"""


@pytest.mark.parametrize("lock", ["LOCK_FILE", "JOBS_LOCK"])
def test_a_lock_a_killed_run_is_releasing_is_waited_for(tmp_path, monkeypatch, lock):
    """A run killed with SIGKILL leaves /proc's descriptor lists a moment before the kernel
    frees its locks (seen in CI: the next run refused, naming no holder). A lock no process
    holds open is waited for; one held by a live process is refused after the grace."""
    import threading

    from satsweep.workflow import run as workflow_run

    monkeypatch.setattr(workflow_run, "_holders", lambda path: set())  # the window, held open
    store = tmp_path / "store"
    store.mkdir()
    path = store / getattr(workflow_run, lock)
    command = [sys.executable, "-c", HOLD_LOCK, str(path)]
    with subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as held:
        assert held.stdout.readline() == "locked\n"
        told = threading.Event()

        def let_go() -> None:
            told.set()  # before the holder can let go: the lock cannot be taken before this
            held.stdin.write("\n")
            held.stdin.flush()

        timer = threading.Timer(0.5, let_go)
        timer.start()
        try:
            with workflow_run.lock_store(store):
                assert told.is_set()  # waited for, not refused
        finally:
            timer.cancel()
        assert held.wait(timeout=30) == 0

    monkeypatch.setattr(workflow_run, "RELEASE_GRACE_S", 0.5)
    with subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as stuck:
        assert stuck.stdout.readline() == "locked\n"
        with pytest.raises(workflow_run.SweepBusy), workflow_run.lock_store(store):
            pass
        stuck.kill()


@pytest.mark.slow
def test_a_second_run_on_the_same_store_is_refused(tmp_path, capsys):
    design = tmp_path / "slow.yaml"
    design.write_text(SLOW.format(program=MM1))
    results = tmp_path / "results"
    first = start_run(design, results)
    wait_for_runs(first, results / "toy", 1)
    capsys.readouterr()
    assert cli.main(["run", str(design), "--results", str(results), "--cores", "1"]) == 1
    assert "another satsweep run is using" in capsys.readouterr().err
    first.wait(timeout=180)
    assert first.returncode == 0, Path(f"{results}.err").read_text()
    table = pq.read_table(results / "toy" / "runs.parquet")
    keys = list(zip(table.column("config_id").to_pylist(), table.column("replication").to_pylist()))
    assert len(keys) == len(set(keys)) == 8  # every run once


#: After tests/support/sweeps.py's FULL_DISK (run, fill).
FULL_DISK = """\
tables() { sha256sum "$DIR"/results/toy/*.parquet | sed 's|  .*/| |' | tr '\\n' ' '; echo; }
run; echo "first $?"; tables
fill
rm "$DIR/results/toy/compaction.json"  # the compaction is then due, nothing else
run; echo "full $?"; tables
ls -a "$DIR/results/toy" | tr '\\n' ' '; echo
grep -h "compaction failed" "$DIR/results/toy/logs/collect.log"
rm "$DIR/filler"
run; echo "again $?"; tables
"""


@pytest.mark.root
@pytest.mark.slow
def test_a_disk_filling_up_during_compaction_keeps_the_tables(tmp_path):
    """A small tmpfs in a mount namespace of its own (unshare -m): the sweep fills it, then all
    but 200 kB is taken, compaction.json removed and the sweep run again (its compaction is
    then due): the 350 kB table cannot be written."""
    design = TOY.format(program=MM1).replace("customers: 20", "customers: 20000")
    proc = on_a_full_disk(tmp_path, design, FULL_DISK, timeout=180)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0 and lines[0] == "first 0", proc.stdout + proc.stderr
    assert lines[2] == "full 1"  # the sweep says it failed
    assert lines[3] == lines[1]  # runs.parquet and waits.parquet as they were
    assert ".waits.parquet.compacting" not in lines[4] and "runs.parquet" in lines[4]
    assert "No space left on device" in lines[5]
    assert lines[6] == "again 0"
    assert lines[7] == lines[1]  # the same runs compacted again: the same tables
