"""Benchmark of the simulator at the paper's scale: 100 WWW pairs, 100 s simulated.

    .venv/bin/python bench/bench_satnet.py [--links wan,geo] [--simTime 100]

Prints, per configuration, wall seconds, events executed, events per second and peak resident
memory of the satnet process (from the kernel's rusage of the child, not satnet's own report).
Targets on the 2-core reference machine: WAN <= 60 s (issue 11: the cell-interleaving trunk port
and ns-2 senders, the defaults, may cost that much), GEO <= 8 s, peak memory <= 200 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from satsweep.engine import Program

REPO = Path(__file__).resolve().parent.parent

TARGETS = {"wan": 60.0, "meo": 8.0, "geo": 8.0}
MEMORY_TARGET_MB = 200.0


def measure(flags: dict[str, object], program: Program | None = None) -> dict[str, float]:
    """Runs ``program`` (default satnet) once; returns wall seconds, events and peak RSS (MB)
    of the process, efficiency and fairness."""
    program = program or Program.find("satnet", REPO)
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "result.json"
        command = program.command(flags, 1, out)
        start = time.perf_counter()
        proc = subprocess.Popen(command, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{program.name} failed: {proc.stderr.read().decode()}")
        summary = json.loads(out.read_text())["summary"]
    return {
        "wall_s": wall,
        "events": summary["events"],
        "events_per_s": summary["events"] / wall,
        "peak_rss_mb": usage.ru_maxrss / 1024,
        "efficiency": summary["efficiency"],
        "fairness": summary["fairness"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--links", default="wan,geo")
    parser.add_argument("--simTime", type=float, default=100)
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--flavor", default="sack")
    parser.add_argument("--drop", default="sd")
    args = parser.parse_args()
    print(
        f"{'link':5} {'wall s':>8} {'events':>10} {'events/s':>10} {'peak MB':>8} {'E':>6}  target"
    )
    for link in args.links.split(","):
        flags = {"link": link, "clients": args.clients, "simTime": args.simTime,
                 "flavor": args.flavor, "drop": args.drop}  # fmt: skip
        m = measure(flags)
        ok = m["wall_s"] <= TARGETS[link] and m["peak_rss_mb"] <= MEMORY_TARGET_MB
        print(
            f"{link:5} {m['wall_s']:8.2f} {m['events']:10d} {m['events_per_s']:10.0f} "
            f"{m['peak_rss_mb']:8.1f} {m['efficiency']:6.3f}  "
            f"<= {TARGETS[link]:.0f} s, <= {MEMORY_TARGET_MB:.0f} MB: {'met' if ok else 'MISSED'}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
