#!/usr/bin/env python3
"""A synthetic program under the engine contract, for the report's and the console's tests: a
bulk transfer whose bytes received are large (about 7.26e7) and differ little between
flavors (a few hundred bytes), with a congestion-window trace.

With ``noise=0`` (the default) the program ignores --run, as ns-3's tcp-bulk-send ignores its
stream: every replication of a configuration gives the same result. With ``noise > 0`` the
bytes vary by Normal(0, noise) and the window by a factor drawn from --run.

    ./bulk.py --describe
    ./bulk.py --flavor=cubic --noise=50 --run=7 --out=result.json
"""

import json
import os
import random
import sys

#: The bytes a transfer receives: a large base and a small effect of the flavor.
BASE = 72_647_912.0
SHIFT = {"reno": -300.0, "cubic": 300.0}
#: The window trace: one sample a tenth of a second for STEPS samples.
STEPS = 20

DESCRIPTION = {
    "name": "bulk",
    "version": "1.0",
    "parameters": [
        {"name": "flavor", "type": "string", "default": "reno", "choices": ["reno", "cubic"],
         "help": "TCP flavor"},
        {"name": "noise", "type": "float", "default": 0.0, "minimum": 0, "unit": "bytes",
         "help": "standard deviation of the bytes received between replications"},
    ],
    "summary": [
        {"name": "bytes", "type": "float", "unit": "bytes", "help": "bytes received"},
    ],
    "tables": {
        "cwnd": [
            {"name": "time", "type": "float", "unit": "s", "help": "simulated time"},
            {"name": "cwnd", "type": "float", "unit": "bytes", "minimum": 0,
             "help": "congestion window"},
        ]
    },
}  # fmt: skip


def fail(message: str) -> None:
    """Bad input: one line on stderr, exit code 2, nothing written."""
    print(f"bulk: {message}", file=sys.stderr)
    sys.exit(2)


def main(argv: list[str]) -> int:
    if argv == ["--describe"]:
        print(json.dumps(DESCRIPTION))
        return 0
    given = dict(arg.removeprefix("--").partition("=")[::2] for arg in argv)
    flavor, out = given.get("flavor", "reno"), given.get("out", "")
    if flavor not in SHIFT:
        fail(f"--flavor={flavor}: allowed: reno, cubic")
    try:
        noise = float(given.get("noise", 0))
    except ValueError:
        noise = -1.0
    if not noise >= 0:
        fail(f"--noise={given['noise']}: allowed: a number >= 0")
    if not out:
        fail("--out: allowed: a file path")
    if not given.get("run", "").isdigit():
        fail(f"--run={given.get('run')}: allowed: an integer >= 1")
    rng = random.Random(int(given["run"]))
    bytes_received = BASE + SHIFT[flavor] + (rng.gauss(0, noise) if noise > 0 else 0.0)
    # the window grows linearly; with noise each run's slope differs by up to +-50 %
    slope = 1e6 * (1 + (rng.uniform(-0.5, 0.5) if noise > 0 else 0.0))
    cwnd = [{"time": k / 10, "cwnd": slope * k} for k in range(STEPS)]
    result = {
        "params": {"flavor": flavor, "noise": noise},
        "summary": {"bytes": bytes_received},
        "cwnd": cwnd,
    }
    with open(out + ".tmp", "w") as f:
        json.dump(result, f)
    os.replace(out + ".tmp", out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
