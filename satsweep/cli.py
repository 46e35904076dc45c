"""The `satsweep` command line."""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console
from rich.table import Table

from satsweep import engine


def _simulate(args: argparse.Namespace) -> int:
    """Runs one simulation with satnet's flags and prints its summary."""
    console = Console(stderr=True)
    try:
        flags = dict(flag.removeprefix("--").split("=", 1) for flag in args.flags)
    except ValueError:
        console.print("satsweep simulate: error: flags take the form --name=value")
        return 2
    try:
        with console.status("simulating ..."):
            result = engine.run_satnet(flags)
    except engine.SimulationError as error:
        print(f"satsweep simulate: error: {error}", file=sys.stderr)
        return 2 if error.returncode == engine.USAGE_ERROR else 1
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    table = Table(title="satnet run", show_header=False)
    for key, value in {**result["params"], **result["summary"]}.items():
        table.add_row(key, f"{value:.6g}" if isinstance(value, float) else str(value))
    Console().print(table)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(
        prog="satsweep", description="Reproducible parameter sweeps of network simulations."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    simulate = commands.add_parser(
        "simulate",
        help="run one satnet simulation and print its summary",
        description="Run one simulation; flags go to satnet as --name=value (see satnet --help).",
    )
    simulate.add_argument("--json", action="store_true", help="print the whole JSON result")
    simulate.set_defaults(func=_simulate)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `satsweep` command."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if args.command == "simulate":
        args.flags = extra
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
