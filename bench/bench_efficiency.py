"""A local sweep's efficiency: busy slot-seconds over allocated slot-seconds, by the shape of
its design (issue 53, item 1: runs, not configurations, as the unit of work).

    .venv/bin/python bench/bench_efficiency.py [--cores 2] [--length 0.5] [--pairs 3]
        [--shapes 3x8,2x12,24x1,12x2] [--base /tmp/base]

Compiles bench/programs/spin.c (a run spins --seconds of its own CPU) with `cc -O2` into a
scratch directory. For each shape CxR (C configurations of R replications each, runs of
--length s), it times `satsweep run DESIGN --cores CORES` into a fresh results directory
(everything a user waits for: start, workers, runs, compaction), --pairs times, and reads the
runs' own seconds (runs.parquet's elapsed_seconds) from the store. It prints, per shape:

- wall: the median sweep's wall seconds;
- ideal: C x R x length / CORES plus satsweep's fixed start, the median wall seconds of a sweep
  of one run of 0 s (measured the same way): what a sweep that kept every slot busy would take;
- wall / ideal (the target for 3x8 of 0.5 s on 2 cores: <= 1.10);
- efficiency: the runs' seconds over CORES x wall (slot-seconds busy over allocated; the fixed
  start counts as idle, so a short sweep cannot reach 1).

With ``--base DIR`` (another checkout, e.g. `git worktree add /tmp/base HEAD` before a
change), each measurement also runs with PYTHONPATH=DIR, alternating with this checkout, so
that the other load of the machine weighs on both alike, and both are printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb
import yaml

REPO = Path(__file__).resolve().parent.parent
SPIN = REPO / "bench" / "programs" / "spin.c"
TARGET = 1.10  # wall / ideal for few configurations x many replications


def say(text: str) -> None:
    print(text, flush=True)


class Side:
    """The satsweep a measurement runs: this checkout's, or another's by PYTHONPATH."""

    def __init__(self, name: str, path: Path | None) -> None:
        self.name = name
        self.env = dict(os.environ)
        if path is not None:
            self.env["PYTHONPATH"] = str(path)  # before the editable install's path
        where = subprocess.run(
            [sys.executable, "-c", "import satsweep; print(satsweep.__file__)"],
            env=self.env,
            cwd="/",  # not the checkout: the working directory comes first on sys.path
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        say(f"{name}: satsweep from {where}")


class Bench:
    def __init__(self, scratch: Path, cores: int, length: float) -> None:
        self.scratch = scratch
        self.cores = cores
        self.length = length
        subprocess.run(["cc", "-O2", "-o", str(scratch / "spin"), str(SPIN)], check=True)
        self.fresh = 0

    def design(self, configurations: int, replications: int, length: float) -> tuple[Path, str]:
        study = f"eff-{configurations}x{replications}-{length:g}"
        path = self.scratch / f"{study}.yaml"
        path.write_text(
            yaml.safe_dump(
                {
                    "study": study,
                    "program": "./spin",  # beside the design file
                    "factors": {"x": list(range(configurations))},
                    "fixed": {"seconds": length},
                    "replications": replications,
                    "base_seed": 1,
                },
                sort_keys=False,
            )
        )
        return path, study

    def sweep(self, side: Side, design: Path, study: str) -> tuple[float, float]:
        """Wall seconds of a sweep into a fresh results directory, and its runs' seconds."""
        self.fresh += 1
        results = self.scratch / f"results-{self.fresh}"
        command = [sys.executable, "-m", "satsweep.cli", "run", str(design),
                   "--results", str(results), "--cores", str(self.cores)]  # fmt: skip
        start = time.perf_counter()
        # in the scratch directory: the checkout's satsweep would shadow PYTHONPATH's
        proc = subprocess.run(
            command, env=side.env, cwd=self.scratch, capture_output=True, text=True
        )
        wall = time.perf_counter() - start
        if proc.returncode:
            raise SystemExit(f"{side.name}: satsweep run failed:\n{proc.stdout}{proc.stderr}")
        busy = duckdb.execute(
            "SELECT sum(elapsed_seconds) FROM read_parquet(?)",
            [str(results / study / "runs.parquet")],
        ).fetchone()[0]
        return wall, float(busy)


def shape(text: str) -> tuple[int, int]:
    configurations, _, replications = text.partition("x")
    return int(configurations), int(replications)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--length", type=float, default=0.5, help="seconds a run spins")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--shapes", default="3x8,2x12,24x1,12x2", help="CxR, comma-separated")
    parser.add_argument("--base", type=Path, help="another checkout to measure beside this one")
    args = parser.parse_args()
    sides = [Side("this", None)]
    if args.base is not None:
        sides.insert(0, Side("base", args.base))
    shapes = [shape(part) for part in args.shapes.split(",") if part]
    with tempfile.TemporaryDirectory(prefix="bench-efficiency-") as scratch:
        bench = Bench(Path(scratch), args.cores, args.length)
        fixed: dict[str, list[float]] = {side.name: [] for side in sides}
        one, one_study = bench.design(1, 1, 0.0)
        for _ in range(args.pairs):
            for side in sides:
                fixed[side.name].append(bench.sweep(side, one, one_study)[0])
        starts = {name: statistics.median(times) for name, times in fixed.items()}
        for name, seconds in starts.items():
            say(f"{name}: fixed start (a sweep of one run of 0 s): {seconds:.2f} s")
        rows = []
        for configurations, replications in shapes:
            design, study = bench.design(configurations, replications, args.length)
            measured: dict[str, list[tuple[float, float]]] = {side.name: [] for side in sides}
            for pair in range(1, args.pairs + 1):
                for side in sides:  # alternating
                    wall, busy = bench.sweep(side, design, study)
                    measured[side.name].append((wall, busy))
                    say(f"  {configurations}x{replications} {side.name} {pair}/{args.pairs}: "
                        f"{wall:.2f} s, runs {busy:.2f} s")  # fmt: skip
            for side in sides:
                walls = [wall for wall, _ in measured[side.name]]
                wall = statistics.median(walls)
                busy = statistics.median(b for _, b in measured[side.name])
                ideal = configurations * replications * args.length / args.cores
                ideal += starts[side.name]
                rows.append((f"{configurations}x{replications}", side.name, wall, min(walls),
                             ideal, wall / ideal, busy / (args.cores * wall)))  # fmt: skip
    say("")
    say(f"{args.cores} cores, runs of {args.length:g} s (spin), medians of {args.pairs}")
    say(f"{'shape':>6} {'side':>5} {'wall s':>7} {'min s':>6} {'ideal s':>7} "
        f"{'wall/ideal':>10} {'efficiency':>10}")  # fmt: skip
    for name, side, wall, least, ideal, ratio, efficiency in rows:
        say(f"{name:>6} {side:>5} {wall:7.2f} {least:6.2f} {ideal:7.2f} {ratio:10.3f} "
            f"{efficiency:10.3f}")  # fmt: skip
    say(f"target: wall/ideal <= {TARGET:.2f} for 3x8 of 0.5 s on 2 cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
