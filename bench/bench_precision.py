"""Benchmark of a precision-driven campaign: the runs it spends against the fixed r that reaches
the same worst half-width.

    .venv/bin/python bench/bench_precision.py [--halfwidth 0.005] [--cores 2] [--results DIR]

Runs goyal98-quick's WAN part (4 flavors x 2 drops x 3 buffers, 100 pairs, 60 s) with
`replications: {min: 3, max: 20, until: {response: efficiency, halfwidth: H}}` through
`satsweep run` into a fresh results directory, and prints each round (r, the widest 90%
half-width of a main effect of efficiency), the runs spent, and the smallest fixed r whose own
worst half-width (the first r replications of the same store: the same random streams a design
of r replications would get) is at most the campaign's final one, with its runs.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from satsweep.design import load_design
from satsweep.workflow import run as sweep
from satsweep.analysis.precision import reached

DESIGN = """\
study: goyal98-wan-precision
description: goyal98-quick's WAN part until every main effect of efficiency is known to +-{h}
program: satnet
factors:
  flavor: [vanilla, reno, newreno, sack]
  drop: [epd, sd]
  bufferRtt: [0.5, 1, 2]
fixed:
  link: wan
  clients: 100
  simTime: 60
replications: {{min: 3, max: 20, until: {{response: efficiency, halfwidth: {h}}}}}
base_seed: 1
analysis:
  responses: [efficiency, fairness]
  factors: [drop, flavor, bufferRtt]
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--halfwidth", type=float, default=0.005)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--results", help="results directory (default: a temporary one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-precision-") as scratch:
        results = Path(args.results or scratch)
        design_file = Path(scratch) / "goyal98-wan-precision.yaml"
        design_file.write_text(DESIGN.format(h=args.halfwidth))
        design = load_design(design_file)
        start = time.perf_counter()
        report = sweep.run(design, cores=args.cores, results=results)
        wall = time.perf_counter() - start
        if not report.ok:
            print(f"the campaign failed: see {report.log}", file=sys.stderr)
            return 1
        n = design.n_configurations
        for step in report.rounds:
            print(f"round r = {step.design.replications:2d}: worst half-width "
                  f"{step.reached[0].halfwidth:.5f}")  # fmt: skip
        final_r, final = report.rounds[-1].design.replications, report.rounds[-1].reached
        worst = final[0].halfwidth
        print(f"campaign: r = {final_r}, {final_r * n} runs, {wall:.0f} s on {args.cores} cores;"
              f" target {args.halfwidth} {'met' if final[0].met else 'NOT met'}")  # fmt: skip
        runs = report.store.runs_table
        for r in range(design.precision.min, final_r + 1):
            subset = Path(scratch) / f"r{r}.parquet"
            duckdb.sql(f"COPY (FROM '{runs}' WHERE replication <= {r}) TO '{subset}'")
            half = reached(str(subset), design.with_replications(r))[0].halfwidth
            if half <= worst + 1e-12:
                print(f"fixed r = {r}: worst half-width {half:.5f}, {r * n} runs "
                      f"(the campaign spent {final_r * n}, {final_r * n - r * n:+d})")  # fmt: skip
                return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
