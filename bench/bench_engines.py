"""Benchmark of the two engines at the paper's scale: goyal98's WAN case (100 pairs, 100 s,
SACK, EPD, 1-RTT buffer), bulk and WWW, on satnet (ns-3; tcpModel ns2 and ns3) and on the
OMNeT++/INET model (omnetpp/goyal98/; needs the OMNeT++ build of ./setup.sh).

    .venv/bin/python bench/bench_engines.py [--simTime 100] [--clients 100]

Prints, per engine and workload, wall seconds, events executed (each engine's own events: an
OMNeT++ event is not an ns-3 one), peak resident memory of the process, E and F of run 1. No
target: the figures compare the engines (omnetpp/README.md, "Run times").
"""

from __future__ import annotations

import argparse
import sys

from bench_satnet import REPO, measure

from satsweep.engine import Program

INI = REPO / "omnetpp" / "goyal98" / "omnetpp.ini"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simTime", type=float, default=100)
    parser.add_argument("--clients", type=int, default=100)
    args = parser.parse_args()
    satnet = Program.find("satnet", REPO)
    omnetpp = Program.omnetpp(INI, "Goyal98")
    engines = [
        ("satnet ns2", satnet, {"tcpModel": "ns2"}),
        ("satnet ns3", satnet, {"tcpModel": "ns3"}),
        ("omnetpp", omnetpp, {}),
    ]
    print(
        f"{'engine':11} {'workload':8} {'wall s':>7} {'events':>10} {'peak MB':>8} {'E':>6} {'F':>6}"
    )
    for workload in ("bulk", "www"):
        for name, program, extra in engines:
            flags = {"link": "wan", "flavor": "sack", "drop": "epd", "workload": workload,
                     "clients": args.clients, "simTime": args.simTime, **extra}  # fmt: skip
            m = measure(flags, program)
            print(
                f"{name:11} {workload:8} {m['wall_s']:7.2f} {m['events']:10d} "
                f"{m['peak_rss_mb']:8.1f} {m['efficiency']:6.3f} {m['fairness']:6.3f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
