"""Benchmark: the factorial analysis of 100,000 synthetic runs (4 x 3 x 2 x 3 design, replicated).

Run: PYTHONPATH=. python bench/bench_analysis.py [--rows 100000] [--repeat 5]
Times loading the Parquet file and analysing one response (`Dataset.open` + `analyze`, i.e. what
`satsweep analyze` does besides starting Python), for both error models; target < 1 s.
"""

from __future__ import annotations

import argparse
import math
import statistics
import tempfile
import time
from itertools import product
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from satsweep.analysis import Dataset
from satsweep.analysis.dataset import t_quantile

LEVELS = {
    "flavor": ["Vanilla", "Reno", "NewReno", "SACK"],
    "buffer": [0.5, 1.0, 2.0],
    "drop": ["EPD", "SD"],
    "link": ["WAN", "MEO", "GEO"],
}


def make_runs(rows: int, seed: int = 1) -> pa.Table:
    """A balanced full factorial with ceil(rows / cells) replications, rows shuffled."""
    cells = list(product(*LEVELS.values()))
    replications = math.ceil(rows / len(cells))
    rng = np.random.default_rng(seed)
    columns: dict[str, list[object]] = {name: [] for name in LEVELS}
    for cell in cells:
        for name, value in zip(LEVELS, cell, strict=True):
            columns[name] += [value] * replications
    n = len(cells) * replications
    flavor = np.array(columns["flavor"])
    buffer = np.array(columns["buffer"], dtype=float)
    efficiency = 0.6 + 0.1 * (flavor == "SACK") + 0.05 * np.log2(buffer) + rng.normal(0, 0.05, n)
    order = rng.permutation(n)
    table = pa.table({**columns, "efficiency": efficiency})
    return table.take(pa.array(order))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    t_quantile(0.9, 10)  # import SciPy once, outside the timings
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "runs.parquet"
        table = make_runs(args.rows)
        pq.write_table(table, path)
        print(f"{table.num_rows} runs, 4 x 3 x 2 x 3 = 72 cells, {table.num_rows // 72} per cell")
        for model in ("first-order", "full"):
            times = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                with Dataset.open(path) as data:
                    result = data.analyze("efficiency", list(LEVELS), model=model)
                times.append(time.perf_counter() - start)
            print(
                f"model {model:11}: median {statistics.median(times):.3f} s, "
                f"min {min(times):.3f} s, max {max(times):.3f} s over {args.repeat} runs "
                f"(flavor {result.allocation_percent['flavor']:.1f}% of the variation)"
            )


if __name__ == "__main__":
    main()
