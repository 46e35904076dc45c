"""``satsweep analyze`` and ``satsweep report``: a study's (or a table's) factorial analysis and
its report."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console

from satsweep import analysis, report
from satsweep.cli.common import Subparsers, add_results_option, error
from satsweep.store import Store, StoreError, results_dir


def add(commands: Subparsers) -> None:
    """Adds ``analyze`` and ``report``."""
    _add_analyze(commands)
    _add_report(commands)


def _analyze(args: argparse.Namespace) -> int:
    """`satsweep analyze`: factorial-design analysis (Jain 1991) of a table of runs."""
    try:
        study = _study_of(args.source, args.results)
        responses = _names(args.response) if args.response else study.responses
        factors = _names(args.factors) if args.factors else study.layout
        by = study.by if args.by is None else (None if args.by.lower() == "none" else args.by)
        if not responses or not factors:
            raise analysis.AnalysisError(
                "give --response and --factors (a table, or a store without a recorded design, "
                "has no defaults)"
            )
        results = {}
        part = study.balanced_replications  # the balanced part of configurations' own r
        with analysis.Dataset.open(args.source, args.results, part) as data:
            options = {"model": args.model, "confidence": args.confidence}
            for response in responses:
                if by is None:
                    results[response] = {None: data.analyze(response, factors, **options)}
                else:
                    results[response] = data.analyze_by(by, response, factors, **options)
    except (analysis.AnalysisError, StoreError) as e:
        error("analyze", e)
        return 2
    if part is not None:
        print(f"(the configurations have their own replications: replications 1..{part} of "
              "each, a balanced design)", file=sys.stderr)  # fmt: skip
    if args.json:  # one response as before; several keyed by response
        shown = {r: (g[None] if by is None else g) for r, g in results.items()}
        print(analysis.to_json(shown if len(shown) > 1 else next(iter(shown.values()))))
    else:
        print(
            "\n".join(
                analysis.format_markdown(r, study.units)
                for per_group in results.values()
                for r in per_group.values()
            ),
            end="",
        )
    return 0


def _study_of(source: str, results: str | None) -> analysis.StudyDesign:
    """The defaults and units of SOURCE when it names a study with a recorded design."""
    if Path(source).is_file() or "/" in source or not (results_dir(results) / source).is_dir():
        return analysis.StudyDesign()
    return analysis.study_design(Store(results_dir(results) / source))


def _add_model_options(p: argparse.ArgumentParser) -> None:
    """The analysis options shared by `analyze` and `report`."""
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


def _add_analyze(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "analyze",
        help="factorial-design analysis (effects, allocation of variation, confidence intervals)",
        description=_analyze.__doc__,
    )
    p.add_argument(
        "source", help="a study name (its results/<study>/runs.parquet) or a Parquet/CSV file"
    )
    p.add_argument(
        "--response",
        help="the response column(s), comma-separated, e.g. efficiency (default for a study: "
        "its design's analysis.responses, else every numeric summary field)",
    )
    p.add_argument(
        "--factors",
        help="comma-separated factor columns, e.g. flavor,bufferRtt,drop (default for a study: "
        "its design's analysis.factors, else its factors)",
    )
    p.add_argument(
        "--by",
        metavar="COLUMN",
        help="one analysis per value of COLUMN, or 'none' (default for a study: its design's "
        "analysis.by)",
    )
    add_results_option(p)
    _add_model_options(p)
    output = p.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print JSON")
    output.add_argument("--markdown", action="store_true", help="print Markdown tables (default)")
    p.set_defaults(func=_analyze)


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def _report(args: argparse.Namespace) -> int:
    """`satsweep report`: a study's results tables, analysis and figures as HTML and Markdown."""
    console = Console(stderr=True, highlight=False)
    by = report.AUTO if args.by is None else (None if args.by.lower() == "none" else args.by)
    try:
        index = report.write_report(
            args.study,
            args.results,
            responses=_names(args.responses) if args.responses else None,
            factors=_names(args.factors) if args.factors else None,
            by=by,
            model=args.model,
            confidence=args.confidence,
            log=lambda path: console.print(f"  wrote {path}", markup=False),
        )
    except report.ReportError as e:
        error("report", e)
        return 2
    print(index)
    return 0


def _add_report(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "report",
        help="write results/<study>/report/: tables, analysis and figures (HTML, Markdown)",
        description=_report.__doc__,
    )
    p.add_argument("study", help="the study name (its results/<study>/runs.parquet)")
    add_results_option(p)
    p.add_argument(
        "--responses",
        help="comma-separated response columns (default: the design's analysis.responses, "
        "else every numeric summary field of its program)",
    )
    p.add_argument(
        "--factors",
        help="comma-separated factors; the last one makes the table's columns (default: the "
        "design's analysis.factors, else its factors but --by, in its order)",
    )
    p.add_argument(
        "--by",
        metavar="COLUMN",
        help="one section per value of COLUMN, or 'none' (default: the design's analysis.by)",
    )
    _add_model_options(p)
    p.set_defaults(func=_report)
