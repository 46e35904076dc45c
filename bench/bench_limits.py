"""Benchmark: `satsweep plan` of the designs issue 54 bounded: long `configurations:` lists and
2^(k-p) fractions up to the most factors a fraction may have.

Run: .venv/bin/python bench/bench_limits.py [--listed 100000,1000000] [--resolutions 3,4,5]
Each design's `plan` runs once as its own process (`--max-runs` its size) on a toy contract
program (tests/programs/many.py); its wall time and peak RSS (ru_maxrss) are printed,
the time also as a ratio to the baseline measured first in the same run: `plan` of a design of
two configurations (what starting satsweep and asking the program costs). A list is also set
beside the full factorial of as many configurations (the ratio list / factorial: what reading
and checking the entries adds). Fractions: k from 4 to MAX_FACTORS at each resolution.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from satsweep.design.fraction import MAX_FACTORS

#: A contract program of 40 integer parameters p0..p39 (the tests' too).
PROGRAM = Path(__file__).resolve().parents[1] / "tests" / "programs" / "many.py"


def plan(design: Path, runs: int) -> tuple[float, float, str]:
    """(wall seconds, peak RSS in MB, the plan's line of its size) of `satsweep plan`."""
    command = [sys.executable, "-m", "satsweep.cli", "plan", str(design)]
    command += ["--results", str(design.parent / "results"), "--max-runs", str(max(runs, 1))]
    # its output into files: a pipe read only after the process ends would fill and stop it
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        start = time.perf_counter()
        proc = subprocess.Popen(command, stdout=stdout, stderr=stderr)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        stdout.seek(0), stderr.seek(0)
        out, err = stdout.read().decode(), stderr.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"plan {design.name} failed: {err[-2000:]}")
    size = [line for line in out.splitlines() if " configurations x " in line] or [""]
    return seconds, usage.ru_maxrss / 1024, size[0]


def write(folder: Path, name: str, program: Path, body: str) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(f"study: {name}\nprogram: {program}\nreplications: 1\n{body}")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listed", default="100000,1000000", help="list sizes (configurations)")
    parser.add_argument("--resolutions", default="3,4,5", help="the fractions' resolutions")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        base, base_mb, _ = plan(write(folder, "base", PROGRAM, "factors: {p0: [0, 1]}\n"), 2)
        print(f"baseline: plan of 2 configurations {base:.2f} s, peak {base_mb:.0f} MB")
        print(f"\n{'design':>34} {'wall s':>7} {'x base':>7} {'peak MB':>8} {'list/full':>9}")
        for n in (int(x) for x in args.listed.split(",") if x):
            side = int(n**0.5)
            rows = "".join(f"  - {{p0: {i // side}, p1: {i % side}}}\n" for i in range(n))
            listed = plan(write(folder, f"list{n}", PROGRAM, "configurations:\n" + rows), n)
            full = f"factors:\n  p0: {list(range(n // side))}\n  p1: {list(range(side))}\n"
            factorial = plan(write(folder, f"full{n}", PROGRAM, full), n)
            ratio = f"{listed[0] / factorial[0]:9.2f}"
            for what, (s, mb, _), last in (
                (f"{n} listed configurations", listed, ratio),
                (f"full factorial of {n // side * side}", factorial, ""),
            ):
                print(f"{what:>34} {s:7.2f} {s / base:7.1f} {mb:8.0f} {last}")
        for resolution in (int(r) for r in args.resolutions.split(",")):
            for k in (4, 8, 12, 16, 18, MAX_FACTORS):
                factors = "factors:\n" + "".join(f"  p{i}: [0, 1]\n" for i in range(k))
                design = write(
                    folder, f"r{resolution}k{k}", PROGRAM,
                    f"{factors}fraction: {{resolution: {resolution}}}\n",
                )  # fmt: skip
                s, mb, size = plan(design, 2**k)
                runs = size.split(" configurations")[0].rsplit(" ", 1)[-1]
                what = f"k={k} resolution {resolution}: {runs} runs"
                print(f"{what:>34} {s:7.2f} {s / base:7.1f} {mb:8.0f}")


if __name__ == "__main__":
    main()
