#!/usr/bin/env python3
"""A complete minimal program under satsweep's engine contract (docs/engine-contract.md).

An M/M/1 (or M/D/1) queue: `customers` arrivals at rate `load`, served at rate 1 in order.
Mean waiting time in queue: load / (1 - load) for exponential service, half of it for
deterministic service (Pollaczek-Khinchine).

    ./mm1.py --describe
    ./mm1.py --load=0.5 --customers=1000 --run=1 --out=result.json
"""

import json
import os
import random
import sys

PARAMETERS = [
    {
        "name": "load",
        "type": "float",
        "default": 0.5,
        "exclusiveMinimum": 0,
        "exclusiveMaximum": 1,
        "unit": "Erlang",
        "help": "arrival rate / service rate",
    },
    {
        "name": "customers",
        "type": "int",
        "default": 1000,
        "minimum": 1,
        "maximum": 1000000,
        "help": "customers simulated",
    },
    {
        "name": "service",
        "type": "string",
        "default": "exp",
        "choices": ["exp", "det"],
        "help": "service time distribution: exponential or deterministic, mean 1",
    },
]
DESCRIPTION = {
    "name": "mm1",
    "version": "1.0",
    "parameters": PARAMETERS,
    "summary": [
        {"name": "mean_wait", "type": "float", "unit": "s", "help": "mean waiting time in queue"},
        {"name": "max_wait", "type": "float", "unit": "s", "help": "longest waiting time"},
        {"name": "served", "type": "int", "unit": "customers", "help": "customers served"},
    ],
    "tables": {
        "waits": [
            {"name": "customer", "type": "int", "help": "arrival order, from 0"},
            {"name": "wait", "type": "float", "unit": "s", "help": "waiting time in queue"},
        ]
    },
    "cost": {"per": ["customers"], "seconds": 2e-6},
}


def fail(message):
    """Bad input: one line on stderr, exit code 2, nothing written."""
    print(f"mm1: {message}", file=sys.stderr)
    sys.exit(2)


def allowed(p):
    if "choices" in p:
        return "allowed: " + ", ".join(p["choices"])
    bounds = [
        f"{op} {p[key]}"
        for key, op in (
            ("minimum", ">="),
            ("exclusiveMinimum", ">"),
            ("maximum", "<="),
            ("exclusiveMaximum", "<"),
        )
        if key in p
    ]
    kind = {"int": "an integer", "float": "a number", "string": "a string"}[p["type"]]
    return f"allowed: {kind} " + " and ".join(bounds)


def value(p, text):
    """The value of parameter p given as text, checked against its declaration."""
    try:
        v = {"int": int, "float": float, "string": str}[p["type"]](text)
    except ValueError:
        fail(f"--{p['name']}={text}: {allowed(p)}")
    ok = (
        v in p.get("choices", [v])
        and v >= p.get("minimum", v)
        and v <= p.get("maximum", v)
        and ("exclusiveMinimum" not in p or v > p["exclusiveMinimum"])
        and ("exclusiveMaximum" not in p or v < p["exclusiveMaximum"])
    )
    return v if ok else fail(f"--{p['name']}={text}: {allowed(p)}")


def parse(argv):
    """The parameters (declared ones only, defaults filled in), --run and --out."""
    declared = {p["name"]: p for p in PARAMETERS}
    params = {name: p["default"] for name, p in declared.items()}
    given = {}
    for arg in argv:
        name, eq, text = arg.removeprefix("--").partition("=")
        if not arg.startswith("--") or not eq:
            fail(f"{arg}: flags take the form --name=value")
        given[name] = text
    run, out = given.pop("run", ""), given.pop("out", "")
    if not run.isdigit() or int(run) < 1:
        fail(f"--run={run}: allowed: an integer >= 1")
    if not out:
        fail("--out: allowed: a file path")
    for name, text in given.items():
        if name not in declared:
            fail(f"--{name}: unknown flag; allowed: " + ", ".join(f"--{n}" for n in declared))
        params[name] = value(declared[name], text)
    return params, int(run), out


def simulate(params, run):
    rng = random.Random(run)  # the replication's own stream
    wait, waits = 0.0, []
    service = rng.expovariate(1.0) if params["service"] == "exp" else 1.0
    for customer in range(params["customers"]):
        waits.append({"customer": customer, "wait": wait})
        gap = rng.expovariate(params["load"])
        # Lindley's recursion: the next customer waits for what is left of this one's work
        wait = max(0.0, wait + service - gap)
        service = rng.expovariate(1.0) if params["service"] == "exp" else 1.0
    summary = {
        "mean_wait": sum(w["wait"] for w in waits) / len(waits),
        "max_wait": max(w["wait"] for w in waits),
        "served": len(waits),
    }
    return {"params": params, "summary": summary, "waits": waits}


def main(argv):
    if argv == ["--describe"]:
        print(json.dumps(DESCRIPTION))
        return 0
    params, run, out = parse(argv)
    result = simulate(params, run)
    temporary = f"{out}.tmp.{os.getpid()}"  # written whole, then renamed: never half a file
    with open(temporary, "w") as f:
        json.dump(result, f)
    os.replace(temporary, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
