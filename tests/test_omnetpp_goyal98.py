"""The goyal98 model on OMNeT++/INET (omnetpp/goyal98/): its parameters are satnet's, its ATM
port frames and drops as the study says, and a tiny study runs through `satsweep run` into
Parquet. Real OMNeT++ runs from the build of `./setup.sh` (.ci/run builds it)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from satsweep.design import load_design
from satsweep.engine import Program
from satsweep.engine.omnetpp import OmnetppAdapter
from tests.support import REPO

INI = REPO / "omnetpp" / "goyal98" / "omnetpp.ini"
SATSWEEP = Path(sys.prefix) / "bin" / "satsweep"
#: satnet parameters the OMNeT++ model has not: its ns-3 switch and TCP models, and issue 56's
#: connection per page and partial frames (the cell switch's), its ns2 sender's fast retransmit
#: guard and byte window, and the client phase with the BSD timers, not in the OMNeT++ model yet
SATNET_ONLY = {
    "switchModel",
    "tcpModel",
    "slowStartRestart",
    "connections",
    "partialFrames",
    "fastRetransmitGuard",
    "cwndUnit",
    "clientPhase",
    "timelineBin",
    "bsdTimers",
}
#: satnet summary fields the OMNeT++ model has not (ns-3's timing and memory, its idle restarts,
#: the connections its WWW clients opened and the senders reset)
SATNET_ONLY_SUMMARY = {
    "idle_restarts",
    "wall_seconds",
    "peak_rss_mb",
    "connections_opened",
    "sender_resets",
}
#: parameters whose being given changes the run (bufferRtt is resolved by a formula when
#: bottleneckRate is given, and is not allowed with bufferCells): declared without a default, so
#: that the adapter passes them only when given; the model's default is satnet's
GIVEN_OR_NOT = {"bufferRtt": 1.0, "bottleneckRate": 45e6}


@pytest.fixture(scope="module")
def goyal98() -> Program:
    return OmnetppAdapter.study(INI, "Goyal98")


@pytest.mark.omnetpp
@pytest.mark.programs
def test_parameters_and_summary_are_satnets(goyal98, satnet):
    """The same design runs on either engine by changing program: the names, kinds, choices
    and defaults are satnet's."""
    ours = {p.name: p for p in goyal98.description.parameters}
    theirs = {p.name: p for p in satnet.description.parameters}
    assert set(ours) == set(theirs) - SATNET_ONLY
    for name, p in ours.items():
        q = theirs[name]
        default = GIVEN_OR_NOT[name] if name in GIVEN_OR_NOT else p.default
        assert p.default is None or name not in GIVEN_OR_NOT
        assert (p.type, default, p.choices) == (q.type, q.default, q.choices), name
    summary = [f.name for f in goyal98.description.summary]
    assert set(summary) == {f.name for f in satnet.description.summary} - SATNET_ONLY_SUMMARY


@pytest.mark.omnetpp
@pytest.mark.programs
def test_the_engines_design_crosses_satnet_and_the_omnetpp_model():
    """goyal98-engines.yaml is one design over both engines: the factor simulator, satnet's
    tcpModel its own, and the programs agree on every parameter and response it names."""
    design = load_design(REPO / "sweeps" / "goyal98-engines.yaml")
    assert list(design.simulators) == ["ns3", "omnetpp"]
    assert design.factors["simulator"] == ["ns3", "omnetpp"]
    assert design.simulators["ns3"].fixed == {"tcpModel": "ns2"}
    crossed = design.executable
    assert [p.name for p in crossed.programs()] == ["satnet", "goyal98-omnetpp"]
    assert not set(design.parameters()) & set(crossed.differences)
    numeric = {f.name for f in design.describe.summary if f.type == "float"}
    assert {"efficiency", "fairness"} <= numeric
    assert design.n_runs == 2 * 3 * 4 * 2 * 3


@pytest.mark.omnetpp
def test_one_bulk_connection_fills_the_trunk_to_its_cell_capacity(goyal98):
    """A 1072 B datagram (MSS 1024 + 40 B headers + 8 B LLC/SNAP) is 23 cells: C = 45 Mbit/s x
    1024 / (23 x 53) = 37.80 Mbit/s, and one bulk connection (window 65535 B > the WAN's
    bandwidth-delay product) delivers almost all of it, losing nothing in a 1-RTT buffer."""
    result = goyal98.run(
        {"workload": "bulk", "clients": 1, "simTime": 5, "flavor": "reno", "drop": "epd"}, 1
    )
    s, p = result["summary"], result["params"]
    assert s["capacity_bps"] == pytest.approx(45e6 * 1024 / (23 * 53))
    assert (p["bufferCells"], p["mss"], p["delay"], p["window"]) == (1062, 1024, 0.005, 65535)
    assert {k: p[k] for k in GIVEN_OR_NOT} == GIVEN_OR_NOT
    dropped = [v for k, v in s.items() if k.startswith("cells_dropped_")]
    assert dropped and sum(dropped) == 0 and s["retransmissions"] == 0
    # slow start from one segment takes a few round trips of 10 ms of the 5 s
    assert 0.95 < s["efficiency"] <= 1.0
    assert s["fairness"] == 1.0 and s["offered_bps"] is None


@pytest.mark.omnetpp
@pytest.mark.parametrize("drop", ["epd", "sd", "tail"])
def test_a_small_buffer_drops_by_the_policy(goyal98, drop):
    """Eight bulk connections into 100 cells: EPD and SD refuse whole 23-cell frames at the
    threshold (SD only for VCs above their share), tail drop loses cells; TCP recovers."""
    s = goyal98.run(
        {
            "workload": "bulk",
            "clients": 8,
            "simTime": 3,
            "flavor": "sack",
            "drop": drop,
            "bufferCells": 100,
        },
        1,
    )["summary"]
    frames = {r: s[f"frames_dropped_{r}"] for r in ("epd", "sd", "full", "partial", "tail")}
    cells = {r: s[f"cells_dropped_{r}"] for r in ("epd", "sd", "full", "partial", "tail")}
    assert frames[drop] > 0
    others = {r for r in frames if r != drop and r not in ("full", "partial")}
    assert all(frames[r] == 0 and cells[r] == 0 for r in others), frames
    if drop in ("epd", "sd"):
        # refused whole at their first cell: every bulk data frame is 23 cells
        assert cells[drop] == 23 * frames[drop]
    assert s["retransmissions"] > 0 and s["efficiency"] > 0.5


#: goyal98's OMNeT++ designs keep OMNeT++'s seed sets, on which their stores were made
GOYAL98_OMNETPP = f"program: omnetpp\nini: {INI}\nconfig: Goyal98\nomnetpp_seeds: seed-set\n"

#: a tiny goyal98 design without its program: the same body runs on either engine
TINY = (
    "factors: {flavor: [reno, sack], drop: [epd, sd]}\n"
    "fixed: {clients: 4, simTime: 12, bufferCells: 60}\nreplications: 2\n"
    "analysis: {responses: [efficiency, fairness]}\n"
)


def run_study(tmp_path: Path, study: str, program: str) -> Path:
    """Writes the tiny design for ``program`` and runs it through `satsweep run`; returns
    the store's run table."""
    design = tmp_path / f"{study}.yaml"
    design.write_text(f"study: {study}\n{program}{TINY}")
    proc = subprocess.run(
        [str(SATSWEEP), "run", str(design), "--results", str(tmp_path / "results")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return tmp_path / "results" / study / "runs.parquet"


@pytest.mark.omnetpp
@pytest.mark.slow
def test_a_tiny_goyal98_study_runs_into_parquet_and_is_analysed(tmp_path):
    """goyal98 (WWW load) through `satsweep run` on OMNeT++: the store holds every run with
    the resolved parameters, and `satsweep analyze` gives the effects."""
    runs = run_study(tmp_path, "goyal98-tiny", GOYAL98_OMNETPP)
    rows = duckdb.sql(
        f'SELECT flavor, "drop", replication, efficiency, fairness, offered_bps, mss, '
        f"bufferRtt FROM '{runs}' ORDER BY ALL"
    ).fetchall()
    assert len(rows) == 8
    assert {(r[0], r[1]) for r in rows} == {(f, d) for f in ("reno", "sack") for d in ("epd", "sd")}
    for _, _, _, e, f, offered, mss, buffer_rtt in rows:
        # four WWW clients ask for far less than the trunk carries
        assert 0 < e < 0.5 and 0 < f <= 1 and offered > 0
        assert (mss, buffer_rtt) == (1024, 0)  # resolved: the link's MSS; bufferCells given
    analyzed = subprocess.run(
        [str(SATSWEEP), "analyze", "goyal98-tiny", "--results", str(tmp_path / "results")],
        capture_output=True,
        text=True,
    )
    assert analyzed.returncode == 0, analyzed.stderr
    assert "flavor" in analyzed.stdout and "efficiency" in analyzed.stdout


@pytest.mark.omnetpp
@pytest.mark.programs
@pytest.mark.slow
def test_a_tiny_crossed_goyal98_gives_the_engines_effect(tmp_path):
    """The tiny design on both engines as one crossed design: each run made and recorded by
    its engine's program, and `satsweep analyze` gives the effect of simulator on efficiency
    and fairness with its interval and its share of the variation."""
    simulators = (
        "simulators:\n  ns3: {program: satnet, fixed: {tcpModel: ns2}}\n"
        f"  omnetpp: {{program: omnetpp, ini: {INI}, config: Goyal98, omnetpp_seeds: seed-set}}\n"
    )
    runs = run_study(tmp_path, "tiny-engines", simulators)
    rows = duckdb.sql(
        f"SELECT simulator, program, tcpModel, count(*) FROM '{runs}' GROUP BY ALL ORDER BY ALL"
    ).fetchall()
    assert rows == [("ns3", "satnet", "ns2", 8), ("omnetpp", "goyal98-omnetpp", None, 8)]
    analyzed = subprocess.run(
        [str(SATSWEEP), "analyze", "tiny-engines", "--results", str(tmp_path / "results")],
        capture_output=True,
        text=True,
    )
    assert analyzed.returncode == 0, analyzed.stderr
    for response in ("efficiency", "fairness"):
        section = analyzed.stdout.split(f"## {response}")[1].split("\n## ")[0]
        assert re.search(r"\n\| simulator \| \S+ \| 1 \| [0-9.]+ \|", section), section
        for level in ("ns3", "omnetpp"):
            assert re.search(rf"\n\| simulator \| {level} \| \S+ \| \[\S+, \S+\] \|", section)


@pytest.mark.omnetpp
def test_a_fast_retransmit_after_a_timeout_with_sack_runs_past_inet_s_empty_chunk():
    """The run that met INET 4.5's empty chunk under `omnetpp_seeds: run` (SACK, SD,
    replication 1 of the tiny design; omnetpp/README.md, "An INET defect, mended"): a fast
    retransmit after a timeout, with all later data SACKed or resent, now resends snd_una."""
    program = OmnetppAdapter.study(INI, "Goyal98", "run")
    params = {"flavor": "sack", "drop": "sd", "clients": 4, "simTime": 12, "bufferCells": 60}
    summary = program.run(params, 4456759086782185473)["summary"]
    assert summary["timeouts"] > 0 and 0 < summary["efficiency"] < 1
