"""sabt as a program (Matsuo, Hasegawa and Murata, SABT): the engine contract, its bad input and
presets, EQ's share capping connection 1 at a pool of 200 packets where SABT's does not, the
timeline against the connections table, e3's requests table against its summary, and a tiny
sweep through satsweep's run and report. The allocators, the Padhye et al. estimate, the
send-buffer guard, the small-file rule and e3's document sizes are tested in C++ (suite
satsweep-sabt, tests/test_sim_cpp.py)."""

from __future__ import annotations


import math
import statistics
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from scipy.stats import t

from satsweep import cli
from satsweep.engine import Program
from satsweep.report.tables import trace_mean_panels
from satsweep.store import Store
from tests.support import REPO
from tests.support.programs import assert_usage_error

pytestmark = pytest.mark.programs

# Figs. 2-3's network with the starts 20 s apart instead of 500 s: all seven connections run
# from 120 s, and the means are over [200, 400] s.
SHORT_FIG = {"startInterval": 20, "simTime": 400, "measureTime": 200, "pool": 200000}
BASE_RTT = 2 * (0.001 + 0.1 + 0.001)  # s: the three links' delays, both ways


@pytest.fixture(scope="module")
def sabt() -> Program:
    return Program.find("sabt", REPO)


@pytest.mark.parametrize(
    ("flags", "allowed"),
    [
        ("--algorithm=atbt", "allowed: eq, abt, sabt, fixed"),
        ("--scenario=e4", "allowed: fig, e1, e2, e3"),
        ("--pool=0", "allowed: an integer >= 1"),
        ("--leftover=some", "allowed: unassigned, proportional"),
        ("--measureTime=3500", "allowed: simTime - measureTime >= the last start"),
        ("--scenario=e1 --lossRate=0.25", "allowed: lossRate < 0.25 with --scenario=e1"),
        ("--slowConnections=3", "allowed only with --scenario=e2"),
        ("--clients=3", "allowed only with --scenario=e3"),
        ("--scenario=e3 --fileSize=5000", "allowed only with --scenario=fig, e1 or e2"),
        ("--scenario=e3 --documentMean=8000", "allowed: documentMean > documentPercentile80"),
        ("--scenario=e3 --algorithm=fixed --clients=17", "allowed: clients x fixedBuffer <= pool"),
    ],
)
def test_bad_input_exits_2_naming_the_flag_and_writes_nothing(sabt, tmp_path, flags, allowed):
    assert_usage_error(sabt, flags, allowed, tmp_path)


@pytest.mark.slow
def test_scenario_presets(sabt):
    d = sabt.description
    assert set(d.tables) == {"connections", "timeline", "requests"}
    e1 = sabt.run({"scenario": "e1", "simTime": 22, "measureTime": 1}, 1)
    p = e1["params"]
    assert (p["rate"], p["pool"], p["lossRate"], p["startInterval"]) == (622e6, 262144, 0.005, 10)
    assert [c["start"] for c in e1["connections"]] == [0, 10, 20]
    assert [c["ideal"] for c in e1["connections"]] == pytest.approx([622 / 3] * 3)
    e2 = sabt.run({"scenario": "e2", "slowConnections": 3, "simTime": 1, "measureTime": 0.5}, 1)
    assert [(c["path"], c["ideal"]) for c in e2["connections"]] == [
        (1, 622),
        (2, pytest.approx(100 / 3)),
        (2, pytest.approx(100 / 3)),
        (2, pytest.approx(100 / 3)),
    ]


# e3 with four clients for 1.5 s, the means over the requests started after 0.5 s.
SHORT_E3 = {"scenario": "e3", "clients": 4, "simTime": 1.5, "measureTime": 1}


@pytest.fixture(scope="module")
def e3_runs(sabt) -> dict[int, dict]:
    """SABT with the small-file rule (8192) and without (0)."""
    return {limit: sabt.run({**SHORT_E3, "smallFileLimit": limit}, 1) for limit in (8192, 0)}


def test_e3_presets_and_requests_table_against_its_summary(e3_runs):
    """e3's LAN and FreeBSD timers; every client's requests back to back (the next starts as the
    last byte of the previous arrives); the small-file rule exactly on the documents below the
    limit, their buffer the document; the summary's means and counts from the measured rows,
    split at 8 KB whatever the limit; the bulk scenarios' tables empty."""
    for limit, run in e3_runs.items():
        p = run["params"]
        assert (p["rate"], p["delay"], p["segmentSize"], p["pool"]) == (100e6, 0.0004, 1460, 262144)
        assert (p["tick"], p["minRto"], p["initialRto"]) == (0.5, 1, 1.5)
        assert run["connections"] == [] and run["timeline"] == []
        rows = run["requests"]
        for client in range(1, 5):
            mine = [r for r in rows if r["client"] == client]
            assert [r["request"] for r in mine] == list(range(1, len(mine) + 1))
            assert mine[0]["start"] == 0 and len(mine) > 10
            for a, b in zip(mine, mine[1:]):
                assert b["start"] == pytest.approx(a["start"] + a["response"], abs=1e-9)
        done = [r for r in rows if r["response"] is not None]
        # two round trips of 0.8 ms at least: the handshake, then the request and the document
        assert min(r["response"] for r in done) > 0.0016
        for r in done:
            assert r["smallFile"] == (r["bytes"] < limit)
            if r["smallFile"]:
                assert r["buffer"] == r["bytes"]
        measured = [r for r in done if r["measured"]]
        assert all(r["measured"] == (r["start"] >= 0.5) for r in rows)
        s = run["summary"]
        assert s["requests"] == len(measured)
        assert s["unfinished"] == sum(r["measured"] and r["response"] is None for r in rows)
        assert s["responseTime"] == pytest.approx(statistics.fmean(r["response"] for r in measured))
        small = [r["response"] for r in measured if r["bytes"] < 8192]
        large = [r["response"] for r in measured if r["bytes"] >= 8192]
        assert (s["responseSmall"], s["responseLarge"]) == (
            pytest.approx(statistics.fmean(small)),
            pytest.approx(statistics.fmean(large)),
        )
        assert 0 < s["efficiency"] <= 1 and s["fairness"] is None


def test_e3_same_documents_under_both_rules(e3_runs):
    """The server draws its documents from a stream of its own: the k-th document has the same
    size whatever the rule (here the first request of each client, drawn in the same order)."""
    firsts = [
        sorted((r["start"], r["client"], r["bytes"]) for r in run["requests"] if r["request"] == 1)
        for run in e3_runs.values()
    ]
    assert sorted(b for *_, b in firsts[0]) == sorted(b for *_, b in firsts[1])


@pytest.fixture(scope="module")
def short_runs(sabt) -> dict[str, dict]:
    return {a: sabt.run({**SHORT_FIG, "algorithm": a}, 1) for a in ("eq", "sabt")}


@pytest.mark.slow
def test_eq_caps_connection_1_at_a_pool_of_200_packets_and_sabt_does_not(short_runs):
    """docs/studies/sabt.md, "What the text fixes": EQ gives 200/7 = 28 packets of 1000 bytes
    (whole segments) to each connection, below the path's ~38-packet BDP, so connection 1, alone
    on its 1.5 Mbit/s path, gets at most 28 packets per round trip. SABT finds connection 1's
    loss rate low and gives it more of the pool."""
    eq, sabt = short_runs["eq"], short_runs["sabt"]
    first_eq, first_sabt = eq["connections"][0], sabt["connections"][0]
    assert first_eq["buffer"] == 28000 and first_eq["bufferStd"] == 0
    cap = 28000 * 8 / BASE_RTT / 1e6  # Mbit/s: 28 packets per base round trip
    assert eq["summary"]["throughput1"] == first_eq["throughput"] <= cap
    assert first_sabt["buffer"] > 28000
    assert sabt["summary"]["throughput1"] > cap > eq["summary"]["throughput1"]


def test_timeline_adds_up_to_the_connections_table(short_runs):
    """Every second's row: the buffers never sum above the pool; a connection's 1 s throughputs
    over the measured window average to its throughput in the connections table, and its
    buffers to its mean buffer there."""
    for run in short_runs.values():
        rows = run["timeline"]
        pool = run["params"]["pool"]
        for time in {r["time"] for r in rows}:
            assert sum(r["buffer"] for r in rows if r["time"] == time) <= pool
        for c in run["connections"]:
            mine = [r for r in rows if r["connection"] == c["connection"]]
            # the row at t covers (t - 1, t]: the window (200, 400] is t = 201..400; buffers are
            # set at t = 200..399
            rates = [r["throughput"] for r in mine if 200 < r["time"] <= 400]
            buffers = [r["buffer"] for r in mine if 200 <= r["time"] < 400]
            assert len(buffers) == 200
            assert sum(buffers) / 200 == pytest.approx(c["buffer"])
            if len(rates) == 200:  # the row at 400 s exists when the last tick ran before Stop
                assert sum(rates) / 200 == pytest.approx(c["throughput"])


TINY = (
    "study: tiny-sabt\n"
    "program: sabt\n"
    "factors:\n  algorithm: [eq, sabt]\n  pool: [100000, 200000, 300000]\n"
    "fixed:\n  startInterval: 5\n  simTime: 60\n  measureTime: 20\n"
    "replications: 2\n"
    "analysis:\n  responses: [throughput1, fairness]\n  factors: [algorithm, pool]\n"
    "  traces:\n"
    "    - {table: timeline, x: time, y: [buffer, throughput], series: connection,"
    " replications: mean}\n"
    "    - {table: connections, x: pool, y: [throughput], series: connection,"
    " replications: mean}\n"
)


@pytest.fixture(scope="module")
def tiny_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """eq and sabt x three pools, r = 2, with two traces averaged over the replications."""
    root = tmp_path_factory.mktemp("tiny")
    design = root / "tiny-sabt.yaml"
    design.write_text(TINY)
    results = root / "results"
    assert cli.main(["run", str(design), "--results", str(results), "--cores", "2"]) == 0
    return results / "tiny-sabt"


@pytest.mark.slow
def test_tiny_sweep_through_satsweep(tiny_store):
    rows = duckdb.sql(
        f"SELECT algorithm, pool, count(*) AS n, min(fairness) AS low FROM "
        f"'{tiny_store / 'runs.parquet'}' GROUP BY ALL"
    ).fetchall()
    assert len(rows) == 6 and all(n == 2 and 0 < low <= 1 for *_, n, low in rows)
    per_run = duckdb.sql(
        f"SELECT config_id, replication, count(*) FROM '{tiny_store / 'connections.parquet'}' "
        "GROUP BY ALL"
    ).fetchall()
    assert len(per_run) == 12 and all(n == 7 for *_, n in per_run)
    assert cli.main(["report", "tiny-sabt", "--results", str(tiny_store.parent)]) == 0
    report = (tiny_store / "report" / "report.md").read_text()
    assert "throughput1 against pool" in report
    assert "a panel per configuration of the factors but pool; each run's rows" in report
    for name in ("trace-1-timeline.png", "trace-2-connections.png"):
        assert (tiny_store / "report" / name).stat().st_size > 10_000


def _by_hand(values: list[float]) -> tuple[float, float | None]:
    """Mean and the half-width of its 90% t interval (the report's default confidence)."""
    n = len(values)
    if n < 2:
        return statistics.fmean(values), None
    return statistics.fmean(values), t.ppf(0.95, n - 1) * statistics.stdev(values) / math.sqrt(n)


def test_trace_means_over_time_are_the_replications_mean_and_t_interval(tiny_store):
    design = recorded_analysis(tiny_store)
    trace = design.traces[0]
    panels = trace_mean_panels(
        tiny_store / "runs.parquet", tiny_store / "timeline.parquet", trace, ["algorithm", "pool"],
        0.9,
    )  # fmt: skip
    assert [p.title for p in panels][:2] == [
        "algorithm=eq, pool=100000",
        "algorithm=eq, pool=200000",
    ]
    runs = pq.read_table(tiny_store / "runs.parquet").to_pylist()
    rows = pq.read_table(tiny_store / "timeline.parquet").to_pylist()
    sabt = {(r["config_id"], r["replication"]) for r in runs if r["algorithm"] == "sabt"
            and r["pool"] == 200000}  # fmt: skip
    panel = next(p for p in panels if p.title == "algorithm=sabt, pool=200000")
    for connection, time in (("1", 3.0), ("3", 40.0), ("7", 59.0)):
        for y in ("buffer", "throughput"):
            values = [r[y] for r in rows if (r["config_id"], r["replication"]) in sabt
                      and r["connection"] == int(connection) and r["time"] == time]  # fmt: skip
            assert len(values) == 2
            mean, half = _by_hand(values)
            i = panel.series[connection]["time"].index(time)
            assert panel.series[connection][y][i] == pytest.approx(mean)
            assert panel.halves[connection][y][i] == pytest.approx(half)


def test_trace_means_over_a_factor_average_each_run_first(tiny_store):
    design = recorded_analysis(tiny_store)
    trace = design.traces[1]
    panels = trace_mean_panels(
        tiny_store / "runs.parquet", tiny_store / "connections.parquet", trace,
        ["algorithm", "pool"], 0.9,
    )  # fmt: skip
    assert [p.title for p in panels] == ["algorithm=eq", "algorithm=sabt"]
    runs = {(r["config_id"], r["replication"]): r for r in
            pq.read_table(tiny_store / "runs.parquet").to_pylist()}  # fmt: skip
    rows = pq.read_table(tiny_store / "connections.parquet").to_pylist()
    for panel, algorithm in zip(panels, ("eq", "sabt"), strict=True):
        assert panel.series["2"]["pool"] == [100000, 200000, 300000]
        for i, pool in enumerate((100000, 200000, 300000)):
            values = [r["throughput"] for r in rows if r["connection"] == 2
                      and runs[(r["config_id"], r["replication"])]["algorithm"] == algorithm
                      and runs[(r["config_id"], r["replication"])]["pool"] == pool]  # fmt: skip
            mean, half = _by_hand(values)
            assert panel.series["2"]["throughput"][i] == pytest.approx(mean)
            assert panel.halves["2"]["throughput"][i] == pytest.approx(half)


def recorded_analysis(store: Path):
    """The analysis settings of the design the store recorded."""
    design = Store(store).design()
    assert design is not None
    return design.analysis
