"""barakat as a program (Barakat & Altman 2000): the engine contract, its bad input, the window
at the first overflow against Theorem 1, determinism, and a tiny S2 sweep through satsweep."""

from __future__ import annotations

import math

import duckdb
import pytest

from satsweep import cli
from satsweep.engine import Program
import satsweep_barakat.theory as theory
from tests.support import REPO
from tests.support.programs import assert_usage_error

pytestmark = pytest.mark.programs

LONG_FILE = 5000  # packets: long enough for slow start to reach the overflow at every B here


@pytest.fixture(scope="module")
def barakat() -> Program:
    return Program.find("barakat", REPO)


@pytest.mark.parametrize(
    ("flags", "allowed"),
    [
        ("--slowStart=abc", "allowed: stcp, bc, dbc"),
        ("--scenario=s3", "allowed: s1, s2"),
        ("--buffer=0", "allowed: an integer >= 1"),
        ("--ssthresh=1", "allowed: an integer >= 2"),
        ("--sources=3", "allowed: 1 with --scenario=s1"),
        ("--scenario=s2 --maxFile=1000", "allowed: minFile <= maxFile"),
        ("--rtt=0.004", "allowed: rtt > 4 x accessDelay"),
    ],
)
def test_bad_input_exits_2_naming_the_flag_and_writes_nothing(barakat, tmp_path, flags, allowed):
    assert_usage_error(barakat, flags, allowed, tmp_path)


def test_s1_scenario_presets_and_the_bdp(barakat):
    d = barakat.description
    assert {t: [c.name for c in cols][:3] for t, cols in d.tables.items()} == {
        "transfers": ["source", "transfer", "finished"],
        "cwnd": ["source", "transfer", "time"],
    }
    result = barakat.run({"buffer": 70, "fileSize": 200, "delayedAck": False}, 1)
    params, summary = result["params"], result["summary"]
    assert (params["rate"], params["sources"], params["simTime"]) == (1.5e6, 1, 300)
    assert summary["bdp"] == pytest.approx(1.5e6 * 0.206 / (8 * 552))  # 69.97 packets
    # a 200-packet transfer with B = 70 and d = 1 ends before any overflow (W_B would be 141)
    assert summary["transfers"] == 1 and summary["drops"] == 0 and summary["retxRatio"] == 1
    [transfer] = result["transfers"]
    assert transfer["uniquePackets"] == transfer["dataPackets"] == 200
    assert summary["throughput"] == pytest.approx(200 * 512 * 8 / 1000 / transfer["duration"])
    s2 = barakat.run({"scenario": "s2", "simTime": 5}, 1)["params"]
    assert (s2["rate"], s2["sources"], s2["simTime"]) == (7.5e6, 5, 5)


def overflow_window(barakat: Program, buffer: int, d: int) -> tuple[float, float]:
    """The simulated W_B of one long transfer (W_th high), and muT."""
    params = {"buffer": buffer, "delayedAck": d == 2, "fileSize": LONG_FILE}
    summary = barakat.run(params, 1)["summary"]
    assert summary["wb"] is not None, "the buffer never overflowed"
    assert summary["ssLoss"] == 1, "the first drop came after the first slow start"
    return summary["wb"], summary["bdp"]


@pytest.mark.parametrize("buffer", [8, 20, 30, 70, 150])
def test_w_b_with_every_packet_acked_is_theorem_1_of_the_whole_buffer(barakat, buffer):
    """d = 1. The bottleneck holds B waiting packets and the one being sent (ns-2's DropTail):
    the simulated W_B is Theorem 1's of that B + 1, to the packet. That is within one packet of
    Theorem 1 of B (as a whole window: STCP's cwnd is whole packets) except where B(d+1) is a
    power of alpha: at B = 8, 2B = 16 = 2^4 overflows in the cycle that starts at W = 8 by
    Theorem 1 and only in the next one here."""
    wb, bdp = overflow_window(barakat, buffer, 1)
    assert wb == pytest.approx(theory.theorem1_wb(buffer + 1, bdp, 1), abs=1)
    if buffer != 8:
        assert 0 <= wb - math.ceil(theory.theorem1_wb(buffer, bdp, 1)) <= 1
    else:
        assert wb == 25 and theory.theorem1_wb(8, bdp, 1) == 16


@pytest.mark.parametrize("buffer", [70, 150])
def test_w_b_with_delayed_acks_and_a_large_buffer_is_b_plus_the_pipe(barakat, buffer):
    """d = 2, B >= muT/d: Theorem 1's eq. (3) regime, W_B = B + muT (+ the packet being sent).
    (With small B the sender's windows are not alpha^n: see sim/README.md, barakat.)"""
    wb, bdp = overflow_window(barakat, buffer, 2)
    assert wb == pytest.approx(theory.theorem1_wb(buffer + 1, bdp, 2), abs=1)
    assert 0 <= wb - math.ceil(theory.theorem1_wb(buffer, bdp, 2)) <= 1


def test_same_run_is_identical_and_s2_runs_differ(barakat):
    params = {"scenario": "s2", "simTime": 20, "buffer": 20}
    first, again = barakat.run(params, 1), barakat.run(params, 1)
    assert first["summary"] == again["summary"] and first["transfers"] == again["transfers"]
    other = barakat.run(params, 2)
    assert other["transfers"] != first["transfers"]
    starts = sorted(t["start"] for t in first["transfers"] if t["transfer"] == 0)
    assert len(starts) == 5 and all(0 < s < 5.5 for s in starts)  # U[0, 5] s, plus a handshake
    for t in first["transfers"]:
        assert 100 * 1024 / 512 <= t["packets"] <= 1024 * 1024 / 512
        assert t["finished"] == (t["duration"] is not None)


@pytest.mark.slow
def test_tiny_s2_sweep_through_satsweep(tmp_path, capsys):
    design = tmp_path / "tiny-s2.yaml"
    design.write_text(
        "study: tiny-s2\n"
        "program: barakat\n"
        "factors:\n  slowStart: [stcp, bc]\n  buffer: [10, 40, 70]\n"
        "fixed:\n  scenario: s2\n  simTime: 20\n  ssthresh: 350\n  maxFile: 204800\n"
        "replications: 2\n"
        "analysis:\n  responses: [throughput, retxRatio]\n  factors: [slowStart, buffer]\n"
        "  theory: barakat\n"
    )
    results = tmp_path / "results"
    assert cli.main(["run", str(design), "--results", str(results), "--cores", "2"]) == 0
    store = results / "tiny-s2"
    runs = duckdb.sql(
        f"SELECT slowStart, buffer, count(*) AS n, sum(transfers) AS transfers, "
        f"min(retxRatio) AS low, max(retxRatio) AS high "
        f"FROM '{store / 'runs.parquet'}' GROUP BY ALL ORDER BY ALL"
    ).fetchall()
    assert len(runs) == 6 and all(n == 2 and transfers > 0 for *_, n, transfers, _, _ in runs)
    assert all(0 < low <= high <= 1 for *_, low, high in runs)
    # every finished transfer is in the transfers table, with its run's keys
    finished = duckdb.sql(
        f"SELECT count(*) FROM '{store / 'transfers.parquet'}' WHERE finished"
    ).fetchone()[0]
    total = duckdb.sql(f"SELECT sum(transfers) FROM '{store / 'runs.parquet'}'").fetchone()[0]
    assert finished == total
    assert cli.main(["report", "tiny-s2", "--results", str(results)]) == 0
    report = (store / "report" / "report.md").read_text()
    assert "throughput against buffer" in report and "muT/d" in report
