"""The `satsweep` command line."""

import argparse
import sys

from satsweep import analysis


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


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `satsweep` command."""
    parser = argparse.ArgumentParser(prog="satsweep", description=__doc__)
    subparsers = parser.add_subparsers(dest="command", required=True)
    _add_analyze(subparsers)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
