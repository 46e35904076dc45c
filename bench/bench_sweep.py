"""Benchmark of a whole sweep: how much of the cores' time went into simulations.

    .venv/bin/python bench/bench_sweep.py [SWEEP] [--cores 2] [--results DIR]

Runs SWEEP (default sweeps/goyal98-quick-ns3.yaml) from scratch through `satsweep run` (Snakemake,
locally) into a fresh results directory and prints its efficiency

    (sum of the runs' wall seconds) / (cores x the sweep's wall seconds)

where a run's wall seconds are its `elapsed_seconds` (satnet's process, as satsweep measured
it) and the sweep's wall time spans everything: Snakemake's start, the jobs, the compaction.
Target on the 2-core reference machine: >= 0.90 for goyal98-quick-ns3.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import duckdb

from satsweep.workflow import run as sweep
from timeline import timeline, utc_now  # bench/timeline.py, beside this script

REPO = Path(__file__).resolve().parent.parent
TARGET = 0.90


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweep", nargs="?", default=str(REPO / "sweeps" / "goyal98-quick-ns3.yaml"))
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--results", help="results directory (default: a temporary one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-sweep-") as scratch:
        results = Path(args.results or scratch)
        started = utc_now()
        report = sweep.run(args.sweep, cores=args.cores, results=results)
        ended = utc_now()
        if not report.ok:
            print(f"the sweep failed (see {report.log})", file=sys.stderr)
            return 1
        if report.done_before:
            print(f"{report.done_before} runs were done before: use an empty --results")
            return 1
        runs_file = report.store.runs_table
        spent = timeline(runs_file, started, ended, args.cores)
        n, busy = spent.runs, spent.busy
        per_link = (
            duckdb.connect()
            .execute(
                "SELECT link, count(*), avg(elapsed_seconds), max(elapsed_seconds) "
                "FROM read_parquet(?) GROUP BY link ORDER BY link",
                [str(runs_file)],
            )
            .fetchall()
        )
    efficiency = busy / (args.cores * report.wall_seconds)
    print(f"sweep {report.design.study}: {n} runs on {args.cores} cores")
    for link, count, mean, longest in per_link:
        print(f"  {link}: {count} runs, {mean:.2f} s mean, {longest:.2f} s longest")
    print(f"runs' wall seconds (sum): {busy:.1f}")
    print(f"sweep wall seconds:       {report.wall_seconds:.1f}")
    verdict = "ok" if efficiency >= TARGET else f"below the target {TARGET:.2f}"
    print(f"sweep efficiency:         {efficiency:.3f} ({verdict})")
    print("\n".join(spent.lines()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
