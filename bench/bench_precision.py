"""Benchmark of a precision-driven campaign: the runs it spends against the fixed r that reaches
the same worst half-width.

    .venv/bin/python bench/bench_precision.py [--over effects|configurations] [--halfwidth H]
        [--cores 2] [--results DIR]

Runs goyal98-quick-ns3's WAN part (4 flavors x 2 drops x 3 buffers, 100 pairs, 60 s) with
`replications: {min: 3, max: 20, until: {response: efficiency, halfwidth: H}, over: O}` through
`satsweep run` into a fresh results directory, and prints each round (r, the widest 90%
half-width), the runs spent and what a fixed r would have cost:

- over effects (default H 0.005): the widest half-width of a main effect of efficiency at each
  fixed r from min to the campaign's, from the first r replications of the same store (the same
  random streams a design of r replications gets); the smallest r whose worst half-width is at
  most the campaign's final one, and the smallest that meets H, with their runs;
- over configurations (default H 0.01): each configuration's replications at the end; a fixed
  design gives every configuration the r its noisiest one needed (the campaign's largest), so it
  spends configurations x that r.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import duckdb

from satsweep.analysis.precision import reached
from satsweep.design import load_design
from satsweep.workflow import run as sweep

DESIGN = """\
study: goyal98-wan-precision-{over}
description: goyal98-quick-ns3's WAN part until efficiency is known to +-{h} ({over})
program: satnet
factors:
  flavor: [vanilla, reno, newreno, sack]
  drop: [epd, sd]
  bufferRtt: [0.5, 1, 2]
fixed:
  link: wan
  clients: 100
  simTime: 60
replications: {{min: 3, max: 20, until: {{response: efficiency, halfwidth: {h}}}, over: {over}}}
base_seed: 1
analysis:
  responses: [efficiency, fairness]
  factors: [drop, flavor, bufferRtt]
"""


def _fixed_r(runs: Path, design, final_r: int, worst: float, asked: float, scratch: str) -> None:
    """The worst half-width of the main effects at each fixed r (the store's first r
    replications), and the smallest r reaching the campaign's worst and the target."""
    n = design.n_configurations
    same = meets = None
    for r in range(design.precision.min, final_r + 1):
        subset = Path(scratch) / f"r{r}.parquet"
        duckdb.sql(f"COPY (FROM '{runs}' WHERE replication <= {r}) TO '{subset}'")
        half = reached(str(subset), design.with_replications(r))[0].halfwidth
        print(f"fixed r = {r:2d}: worst half-width {half:.5f}, {r * n} runs")
        if same is None and half <= worst + 1e-12:
            same = r
        if meets is None and half <= asked:
            meets = r
    print(f"the smallest fixed r at the campaign's worst half-width: {same} ({same * n} runs)")
    if meets is not None:
        print(f"the smallest fixed r meeting the target {asked}: {meets} ({meets * n} runs)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--over", choices=["effects", "configurations"], default="effects")
    parser.add_argument(
        "--halfwidth", type=float, help="default 0.005 (effects), 0.01 (configurations)"
    )
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--results", help="results directory (default: a temporary one)")
    args = parser.parse_args()
    h = args.halfwidth or (0.005 if args.over == "effects" else 0.01)
    with tempfile.TemporaryDirectory(prefix="bench-precision-") as scratch:
        results = Path(args.results or scratch)
        design_file = Path(scratch) / "goyal98-wan-precision.yaml"
        design_file.write_text(DESIGN.format(h=h, over=args.over))
        design = load_design(design_file)
        start = time.perf_counter()
        report = sweep.run(design, cores=args.cores, results=results)
        wall = time.perf_counter() - start
        if not report.ok:
            print(f"the campaign failed: see {report.log}", file=sys.stderr)
            return 1
        for step in report.rounds:
            print(f"round r = {step.design.replications_text():>5}: {step.design.n_runs} runs, "
                  f"worst half-width {step.reached[0].halfwidth:.5f}")  # fmt: skip
        last = report.rounds[-1]
        worst = last.reached[0].halfwidth
        print(f"campaign over {args.over}: r = {last.design.replications_text()}, "
              f"{last.design.n_runs} runs, {wall:.0f} s on {args.cores} cores; target {h} "
              f"{'met' if last.met else 'NOT met'}")  # fmt: skip
        runs = report.store.runs_table
        if args.over == "effects":
            _fixed_r(runs, design, last.design.replications, worst, h, scratch)
        else:
            counts = Counter(
                last.design.replications_for(c.config_id) for c in design.configurations
            )
            print(
                "configurations per r: " + ", ".join(f"{r}: {k}" for r, k in sorted(counts.items()))
            )
            most = last.design.most_replications
            print(f"a fixed r = {most} (the noisiest configuration's) for all: "
                  f"{most * design.n_configurations} runs; the campaign spent {last.design.n_runs}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
