"""The `satsweep` command line."""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console
from rich.table import Table

from satsweep import analysis, engine


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


def _analyze(args: argparse.Namespace) -> int:
    """`satsweep analyze`: factorial-design analysis (Jain 1991) of a table of runs."""
    factors = [f.strip() for f in args.factors.split(",") if f.strip()]
    try:
        with analysis.Dataset.open(args.source) as data:
            options = {"model": args.model, "confidence": args.confidence}
            if args.by is None:
                results = {None: data.analyze(args.response, factors, **options)}
            else:
                results = data.analyze_by(args.by, args.response, factors, **options)
    except analysis.AnalysisError as e:
        print(f"satsweep analyze: error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(analysis.to_json(results[None] if args.by is None else results))
    else:
        print("\n".join(analysis.format_markdown(r) for r in results.values()), end="")
    return 0


def _add_analyze(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = subparsers.add_parser(
        "analyze",
        help="factorial-design analysis (effects, allocation of variation, confidence intervals)",
        description=_analyze.__doc__,
    )
    p.add_argument(
        "source", help="a study name (its results/<study>/runs.parquet) or a Parquet/CSV file"
    )
    p.add_argument("--response", required=True, help="the response column, e.g. efficiency")
    p.add_argument(
        "--factors", required=True, help="comma-separated factor columns, e.g. flavor,buffer,drop"
    )
    p.add_argument("--by", metavar="COLUMN", help="one analysis per value of COLUMN")
    p.add_argument(
        "--model",
        choices=analysis.MODELS,
        default=analysis.DEFAULT_MODEL,
        help=f"error model (default {analysis.DEFAULT_MODEL}: the paper's, works without replications)",
    )
    p.add_argument(
        "--confidence",
        type=float,
        default=analysis.DEFAULT_CONFIDENCE,
        help=f"confidence level of the intervals (default {analysis.DEFAULT_CONFIDENCE})",
    )
    output = p.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print JSON")
    output.add_argument("--markdown", action="store_true", help="print Markdown tables (default)")
    p.set_defaults(func=_analyze)


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
    _add_analyze(commands)
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
