"""``satsweep simulate``: one simulation of a program, its summary printed."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from satsweep.cli.common import Subparsers, error
from satsweep.engine import USAGE_ERROR, Program, ProgramError, SimulationError
from satsweep.engine.program import CXX_SUFFIXES


def add(commands: Subparsers) -> None:
    """Adds ``simulate``; its flags are the arguments the parser does not know (``main``)."""
    p = commands.add_parser(
        "simulate",
        help="run one simulation of a program and print its summary",
        description="Run one simulation: flags go to the program as --name=value (PROGRAM "
        "--describe lists them); --run=R picks the random stream (default 1).",
    )
    p.add_argument(
        "program",
        help="a program built by this project (e.g. satnet), a path to one, or an engine's "
        "adapter (e.g. omnetpp, with --option ini=FILE --option config=NAME; ns3, with "
        "--option script=FILE.cc)",
    )
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a design option of the engine's adapter, as a design gives it (repeatable; "
        "docs/omnetpp.md)",
    )
    p.add_argument("--json", action="store_true", help="print the whole JSON result")
    p.set_defaults(func=_simulate)


def _simulate(args: argparse.Namespace) -> int:
    """Runs one simulation of a program (by name or path) and prints its summary."""
    from rich.console import Console
    from rich.table import Table

    console = Console(stderr=True)
    try:
        values = dict(flag.removeprefix("--").split("=", 1) for flag in args.flags)
    except ValueError:
        error("simulate", "flags take the form --name=value")
        return 2
    try:
        options = dict(option.split("=", 1) for option in args.option if "=" in option)
        if len(options) != len(args.option):
            error("simulate", "--option takes the form KEY=VALUE, e.g. --option ini=omnetpp.ini")
            return 2
        if Path(args.program).suffix in CXX_SUFFIXES and Path(args.program).is_file():
            error(
                "simulate",
                f"program: '{args.program}' is a C++ source file, not a program; allowed: an "
                f"ns-3 program's source as satsweep simulate ns3 --option script={args.program}",
            )
            return 2
        program = Program.find(args.program, Path.cwd(), options)
    except (ProgramError, OSError) as e:
        error("simulate", f"program: {e}")
        return 2
    declared = [p.name for p in program.description.parameters]
    unknown = [name for name in values if name not in (*declared, "run")]
    if unknown:
        allowed = ", ".join(sorted(declared, key=str.lower))
        error(
            "simulate", f"--{unknown[0]}: unknown parameter of {program.name}; allowed: {allowed}"
        )
        return 2
    run = values.pop("run", "1")
    try:
        with console.status("simulating ..."):
            result = program.run(values, run)
    except SimulationError as e:
        if e.returncode == USAGE_ERROR and e.stderr_tail.strip():
            error("simulate", e.stderr_tail.strip())  # the program's own "allowed:" line
            return 2
        error("simulate", e)
        return 1
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    table = Table(title=f"{program.name} run", show_header=False)
    for key, value in {**result["params"], **result["summary"]}.items():
        table.add_row(key, f"{value:.6g}" if isinstance(value, float) else str(value))
    Console().print(table)
    return 0
