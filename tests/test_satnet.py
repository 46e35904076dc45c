"""satnet as a program: the engine contract (--describe, bad input, its JSON result checked
against its description), determinism, and the slow-start overflow of Barakat & Altman's
Theorem 1."""

from __future__ import annotations

import csv
import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from satsweep import cli
from satsweep.engine import USAGE_ERROR, Program
from satsweep_barakat.theory import theorem1_wb
from tests.support.programs import run_satnet_cli

pytestmark = pytest.mark.programs

REPO = Path(__file__).resolve().parents[1]
SMALL = {"clients": 10, "simTime": 10}
VOLATILE = {"wall_seconds", "peak_rss_mb"}


def stable(summary: dict) -> dict:
    """The summary without what depends on the machine."""
    return {k: v for k, v in summary.items() if k not in VOLATILE}


@pytest.mark.parametrize(
    ("flag", "allowed"),
    [
        ("--flavor=cubic", "allowed: vanilla, reno, newreno, sack"),
        ("--bufferCells=-5", "allowed: an integer >= 1"),
        ("--clients=0", "allowed: an integer >= 1 and <= 10000"),
        ("--clients=10000000", "allowed: an integer >= 1 and <= 10000"),
        ("--simTime=1e12", "allowed: a number >= 1e-09 and <= 2e+06"),
        ("--clients=3000 --link=geo", "allowed: clients x ceil(window / mss) <= 1048576"),
        ("--link=leo", "allowed: wan, meo, geo"),
        ("--drop=red", "allowed: epd, sd, tail"),
        ("--bufferRtt=3", "allowed: 0.5, 1, 2"),
        ("--simTime=-1", "allowed: a number >= 1e-09"),
        ("--nonsense=1", "unknown flag; allowed: "),
        ("--connections=always", "allowed: run, page, pageReset"),
        ("--connections=pageReset --tcpModel=ns3", "allowed with --tcpModel=ns2 only"),
        ("--connections=page --simTime=2001", "allowed: clients x simTime <= 200000 s"),
        ("--partialFrames=all", "allowed: ppd, accept"),
    ],
)
def test_bad_input_exits_2_with_one_line_and_no_output(tmp_path, flag, allowed):
    out = tmp_path / "result.json"
    proc = run_satnet_cli(*flag.split(), f"--out={out}")
    assert proc.returncode == USAGE_ERROR
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    name = flag.split("=")[0]
    assert name in lines[0] and allowed in lines[0], lines[0]
    assert list(tmp_path.iterdir()) == []


def test_buffer_rtt_and_cells_together_is_an_error():
    proc = run_satnet_cli("--bufferRtt=1", "--bufferCells=100")
    assert proc.returncode == USAGE_ERROR
    assert "--bufferCells" in proc.stderr


def test_help_lists_every_flag(satnet: Program):
    proc = run_satnet_cli("--help")
    assert proc.returncode == 0
    for parameter in satnet.description.parameters:
        assert f"--{parameter.name}" in proc.stdout
    for flag in ("--run", "--out", "--seed", "--describe"):
        assert flag in proc.stdout


def test_describe_declares_the_study_parameters_and_outputs(satnet: Program):
    d = satnet.description
    assert d.name == "satnet" and "ns-3 3.44" in d.version
    assert {p.name: p.type for p in d.parameters}["bufferRtt"] == "float"
    assert d.parameter("link").choices == ["wan", "meo", "geo"]
    assert d.parameter("clients").minimum == 1 and d.parameter("mss").default is None
    assert d.parameter("seed") is None and d.parameter("run") is None
    assert {f.name: f.unit for f in d.summary}["efficiency"] == "fraction of capacity"
    assert [c.name for c in d.tables["connections"]][:3] == ["id", "vc", "throughput_bps"]
    # the cost hint: WAN's 1024 B segments cost ~6x MEO's and GEO's 9180 B ones
    base = {"link": "wan", "clients": 50, "simTime": 30}
    wan = d.estimated_seconds(base)
    assert d.estimated_seconds(base | {"clients": 100}) == pytest.approx(2 * wan)
    assert d.estimated_seconds(base | {"simTime": 90}) == pytest.approx(3 * wan)
    for link in ("meo", "geo"):
        assert d.estimated_seconds(base | {"link": link}) < wan / 5
    assert d.estimated_seconds({}) == pytest.approx(wan * 20 / 3)  # defaults: 100 pairs, 100 s


@pytest.fixture(scope="module")
def small_run(satnet: Program) -> dict:
    return satnet.run(SMALL, 1)  # checked against the description on the way


def test_result_has_the_contract_shape(small_run):
    params, summary, connections = (small_run[k] for k in ("params", "summary", "connections"))
    assert params["link"] == "wan" and params["clients"] == 10 and params["bufferCells"] == 1062
    assert params["mss"] == 1024 and params["window"] == 65535 and params["ssthresh"] == 56250
    for key in (
        "efficiency", "fairness", "capacity_bps", "goodput_bps", "offered_bps",
        "frames_dropped_epd", "cells_dropped_epd", "frames_lost_reassembly",
        "retransmissions", "timeouts", "fast_retransmits", "events", "wall_seconds",
    ):  # fmt: skip
        assert key in summary, key
    assert "run" not in params and "seed" not in params  # not declared parameters
    assert summary["capacity_bps"] == pytest.approx(45e6 * 1024 / 1219)
    assert len(connections) == 10
    assert {c["id"] for c in connections} == set(range(10))
    goodput = sum(c["throughput_bps"] for c in connections)
    assert summary["goodput_bps"] == pytest.approx(goodput)
    assert summary["efficiency"] == pytest.approx(goodput / summary["capacity_bps"])
    assert 0 < summary["fairness"] <= 1 and summary["events"] > 0
    for c in connections:
        assert c["throughput_bps"] <= c["scheduled_bps"] + 1e-9
        assert c["fair_share_bps"] <= c["scheduled_bps"] + 1e-9


def test_result_file_is_written_atomically(tmp_path):
    out = tmp_path / "r.json"
    proc = run_satnet_cli("--clients=2", "--simTime=2", f"--out={out}")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text())["params"]["clients"] == 2
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_same_run_gives_identical_summary_and_another_run_differs(satnet, small_run):
    again = satnet.run(SMALL, 1)
    assert stable(again["summary"]) == stable(small_run["summary"])
    assert again["connections"] == small_run["connections"]
    other = satnet.run(SMALL, 2)
    assert stable(other["summary"]) != stable(small_run["summary"])


@pytest.mark.parametrize("buffer_packets", [8, 150])
def test_slow_start_overflow_matches_barakat_altman(satnet, buffer_packets):
    cells_per_packet = 23
    params = {
        "workload": "bulk", "clients": 1, "simTime": 3, "drop": "tail", "flavor": "newreno",
        "bufferCells": buffer_packets * cells_per_packet,
        "ssthresh": 1_000_000_000, "window": 4_194_240,
    }  # fmt: skip
    result = satnet.run(params, 1)
    p = result["params"]
    mu = p["bottleneckRate"] / (cells_per_packet * 53 * 8)  # packets/s
    # Round trip of a data packet and its ACK: propagation plus each hop's transmission.
    ack_cells = 2
    rtt = (
        2 * (p["delay"] + 2 * p["accessDelay"])
        + cells_per_packet * 53 * 8 * (2 / p["accessRate"] + 1 / p["bottleneckRate"])
        + ack_cells * 53 * 8 * (2 / p["accessRate"] + 1 / p["bottleneckRate"])
    )
    expected = theorem1_wb(buffer_packets, mu * rtt, 1)
    simulated = result["connections"][0]["cwnd_at_first_drop_segments"]
    assert simulated is not None, "the buffer never overflowed"
    tolerance = max(0.10 * expected, 2)
    assert abs(simulated - expected) <= tolerance, (simulated, expected, mu * rtt)


def test_satsweep_simulate_runs_one_simulation_of_a_program(capsys):
    assert cli.main(["simulate", "satnet", "--clients=2", "--simTime=1", "--run=3", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["params"]["clients"] == 2 and len(result["connections"]) == 2
    assert cli.main(["simulate", "satnet", "--flavour=reno"]) == 2
    assert "--flavour: unknown parameter of satnet; allowed: " in capsys.readouterr().err
    # satnet's own refusal: its one line
    for flag, allowed in (
        ("--clients=10000000", "an integer >= 1 and <= 10000"),
        ("--simTime=1e12", "a number >= 1e-09 and <= 2e+06, in s or with a suffix s, ms, us"),
    ):
        assert cli.main(["simulate", "satnet", flag]) == 2
        assert capsys.readouterr().err == (
            f"satsweep simulate: error: satnet: {flag}: allowed: {allowed}\n"
        )
    assert cli.main(["simulate", "nosuch"]) == 2
    assert "'nosuch' is not a program built by this project" in capsys.readouterr().err


def test_timeout_trace_agrees_with_satnet_counts(tmp_path):
    """sim/diagnostics/timeouts.py (FIDELITY.md's trace): its tables come from satnet's log,
    which it checks against satnet's own per-connection counts; a run without the ns2 model's
    log is refused rather than traced as if it had no timeouts."""
    script = [sys.executable, str(REPO / "sim" / "diagnostics" / "timeouts.py")]
    flags = ["--clients=10", "--simTime=20", "--flavor=reno", "--bufferRtt=0.5"]
    done = subprocess.run([*script, str(tmp_path / "ns2"), *flags], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "ns2" / "result.json").read_text())
    with open(tmp_path / "ns2" / "events.csv") as f:
        events = list(csv.DictReader(f))
    timeouts = [e for e in events if e["event"] == "timeout"]
    assert 0 < len(timeouts) <= result["summary"]["timeouts"]
    assert all(float(e["rto_s"]) >= 0.2 and int(e["backoff"]) >= 2 for e in timeouts)
    with open(tmp_path / "ns2" / "occupancy.csv") as f:
        occupancy = list(csv.DictReader(f))
    assert len(occupancy) == 2000  # 20 s on a 10 ms grid
    assert all(0 <= int(r["waiting"]) <= int(r["backlogged"]) <= 10 for r in occupancy)
    assert any(int(r["waiting"]) > 0 for r in occupancy)
    assert (tmp_path / "ns2" / "trace.png").stat().st_size > 0

    refused = subprocess.run(
        [*script, str(tmp_path / "ns3"), *flags, "--tcpModel=ns3"], capture_output=True, text=True
    )
    assert refused.returncode == 1
    assert "the log does not match satnet's counts" in refused.stderr


def test_out_to_a_pipe_writes_the_pipe_and_leaves_it_a_pipe(tmp_path):
    # A rename onto --out would put a regular file in place of a device or a pipe: as root,
    # --out=/dev/null replaced the system's /dev/null with a file.
    fifo = tmp_path / "result"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    proc = run_satnet_cli("--clients=1", "--simTime=1", f"--out={fifo}")
    reader.join(timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert "efficiency" in json.loads(received[0])["summary"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result"]  # no temporary left
