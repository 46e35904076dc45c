"""Issue 30, items 2 and 4 (docs/ns3.md): a plain ns-3 program, written as ns-3's own examples
are (CommandLine arguments with string rates and delays, results printed with std::cout and a
CSV file it writes), comes in as it is: ``program: ns3`` builds it against satsweep's ns-3,
finds its parameters with ``--PrintHelp``, passes ``--run`` as ``--RngRun`` and reads its
summary and table as its declaration says; from a folder outside the checkout.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from satsweep.engine.ns3 import _inferred, print_help
from tests.support import REPO

SATSWEEP = Path(sys.prefix) / "bin" / "satsweep"

#: A program in the style of ns-3's examples/tutorial/first.cc, nobody's for satsweep.
SCRIPT = r"""
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include <fstream>
#include <iostream>

using namespace ns3;

static std::ofstream g_rx;
static uint32_t g_received = 0;

static void
Received(Ptr<const Packet> packet)
{
    g_rx << ++g_received << "," << Simulator::Now().GetSeconds() << "\n";
}

int
main(int argc, char* argv[])
{
    std::string dataRate = "5Mbps";
    std::string delay = "2ms";
    uint32_t nPackets = 10;
    bool verbose = false;
    CommandLine cmd(__FILE__);
    cmd.AddValue("dataRate", "the link's data rate", dataRate);
    cmd.AddValue("delay", "the link's one-way delay", delay);
    cmd.AddValue("nPackets", "number of packets to echo", nPackets);
    cmd.AddValue("verbose", "log the echo applications", verbose);
    cmd.Parse(argc, argv);

    NodeContainer nodes;
    nodes.Create(2);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(dataRate));
    p2p.SetChannelAttribute("Delay", StringValue(delay));
    NetDeviceContainer devices = p2p.Install(nodes);
    InternetStackHelper stack;
    stack.Install(nodes);
    Ipv4AddressHelper address;
    address.SetBase("10.1.1.0", "255.255.255.0");
    Ipv4InterfaceContainer interfaces = address.Assign(devices);
    UdpEchoServerHelper server(9);
    server.Install(nodes.Get(1)).Start(Seconds(1.0));
    UdpEchoClientHelper client(interfaces.GetAddress(1), 9);
    client.SetAttribute("MaxPackets", UintegerValue(nPackets));
    client.SetAttribute("PacketSize", UintegerValue(1024));
    ApplicationContainer apps = client.Install(nodes.Get(0));
    Ptr<UniformRandomVariable> start = CreateObject<UniformRandomVariable>();
    double at = 2.0 + start->GetValue(0, 0.5);
    apps.Start(Seconds(at));
    g_rx.open("received.csv");
    g_rx << "packet,time\n";
    apps.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&Received));
    Simulator::Run();
    Simulator::Destroy();
    g_rx.close();
    std::cout << "client started at " << at << " s" << std::endl;
    std::cout << "echoed " << g_received << " packets" << std::endl;
    return 0;
}
"""

DECLARATION = """\
name: echo
version: "1.0"
parameters:
  - name: dataRate          # --PrintHelp says "[5Mbps]": a number in Mbit/s, the unit attached
    type: float
    unit: Mbps
  - name: interval          # an ns-3 attribute the program leaves at its default
    type: string
    default: 1s
    set: ns3::UdpEchoClient::Interval
summary:
  - name: start
    type: float
    unit: s
    stdout: "client started at ([0-9.]+) s"
  - name: echoed
    type: int
    stdout: "echoed (\\\\d+) packets"
  - name: last
    type: float
    unit: s
    file: received.csv
    column: time
tables:
  received:
    file: received.csv
    columns:
      - {name: packet, type: int}
      - {name: time, type: float, unit: s}
"""

DESIGN = """\
study: echo
program: ns3
script: model/echo.cc
factors:
  dataRate: [1, 5]
  delay: [2ms, 20ms]
fixed: {nPackets: 4, interval: 0.2s}
replications: 2
analysis: {responses: [last]}
"""


def test_print_help_gives_the_program_s_own_options():
    text = (
        "echo [Program Options] [General Arguments]\n\nProgram Options:\n"
        "    --dataRate:  the link's data rate [5Mbps]\n"
        "    --n:         a count [10]\n"
        "    --on:        a switch [false]\n"
        "    --name:      no default\n\n"
        "General Arguments:\n    --PrintHelp:                 Print this help message.\n"
    )
    assert print_help(text) == [
        ("dataRate", "the link's data rate", "5Mbps"),
        ("n", "a count", "10"),
        ("on", "a switch", "false"),
        ("name", "no default", None),
    ]
    assert [_inferred(d) for d in ("5Mbps", "10", "0.5", "false", None)] == [
        ("string", "5Mbps"), ("int", 10), ("float", 0.5), ("bool", False), ("string", None),
    ]  # fmt: skip


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> Path:
    """The program, its declaration and a design, in a folder outside the checkout, run."""
    folder = tmp_path_factory.mktemp("ns3-study")
    assert not folder.resolve().is_relative_to(REPO.resolve())
    (folder / "model").mkdir()
    (folder / "model" / "echo.cc").write_text(SCRIPT)
    (folder / "model" / "satsweep.yaml").write_text(DECLARATION)
    (folder / "echo.yaml").write_text(DESIGN)
    proc = cli(folder, "run", "echo.yaml")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return folder


def cli(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(SATSWEEP), *args], cwd=folder, capture_output=True, text=True, timeout=900
    )


@pytest.mark.programs
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_its_parameters_come_from_print_help_as_declared(study):
    recorded = json.loads((study / "results" / "echo" / "design.json").read_text())
    parameters = {p["name"]: p for p in recorded["describe"]["parameters"]}
    assert list(parameters) == ["dataRate", "delay", "nPackets", "verbose", "interval"]
    rate = parameters["dataRate"]
    assert (rate["type"], rate["unit"], rate["default"]) == ("float", "Mbps", 5.0)
    assert (parameters["nPackets"]["type"], parameters["nPackets"]["default"]) == ("int", 10)
    assert (parameters["verbose"]["type"], parameters["verbose"]["default"]) == ("bool", False)
    assert parameters["delay"]["help"] == "the link's one-way delay"


@pytest.mark.programs
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_runs_land_with_the_summary_and_table_it_printed_and_wrote(study):
    runs = study / "results" / "echo" / "runs.parquet"
    rows = duckdb.sql(
        f"SELECT dataRate, delay, replication, start, echoed, last FROM '{runs}' ORDER BY ALL"
    ).fetchall()
    assert len(rows) == 8
    assert all(
        echoed == 4 and 2.0 <= start <= 2.5 and last > start for *_, start, echoed, last in rows
    )
    # --run became --RngRun: the replications of a configuration start at different times
    for config in {(r[0], r[1]) for r in rows}:
        starts = [r[3] for r in rows if (r[0], r[1]) == config]
        assert len(set(starts)) == 2
    # the delay reached the link: the last echo comes back 2 x 18 ms later at 20ms than at 2ms
    table = study / "results" / "echo" / "received.parquet"
    (n,) = duckdb.sql(f"SELECT count(*) FROM '{table}'").fetchone()
    assert n == 8 * 4
    # the attribute reached ns-3: 4 packets 0.2 s apart, the last echo after 0.6 s and a round trip
    assert all(0.6 < last - start < 0.7 for *_, start, _, last in rows)
    gap = dict(
        duckdb.sql(f"SELECT delay, avg(last - start) FROM '{runs}' GROUP BY delay").fetchall()
    )
    assert gap["20ms"] - gap["2ms"] == pytest.approx(2 * 0.018, abs=0.002)


@pytest.mark.programs
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_analyze_and_report_name_its_factors(study):
    analyzed = cli(study, "analyze", "echo")
    assert analyzed.returncode == 0, analyzed.stderr
    assert "dataRate" in analyzed.stdout and "delay" in analyzed.stdout
    reported = cli(study, "report", "echo")
    assert reported.returncode == 0, reported.stderr
    assert "dataRate" in (study / "results" / "echo" / "report" / "report.md").read_text()


@pytest.mark.programs
@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize(
    ("declaration", "said"),
    [
        (DECLARATION.replace("name: dataRate", "name: rate"),
         "parameter 'rate' is not one of the program's (--PrintHelp); allowed: dataRate, delay"),
        (DECLARATION.replace('stdout: "client started at ([0-9.]+) s"', "file: ../x.csv\n    column: a"),
         "summary field 'start': file '../x.csv'; allowed: a file name in the run's folder"),
        (DECLARATION + "cost: {per: [nodes], seconds: 0.1}\n", "cost: 'nodes' is not a parameter"),
    ],
)  # fmt: skip
def test_a_bad_declaration_is_refused_naming_the_field(study, tmp_path, declaration, said):
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "echo.cc").write_text(SCRIPT)
    (tmp_path / "model" / "satsweep.yaml").write_text(declaration)
    (tmp_path / "echo.yaml").write_text(DESIGN)
    proc = cli(tmp_path, "plan", "echo.yaml")
    assert proc.returncode == 2
    assert said in proc.stderr, proc.stderr
    assert not (tmp_path / "results").exists()
