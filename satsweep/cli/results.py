"""``satsweep analyze`` and ``satsweep report``: a study's (or a table's) factorial analysis and
its report."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from satsweep import analysis, report
from satsweep.analysis import steady
from satsweep.cli.common import (
    DESIGN_SUFFIXES,
    STUDY_COMPLETION,
    Subparsers,
    add_results_option,
    add_study_argument,
    error,
    is_design_file,
    study_name,
)
from satsweep.design import DesignError
from satsweep.store import Store, StoreError, results_dir


def add(commands: Subparsers) -> None:
    """Adds ``analyze`` and ``report``."""
    _add_analyze(commands)
    _add_report(commands)


def _analyze(args: argparse.Namespace) -> int:
    """`satsweep analyze`: factorial-design analysis (Jain 1991) of a table of runs."""
    try:
        if not _is_table(args.source):  # a design file or a study's name: its store
            args.source = study_name(
                args.source, args.results, "a design's YAML file or a Parquet/CSV file of runs"
            )
            Store.named(args.source, args.results)  # its runs not compacted yet: says so
            _warn_incomplete("analyze", args.source, args.results)
        study = _study_of(args.source, args.results)
        responses = _names(args.responses) if args.responses else study.responses
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
            if study.steady:  # its steady-state responses, joined onto the runs
                root = results_dir(args.results) / args.source
                measured = steady.attach(data, root, study.steady, args.confidence, part)
                labels = steady.configuration_labels(data, list(study.factors))
            options = {"model": args.model, "confidence": args.confidence}
            for response in responses:
                if by is None:
                    results[response] = {None: data.analyze(response, factors, **options)}
                else:
                    results[response] = data.analyze_by(by, response, factors, **options)
    except (analysis.AnalysisError, StoreError) as e:
        error("analyze", e)
        return 2
    if study.steady:
        for line in steady.warnings(measured, labels):
            print(f"satsweep analyze: warning: {line}", file=sys.stderr)
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
        if study.steady:
            print("\n" + steady.format_markdown(measured, labels, args.confidence), end="")
    return 0


#: How a table file's name ends (those `analyze` reads; the rest of a missing one's error).
_TABLE_SUFFIXES = (".parquet", ".pq", ".csv", ".tsv", ".txt", ".gz")


def _is_table(source: str) -> bool:
    """Whether an analyze SOURCE is a table file (Parquet or CSV), not a design or a study."""
    if source.lower().endswith(DESIGN_SUFFIXES):
        return False
    return Path(source).is_file() or "/" in source or source.lower().endswith(_TABLE_SUFFIXES)


def _incomplete(study: str, results: str | None) -> str | None:
    """What a study's runs table lacks, in one line, when it holds fewer runs than its recorded
    design has (missing, failed or damaged runs, or runs not compacted yet): the analysis then
    sees fewer levels or cells than the design has, and says so in its own terms ("a single
    level", "unbalanced"). None when it holds them all, or without a recorded design or a
    runs table (the analysis says what is wrong)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    store = Store(results_dir(results) / study)
    try:
        design = store.design()
        if design is None:
            return None
        design = store.round(store.bind(design))
        rows = pq.read_metadata(store.runs_table).num_rows
        if rows >= design.n_runs:
            return None
        state = store.state(design)
    except (DesignError, StoreError, OSError, pa.ArrowException):
        return None
    return (
        f"{design.n_runs - rows} of {design.n_runs} runs of study '{study}' are missing or "
        f"failed ({len(state.failed)} failed): see `satsweep status {study}`; `satsweep run "
        f"{study}` runs them (--keep-going past failures)"
    )


def _warn_incomplete(command: str, study: str, results: str | None) -> None:
    """Says, before the analysis, that the store lacks runs (:func:`_incomplete`)."""
    said = _incomplete(study, results)
    if said is not None:
        print(f"satsweep {command}: warning: {said}", file=sys.stderr)


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
        "source",
        metavar="STUDY",
        help="the design's YAML file or the study's name (its store in --results), or a "
        "Parquet/CSV file of runs",
    ).complete = STUDY_COMPLETION  # type: ignore[attr-defined]
    _add_responses_option(
        p,
        "e.g. efficiency (default for a study: its design's "
        "analysis.responses, else every numeric summary field)",
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


def _add_responses_option(p: argparse.ArgumentParser, default: str) -> None:
    """--responses, the one spelling of `analyze` and `report`; --response, `analyze`'s
    spelling before, still works (hidden)."""
    p.add_argument(
        "--responses",
        metavar="NAMES",
        help=f"comma-separated response columns, {default}",
    )
    p.add_argument("--response", dest="responses", help=argparse.SUPPRESS)


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def _report(args: argparse.Namespace) -> int:
    """`satsweep report`: a study's results tables, analysis and figures as HTML and Markdown."""
    from rich.console import Console

    console = Console(stderr=True, highlight=False)
    design_file = args.study if is_design_file(args.study) else None  # its analysis: as now
    try:
        args.study = study_name(args.study, args.results)
    except StoreError as e:
        error("report", e)
        return 2
    _warn_incomplete("report", args.study, args.results)
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
            design_file=design_file,
            note=lambda line: print(f"satsweep report: {line}", file=sys.stderr),
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
    add_study_argument(p)
    add_results_option(p)
    _add_responses_option(
        p,
        "e.g. efficiency,fairness (default: the design's "
        "analysis.responses, else every numeric summary field of its program)",
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
