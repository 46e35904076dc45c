"""Benchmark: the run-length lever of precision campaigns (docs/steady-state.md, "Run length as
a lever") on the AR(1) toy's short runs, sweeps/ar1-run-length.yaml: the same campaign with
``max_length`` (the campaign grows the runs when that is cheaper) and without (replications
only, up to --max), over seeded campaigns (base_seed 1..N), each run by `satsweep run`'s own
loop (satsweep.workflow.run.run) into a store of its own.

Run: .venv/bin/python bench/bench_run_length.py [--campaigns 20] [--max 400] [--cores 2]

It prints, each way: the steps simulated (every run of every round: a round that grows the
runs makes them all again), the wall time, how many campaigns met the target, and how often
the 90% interval of the factor start's effect on x_steady covers its true value, 0 (both
starts have the steady-state mean 10: an interval that misses it holds warm-up bias or is too
narrow). The figures are ratios of the lever's to replications' alone, measured in this run.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import yaml

from satsweep.analysis import precision
from satsweep.design import load_design
from satsweep.workflow import run as sweep

REPO = Path(__file__).resolve().parent.parent
SWEEP = REPO / "sweeps" / "ar1-run-length.yaml"


def design_file(folder: Path, seed: int, lever: bool, most: int) -> Path:
    """sweeps/ar1-run-length.yaml with ``base_seed`` seed, with or without max_length."""
    design = yaml.safe_load(SWEEP.read_text())
    design["study"] = f"{'lever' if lever else 'replications'}-{seed}"
    design["program"] = str(REPO / "docs" / "examples" / "ar1.py")
    design["base_seed"] = seed
    design["replications"]["max"] = most
    if not lever:
        design["replications"].pop("max_length")
    path = folder / f"{design['study']}.yaml"
    path.write_text(yaml.safe_dump(design, sort_keys=False))
    return path


def steps_spent(report: sweep.SweepReport, steps: int) -> int:
    """The steps every round simulated: all its runs when it changed the length, else its new
    replications."""
    spent, before = 0, None
    for step in report.rounds:
        length = step.design.run_length or steps
        made = step.design.n_runs
        if before is not None and before[0] == length:
            made -= before[1]
        spent += made * length
        before = (length, step.design.n_runs)
    return int(spent)


def covers_zero(report: sweep.SweepReport) -> bool:
    """Whether the final 90% interval of start's effect on x_steady holds 0."""
    design = report.rounds[-1].design
    with precision._opened(str(report.store.runs_table), design, 0.9) as (data, _):
        analysis = data.analyze("x_steady", ["start"], confidence=0.9)
    low, high = next(iter(analysis.effects["start"].values())).ci
    return low <= 0 <= high


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--campaigns", type=int, default=20)
    parser.add_argument("--max", type=int, default=400, help="replications' max, both ways")
    parser.add_argument("--cores", type=int, default=2)
    args = parser.parse_args()
    steps = yaml.safe_load(SWEEP.read_text())["fixed"]["steps"]
    figures = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for lever in (False, True):
            spent, met, covered, lengths = 0, 0, 0, []
            start = time.perf_counter()
            for seed in range(1, args.campaigns + 1):
                path = design_file(folder, seed, lever, args.max)
                report = sweep.run(
                    load_design(path),
                    cores=args.cores,
                    results=folder / "results",
                    warn=lambda _: None,
                )
                assert report.ok, f"{path.name}: the campaign failed"
                spent += steps_spent(report, steps)
                met += report.rounds[-1].met
                covered += covers_zero(report)
                lengths.append(report.rounds[-1].design.run_length or steps)
            wall = time.perf_counter() - start
            name = "lever" if lever else "replications"
            figures[name] = (spent, wall)
            print(
                f"{name:>12}: {spent} steps simulated, {wall:.1f} s wall, target met in "
                f"{met}/{args.campaigns}, start's effect covered in {covered}/{args.campaigns}; "
                f"final steps {min(lengths):g}..{max(lengths):g}"
            )
    (s_rep, w_rep), (s_lev, w_lev) = figures["replications"], figures["lever"]
    print(f"lever / replications alone: steps {s_lev / s_rep:.2f}, wall {w_lev / w_rep:.2f}")


if __name__ == "__main__":
    main()
