"""Benchmark: coverage of steady-state intervals on the AR(1) toy (docs/examples/ar1.py), whose
steady-state mean is known, started far from it (docs/steady-state.md, "Coverage").

Run: .venv/bin/python bench/bench_steady_state.py [--campaigns 200] [--replications 5]
     [--steps 500] [--long 5000] [--start -40] [--phi 0.9]

Each campaign is a configuration of a store written here: its replications' `series` tables as
the toy writes them (its own generator, `ar1.series`, streams 1, 2, ...), then analysed by
satsweep's own estimator, :func:`satsweep.analysis.steady.measure` (what `satsweep analyze` and
the report run: the SQL over the Parquet table, MSER-5 on the replications' mean series, the t
interval over the runs, batch means on replication 1). It prints how often the 90% interval
covers the true mean:

- replications, truncated: each run's mean after the configuration's MSER-5 warm-up;
- replications, untruncated: each run's mean over the whole run (warmup 0);
- batch means, one long run of --long steps per campaign, truncated by MSER-5 on that run alone.

Wanted: >= 85% for the truncated intervals and for batch means; the untruncated ones miss.
"""

from __future__ import annotations

import argparse
import importlib.util
import tempfile
import time
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from satsweep.analysis import sql
from satsweep.analysis.steady import measure
from satsweep.design import SteadySettings

AR1 = Path(__file__).resolve().parent.parent / "docs" / "examples" / "ar1.py"
MEAN = 10.0
CONFIDENCE = 0.9


def _toy():
    spec = importlib.util.spec_from_file_location("ar1", AR1)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_series(path: Path, campaigns: int, replications: int, steps: int, args) -> None:
    """The toy's `series` table of every run: config_id c0000.., replication, time, x."""
    ar1 = _toy()
    ids, reps, times, xs = [], [], [], []
    for c in range(campaigns):
        for r in range(1, replications + 1):
            run = c * 1000 + r  # distinct streams: a campaign's r-th replication
            xs.append(np.asarray(ar1.series(args.start, MEAN, args.phi, 1.0, steps, run)))
            ids.append(np.full(steps, f"c{c:04d}"))
            reps.append(np.full(steps, r))
            times.append(np.arange(steps, dtype=float))
    pq.write_table(
        pa.table({
            "config_id": np.concatenate(ids), "replication": np.concatenate(reps),
            "time": np.concatenate(times), "x": np.concatenate(xs),
        }),
        path,
    )  # fmt: skip


def coverage(table: Path, warmup: object, batch: bool) -> tuple[float, int, float, float]:
    """(coverage, intervals, median warm-up, median half-width) of the intervals ``measure``
    gives per campaign: batch means' of replication 1 (``batch``), else the replications'."""
    settings = SteadySettings(response="x_steady", table="series", y="x", warmup=warmup)
    con = sql.connect()
    result = measure(con, table, settings, CONFIDENCE)
    con.close()
    covered, halves, warmups = [], [], []
    for c in result.configurations:
        mean, half = (c.batch.mean, c.batch.halfwidth) if batch else (c.mean, c.halfwidth)
        warmups.append(c.warmup)
        if half is None:
            continue
        halves.append(half)
        covered.append(abs(mean - MEAN) <= half)
    return (
        float(np.mean(covered)) if covered else float("nan"),
        len(covered),
        float(np.median(warmups)),
        float(np.median(halves)) if halves else float("nan"),
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--campaigns", type=int, default=200)
    p.add_argument("--replications", type=int, default=5)
    p.add_argument("--steps", type=int, default=500)
    p.add_argument("--long", type=int, default=5000, help="steps of batch means' one long run")
    p.add_argument("--start", type=float, default=-40.0)
    p.add_argument("--phi", type=float, default=0.9)
    args = p.parse_args()
    duckdb.connect().close()
    with tempfile.TemporaryDirectory() as tmp:
        replicated, long = Path(tmp) / "series.parquet", Path(tmp) / "long" / "series.parquet"
        long.parent.mkdir()
        began = time.perf_counter()
        write_series(replicated, args.campaigns, args.replications, args.steps, args)
        write_series(long, args.campaigns, 1, args.long, args)
        made = time.perf_counter() - began
        began = time.perf_counter()
        rows = [
            ("replications, truncated (MSER-5)", coverage(replicated, "auto", False)),
            ("replications, untruncated", coverage(replicated, 0.0, False)),
            ("batch means, one long run (MSER-5)", coverage(long, "auto", True)),
            ("batch means, one long run, untruncated", coverage(long, 0.0, True)),
        ]
        analysed = time.perf_counter() - began
    print(
        f"AR(1) toy: mean {MEAN:g}, start {args.start:g}, phi {args.phi:g}, sigma 1; "
        f"{args.campaigns} campaigns of r = {args.replications} x {args.steps} steps, and of one "
        f"run of {args.long} steps; {CONFIDENCE:.0%} intervals"
    )
    print(f"{'interval':42} {'coverage':>9} {'intervals':>9} {'warm-up':>8} {'half-width':>10}")
    for name, (cover, n, warm, half) in rows:
        print(f"{name:42} {cover:9.3f} {n:9d} {warm:8.0f} {half:10.3f}")
    print(f"(series made in {made:.1f} s, analysed by satsweep in {analysed:.1f} s)")


if __name__ == "__main__":
    main()
