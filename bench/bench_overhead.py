"""Benchmark of satsweep's fixed and per-run overhead, against `xargs -P` running the same runs.

    .venv/bin/python bench/bench_overhead.py [--lengths 0.01,0.05,0.5,5] [--counts 100,1000,10000]
        [--cores 2] [--pairs 2] [--budget 200] [--fixed-max 10000] [--replications 1,100]
        [--executor ray [--group-size K]]

Compiles bench/programs/spin.c (a program under the engine contract that spins for --seconds of
its own CPU time) with `cc -O2` into a scratch directory. For each cell of run length L seconds
x N runs (N configurations of one run each: the worst case for the cost per job) whose
simulation, L x N core-seconds, fits in --budget, it times, alternating, --pairs times each:

- `xargs -P CORES -L 1` over the N command lines of the runs, as satsweep builds them
  (Program.command: the program, its parameters, --run, --out): the baseline;
- `satsweep run DESIGN --cores CORES` into a fresh results directory (its start, its workers',
  the runs, the compaction: everything a user waits for);
- with ``--executor ray``, also `satsweep run DESIGN --executor ray --jobs CORES` (and
  ``--group-size K`` when given) on a Ray cluster of one node of CORES CPUs that the bench
  starts on this machine (bench/local_ray.py: token authentication, stopped by PID at the end,
  never `ray stop`); it is up during the other sides' measurements too, idle;

and prints each side's median and min, the ratio satsweep / xargs of the medians and the
overhead per run, (satsweep - xargs) x CORES / N, in core-milliseconds. With Ray, a second
table: Ray's median beside the local one, the ratios ray / local and ray / xargs, the overhead
per run (ray - local) x CORES / N in core-seconds, the Snakemake jobs Ray ran (the remote
executors group configurations into jobs: workflow/README.md, "Batching") and the same
overhead per Ray job, (ray - local) x CORES / jobs. Then the fixed costs, on a complete store
of N runs of L = 0 (made by `satsweep run` itself) for each N up to --fixed-max, in each shape
of --replications R that divides N (N / R configurations of R replications each: R = 1 is the
most configurations, whose expansion and folders cost the most): `satsweep run` again with
nothing to do, `satsweep status`; and once a sweep of a single run of L = 0 from
scratch (through Ray too, with ``--executor ray``), against xargs running that run.

Targets on the 2-core reference machine: satsweep / xargs <= 1.15 for L >= 0.05 at N = 1000;
nothing to do in under 1 s for 10^4 runs. The ratio depends on the machine: a run of spin
costs L seconds of CPU on any processor, satsweep's own work costs more on a slower one. Through
Ray a group of configurations is one job of one process, as a local worker is, but each job
pays a Ray task's start and a Python start of its own: see docs/performance.md.
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq
import yaml

from local_ray import LocalRay  # bench/local_ray.py, beside this script
from satsweep.design import load_design

REPO = Path(__file__).resolve().parent.parent
SPIN = REPO / "bench" / "programs" / "spin.c"
RATIO_TARGET = 1.15  # for L >= RATIO_MIN_LENGTH at N = RATIO_COUNT
RATIO_MIN_LENGTH = 0.05
RATIO_COUNT = 1000
IDLE_TARGET = 1.0  # seconds of `satsweep run` with nothing to do, at N = IDLE_COUNT
IDLE_COUNT = 10_000
SATSWEEP = [sys.executable, "-m", "satsweep.cli"]


def say(text: str) -> None:
    print(text, flush=True)


def floats(text: str) -> list[float]:
    return [float(part) for part in text.split(",") if part]


def ints(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part]


@dataclass
class Times:
    """The wall seconds of one side's repetitions."""

    seconds: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def least(self) -> float:
        return min(self.seconds)


@dataclass
class Cell:
    length: float
    count: int
    xargs: Times
    satsweep: Times
    ray: Times | None = None  # `satsweep run --executor ray`, when measured
    ray_jobs: list[int] | None = None  # the Snakemake jobs Ray ran, per repetition

    @property
    def ratio(self) -> float:
        return self.satsweep.median / self.xargs.median

    def ray_overhead(self, cores: int) -> float:
        """Core-seconds per run that the Ray executor spends beyond the local one."""
        return (self.ray.median - self.satsweep.median) * cores / self.count

    def ray_job_overhead(self, cores: int) -> float:
        """The same per Snakemake job that Ray ran (the median of the repetitions' counts)."""
        return (self.ray.median - self.satsweep.median) * cores / statistics.median(self.ray_jobs)

    def overhead_ms(self, cores: int) -> float:
        """Core-milliseconds per run that satsweep spends beyond xargs."""
        return (self.satsweep.median - self.xargs.median) * cores / self.count * 1000

    @property
    def verdict(self) -> str:
        if self.length < RATIO_MIN_LENGTH or self.count != RATIO_COUNT:
            return ""
        if self.ratio <= RATIO_TARGET:
            return f"ok (<= {RATIO_TARGET})"
        return f"over {RATIO_TARGET}"


class Bench:
    """The scratch directory: the compiled program, designs, command files and stores."""

    def __init__(self, scratch: Path, cores: int, group_size: int | None = None) -> None:
        self.scratch = scratch
        self.cores = cores
        self.group_size = group_size
        self.ray: LocalRay | None = None  # the cluster of `--executor ray`, once started
        self.program = scratch / "spin"
        subprocess.run(["cc", "-O2", "-o", str(self.program), str(SPIN)], check=True)
        self.fresh = 0

    def fresh_dir(self, name: str) -> Path:
        """A directory not used before (a fresh store or output directory each time)."""
        self.fresh += 1
        return self.scratch / f"{name}-{self.fresh}"

    def design(self, count: int, length: float, replications: int = 1) -> tuple[Path, str]:
        """A design of ``count`` runs spinning ``length`` s: ``count / replications``
        configurations of ``replications`` runs each."""
        study = f"overhead-{count}x{length:g}" + (f"-r{replications}" if replications > 1 else "")
        path = self.scratch / f"{study}.yaml"
        path.write_text(
            yaml.safe_dump(
                {
                    "study": study,
                    "program": "./spin",  # relative to the design file, beside it
                    "factors": {"x": list(range(count // replications))},
                    "fixed": {"seconds": length},
                    "replications": replications,
                    "base_seed": 1,
                },
                sort_keys=False,
            )
        )
        return path, study

    def xargs_lines(self, design: Path) -> tuple[str, Path]:
        """The design's runs for xargs: the program, and a file of each run's arguments (one
        line each, quoted for xargs) as satsweep builds them (Program.command: the same --run;
        only --out differs, a name in xargs' working directory). xargs runs the program itself
        on each line, as satsweep's job does: no shell nor `env` between them."""
        loaded = load_design(design)
        commands = [
            loaded.executable.command(run.params, run.run, Path(f"{run.params['x']}.json"))
            for run in loaded.runs()
        ]
        program = commands[0][0]
        assert all(command[0] == program for command in commands)
        path = design.with_suffix(".lines")
        path.write_text("".join(shlex.join(command[1:]) + "\n" for command in commands))
        return program, path

    def time_xargs(self, program: str, lines: Path, count: int) -> float:
        """Wall seconds of xargs running the runs of ``lines`` in a fresh directory, which stays
        until the end: no side deletes files while the bench runs, since on the reference
        machine (ext4 without a journal) creating files after many were deleted was seen to
        cost up to ten times more CPU (the kernel's search for a free inode, skipping those it
        takes for recently deleted), which would tax the side that came next."""
        out = self.fresh_dir("xargs")
        out.mkdir(parents=True)
        with lines.open("rb") as stdin:
            start = time.perf_counter()
            proc = subprocess.run(
                ["xargs", "-P", str(self.cores), "-L", "1", program],
                cwd=out,
                stdin=stdin,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            seconds = time.perf_counter() - start
        if proc.returncode != 0:  # xargs: 123 when a run failed
            raise SystemExit(f"xargs failed ({proc.returncode}): {proc.stderr.decode()[-2000:]}")
        made = sum(1 for _ in out.glob("*.json"))
        if made != count:
            raise SystemExit(f"xargs made {made} results of {count} in {out}")
        return seconds

    def satsweep(
        self,
        command: str,
        design: Path,
        results: Path,
        *extra: str,
        watch: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> float:
        """Wall seconds of ``satsweep COMMAND DESIGN --results RESULTS``, refused unless it
        exits 0; with ``watch``, a progress line every 30 s of the runs done in that store."""
        log = self.scratch / "satsweep.log"
        argv = [*SATSWEEP, command, str(design), "--results", str(results), *extra]
        with log.open("wb") as output:
            start = time.perf_counter()
            proc = subprocess.Popen(argv, stdout=output, stderr=subprocess.STDOUT, env=env)
            if watch is not None:
                watcher = threading.Thread(target=_report_progress, args=(proc, watch, start))
                watcher.start()
            proc.wait()
            seconds = time.perf_counter() - start
        if watch is not None:
            watcher.join()
        if proc.returncode != 0:
            said = log.read_text(errors="replace")[-3000:]
            raise SystemExit(f"{shlex.join(argv)} failed ({proc.returncode}):\n{said}")
        return seconds

    def time_sweep(
        self,
        design: Path,
        study: str,
        count: int,
        *,
        results: Path | None = None,
        watch: bool = False,
    ) -> float:
        """Wall seconds of `satsweep run` into ``results`` (default: a fresh directory), checked
        to have left ``count`` runs in the store's runs.parquet."""
        results = results or self.fresh_dir("results")
        store = results / study
        seconds = self.satsweep(
            "run", design, results, "--cores", str(self.cores), watch=store if watch else None
        )
        rows = pq.read_metadata(store / "runs.parquet").num_rows
        if rows != count:
            raise SystemExit(f"satsweep run left {rows} runs of {count} in {store}")
        return seconds

    def time_ray_sweep(self, design: Path, study: str, count: int) -> tuple[float, int]:
        """Wall seconds of `satsweep run --executor ray` into a fresh directory, checked as
        :meth:`time_sweep` checks, and the Snakemake jobs Ray ran (the plugin's job logs)."""
        assert self.ray is not None
        results = self.fresh_dir("ray-results")
        store = results / study
        size = ["--group-size", str(self.group_size)] if self.group_size else []
        seconds = self.satsweep(
            "run",
            design,
            results,
            "--cores",
            str(self.cores),
            "--executor",
            "ray",
            "--jobs",
            str(self.cores),
            *size,
            env=self.ray.env,
        )
        rows = pq.read_metadata(store / "runs.parquet").num_rows
        if rows != count:
            raise SystemExit(f"satsweep run --executor ray left {rows} runs of {count} in {store}")
        # one log per job, which each attempt of a resubmitted job appends to
        jobs = sum(1 for _ in (store / ".snakemake" / "ray_logs").rglob("*.log"))
        return seconds, jobs


def _report_progress(proc: subprocess.Popen, store: Path, start: float) -> None:
    """Every 30 s while ``proc`` runs: the runs finished so far (their records, before the
    compaction gathers them into runs.parquet)."""
    while True:
        try:
            proc.wait(timeout=30)
            return
        except subprocess.TimeoutExpired:
            pass
        runs = store / "runs"
        done = sum(1 for _ in runs.glob("*/r*.record.json")) if runs.is_dir() else 0
        say(f"    ... {time.perf_counter() - start:.0f} s: {done} runs done")


def measure_cell(bench: Bench, length: float, count: int, pairs: int) -> Cell:
    design, study = bench.design(count, length)
    program, lines = bench.xargs_lines(design)
    xargs, sweep, ray, jobs = [], [], [], []
    # alternating, so that the other work on the machine weighs on every side alike
    for pair in range(1, pairs + 1):
        xargs.append(bench.time_xargs(program, lines, count))
        say(f"  L={length:g} N={count} pair {pair}/{pairs}: xargs    {xargs[-1]:8.2f} s")
        sweep.append(bench.time_sweep(design, study, count))
        say(f"  L={length:g} N={count} pair {pair}/{pairs}: satsweep {sweep[-1]:8.2f} s")
        if bench.ray is not None:
            seconds, ran = bench.time_ray_sweep(design, study, count)
            ray.append(seconds)
            jobs.append(ran)
            say(
                f"  L={length:g} N={count} pair {pair}/{pairs}: ray      {seconds:8.2f} s"
                f" ({ran} Ray jobs)"
            )
    if bench.ray is None:
        return Cell(length, count, Times(xargs), Times(sweep))
    return Cell(length, count, Times(xargs), Times(sweep), Times(ray), jobs)


@dataclass
class Fixed:
    what: str
    count: int
    times: Times
    baseline: Times | None = None  # xargs doing the same, when there is such a thing
    replications: int = 1  # of each configuration of the store

    @property
    def verdict(self) -> str:
        if self.what != "nothing to do" or self.count != IDLE_COUNT:
            return ""
        if self.times.median < IDLE_TARGET:
            return f"ok (< {IDLE_TARGET:g} s)"
        return f"over {IDLE_TARGET:g} s"


def measure_fixed(bench: Bench, count: int, pairs: int, replications: int = 1) -> list[Fixed]:
    """`satsweep run` with nothing to do and `satsweep status`, on a complete store of
    ``count`` runs of L = 0, ``replications`` of each configuration."""
    design, study = bench.design(count, 0.0, replications)
    results = bench.fresh_dir("complete")
    shape = f"N={count} r={replications}"
    say(f"  {shape}: making the complete store ({count} runs of L=0) with satsweep run ...")
    made = bench.time_sweep(design, study, count, results=results, watch=True)
    say(f"  {shape}: store made in {made:.1f} s")
    idle, status = [], []
    for pair in range(1, pairs + 1):
        # the store stays complete: each repetition finds the same nothing to do
        idle.append(bench.time_sweep(design, study, count, results=results))
        say(f"  {shape} pair {pair}/{pairs}: nothing to do {idle[-1]:8.2f} s")
        status.append(bench.satsweep("status", design, results))
        say(f"  {shape} pair {pair}/{pairs}: status        {status[-1]:8.2f} s")
    return [
        Fixed("nothing to do", count, Times(idle), replications=replications),
        Fixed("status", count, Times(status), replications=replications),
    ]


def measure_single(bench: Bench, pairs: int) -> list[Fixed]:
    """A sweep of one run of L = 0 from scratch (locally, and through Ray when it is up),
    against xargs running that run: the fixed cost of a sweep, which does not depend on N, so
    it is measured once."""
    design, study = bench.design(1, 0.0)
    program, lines = bench.xargs_lines(design)
    xargs, sweep, ray = [], [], []
    for pair in range(1, pairs + 1):
        xargs.append(bench.time_xargs(program, lines, 1))
        say(f"  1 run pair {pair}/{pairs}: xargs    {xargs[-1]:8.3f} s")
        sweep.append(bench.time_sweep(design, study, 1))
        say(f"  1 run pair {pair}/{pairs}: satsweep {sweep[-1]:8.3f} s")
        if bench.ray is not None:
            ray.append(bench.time_ray_sweep(design, study, 1)[0])
            say(f"  1 run pair {pair}/{pairs}: ray      {ray[-1]:8.3f} s")
    fixed = [Fixed("1-run sweep", 1, Times(sweep), Times(xargs))]
    if ray:
        fixed.append(Fixed("1-run ray", 1, Times(ray), Times(xargs)))
    return fixed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="0.01,0.05,0.5,5", help="run lengths L (s)")
    parser.add_argument("--counts", default="100,1000,10000", help="numbers of runs N")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--pairs", type=int, default=2, help="xargs/satsweep pairs per cell")
    parser.add_argument(
        "--budget",
        type=float,
        default=200.0,
        help="skip cells of more than this many core-seconds of simulation per side",
    )
    parser.add_argument(
        "--fixed-max",
        type=int,
        default=IDLE_COUNT,
        help="measure the fixed costs on complete stores of each N up to this",
    )
    parser.add_argument(
        "--replications",
        default="1,100",
        help="the complete stores' replications of each configuration (each that divides N)",
    )
    parser.add_argument(
        "--executor",
        choices=["local", "ray"],
        default="local",
        help="ray: also time `satsweep run --executor ray` on a Ray cluster started here",
    )
    parser.add_argument(
        "--group-size",
        type=int,
        help="with --executor ray: configurations per Ray job (default: satsweep's groups)",
    )
    args = parser.parse_args()
    lengths, counts = floats(args.lengths), ints(args.counts)
    replications = ints(args.replications)
    if args.pairs < 1 or args.cores < 1 or min(replications) < 1:
        parser.error("--pairs, --cores and --replications take 1 or more")
    if args.group_size is not None and (args.executor != "ray" or args.group_size < 1):
        parser.error("--group-size takes 1 or more, with --executor ray")

    cells = [(length, count) for length in lengths for count in counts]
    # a hair of slack: 0.05 x 4000 is 200.00000000000003 in floats
    todo = [(L, N) for L, N in cells if L * N <= args.budget * (1 + 1e-9)]
    say(f"{len(todo)} cells of {len(cells)} on {args.cores} cores, {args.pairs} pairs each")
    for L, N in cells:
        if (L, N) not in todo:
            say(
                f"skipped L={L:g} N={N}: {L * N:g} core-seconds per side > --budget {args.budget:g}"
            )

    measured: list[Cell] = []
    fixed: list[Fixed] = []
    with tempfile.TemporaryDirectory(prefix="bench-overhead-") as scratch:
        bench = Bench(Path(scratch), args.cores, args.group_size)
        try:
            if args.executor == "ray":
                start = time.perf_counter()
                bench.ray = LocalRay(bench.scratch / "ray-cluster", args.cores)
                say(
                    f"Ray up at {bench.ray.address} ({args.cores} CPUs, ray start pid "
                    f"{bench.ray.head.pid}) in {time.perf_counter() - start:.1f} s"
                )
            for L, N in todo:
                say(f"cell L={L:g} s x N={N} ({L * N:g} core-seconds of simulation per side)")
                measured.append(measure_cell(bench, L, N, args.pairs))
            fixed_counts = [N for N in counts if N <= args.fixed_max]
            if fixed_counts:
                say("fixed costs: a sweep of 1 run of L=0 from scratch")
                fixed += measure_single(bench, args.pairs)
            for N in fixed_counts:
                for r in (r for r in replications if N % r == 0):
                    say(f"fixed costs on a complete store of N={N}, r={r}")
                    fixed += measure_fixed(bench, N, args.pairs, r)
        finally:
            if bench.ray is not None:
                left = bench.ray.stop()
                say(f"Ray stopped{f'; processes left: {left}' if left else ''}")

    say("")
    say(f"per-run overhead on {args.cores} cores (median of {args.pairs}; min in brackets)")
    say(
        f"{'L s':>6} {'N':>6} {'xargs s':>16} {'satsweep s':>18} {'ratio':>6} "
        f"{'overhead ms/run':>15}  target"
    )
    for cell in measured:
        say(
            f"{cell.length:>6g} {cell.count:>6} "
            f"{cell.xargs.median:>7.2f} ({cell.xargs.least:>6.2f}) "
            f"{cell.satsweep.median:>8.2f} ({cell.satsweep.least:>7.2f}) "
            f"{cell.ratio:>6.2f} {cell.overhead_ms(args.cores):>15.1f}  {cell.verdict}"
        )
    for L, N in cells:
        if (L, N) not in todo:
            say(f"{L:>6g} {N:>6}  skipped (--budget)")
    if args.executor == "ray":
        say("")
        groups = f"groups of {args.group_size}" if args.group_size else "satsweep's groups"
        say(
            f"Ray executor, 1 node of {args.cores} CPUs on this machine, {groups} "
            f"(median of {args.pairs}; min in brackets)"
        )
        say(
            f"{'L s':>6} {'N':>6} {'local s':>8} {'ray s':>18} {'ray/local':>9} "
            f"{'ray/xargs':>9} {'core-s/run':>10} {'Ray jobs':>8} {'core-s/job':>10}"
        )
        for cell in measured:
            jobs = "/".join(str(n) for n in sorted(set(cell.ray_jobs)))
            say(
                f"{cell.length:>6g} {cell.count:>6} {cell.satsweep.median:>8.2f} "
                f"{cell.ray.median:>8.2f} ({cell.ray.least:>7.2f}) "
                f"{cell.ray.median / cell.satsweep.median:>9.2f} "
                f"{cell.ray.median / cell.xargs.median:>9.2f} "
                f"{cell.ray_overhead(args.cores):>10.3f} {jobs:>8} "
                f"{cell.ray_job_overhead(args.cores):>10.2f}"
            )
    if not any(c.length >= RATIO_MIN_LENGTH and c.count == RATIO_COUNT for c in measured):
        say(
            f"target ratio <= {RATIO_TARGET} for L >= {RATIO_MIN_LENGTH:g} at N = {RATIO_COUNT}:"
            " no such cell measured"
        )
    if fixed:
        say("")
        say(f"fixed costs (median of {args.pairs}; min in brackets)")
        say(f"{'what':<14} {'N':>6} {'r':>5} {'satsweep s':>18} {'xargs s':>16}  target")
        for f in fixed:
            base = f"{f.baseline.median:>7.3f} ({f.baseline.least:>6.3f})" if f.baseline else ""
            say(
                f"{f.what:<14} {f.count:>6} {f.replications:>5} {f.times.median:>8.2f} "
                f"({f.times.least:>7.2f}) {base:>16}  {f.verdict}"
            )
    if not any(f.what == "nothing to do" and f.count == IDLE_COUNT for f in fixed):
        say(f"target nothing to do < {IDLE_TARGET:g} s at N = {IDLE_COUNT}: not measured")
    return 0


if __name__ == "__main__":
    sys.exit(main())
