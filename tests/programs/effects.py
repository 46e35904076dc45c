#!/usr/bin/env python3
"""A synthetic program under the engine contract with known effects, for tests of fractional
designs: five two-level factors a..e (levels -1 and 1), and y = BASE + the sum of EFFECTS, each
the coefficient of a word (a product of factors' levels), plus Normal(0, sd) from --run.

    ./effects.py --describe
    ./effects.py --a=1 --b=-1 --c=1 --d=1 --e=-1 --sd=0 --run=7 --out=result.json
"""

import json
import math
import os
import random
import sys

NAMES = "abcde"
BASE = 10.0
#: the true effects q of the sign table, by word: main effects, interactions of two and three
EFFECTS = {
    "a": 2.0,
    "b": -1.5,
    "c": 1.0,
    "d": 0.5,
    "e": 0.25,
    "ab": 0.75,
    "ac": -0.4,
    "bc": 0.3,
    "de": 0.2,
    "abc": 0.6,
    "cde": -0.35,
}

PARAMETERS = [
    *(
        {"name": n, "type": "int", "default": -1, "choices": [-1, 1], "help": f"factor {n}"}
        for n in NAMES
    ),
    {"name": "sd", "type": "float", "default": 0.0, "minimum": 0, "help": "the noise's deviation"},
]
DESCRIPTION = {
    "name": "effects",
    "version": "1.0",
    "parameters": PARAMETERS,
    "summary": [{"name": "y", "type": "float", "help": "BASE + effects + Normal(0, sd)"}],
    "tables": {},
}


def mean(levels: dict[str, int]) -> float:
    """The true mean response at these levels."""
    return BASE + sum(q * math.prod(levels[n] for n in word) for word, q in EFFECTS.items())


def main(argv: list[str]) -> int:
    if argv == ["--describe"]:
        print(json.dumps(DESCRIPTION))
        return 0
    given = dict(arg.removeprefix("--").split("=", 1) for arg in argv)
    levels = {n: int(given.get(n, -1)) for n in NAMES}
    sd = float(given.get("sd", 0))
    noise = random.Random(int(given.get("run", 1))).gauss(0, sd) if sd > 0 else 0.0
    result = {"params": {**levels, "sd": sd}, "summary": {"y": mean(levels) + noise}}
    out = given["out"]
    with open(out + ".tmp", "w") as f:
        json.dump(result, f)
    os.replace(out + ".tmp", out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
