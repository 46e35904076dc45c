#!/usr/bin/env python3
"""A second simulator of the contract's example queue (docs/examples/mm1.py), for tests of
designs that cross simulators: the same program with deterministic service only, under its own
name (``md1``), without the ``service`` parameter. By Pollaczek-Khinchine its mean wait is half
the M/M/1 queue's at every load: a simulator effect known in advance.

    ./md1.py --describe
    ./md1.py --load=0.5 --customers=1000 --run=1 --out=result.json
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "examples"))
import mm1  # noqa: E402  (found by the path above)

mm1.PARAMETERS[:] = [p for p in mm1.PARAMETERS if p["name"] != "service"]
mm1.DESCRIPTION.update(name="md1", version="1.0")
_simulate = mm1.simulate


def simulate(params, run):
    """mm1's run with deterministic service, which the echo leaves out (not a parameter)."""
    result = _simulate({**params, "service": "det"}, run)
    del result["params"]["service"]
    return result


mm1.simulate = simulate

if __name__ == "__main__":
    sys.exit(mm1.main(sys.argv[1:]))
