"""Benchmark: a store of 10^4 to 10^6 done runs: files, bytes, and what plan, status, the
compaction and a query cost in time and peak memory.

Run: .venv/bin/python bench/bench_store_scale.py [--runs 100000] [--baseline 10000]
[--replications 1] [--keep DIR]

Each size is a store of N done runs of tests/programs/normal.py, N / R configurations
(a x sd levels) of R replications (default R = 1: many configurations of few runs, the
file-count worst case: a folder per configuration). The runs' files are written by the
store's own write path (:meth:`Store.write_run`, after the result file the program would
write), with a synthetic result instead of a program start per run (normal.py's own formula),
in two processes. Then each command runs once as its own process, its wall time, CPU time
(user + system: what a busy machine inflates least) and peak RSS (ru_maxrss of the child)
printed:

- ``plan`` and ``status`` (every record read: no records' cache yet) of the complete store;
- ``run`` on the complete store: nothing to run, so the compaction alone (Store.collect);
- ``status`` again (the compaction's records' cache) and ``status --verify`` (every file
  reread against its record);
- one ``sql`` query (an aggregate over the runs table).

The files and bytes under the study's folder are counted before and after the compaction
(every file and folder is an inode on the shared file system; bytes are the blocks used). The
baseline (``--baseline``, 10^4) is measured in the same run; each figure is printed with its
ratio to the baseline's and a linear extrapolation to 10^6 from the two sizes (the cost per
run between them, times the runs beyond the larger size).
"""

from __future__ import annotations

import argparse
import datetime as dt
import multiprocessing
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NORMAL = ROOT / "tests" / "programs" / "normal.py"
SATSWEEP = [sys.executable, "-m", "satsweep.cli"]
QUERY = "SELECT a, b, count(*) AS n, avg(y) AS y FROM runs GROUP BY a, b ORDER BY a, b"
#: normal.py's means (tests/programs/normal.py): the synthetic results follow them
BASE, SHIFT_A, SHIFT_B = 10.0, {"lo": -1.0, "hi": 1.0}, {1: -0.5, 2: 0.0, 3: 0.5}


def design_text(runs: int, replications: int) -> str:
    """normal.py's a (2) x sd (runs / 2 / replications levels), ``replications`` each."""
    levels = runs // (2 * replications)
    if levels * 2 * replications != runs:
        raise SystemExit(f"--runs {runs}: must be a multiple of 2 x --replications")
    sd = ", ".join(f"{1 + i / 1_000_000:.6f}" for i in range(levels))
    return (
        f"study: scale-{runs}\nprogram: {NORMAL}\nfactors:\n  a: [lo, hi]\n"
        f"  sd: [{sd}]\nreplications: {replications}\nbase_seed: 1\n"
    )


def _write_share(path: str, results: str, runs: int, share: int, shares: int) -> None:
    """Writes every ``shares``-th configuration's runs from the ``share``-th on, as a worker
    would: the program's result file, then :meth:`Store.write_run` (its record last)."""
    from satsweep.design import load_design
    from satsweep.store import Store, write_json
    from satsweep.workflow.jobs import provenance

    design = load_design(path, max_runs=runs)
    store = Store.of(design, results)
    shared = provenance(design)
    for config in design.iter_configurations():
        if config.index % shares != share:
            continue
        for run in config.runs(design):
            params = {"a": run.params["a"], "b": 1, "sd": run.params["sd"]}  # as normal.py
            rng = random.Random(run.run)
            mean = BASE + SHIFT_A[params["a"]] + SHIFT_B[params["b"]]
            result = {"params": params, "summary": {"y": rng.gauss(mean, params["sd"])}}
            store.run_dir(run.config_id).mkdir(parents=True, exist_ok=True)
            write_json(store.run_file(run, ".json"), result)  # what the program writes
            started = dt.datetime.now(dt.UTC).replace(tzinfo=None)
            facts = {**shared, "started_at": started, "elapsed_seconds": 0.01}
            store.write_run(design, run, result, facts)


def build(path: Path, results: Path, runs: int) -> float:
    """The store of ``path``'s design with every run done; the seconds it took."""
    from satsweep.design import load_design
    from satsweep.store import Store

    start = time.perf_counter()
    design = load_design(path, max_runs=runs)
    Store.of(design, results).record(design)
    shares = 2
    context = multiprocessing.get_context("fork")
    workers = [
        context.Process(target=_write_share, args=(str(path), str(results), runs, i, shares))
        for i in range(shares)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
        if worker.exitcode:
            raise SystemExit(f"building the store failed (exit {worker.exitcode})")
    return time.perf_counter() - start


def footprint(folder: Path) -> tuple[int, int]:
    """(inodes: files and folders, bytes of the blocks they use) under ``folder``."""
    inodes = used = 0
    for top, folders, files in os.walk(folder):
        for name in [*folders, *files]:
            stat = os.lstat(os.path.join(top, name))
            inodes += 1
            used += stat.st_blocks * 512
    return inodes, used


def measure(command: list[str], ok: tuple[int, ...] = (0,)) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds: user and system, peak RSS in MB) of one process."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in ok:
        raise SystemExit(f"{' '.join(command)} exited {code}: {proc.stderr.read().decode()}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def size(runs: int, replications: int, base: Path) -> dict[str, float]:
    """Every figure of a store of ``runs`` runs (built under ``base``)."""
    path = base / f"scale-{runs}.yaml"
    path.write_text(design_text(runs, replications))
    results = base / "results"
    store = results / f"scale-{runs}"
    at = ["--results", str(results), "--max-runs", str(runs)]
    figures: dict[str, float] = {"build s": build(path, results, runs)}
    inodes, used = footprint(store)
    figures["inodes/run before"] = inodes / runs
    figures["bytes/run before"] = used / runs
    for name, command, ok in [
        ("plan", ["plan", str(path), *at], (0,)),
        ("status (cold)", ["status", str(path), *at], (3,)),  # 3: not compacted yet
        ("compaction (run)", ["run", str(path), *at], (0,)),
        ("status", ["status", str(path), *at], (0,)),
        ("status --verify", ["status", str(path), "--verify", *at], (0,)),
        ("sql", ["sql", "--results", str(results), f"scale-{runs}", QUERY], (0,)),
    ]:
        seconds, cpu, peak = measure([*SATSWEEP, *command], ok)
        figures[f"{name} s"] = seconds
        figures[f"{name} cpu s"] = cpu
        figures[f"{name} MB"] = peak
        print(f"  {runs}: {name}: {seconds:.2f} s ({cpu:.2f} s of CPU), {peak:.0f} MB", flush=True)
    inodes, used = footprint(store)
    figures["inodes/run after"] = inodes / runs
    figures["bytes/run after"] = used / runs
    return figures


def extrapolate(small: int, large: int, at_small: float, at_large: float, to: int) -> float:
    """The figure at ``to`` runs, linear through the two sizes measured."""
    per_run = (at_large - at_small) / (large - small)
    return at_large + per_run * (to - large)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100_000, help="the store measured")
    parser.add_argument("--baseline", type=int, default=10_000, help="the baseline store")
    parser.add_argument("--replications", type=int, default=1, help="runs per configuration")
    parser.add_argument("--keep", type=Path, help="build the stores here and keep them")
    args = parser.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="bench-store-scale-"))
    base.mkdir(parents=True, exist_ok=True)
    print(
        f"stores of normal.py runs, {args.replications} replication(s) per configuration, in "
        f"{base} ({shutil.disk_usage(base).free / 1e9:.0f} GB free)",
        flush=True,
    )
    try:
        low = size(args.baseline, args.replications, base)
        high = size(args.runs, args.replications, base)
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    million = 1_000_000
    head = f"{'figure':<22} {args.baseline:>10} {args.runs:>10} {'ratio':>7}"
    print(f"\n{head} {'10^6 (extrapolated)':>20}")
    for name in low:
        ratio = high[name] / low[name] if low[name] else float("nan")
        line = f"{name:<22} {low[name]:>10.2f} {high[name]:>10.2f} {ratio:>7.2f}"
        if args.runs < million and "/run" not in name:  # a figure per run is not extrapolated
            guess = extrapolate(args.baseline, args.runs, low[name], high[name], million)
            # a figure that did not grow (the baseline's wall time inflated by a busy machine)
            line += f" {guess:>20.1f}" if ratio > 1 else f" {'-':>20}"
        print(line)


if __name__ == "__main__":
    main()
