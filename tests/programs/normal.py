#!/usr/bin/env python3
"""A synthetic program under the engine contract, for tests of precision-driven campaigns: its
response y is Normal(mean, sd) with mean = base + shift(a) + shift(b), drawn from --run.

    ./normal.py --describe
    ./normal.py --a=hi --b=2 --run=7 --out=result.json
"""

import json
import os
import random
import sys
import time

#: the true means: every main effect of a (lo, hi) and b (1, 2, 3) is known exactly
BASE = 10.0
SHIFT_A = {"lo": -1.0, "hi": 1.0}
SHIFT_B = {1: -0.5, 2: 0.0, 3: 0.5}

PARAMETERS = [
    {"name": "a", "type": "string", "default": "lo", "choices": ["lo", "hi"], "help": "factor a"},
    {"name": "b", "type": "int", "default": 1, "minimum": 1, "maximum": 3, "help": "factor b"},
    {"name": "sd", "type": "float", "default": 1.0, "minimum": 0, "help": "y's deviation"},
    {"name": "delay", "type": "float", "default": 0.0, "minimum": 0, "help": "seconds to sleep"},
]
DESCRIPTION = {
    "name": "normal",
    "version": "1.0",
    "parameters": PARAMETERS,
    "summary": [{"name": "y", "type": "float", "help": "Normal(mean, sd)"}],
    "tables": {},
    "cost": {"per": ["delay"], "seconds": 1.0},  # a run lasts its delay: jobs batch by it
}


def main(argv: list[str]) -> int:
    if argv == ["--describe"]:
        print(json.dumps(DESCRIPTION))
        return 0
    given = dict(arg.removeprefix("--").split("=", 1) for arg in argv)
    params = {
        "a": given.get("a", "lo"),
        "b": int(given.get("b", 1)),
        "sd": float(given.get("sd", 1)),
    }
    time.sleep(float(given.get("delay", 0)))  # a run that lasts, for the kill tests
    rng = random.Random(int(given.get("run", 1)))
    mean = BASE + SHIFT_A[params["a"]] + SHIFT_B[params["b"]]
    result = {"params": params, "summary": {"y": rng.gauss(mean, params["sd"])}}
    out = given.get("out")
    with open(out + ".tmp", "w") as f:
        json.dump(result, f)
    os.replace(out + ".tmp", out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
