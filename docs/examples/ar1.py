#!/usr/bin/env python3
"""A toy with a known transient, under satsweep's engine contract (docs/engine-contract.md):
an AR(1) series X_t = mean + phi (X_{t-1} - mean) + e_t, e_t ~ Normal(0, sigma), started at
X_0 = start, far from its steady-state mean. Its initial bias, (start - mean) phi^t, is known,
so a warm-up estimate can be judged (docs/steady-state.md, "A toy with a known transient").

    ./ar1.py --describe
    ./ar1.py --start=-40 --steps=500 --run=1 --out=result.json

Its table `series` has one row per step (time 0, 1, ..., steps - 1); its summary the mean over
every step, warm-up included (what a run's summary would say).
"""

import json
import math
import os
import random
import sys

PARAMETERS = [
    {"name": "mean", "type": "float", "default": 10.0, "help": "steady-state mean"},
    {"name": "start", "type": "float", "default": 0.0, "help": "X_0, the series' first value"},
    {
        "name": "phi",
        "type": "float",
        "default": 0.9,
        "minimum": 0,
        "exclusiveMaximum": 1,
        "help": "autocorrelation of one step",
    },
    {"name": "sigma", "type": "float", "default": 1.0, "minimum": 0, "help": "noise deviation"},
    {
        "name": "steps",
        "type": "int",
        "default": 500,
        "minimum": 1,
        "maximum": 1000000,
        "unit": "s",
        "help": "the run's length, one step a second",
    },
]
DESCRIPTION = {
    "name": "ar1",
    "version": "1.0",
    "parameters": PARAMETERS,
    "summary": [
        {"name": "mean_all", "type": "float", "help": "mean of X over every step, warm-up in"}
    ],
    "tables": {
        "series": [
            {"name": "time", "type": "float", "unit": "s", "help": "the step"},
            {"name": "x", "type": "float", "help": "X at the step"},
        ]
    },
    "cost": {"per": ["steps"], "seconds": 2e-6},
}


def series(start: float, mean: float, phi: float, sigma: float, steps: int, run: int) -> list:
    """The run's X_0 .. X_{steps-1}, drawn from --run's stream."""
    rng = random.Random(run)
    x, values = start, []
    for _ in range(steps):
        values.append(x)
        x = mean + phi * (x - mean) + rng.gauss(0.0, sigma)
    return values


def stationary_sd(phi: float, sigma: float) -> float:
    """The deviation of X in steady state: sigma / sqrt(1 - phi^2)."""
    return sigma / math.sqrt(1 - phi * phi)


def parse(argv: list[str]) -> tuple[dict, int, str]:
    """The parameters (defaults filled in), --run and --out; bad input: one line, exit 2."""
    declared = {p["name"]: p for p in PARAMETERS}
    params = {name: p["default"] for name, p in declared.items()}
    given = dict(arg.removeprefix("--").partition("=")[::2] for arg in argv)
    run, out = given.pop("run", ""), given.pop("out", "")
    problem = None
    if not run.isdigit() or int(run) < 1:
        problem = f"--run={run}: allowed: an integer >= 1"
    elif not out:
        problem = "--out: allowed: a file path"
    for name, text in given.items():
        if name not in declared:
            problem = f"--{name}: unknown flag; allowed: " + ", ".join(f"--{n}" for n in declared)
            break
        try:
            params[name] = int(text) if declared[name]["type"] == "int" else float(text)
        except ValueError:
            problem = f"--{name}={text}: allowed: a number"
            break
    bounds_ok = 0 <= params["phi"] < 1 and params["sigma"] >= 0 and 1 <= params["steps"] <= 10**6
    if problem is None and not bounds_ok:
        problem = "--phi, --sigma, --steps: allowed: 0 <= phi < 1, sigma >= 0, 1 <= steps <= 1e6"
    if problem is not None:
        print(f"ar1: {problem}", file=sys.stderr)
        sys.exit(2)
    return params, int(run), out


def main(argv: list[str]) -> int:
    if argv == ["--describe"]:
        print(json.dumps(DESCRIPTION))
        return 0
    params, run, out = parse(argv)
    values = series(
        params["start"], params["mean"], params["phi"], params["sigma"], params["steps"], run
    )
    result = {
        "params": params,
        "summary": {"mean_all": sum(values) / len(values)},
        "series": [{"time": float(t), "x": v} for t, v in enumerate(values)],
    }
    temporary = f"{out}.tmp.{os.getpid()}"  # written whole, then renamed
    with open(temporary, "w") as f:
        json.dump(result, f)
    os.replace(temporary, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
