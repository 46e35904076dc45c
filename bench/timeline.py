"""Where a sweep's core-seconds went, from its runs' start times and wall seconds.

Used by bench_sweep.py and bench_cluster.py. The runs (satnet processes) are the work; every
other core-second of the sweep's span is idle, split into

- *start*: from the sweep's start to the first run's start (Snakemake, Ray, Slurm start-up),
- *between runs*: while runs were going on, cores without one (job start-up, scheduling),
- *end*: from the last moment all cores were busy to the sweep's end (the last jobs running
  on fewer cores than there are, then the compaction and shutdown).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

import duckdb


@dataclass(frozen=True)
class Timeline:
    cores: int
    runs: int  # runs in the store
    span: float  # seconds from the sweep's start to its end
    busy: float  # core-seconds of runs
    start: float  # idle core-seconds before the first run
    between: float  # idle core-seconds while runs were going on
    end: float  # idle core-seconds after the last moment every core was busy

    def lines(self) -> list[str]:
        total = self.cores * self.span
        return [
            f"idle core-seconds: {total - self.busy:.1f} of {total:.1f}",
            f"  before the first run:        {self.start:6.1f}",
            f"  between runs:                {self.between:6.1f}",
            f"  at the end (cores run dry):  {self.end:6.1f}",
        ]


def timeline(runs_file: Path, started: dt.datetime, ended: dt.datetime, cores: int) -> Timeline:
    """The timeline of the runs in ``runs_file`` in a sweep from ``started`` to ``ended``
    (naive UTC, as the store's ``started_at``) on ``cores`` cores."""
    rows = (
        duckdb.connect()
        .execute(
            "SELECT started_at, elapsed_seconds FROM read_parquet(?) ORDER BY started_at",
            [str(runs_file)],
        )
        .fetchall()
    )
    runs: list[tuple[float, float]] = []  # (start, end) in seconds into the sweep
    for start, seconds in rows:
        s = (start - started).total_seconds()
        runs.append((s, s + seconds))
    events = sorted([(s, +1) for s, _ in runs] + [(e, -1) for _, e in runs])
    span = (ended - started).total_seconds()
    busy = sum(seconds for _, seconds in rows)
    first = events[0][0] if events else span
    # the last moment all cores were busy (or the first run's start if that never happened)
    running, last_full = 0, first
    for time, step in events:
        was_full = running >= cores
        running += step
        if was_full and running < cores:
            last_full = time
    idle_start = cores * first
    busy_after = sum(max(0.0, e - max(s, last_full)) for s, e in runs)
    idle_after = cores * (span - last_full) - busy_after
    idle_total = cores * span - busy
    return Timeline(
        cores=cores,
        runs=len(rows),
        span=span,
        busy=busy,
        start=idle_start,
        between=idle_total - idle_start - idle_after,
        end=idle_after,
    )


def utc_now() -> dt.datetime:
    """Now, as naive UTC (the store's ``started_at``)."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)
