"""Benchmark of a sweep through Slurm+Ray: `satsweep submit` on this machine's Slurm.

    .venv/bin/python bench/bench_cluster.py [SWEEP] [--nodes 1] [--cpus-per-node 2] [--local]
        [--keep DIR]

Submits SWEEP (default sweeps/goyal98-quick-ns3.yaml) into a fresh results directory with
`satsweep submit` (one batch job: a Ray cluster in the allocation, `satsweep run --executor ray`
as its driver), waits for the job, and prints the sweep efficiency as bench/bench_sweep.py
defines it,

    (sum of the runs' wall seconds) / (cores x the sweep's wall seconds),

twice: over the whole job (submit to the job's end: Slurm's scheduling, Ray's start and stop
included) and over the driver alone (satsweep run's start to its end, as bench_sweep.py measures
the local run). The overhead per remote job is the cores' time not spent in simulations,
divided by the number of Snakemake jobs Ray ran; bench/timeline.py splits the idle
core-seconds into before the first run, between runs and at the end. With --local the same
sweep then runs through the local executor (bench_sweep.py's measurement) for comparison.
Target: the cluster's efficiency within 5% of the local executor's. Needs a running Slurm
(`ray_jobs/slurm/local-cluster.sh start`).
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
import sys
import tempfile
import time
from pathlib import Path

from satsweep.cluster import submit
from satsweep.workflow import run as sweep
from satsweep.design import load_design
from timeline import timeline, utc_now  # bench/timeline.py, beside this script

REPO = Path(__file__).resolve().parent.parent
TARGET = 0.05  # relative to the local executor's efficiency


def log_times(output: Path) -> dict[str, dt.datetime]:
    """Times of the batch script's milestones, from its log lines ([ray-cluster HH:MM:SS])."""
    marks = {
        "job": "job ",
        "ray_up": "Ray up:",
        "driver": "driver started",
        "driver_end": "satsweep run exited",
    }
    found: dict[str, dt.datetime] = {}
    today = dt.date.today()
    for line in output.read_text(errors="replace").splitlines():
        m = re.match(r"\[ray-cluster (\d\d:\d\d:\d\d)\] (.*)", line)
        if not m:
            continue
        for key, text in marks.items():
            if key not in found and m[2].startswith(text):
                found[key] = dt.datetime.combine(today, dt.time.fromisoformat(m[1]))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweep", nargs="?", default=str(REPO / "sweeps" / "goyal98-quick-ns3.yaml"))
    parser.add_argument("--nodes", type=int, default=1)
    parser.add_argument("--cpus-per-node", type=int, default=2)
    parser.add_argument("--partition")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds to wait for the job")
    parser.add_argument("--local", action="store_true", help="also run the local executor")
    parser.add_argument("--keep", metavar="DIR", help="keep the stores in DIR/cluster, DIR/local")
    args = parser.parse_args()
    design = load_design(args.sweep)
    cores = args.nodes * args.cpus_per_node

    with tempfile.TemporaryDirectory(prefix="bench-cluster-") as scratch:
        results = Path(args.keep or scratch) / "cluster"
        started = utc_now()
        start = time.monotonic()
        job = submit.submit(
            args.sweep,
            nodes=args.nodes,
            cpus_per_node=args.cpus_per_node,
            partition=args.partition,
            results=results,
        )
        print(f"Slurm job {job.job_id}: {args.nodes} node(s) x {args.cpus_per_node} CPUs")
        state = submit.wait(job.job_id, timeout=args.timeout, poll=0.5)
        wall = time.monotonic() - start
        ended = utc_now()
        if state.active:
            print(f"job {job.job_id} still {state.state} after {args.timeout:g} s", file=sys.stderr)
            return 1
        store_dir = results / design.study
        runs_file = store_dir / "runs.parquet"
        output = Path(job.output)
        if not runs_file.is_file():
            print(f"no runs.parquet; the job's log ({output}):", file=sys.stderr)
            print(output.read_text(errors="replace")[-3000:], file=sys.stderr)
            return 1
        spent = timeline(runs_file, started, ended, cores)
        n, busy = spent.runs, spent.busy
        times = log_times(output)
        remote_jobs = len(list((store_dir / ".snakemake" / "ray_logs").rglob("*.log")))
        print(output.read_text(errors="replace").rstrip())

    print(f"\nsweep {design.study}: {n} of {design.n_runs} runs on {cores} cores (Slurm+Ray)")
    print(f"runs' wall seconds (sum):      {busy:.1f}")
    print(f"job wall seconds (submit-end): {wall:.1f}")
    efficiency = busy / (cores * wall)
    print(f"sweep efficiency, whole job:   {efficiency:.3f}")
    driver = None
    if {"ray_up", "driver", "driver_end"} <= times.keys():
        ray_start = (times["ray_up"] - times.get("job", times["ray_up"])).total_seconds()
        driver = (times["driver_end"] - times["driver"]).total_seconds()
        print(f"  of which Ray start-up:       ~{ray_start:.0f} s (1 s resolution)")
        print(f"driver wall seconds:           ~{driver:.0f}")
        print(f"sweep efficiency, driver:      {busy / (cores * driver):.3f}")
    if remote_jobs:
        overhead = (cores * (driver or wall) - busy) / remote_jobs
        print(
            f"remote Snakemake jobs:         {remote_jobs} "
            f"({len(design.configurations)} configurations)"
        )
        print(f"overhead per remote job:       {overhead:.2f} core-seconds")
    print("\n".join(spent.lines()))

    if args.local:
        with tempfile.TemporaryDirectory(prefix="bench-local-") as scratch:
            started = utc_now()
            report = sweep.run(
                args.sweep, cores=cores, results=Path(args.keep or scratch) / "local"
            )
            ended = utc_now()
            if not report.ok:
                print(f"the local sweep failed (see {report.log})", file=sys.stderr)
                return 1
            spent_local = timeline(report.store.runs_table, started, ended, cores)
            n_local, busy_local = spent_local.runs, spent_local.busy
        local = busy_local / (cores * report.wall_seconds)
        print(
            f"\nlocal executor: {n_local} runs, {busy_local:.1f} s of runs in "
            f"{report.wall_seconds:.1f} s: efficiency {local:.3f}"
        )
        print("\n".join(spent_local.lines()))
        ratio = efficiency / local
        verdict = "ok" if ratio >= 1 - TARGET else f"more than {TARGET:.0%} below"
        print(f"Slurm+Ray (whole job) / local: {ratio:.3f} ({verdict})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
