"""`satsweep sql` under attack (issue 28, items 1 and 10): EXPLAIN ANALYZE and the other
wrappers of a write, DuckDB's relative temporary folder, links leading out of a store, --out
into another study's store; and a query's own limits: TIMESTAMP WITH TIME ZONE, --timeout,
--memory and Ctrl-C. Each attack leaves every file of the results folder, of the folder beside
it and of the current directory byte for byte as it was."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.csv
import pyarrow.parquet as pq
import pytest

from satsweep import cli

#: A query that runs until it is stopped (10^14 pairs, none kept).
ENDLESS = "SELECT count(*) FROM range(10000000) a, range(10000000) b WHERE a.range * b.range < 0"


@pytest.fixture
def results(tmp_path: Path, monkeypatch) -> Path:
    """A results folder with two studies (a compacted table and a run file each), queried from
    a current directory that has a `.tmp` folder (DuckDB's default temporary folder)."""
    for study, y in (("demo", 1.0), ("other", 2.0)):
        store = tmp_path / "results" / study
        (store / "runs" / "c1").mkdir(parents=True)
        table = pa.table({"config_id": ["c1"], "replication": [1], "y": [y]})
        pq.write_table(table, store / "runs.parquet")
        pq.write_table(table, store / "runs" / "c1" / "r1.parquet")
    (tmp_path / "beside").mkdir()
    (tmp_path / "beside" / "secret.txt").write_text("the secret beside the store\n")
    cwd = tmp_path / "cwd"
    (cwd / ".tmp").mkdir(parents=True)
    (cwd / ".tmp" / "secret.txt").write_text("the secret in the current directory\n")
    monkeypatch.chdir(cwd)
    return tmp_path / "results"


def snapshot(root: Path) -> dict[str, str]:
    """Every file and link under ``root``: its path and content hash (or link target)."""
    files = {}
    for path in sorted(root.rglob("*")):
        if path.is_symlink():
            files[str(path)] = "-> " + os.readlink(path)
        elif path.is_file():
            files[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return files


def sql(results: Path, *args: str) -> int:
    return cli.main(["sql", "--results", str(results), *args])


def assert_refused(results: Path, capsys, query: str, said: str) -> None:
    """The query (``{store}``, ``{beside}`` filled in) exits 2 with one line saying ``said``,
    and nothing in or beside the results folder changed."""
    store, tmp = results / "demo", results.parent
    before = snapshot(tmp)
    text = query.format(store=store, beside=tmp / "beside")
    assert sql(results, "--study", "demo", text) == 2
    err = capsys.readouterr().err
    assert err.startswith("satsweep sql: error: ") and said in err, err
    assert snapshot(tmp) == before


# -- item 1: a read that writes -------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("EXPLAIN ANALYZE COPY (SELECT 42 AS x) TO '{store}/runs.parquet'", "EXPLAIN of a COPY"),
        (
            "EXPLAIN ANALYZE COPY (SELECT 42 AS x) TO '{store}/runs/c1/r1.parquet'",
            "EXPLAIN of a COPY",
        ),
        ("EXPLAIN COPY (SELECT 42 AS x) TO '{store}/runs.parquet'", "EXPLAIN of a COPY"),
        ("explain analyse copy runs to '{store}/runs.parquet'", "EXPLAIN of a COPY"),
        (
            "/* a */ EXPLAIN /* ANALYZE */ ANALYZE -- b\n COPY runs TO '{store}/runs.parquet'",
            "EXPLAIN of a COPY",
        ),
        (
            "EXPLAIN (FORMAT json) COPY (SELECT 42 AS x) TO '{store}/runs.parquet'",
            "EXPLAIN of a COPY",
        ),
        ("EXPLAIN (ANALYZE) COPY runs TO '{store}/runs.parquet'", "EXPLAIN of a"),
        ("SELECT 1; EXPLAIN ANALYZE COPY runs TO '{store}/runs.parquet'", "EXPLAIN of a COPY"),
        ("EXPLAIN ANALYZE COPY runs TO '.tmp/x.csv'", "EXPLAIN of a COPY"),
        ("EXPLAIN ANALYZE COPY runs TO '{beside}/x.csv'", "EXPLAIN of a COPY"),
        ("EXPLAIN ANALYZE CREATE TABLE t AS SELECT 1", "EXPLAIN of a CREATE"),
    ],
)
def test_sql_refuses_an_explained_write(results, capsys, query, said):
    """EXPLAIN ANALYZE runs the statement it explains: the statement inside is judged."""
    assert_refused(results, capsys, query, said)


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("PREPARE p AS COPY runs TO '{store}/runs.parquet'", "PREPARE statement refused"),
        ("EXECUTE p", "EXECUTE statement refused"),
        ("SELECT * FROM query('COPY runs TO ''{store}/runs.parquet''')", "single SELECT"),
        ("SUMMARIZE COPY runs TO '{store}/runs.parquet'", "Parser Error"),
        ("DESCRIBE EXPLAIN ANALYZE COPY runs TO '{store}/runs.parquet'", "Parser Error"),
        ("FROM (EXPLAIN ANALYZE COPY runs TO '{store}/runs.parquet')", "Parser Error"),
    ],
)
def test_sql_refuses_the_other_wrappers_of_a_write(results, capsys, query, said):
    """The other ways to hide a statement in another (a prepared statement, DuckDB's query()
    of SQL text, SUMMARIZE or DESCRIBE of a statement, a subquery) were refused already:
    these keep them refused."""
    assert_refused(results, capsys, query, said)


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("EXPLAIN ANALYZE SELECT * FROM runs", "analyzed_plan"),
        ("EXPLAIN SELECT y FROM runs", "physical_plan"),
        ("EXPLAIN (FORMAT json) SELECT y FROM runs", "physical_plan"),
        ("EXPLAIN (SELECT 1) UNION ALL (SELECT 2)", "physical_plan"),
        ("PIVOT runs ON config_id IN ('c1', 'c2') USING sum(y)", "c1"),
    ],
)
def test_sql_explains_and_pivots_a_read(results, capsys, query, said):
    before = snapshot(results.parent)
    assert sql(results, "--study", "demo", "--csv", query) == 0
    assert said in capsys.readouterr().out
    assert snapshot(results.parent) == before


def test_sql_neither_reads_nor_spills_into_the_current_directory(results, capsys):
    """DuckDB's default temporary folder, `.tmp` of the current directory, was among the
    allowed ones: a query could read there, and a large one spilled there."""
    before = snapshot(results.parent)
    assert sql(results, "SELECT content FROM read_text('.tmp/secret.txt')") == 2
    err = capsys.readouterr().err
    assert "Permission Error" in err and "the secret" not in err
    big = "SELECT count(DISTINCT range) FROM range(30000000)"  # a hash table of ~0.5 GB
    assert sql(results, "--memory", "100MB", big) == 2
    assert "more memory than --memory 100MB" in capsys.readouterr().err
    assert snapshot(results.parent) == before


def test_sql_refuses_a_store_with_a_link_leading_out(results, capsys):
    store, secret = results / "demo", results.parent / "beside" / "secret.txt"
    (store / "etc-link").symlink_to("/etc")
    (store / "runs" / "c1" / "r2.parquet").symlink_to(secret)
    before = snapshot(results.parent)
    query = f"SELECT content FROM read_text('{store}/runs/c1/r2.parquet')"
    assert sql(results, "--study", "demo", "--csv", query) == 2
    captured = capsys.readouterr()
    assert "leads out of its store" in captured.err and "etc-link -> /etc" in captured.err
    assert "the secret" not in captured.out + captured.err
    # every study: the store is left out, the others are queried
    assert sql(results, "--csv", "SELECT y FROM runs") == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ["y", "2.0"]
    assert "warning: study 'demo' left out: the link" in captured.err
    assert snapshot(results.parent) == before
    (store / "etc-link").unlink()
    (store / "runs" / "c1" / "r2.parquet").unlink()
    for name, target in (("ghost", "/nonexistent/ghost"), ("loop", store / "logs" / "loop")):
        (store / "logs").mkdir(exist_ok=True)
        (store / "logs" / name).symlink_to(target)  # one that may lead out later, or loops
        assert sql(results, "--study", "demo", "SELECT 1") == 2
        assert f"{name} -> {target} leads out of its store" in capsys.readouterr().err
        (store / "logs" / name).unlink()
    # a link that stays inside the store is fine, and so is a store reached through a link
    (store / "runs" / "c1" / "r3.parquet").symlink_to(store / "runs" / "c1" / "r1.parquet")
    moved = results.parent / "elsewhere"
    (results / "other").rename(moved)
    (results / "other").symlink_to(moved)
    query = f"SELECT y FROM read_parquet('{store}/runs/c1/r3.parquet')"
    assert sql(results, "--study", "demo", "--csv", query) == 0
    assert capsys.readouterr().out.splitlines() == ["y", "1.0"]
    assert sql(results, "--csv", "SELECT y FROM runs ORDER BY y") == 0
    assert capsys.readouterr().out.splitlines() == ["y", "1.0", "2.0"]


def test_sql_out_never_lands_in_a_store(results, tmp_path, capsys):
    """--out was checked against the queried stores only."""
    other = results / "other"
    (results / "new").mkdir()
    (tmp_path / "alias").symlink_to(other)
    (tmp_path / "link.parquet").symlink_to(other / "runs.parquet")
    before = snapshot(results)
    for out in (
        other / "runs.parquet",
        other / "runs" / "c1" / "r1.parquet",
        results / "new" / "runs.parquet",
        tmp_path / "alias" / "runs.parquet",
        tmp_path / "link.parquet",
    ):
        assert sql(results, "--study", "demo", "--out", str(out), "SELECT 42 AS x") == 2
        assert "is inside the store" in capsys.readouterr().err
    assert snapshot(results) == before
    assert sql(results, "--study", "demo", "--out", str(tmp_path / "x.parquet"), "SELECT 1") == 0


# -- item 10: a query's types and limits ----------------------------------------------------

INSTANT = dt.datetime(2019, 12, 31, 22, 0, tzinfo=dt.UTC)
ZONED = "SELECT TIMESTAMPTZ '2020-01-01 00:00:00+02' AS t, now() AS n"


def stamps(text: str) -> list[dt.datetime]:
    return [
        dt.datetime.fromisoformat(s)
        for s in re.findall(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?[+-]\d\d:\d\d", text)
    ]


def test_sql_shows_and_writes_a_timestamp_with_time_zone(results, tmp_path, capsys):
    start = dt.datetime.now(dt.UTC)
    assert sql(results, "--csv", ZONED) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "t,n" and stamps(out)[0] == INSTANT
    assert start <= stamps(out)[1] <= dt.datetime.now(dt.UTC)
    assert sql(results, "--json", ZONED) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert dt.datetime.fromisoformat(row["t"]) == INSTANT
    assert sql(results, ZONED) == 0
    assert stamps(capsys.readouterr().out)[0] == INSTANT
    assert sql(results, "--out", str(tmp_path / "t.csv"), ZONED) == 0
    assert pyarrow.csv.read_csv(tmp_path / "t.csv").column("t").to_pylist() == [INSTANT]
    assert sql(results, "--out", str(tmp_path / "t.parquet"), ZONED) == 0
    assert pq.read_table(tmp_path / "t.parquet").column("t").to_pylist() == [INSTANT]


def test_sql_stops_a_query_at_its_timeout(results, capsys):
    started = time.monotonic()
    assert sql(results, "--timeout", "1", ENDLESS) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "longer than --timeout 1 seconds" in err, err
    assert "--timeout 0 for no limit" in err
    assert time.monotonic() - started < 30


def test_sql_caps_the_memory_of_a_query_and_of_its_result(results, tmp_path, capsys):
    before = snapshot(results.parent)
    sort = "SELECT range FROM range(20000000) ORDER BY hash(range)"  # DuckDB's memory
    rows = "SELECT a.range, b.range FROM range(10000) a, range(10000) b"  # 10^8 rows to hold
    for args in (
        (sort,),
        ("--out", str(tmp_path / "big.parquet"), sort),
        (rows,),
        ("--csv", rows),
        ("--out", str(tmp_path / "big.parquet"), rows),
    ):
        assert sql(results, "--memory", "50MB", "--timeout", "0", *args) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "more memory than --memory 50MB" in err, err
        assert "a larger --memory SIZE" in err
    assert snapshot(results.parent) == before
    assert sql(results, "--memory", "50MB", "--csv", "SELECT count(*) AS n FROM runs") == 0
    assert capsys.readouterr().out.splitlines() == ["n", "2"]


def test_sql_help_names_the_caps_and_their_defaults(capsys):
    with pytest.raises(SystemExit):
        cli.main(["sql", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--timeout SECONDS" in text and "default 300; 0: no limit" in text
    assert "--memory SIZE" in text and "default 2GB" in text
    for bad in (["--timeout", "-1"], ["--timeout", "nan"], ["--memory", "lots"]):
        with pytest.raises(SystemExit) as stop:
            cli.main(["sql", *bad, "SELECT 1"])
        assert stop.value.code == 2
        assert "is not allowed; allowed:" in capsys.readouterr().err


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.slow
def test_ctrl_c_stops_a_query_with_one_line_and_exit_130(results):
    """DuckDB looks at no signal while a query runs: SIGINT went unnoticed until the query
    ended, then came out as a traceback."""
    command = [sys.executable, "-m", "satsweep.cli", "sql", "--results", str(results)]
    # what starting up costs, in CPU seconds: the query is running once its process used more
    quick = subprocess.Popen([*command, "SELECT 1"], stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(quick.pid, 0)
    quick.returncode = os.waitstatus_to_exitcode(status)
    assert quick.returncode == 0
    startup = usage.ru_utime + usage.ru_stime
    process = subprocess.Popen(
        [*command, "--timeout", "0", ENDLESS],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while cpu_seconds(process.pid) < startup + 2:
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        process.kill()
        process.wait()
    assert (process.returncode, out, err) == (130, "", "satsweep sql: error: interrupted\n")
