"""A sweep's efficiency, locally and through Ray: busy slot-seconds over allocated
slot-seconds, by the shape of its design (issue 53, item 1: runs, not configurations, as the
unit of work).

    .venv/bin/python bench/bench_efficiency.py [--cores 2] [--length 0.5] [--pairs 3]
        [--shapes 3x8,2x12,24x1,12x2] [--base /tmp/base]
        [--ray-slots 3 --ray-shapes 2x30 --ray-length 1]

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

With ``--ray-slots S``, the remote case too: `satsweep run DESIGN --executor ray --jobs S`
on a Ray cluster of one node of S CPUs that the bench starts on this machine
(bench/local_ray.py: token authentication, stopped by PID at the end, never `ray stop`), for
each of --ray-shapes, of runs of a program that sleeps --ray-length s (a Python script under
the contract, written to the scratch directory, its cost hint its sleep): sleeping, S slots
stand for S nodes on a machine of fewer cores. It prints the wall, the ideal (C x R x
length / S plus the fixed start of a one-run sweep through Ray), the efficiency over the
sweep's wall (S x wall allocated) and over the runs' span (S x the first run's start to the
last run's end: the slots' use once the jobs run, without Snakemake's and Ray's start), and
the Ray jobs the sweep ran.

With ``--base DIR`` (another checkout, e.g. `git archive HEAD | tar -x -C /tmp/base` before a
change), each measurement also runs with PYTHONPATH=DIR, alternating with this checkout, so
that the other load of the machine weighs on both alike, and both are printed with the ratio
this / base; through Ray each side has a cluster of its own (its jobs import that side's
satsweep), both up during every measurement.
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
from local_ray import LocalRay  # bench/local_ray.py, beside this script

REPO = Path(__file__).resolve().parent.parent
SPIN = REPO / "bench" / "programs" / "spin.c"
TARGET = 1.10  # wall / ideal for few configurations x many replications
RAY_TARGET = 0.85  # efficiency through Ray, 2 configurations x 30 runs of 1 s on 3 slots

#: A program under the engine contract that sleeps --seconds (its cost hint) and prints a
#: number of its --run: a remote slot's run without the CPU, so that 3 slots fit 2 cores.
NAP = """\
#!{python}
import json, sys, time
if sys.argv[1:] == ["--describe"]:
    print(json.dumps({{
        "name": "nap", "version": "1",
        "parameters": [
            {{"name": "seconds", "type": "float", "default": 1.0, "minimum": 0, "help": "sleep"}},
            {{"name": "x", "type": "int", "default": 0, "help": "a factor without effect"}}],
        "summary": [{{"name": "y", "type": "float", "help": "a number from --run"}}],
        "cost": {{"per": ["seconds"], "seconds": 1.0}}}}))
    sys.exit(0)
args = dict(a[2:].split("=", 1) for a in sys.argv[1:])
time.sleep(float(args.get("seconds", 1.0)))
summary = {{"y": int(args["run"]) % 1000}}
params = {{"seconds": float(args.get("seconds", 1.0)), "x": int(args.get("x", 0))}}
json.dump({{"params": params, "summary": summary}}, open(args["out"], "w"))
"""


def say(text: str) -> None:
    print(text, flush=True)


class Side:
    """The satsweep a measurement runs: this checkout's, or another's by PYTHONPATH."""

    def __init__(self, name: str, path: Path | None) -> None:
        self.name = name
        self.path = path
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
        nap = scratch / "nap"
        nap.write_text(NAP.format(python=sys.executable))
        nap.chmod(0o755)
        self.fresh = 0

    def design(
        self, configurations: int, replications: int, length: float, program: str = "spin"
    ) -> tuple[Path, str]:
        study = f"eff-{program}-{configurations}x{replications}-{length:g}"
        path = self.scratch / f"{study}.yaml"
        path.write_text(
            yaml.safe_dump(
                {
                    "study": study,
                    "program": f"./{program}",  # beside the design file
                    "factors": {"x": list(range(configurations))},
                    "fixed": {"seconds": length},
                    "replications": replications,
                    "base_seed": 1,
                },
                sort_keys=False,
            )
        )
        return path, study

    def sweep(
        self, side: Side, design: Path, study: str, ray: LocalRay | None = None
    ) -> tuple[float, float]:
        """Wall seconds of a sweep into a fresh results directory, and its runs' seconds."""
        return self.measure(side, design, study, ray)[:2]

    def measure(
        self, side: Side, design: Path, study: str, ray: LocalRay | None = None
    ) -> tuple[float, float, float, int]:
        """A sweep into a fresh results directory (locally, or through ``ray``, the side's
        cluster): its wall seconds, its runs' seconds, their span (first start to last end)
        and the Ray jobs it ran."""
        self.fresh += 1
        results = self.scratch / f"results-{self.fresh}"
        command = [sys.executable, "-m", "satsweep.cli", "run", str(design),
                   "--results", str(results)]  # fmt: skip
        env = side.env
        if ray is None:
            command += ["--cores", str(self.cores)]
        else:
            command += ["--executor", "ray", "--jobs", str(ray.slots)]
            env = ray.env
        start = time.perf_counter()
        # in the scratch directory: the checkout's satsweep would shadow PYTHONPATH's
        proc = subprocess.run(command, env=env, cwd=self.scratch, capture_output=True, text=True)
        wall = time.perf_counter() - start
        if proc.returncode:
            raise SystemExit(f"{side.name}: satsweep run failed:\n{proc.stdout}{proc.stderr}")
        busy, span = duckdb.execute(
            "SELECT sum(elapsed_seconds), epoch(max(started_at + to_microseconds("
            "(elapsed_seconds * 1e6)::BIGINT)) - min(started_at)) FROM read_parquet(?)",
            [str(results / study / "runs.parquet")],
        ).fetchone()
        jobs = len(list((results / study / ".snakemake" / "ray_logs").rglob("*.log")))
        return wall, float(busy), float(span), jobs


class SideRay(LocalRay):
    """A side's Ray cluster: its Ray workers, and so its jobs, import the side's satsweep."""

    def __init__(self, root: Path, slots: int, side: Side) -> None:
        self.slots = slots
        saved = os.environ.get("PYTHONPATH")
        if side.path is not None:  # LocalRay puts the plugin before this process's PYTHONPATH
            os.environ["PYTHONPATH"] = str(side.path)
        try:
            super().__init__(root, slots)
        finally:
            if saved is None:
                os.environ.pop("PYTHONPATH", None)
            else:
                os.environ["PYTHONPATH"] = saved


def shape(text: str) -> tuple[int, int]:
    configurations, _, replications = text.partition("x")
    return int(configurations), int(replications)


def local(bench: Bench, sides: list[Side], args: argparse.Namespace) -> None:
    """The local shapes: a table of wall, ideal and efficiency per shape and side."""
    shapes = [shape(part) for part in args.shapes.split(",") if part]
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


def remote(bench: Bench, sides: list[Side], args: argparse.Namespace) -> None:
    """The shapes through Ray, each side on a cluster of its own of --ray-slots CPUs: a table
    of wall, ideal, efficiencies and jobs per shape and side, and this / base."""
    slots = args.ray_slots
    shapes = [shape(part) for part in args.ray_shapes.split(",") if part]
    clusters: dict[str, SideRay] = {}
    rows = []
    try:
        for side in sides:
            clusters[side.name] = SideRay(bench.scratch / f"ray-{side.name}", slots, side)
        fixed: dict[str, list[float]] = {side.name: [] for side in sides}
        one, one_study = bench.design(1, 1, 0.0, "nap")
        for _ in range(args.pairs):
            for side in sides:
                fixed[side.name].append(bench.sweep(side, one, one_study, clusters[side.name])[0])
        starts = {name: statistics.median(times) for name, times in fixed.items()}
        for name, seconds in starts.items():
            say(f"{name}: fixed start through Ray (a sweep of one run of 0 s): {seconds:.2f} s")
        for configurations, replications in shapes:
            design, study = bench.design(configurations, replications, args.ray_length, "nap")
            measured: dict[str, list[tuple[float, float, float, int]]] = {
                side.name: [] for side in sides
            }
            for pair in range(1, args.pairs + 1):
                for side in sides:  # alternating
                    got = bench.measure(side, design, study, clusters[side.name])
                    measured[side.name].append(got)
                    wall, busy, span, jobs = got
                    say(f"  ray {configurations}x{replications} {side.name} {pair}/{args.pairs}: "
                        f"{wall:.2f} s, runs {busy:.2f} s over {span:.2f} s, {jobs} jobs")  # fmt: skip
            for side in sides:
                got = measured[side.name]
                wall = statistics.median(m[0] for m in got)
                busy = statistics.median(m[1] for m in got)
                span = statistics.median(m[2] for m in got)
                jobs = statistics.median(m[3] for m in got)
                ideal = configurations * replications * args.ray_length / slots
                ideal += starts[side.name]
                rows.append((f"{configurations}x{replications}", side.name, wall, ideal,
                             wall / ideal, busy / (slots * wall), busy / (slots * span), jobs))  # fmt: skip
    finally:
        for name, cluster in clusters.items():
            left = cluster.stop()
            if left:
                say(f"{name}: Ray processes left: {left}")
    say("")
    say(f"through Ray, {slots} slots, runs of {args.ray_length:g} s (nap), medians of {args.pairs}")
    say(f"{'shape':>6} {'side':>5} {'wall s':>7} {'ideal s':>7} {'wall/ideal':>10} "
        f"{'eff wall':>8} {'eff span':>8} {'jobs':>5}")  # fmt: skip
    for name, side, wall, ideal, ratio, over_wall, over_span, jobs in rows:
        say(f"{name:>6} {side:>5} {wall:7.2f} {ideal:7.2f} {ratio:10.3f} {over_wall:8.3f} "
            f"{over_span:8.3f} {jobs:5g}")  # fmt: skip
    if len(sides) == 2:
        for i in range(0, len(rows), 2):
            base, this = rows[i], rows[i + 1]
            say(f"{this[0]:>6} this / base: wall {this[2] / base[2]:.3f}, efficiency over the "
                f"wall {this[5] / base[5]:.3f}, over the span {this[6] / base[6]:.3f}")  # fmt: skip
    say(f"target: efficiency >= {RAY_TARGET:.2f} for 2x30 of 1 s on 3 slots")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--length", type=float, default=0.5, help="seconds a run spins")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--shapes", default="3x8,2x12,24x1,12x2", help="CxR, comma-separated")
    parser.add_argument("--base", type=Path, help="another checkout to measure beside this one")
    parser.add_argument("--ray-slots", type=int, help="also through a Ray cluster of S CPUs")
    parser.add_argument("--ray-shapes", default="2x30", help="CxR through Ray, comma-separated")
    parser.add_argument("--ray-length", type=float, default=1.0, help="seconds a run sleeps")
    args = parser.parse_args()
    sides = [Side("this", None)]
    if args.base is not None:
        sides.insert(0, Side("base", args.base))
    with tempfile.TemporaryDirectory(prefix="bench-efficiency-") as scratch:
        bench = Bench(Path(scratch), args.cores, args.length)
        if args.shapes:
            local(bench, sides, args)
        if args.ray_slots:
            remote(bench, sides, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
