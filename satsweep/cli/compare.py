"""``satsweep compare A B``: two studies' runs paired and compared per response, beyond noise or
within it (satsweep.analysis.compare), on the console, as JSON or as an HTML page, with a
condition for CI to fail on."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path

from satsweep.analysis import DEFAULT_CONFIDENCE
from satsweep.analysis.compare import (
    CORRECTIONS,
    DEFAULT_CORRECTION,
    FAIL_IF_ALLOWED,
    CompareError,
    Comparison,
    compare,
    parse_fail_if,
)
from satsweep.cli.common import STORE_ARGUMENT, Subparsers, add_results_option, error, opened_store
from satsweep.report import ReportError
from satsweep.report.compare import (
    largest_overall_rows,
    moved_rows,
    summary_rows,
    summary_text,
    write_comparison,
)
from satsweep.store import (
    StoreError,
    results_dir,
)


def add(commands: Subparsers) -> None:
    """Adds ``compare``."""
    p = commands.add_parser(
        "compare",
        help="pair two studies' runs (a rerun, a new program version) and say per response "
        "which configurations moved, beyond noise or within it",
        description=_compare.__doc__,
    )
    for name in ("a", "b"):
        p.add_argument(
            name,
            metavar=name.upper(),
            help=f"a study's name (its store in --results), {STORE_ARGUMENT}",
        )
    add_results_option(p)
    p.add_argument(
        "--responses",
        metavar="NAMES",
        help="comma-separated summary fields (default: every numeric one both programs declare)",
    )
    p.add_argument(
        "--ignore",
        metavar="NAMES",
        help="comma-separated summary fields to leave out, e.g. wall_seconds,peak_rss_mb (a "
        "run's own measurements, which differ in every rerun)",
    )
    p.add_argument(
        "--confidence",
        type=float,
        default=DEFAULT_CONFIDENCE,
        help=f"confidence level of the intervals and family-wise confidence of the correction "
        f"(default {DEFAULT_CONFIDENCE})",
    )
    p.add_argument(
        "--correction",
        choices=CORRECTIONS,
        default=DEFAULT_CORRECTION,
        help=f"multiple-comparison correction over a response's configurations (default "
        f"{DEFAULT_CORRECTION})",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    p.add_argument(
        "--report",
        nargs="?",
        const="",
        metavar="DIR",
        help="also write DIR/index.html with a figure per response (DIR default: "
        "<results>/compare-<A>-vs-<B>)",
    )
    p.add_argument(
        "--fail-if",
        metavar="EXPR",
        help=f"exit 1 when EXPR holds: {FAIL_IF_ALLOWED}".replace("%", "%%"),  # argparse's %
    )
    p.set_defaults(func=_compare)


def _names(text: str | None) -> list[str]:
    """A comma-separated list of names (none for None)."""
    return [name.strip() for name in (text or "").split(",") if name.strip()]


def _compare(args: argparse.Namespace) -> int:
    """`satsweep compare A B`: pairs B's runs with A's (by config_id and replication: the same
    parameters and random streams; by the factors' values when the config_ids differ) and
    gives per numeric summary field the bit-identical pairs, the mean difference B - A with its
    t interval, the configurations whose paired difference is beyond noise after a correction
    over the configurations (Holm's by default), and the largest relative differences. Runs
    without a pair are counted and named. Exit 0, or 1 when --fail-if holds; 2 for bad input."""
    try:
        return _run(args)
    except KeyboardInterrupt:  # a large comparison stopped: one line, as `sql` says it
        error("compare", "interrupted")
        return 130


def _run(args: argparse.Namespace) -> int:
    """:func:`_compare` itself; that turns Ctrl-C into exit code 130."""
    try:
        conditions = parse_fail_if(args.fail_if) if args.fail_if is not None else []
        responses = _names(args.responses) or None
        ignore = _names(args.ignore)
        with contextlib.ExitStack() as stack:
            a = stack.enter_context(opened_store(args.a, args.results))
            b = stack.enter_context(opened_store(args.b, args.results))
            result = compare(a, b, (args.a, args.b), args.confidence, args.correction, responses,
                             ignore)  # fmt: skip
    except (CompareError, StoreError) as e:
        error("compare", e)
        return 2
    if args.report is not None:
        folder = (Path(args.report) if args.report
                  else results_dir(args.results) / f"compare-{result.a.study}-vs-{result.b.study}")  # fmt: skip
        try:
            index = write_comparison(result, folder)
        except ReportError as e:
            error("compare", e)
            return 2
        print(f"satsweep compare: wrote {index}", file=sys.stderr)
    failures = result.failures(conditions)
    if args.json:
        out = result.to_json()
        out["fail_if"] = {"expression": args.fail_if, "failures": failures}
        print(json.dumps(out, indent=1))
    else:
        _print(result)
    for line in failures:
        print(f"satsweep compare: --fail-if {line}", file=sys.stderr)
    return 1 if failures else 0


def _print(result: Comparison) -> None:
    """The comparison as text and rich tables."""
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False)

    def show(rows: tuple[list[str], list[list[str]], str], title: str) -> None:
        header, body, align = rows
        table = Table(title=title, title_justify="left")
        for name, side in zip(header, align, strict=True):
            table.add_column(name, justify="right" if side == "r" else "left")
        for row in body:
            table.add_row(*row)
        console.print(table)

    for line in summary_text(result):
        console.print(line, markup=False, soft_wrap=True)
    show(summary_rows(result), "per response")
    for response in result.responses:
        if response.significant:
            show(moved_rows(result, response), f"{response.response}: configurations beyond noise")
    largest = largest_overall_rows(result)
    if largest[1]:
        show(largest, "largest relative differences")
    if result.all_identical:
        console.print("all identical", markup=False)
