"""Sweeps end to end: real workers and Snakemake, real satnet (small runs), stores in temporary
directories.

Covers the issue's reliability list: SIGKILL mid-sweep then rerun, a failing run with
--keep-going, raising replications, identical metrics from scratch, and the CLI around them.
"""

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

import duckdb
import pytest
import yaml

from satsweep import analysis, cli
from satsweep.design import load_design, rng_run
from satsweep.store import KEY_COLUMNS, PROVENANCE_COLUMNS
from tests.support import REPO

# real sweeps of satnet, most of them tens of seconds
pytestmark = [pytest.mark.programs, pytest.mark.slow]

PROVENANCE = set(PROVENANCE_COLUMNS)
#: satnet's summary fields that measure the machine, not the model.
VOLATILE = {"wall_seconds", "peak_rss_mb"}


@pytest.fixture(autouse=True)
def _satnet(satnet):  # every test here needs the real binary (conftest's fixture)
    return satnet


def write_design(
    path: Path, study: str, factors: dict, fixed: dict, replications: int, base_seed: int = 3
) -> Path:
    design = {
        "study": study,
        "program": "satnet",
        "factors": factors,
        "fixed": fixed,
        "replications": replications,
        "base_seed": base_seed,
    }
    path.write_text(yaml.safe_dump(design, sort_keys=False))
    load_design(path)  # a test's own design must be valid
    return path


def sweep(path: Path, results: Path, *extra: str) -> int:
    return cli.main(["run", str(path), "--results", str(results), "--cores", "2", *extra])


def rows(store_dir: Path, name: str = "runs") -> list[dict]:
    con = duckdb.connect()
    cursor = con.execute("SELECT * FROM read_parquet(?)", [str(store_dir / f"{name}.parquet")])
    columns = [d[0] for d in cursor.description]
    return [dict(zip(columns, row)) for row in cursor.fetchall()]


def run_files(store_dir: Path) -> dict[str, float]:
    """Each finished run's record (which holds its row) and its modification time."""
    return {
        str(p.relative_to(store_dir)): p.stat().st_mtime_ns
        for p in store_dir.glob("runs/*/r*.record.json")
    }


def metrics(row: dict) -> dict:
    return {k: v for k, v in row.items() if k not in PROVENANCE | VOLATILE}


@pytest.fixture(scope="module")
def smoke(tmp_path_factory) -> Path:
    """sweeps/smoke.yaml run once into a temporary results directory."""
    results = tmp_path_factory.mktemp("smoke")
    assert sweep(REPO / "sweeps" / "smoke.yaml", results) == 0
    return results


def test_smoke_sweep_fills_the_store(smoke):
    design = load_design(REPO / "sweeps" / "smoke.yaml")
    store_dir = smoke / "smoke"
    runs = rows(store_dir)
    assert len(runs) == design.n_runs
    assert len({(r["config_id"], r["replication"]) for r in runs}) == design.n_runs
    expected = {(r.config_id, r.replication, r.run) for r in design.runs()}
    assert {(r["config_id"], r["replication"], r["run"]) for r in runs} == expected
    first = runs[0]
    for column in (*KEY_COLUMNS, *design.factors, *design.fixed, *PROVENANCE):
        assert column in first, column
    for metric in ("efficiency", "fairness", "goodput_bps", "events", "frames_dropped_epd"):
        assert metric in first, metric
    assert all(r["seed"] == 3 or r["seed"] == design.base_seed for r in runs)
    assert all(0 <= r["efficiency"] <= 1.2 and r["events"] > 0 for r in runs)
    assert first["program"] == "satnet" and "ns-3 3.44" in first["program_version"]
    assert first["program_sha256"] == design.executable.sha256
    assert first["git_commit"] and first["elapsed_seconds"] > 0
    recorded = json.loads((store_dir / "design.json").read_text())
    assert recorded["sha256"] == design.sha256() and recorded["describe"]["name"] == "satnet"
    connections = rows(store_dir, "connections")
    assert len(connections) == design.n_runs * design.fixed["clients"]
    assert {"config_id", "replication", "id", "throughput_bps"} <= set(connections[0])
    # the analysis reads the study by name
    with analysis.Dataset.open("smoke", smoke) as data:
        result = data.analyze("efficiency", ["flavor", "drop"])
    assert result.n == design.n_runs and result.replications == design.replications


def test_rerun_of_a_finished_sweep_runs_nothing(smoke, capsys):
    """Nor starts a worker (their logs stay the last sweep's), nor rewrites the tables."""
    store_dir = smoke / "smoke"
    before = run_files(store_dir)
    kept = {p: p.stat().st_mtime_ns for p in store_dir.glob("*") if p.is_file()}
    logs = list((store_dir / "logs").glob("worker-*.log"))
    assert logs
    kept.update({log: log.stat().st_mtime_ns for log in logs})
    assert sweep(REPO / "sweeps" / "smoke.yaml", smoke) == 0
    assert run_files(store_dir) == before
    assert "(0 now, 8 before)" in capsys.readouterr().err
    kept.pop(store_dir / "design.json")  # recorded again by every run, the same design
    assert {p: p.stat().st_mtime_ns for p in kept} == kept


def test_status_and_sql_over_the_store(smoke, capsys):
    path = str(REPO / "sweeps" / "smoke.yaml")
    assert cli.main(["status", path, "--results", str(smoke)]) == 0
    assert "smoke: 8 done, 0 damaged, 0 missing, 0 failed of 8 runs" in capsys.readouterr().out
    query = "SELECT flavor, count(*) AS n FROM runs GROUP BY flavor ORDER BY flavor"
    assert cli.main(["sql", "--results", str(smoke), "--study", "smoke", "--csv", query]) == 0
    assert capsys.readouterr().out.splitlines() == ["flavor,n", "reno,4", "sack,4"]
    query = "SELECT count(*) AS n FROM connections JOIN runs USING (config_id, replication)"
    assert cli.main(["sql", "--results", str(smoke), "--json", query]) == 0
    assert json.loads(capsys.readouterr().out) == [{"n": 40}]
    assert cli.main(["sql", "--results", str(smoke), "SELECT nonsense FROM runs"]) == 2
    assert "nonsense" in capsys.readouterr().err
    assert cli.main(["sql", "--results", str(smoke), "--study", "nope", "SELECT 1"]) == 2
    assert "no study named 'nope'" in capsys.readouterr().err


def test_same_sweep_from_scratch_gives_identical_metrics(smoke, tmp_path):
    assert sweep(REPO / "sweeps" / "smoke.yaml", tmp_path) == 0
    first = [metrics(r) for r in rows(smoke / "smoke")]
    second = [metrics(r) for r in rows(tmp_path / "smoke")]
    assert first == second
    assert len({r["efficiency"] for r in first}) > 1  # replications differ from each other
    c1, c2 = rows(smoke / "smoke", "connections"), rows(tmp_path / "smoke", "connections")
    assert c1 == c2


def test_snakemake_started_by_hand_fills_the_same_store(smoke, tmp_path):
    """`snakemake --cores 2 --config sweep=... results=...` on the shipped Snakefile (what
    `satsweep run` does locally without Snakemake: the same workers, then `collect`) gives the
    same runs and metrics, a store that `status` finds complete."""
    from satsweep.workflow.run import SNAKEFILE

    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "--snakefile", str(SNAKEFILE), "--cores", "2",
         "--config", f"sweep={REPO / 'sweeps' / 'smoke.yaml'}", f"results={tmp_path}"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    store_dir = tmp_path / "smoke"
    assert sorted(p.name for p in (store_dir / "logs").glob("worker-*.log")) == [
        "worker-1.log",
        "worker-2.log",
    ]
    assert [metrics(r) for r in rows(store_dir)] == [metrics(r) for r in rows(smoke / "smoke")]
    status = [str(REPO / "sweeps" / "smoke.yaml"), "--results", str(tmp_path)]
    assert cli.main(["status", *status]) == 0


def test_runs_lost_after_compaction_are_rerun_and_the_rest_kept(tmp_path):
    """A store whose runs.parquet exists but misses runs (an interrupted sweep compacted by
    onerror, or deleted run files) is completed on rerun, not taken as up to date."""
    smoke = REPO / "sweeps" / "smoke.yaml"
    assert sweep(smoke, tmp_path) == 0
    store_dir = tmp_path / "smoke"
    lost = sorted((store_dir / "runs").iterdir())[0]
    shutil.rmtree(lost)
    kept = run_files(store_dir)
    assert sweep(smoke, tmp_path) == 0
    assert len(rows(store_dir)) == 8
    now = run_files(store_dir)
    assert {k: v for k, v in now.items() if k in kept} == kept
    assert len(now) == 8 and len(kept) == 6


def test_raising_replications_runs_only_the_new_half(tmp_path, capsys):
    factors = {"flavor": ["reno", "sack"]}
    fixed = {"clients": 3, "simTime": 3}
    path = write_design(tmp_path / "grow.yaml", "grow", factors, fixed, 1)
    results = tmp_path / "results"
    assert sweep(path, results) == 0
    store_dir = results / "grow"
    old_files, old_rows = run_files(store_dir), rows(store_dir)
    assert len(old_rows) == 2
    write_design(path, "grow", factors, fixed, 2)
    capsys.readouterr()
    assert sweep(path, results) == 0
    assert "(2 now, 2 before)" in capsys.readouterr().err
    new_files, new_rows = run_files(store_dir), rows(store_dir)
    assert len(new_rows) == 4 and len(new_files) == 4
    assert {k: v for k, v in new_files.items() if k in old_files} == old_files
    old = {(r["config_id"], r["replication"]): r for r in old_rows}
    for r in new_rows:
        if (r["config_id"], r["replication"]) in old:
            assert r == old[(r["config_id"], r["replication"])]  # every column, provenance too
        else:
            assert r["replication"] == 2
    # another base_seed would mix streams: refused before anything runs
    write_design(path, "grow", factors, fixed, 2, base_seed=4)
    assert sweep(path, results) == 2
    assert "base_seed: 4 differs from the base_seed 3" in capsys.readouterr().err
    assert run_files(store_dir) == new_files


def test_a_store_made_with_streams_1_keeps_its_run_numbers(tmp_path, capsys):
    """A store recorded before streams 2 (design.json without `streams`) keeps the first
    scheme: a design file that does not name `streams` takes the store's, new replications
    too; a file that names the other one is refused."""
    factors = {"flavor": ["reno", "sack"]}
    fixed = {"clients": 3, "simTime": 3}
    path = write_design(tmp_path / "old.yaml", "old", factors, fixed, 1)
    results = tmp_path / "results"
    path.write_text(path.read_text() + "streams: 1\n")
    assert sweep(path, results) == 0
    store_dir = results / "old"
    recorded = json.loads((store_dir / "design.json").read_text())
    del recorded["design"]["streams"]  # as satsweep wrote it before streams existed
    (store_dir / "design.json").write_text(json.dumps(recorded))
    write_design(path, "old", factors, fixed, 2)  # no `streams`: the default would be 2
    capsys.readouterr()
    assert cli.main(["plan", str(path), "--results", str(results)]) == 0
    assert "base_seed 3, streams 1;" in capsys.readouterr().out
    assert sweep(path, results) == 0
    runs = rows(store_dir)
    assert len(runs) == 4
    assert all(r["run"] == rng_run(3, r["config_id"], r["replication"], 1) for r in runs)
    assert json.loads((store_dir / "design.json").read_text())["design"]["streams"] == 1
    path.write_text(path.read_text() + "streams: 2\n")
    capsys.readouterr()
    assert sweep(path, results) == 2
    assert f"streams: 2 differs from the streams 1 of the runs in {store_dir}" in (
        capsys.readouterr().err
    )
    # a new store takes streams 2: the replication in the low 15 bits
    write_design(path, "new", factors, fixed, 2)
    assert sweep(path, results) == 0
    runs = rows(results / "new")
    assert sorted(r["run"] & 0x7FFF for r in runs) == [1, 1, 2, 2]
    assert all(r["run"] == rng_run(3, r["config_id"], r["replication"]) for r in runs)


def test_failing_run_is_reported_and_keep_going_finishes_the_others(tmp_path, capsys, satnet):
    # satnet behind a wrapper that fails the runs with 3 clients, as a program failing at run
    # time does (levels a program's --describe refuses never get that far)
    wrapper = tmp_path / "flaky"
    wrapper.write_text(
        "#!/bin/sh\n"
        'case " $* " in *" --clients=3 "*) echo "flaky: cannot simulate 3 clients" >&2; exit 3;; '
        "esac\n"
        f'exec {satnet.path} "$@"\n'
    )
    wrapper.chmod(0o755)
    path = write_design(
        tmp_path / "bad.yaml", "badlevel", {"clients": [2, 3, 4]}, {"simTime": 2}, 2
    )
    path.write_text(path.read_text().replace("program: satnet", "program: ./flaky"))
    results = tmp_path / "results"
    assert sweep(path, results, "--keep-going") == 1
    err = capsys.readouterr().err
    assert "4/6 runs done" in err and "2 failed" in err
    assert "flaky: cannot simulate 3 clients" in err  # the tail of the program's stderr
    assert "exit code 3" in err
    runs = rows(results / "badlevel")
    assert len(runs) == 4 and {r["clients"] for r in runs} == {2, 4}
    assert len(rows(results / "badlevel", "connections")) == 2 * 2 + 2 * 4
    assert cli.main(["status", str(path), "--results", str(results)]) == 1  # runs failed
    out = capsys.readouterr().out
    assert "4 done, 0 damaged, 0 missing, 2 failed" in out and "--clients=3" in out
    assert "flaky: cannot simulate 3 clients" in out
    # without --keep-going it fails as well, and still runs nothing twice
    before = run_files(results / "badlevel")
    assert sweep(path, results) == 1
    assert run_files(results / "badlevel") == before


def test_sigkill_mid_sweep_then_rerun_runs_each_run_exactly_once(tmp_path):
    path = write_design(
        tmp_path / "kill.yaml",
        "kill",
        {"flavor": ["vanilla", "reno", "newreno", "sack"], "drop": ["epd", "sd"]},
        {"clients": 20, "simTime": 20},
        2,
    )
    results = tmp_path / "results"
    store_dir = results / "kill"
    command = [sys.executable, "-m", "satsweep.cli", "run", str(path), "--results", str(results)]
    env = dict(os.environ)
    proc = subprocess.Popen(
        [*command, "--cores", "2"],
        env=env,
        start_new_session=True,  # its own process group: satsweep, its workers, satnet
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while len(run_files(store_dir)) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    time.sleep(0.2)
    survivors = run_files(store_dir)
    assert 3 <= len(survivors) < 16, "the sweep was not interrupted in the middle"
    started = {  # as each survivor's record holds its row
        (r["config_id"], r["replication"]): dt.datetime.fromisoformat(r["started_at"])
        for f in survivors
        for r in [json.loads((store_dir / f).read_text())["row"]]
    }
    done = subprocess.run([*command, "--cores", "2"], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    after = run_files(store_dir)
    assert len(after) == 16
    assert {k: v for k, v in after.items() if k in survivors} == survivors  # none redone
    runs = rows(store_dir)
    keys = [(r["config_id"], r["replication"]) for r in runs]
    assert len(keys) == len(set(keys)) == 16  # every run exactly once
    for r in runs:
        key = (r["config_id"], r["replication"])
        if key in started:
            assert r["started_at"] == started[key]
    assert not list(store_dir.glob("runs/*/*.tmp.*"))  # temporaries of killed runs cleaned
