"""Benchmark: `satsweep plan` and `satsweep status` on designs of 10^4 to 10^8 runs.

Run: .venv/bin/python bench/bench_plan.py [--sizes 100x100,1000x1000,10000x10000,1000000x1]
Each size is CONFIGURATIONS x REPLICATIONS of a satnet design with an empty store (nothing
run yet); each command runs once as its own process (`--max-runs` set to the design's size),
and its wall time and peak RSS (the process's ru_maxrss) are printed. Their cost should grow
with the configurations, not with the runs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

SIZES = "100x100,1000x1000,10000x10000,1000000x1"


def design(configurations: int, replications: int) -> dict:
    """A satnet design of ``configurations`` (clients x simTime levels) x ``replications``."""
    clients = min(configurations, 1000)
    times = configurations // clients
    return {
        "study": f"plan-{configurations}x{replications}",
        "program": "satnet",
        "factors": {
            "clients": list(range(1, clients + 1)),
            "simTime": [float(t) for t in range(1, times + 1)],
        },
        "replications": replications,
    }


def measure(command: list[str]) -> tuple[float, float, int]:
    """(wall seconds, peak RSS in MB, exit code) of one process."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 3):  # status: 3 = runs missing, as here
        raise SystemExit(f"{' '.join(command)} failed: {proc.stderr.read().decode()}")
    return seconds, usage.ru_maxrss / 1024, proc.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=SIZES, help=f"CONFIGSxREPS,... (default {SIZES})")
    args = parser.parse_args()
    satsweep = [sys.executable, "-m", "satsweep.cli"]
    print(f"{'configurations':>14} {'replications':>12} {'runs':>11}  command  wall s  peak MB")
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes.split(","):
            configurations, replications = (int(part) for part in size.split("x"))
            runs = configurations * replications
            path = Path(tmp) / f"{size}.yaml"
            path.write_text(yaml.safe_dump(design(configurations, replications)))
            for command in ("plan", "status"):
                seconds, peak, _ = measure(
                    [*satsweep, command, str(path), "--max-runs", str(runs), "--results", tmp]
                )
                print(
                    f"{configurations:>14} {replications:>12} {runs:>11}  {command:<7} "
                    f"{seconds:>7.2f}  {peak:>7.0f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
