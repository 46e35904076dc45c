"""The `satsweep` command line."""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import collections
import itertools
import json
import os
import re
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from satsweep import analysis, report
from satsweep.cluster import submit
from satsweep.design import MAX_RUNS, Design, DesignError, Run, load_design
from satsweep.engine import (
    USAGE_ERROR,
    Program,
    ProgramError,
    SimulationError,
    flags,
    value_text,
)
from satsweep.store import (
    Store,
    StoreError,
    check_read_only,
    connect,
    results_dir,
    studies,
    write_csv,
    write_parquet,
)
from satsweep.analysis import precision
from satsweep.workflow import run as sweep

#: `satsweep status`'s exit code when runs are missing but none failed (a failed run: 1).
INCOMPLETE = 3

#: The file types `satsweep sql --out` writes.
EXPORTS = (".csv", ".parquet")

#: `satsweep sql`'s caps of a query by default, kind to a shared login node: seconds, and
#: DuckDB's memory (a store's tables are small; a runaway cross join is not).
SQL_TIMEOUT = 300.0
SQL_MEMORY = "2GB"
#: A --memory SIZE: a number and a unit of bytes.
SIZE = re.compile(r"([0-9]+(?:\.[0-9]+)?) ?([KMGT])(i?)B", re.IGNORECASE)
#: Rows that `satsweep sql` fetches at a time, to keep count of the result's size.
CHUNK = 10_000

#: How many runs `satsweep status` lists per category.
LIST_LIMIT = 20
#: Configurations `satsweep plan` lists unless told (--rows).
PLAN_ROWS = 1000
#: The entry-point group of plug-ins' commands: each entry point is a function that adds its
#: subcommand to the parser's subparsers (docs/engine-contract.md, "Engines as plug-ins").
COMMANDS = "satsweep.commands"


def _simulate(args: argparse.Namespace) -> int:
    """Runs one simulation of a program (by name or path) and prints its summary."""
    console = Console(stderr=True)
    try:
        values = dict(flag.removeprefix("--").split("=", 1) for flag in args.flags)
    except ValueError:
        _error("simulate", "flags take the form --name=value")
        return 2
    try:
        options = dict(option.split("=", 1) for option in args.option if "=" in option)
        if len(options) != len(args.option):
            _error("simulate", "--option takes the form KEY=VALUE, e.g. --option ini=omnetpp.ini")
            return 2
        program = Program.find(args.program, Path.cwd(), options)
    except (ProgramError, OSError) as e:
        _error("simulate", f"program: {e}")
        return 2
    declared = [p.name for p in program.description.parameters]
    unknown = [name for name in values if name not in (*declared, "run")]
    if unknown:
        allowed = ", ".join(sorted(declared, key=str.lower))
        _error(
            "simulate", f"--{unknown[0]}: unknown parameter of {program.name}; allowed: {allowed}"
        )
        return 2
    run = values.pop("run", "1")
    try:
        with console.status("simulating ..."):
            result = program.run(values, run)
    except SimulationError as error:
        if error.returncode == USAGE_ERROR and error.stderr_tail.strip():
            _error("simulate", error.stderr_tail.strip())  # the program's own "allowed:" line
            return 2
        _error("simulate", error)
        return 1
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    table = Table(title=f"{program.name} run", show_header=False)
    for key, value in {**result["params"], **result["summary"]}.items():
        table.add_row(key, f"{value:.6g}" if isinstance(value, float) else str(value))
    Console().print(table)
    return 0


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
        _error("analyze", e)
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


def _add_analyze(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
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
    _add_results_option(p)
    _add_model_options(p)
    output = p.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print JSON")
    output.add_argument("--markdown", action="store_true", help="print Markdown tables (default)")
    p.set_defaults(func=_analyze)


def _add_results_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--results",
        metavar="DIR",
        help="results directory (default $SATSWEEP_RESULTS, else ./results)",
    )


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
        _error("report", e)
        return 2
    print(index)
    return 0


def _add_report(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = subparsers.add_parser(
        "report",
        help="write results/<study>/report/: tables, analysis and figures (HTML, Markdown)",
        description=_report.__doc__,
    )
    p.add_argument("study", help="the study name (its results/<study>/runs.parquet)")
    _add_results_option(p)
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


def _error(command: str, message: object) -> None:
    print(f"satsweep {command}: error: {message}", file=sys.stderr)


def _load(command: str, args: argparse.Namespace) -> Design | None:
    """The design of ``args.sweep`` bound to its store (:meth:`Store.bind`), refused (None,
    the error said) when it is not valid, larger than ``--max-runs`` or cannot share its
    study's store (another base_seed or program than the runs in it)."""
    try:
        design = load_design(args.sweep, max_runs=args.max_runs)
        design = Store.of(design, args.results).bind(design)
    except (DesignError, StoreError) as e:
        _error(command, e)
        return None
    return design


def _duration(seconds: float) -> str:
    return str(dt.timedelta(seconds=round(seconds)))


def _flags(params: dict) -> str:
    return " ".join(flags(params))


def _failure(run: Run, record: dict) -> str:
    """A failed run, its command, exit code and the tail of its stderr (indented)."""
    flags = _flags(run.params)
    tail = "\n".join("    " + line for line in str(record.get("stderr_tail", "")).splitlines())
    code = record.get("returncode")
    said = f"{record.get('message')}" + ("" if code is None else f", exit code {code}")
    return f"{run.config_id}/r{run.replication} {flags} ({said})\n{tail}".rstrip()


def _run(args: argparse.Namespace) -> int:
    """`satsweep run`: every missing run of a sweep through Snakemake, then the store compacted."""
    # SIGTERM (scancel, kill) stops the run as Ctrl-C does: Snakemake cancels its jobs.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    design = _load("run", args)
    if design is None:
        return 2
    console = Console(stderr=True)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("runs"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=False) as progress:
        task = None

        def on_progress(done: int, total: int) -> None:
            nonlocal task
            if task is None:  # runs done before count as done, not as speed
                task = progress.add_task("sweep", total=total, completed=done)
            progress.update(task, completed=done, total=total)  # a campaign's rounds grow it

        try:
            execution = sweep.Execution(
                executor=args.executor,
                jobs=args.jobs,
                group_size=args.group_size,
                profile=args.profile,
            )
            report = sweep.run(
                design,
                warn=lambda text: progress.console.print(
                    f"warning: {text}", style="yellow", highlight=False, markup=False
                ),
                cores=args.cores,
                keep_going=args.keep_going,
                results=args.results,
                on_progress=on_progress,
                execution=execution,
            )
        except DesignError as e:
            _error("run", e)
            return 2
        except (FileNotFoundError, sweep.SweepBusy) as e:
            _error("run", e)
            return 2 if isinstance(e, FileNotFoundError) else 1
        except KeyboardInterrupt:
            _error("run", "interrupted: Snakemake stopped; finished runs are kept")
            return 130
    state = report.state
    where = f"on {args.cores} cores"
    if execution.remote:
        where = f"through --executor {args.executor} ({args.jobs or args.cores} slots)"
    console.print(
        f"[bold]{report.design.study}[/bold]: {len(state.done)}/{state.total} runs done "
        f"({report.done_now} now, {report.done_before} before), {len(state.failed)} failed, "
        f"{state.n_missing} not run; {_duration(report.wall_seconds)} {where}"
    )
    for step in report.rounds:
        console.print(
            f"round r = {step.design.replications_text()}: "
            + "; ".join(_reached(x) for x in step.reached),
            highlight=False,
        )
    if report.rounds:
        last = report.rounds[-1]
        console.print(
            f"precision met at r = {last.design.replications_text()}, {last.design.n_runs} runs"
            if last.met
            else f"precision NOT met: stopped at max = {last.design.most_replications} replications "
            f"(r = {last.design.replications_text()}, {last.design.n_runs} runs)",
            highlight=False,
        )
    for run, record in state.failed:
        console.print("[red]failed[/red]", end=" ")
        console.print(_failure(run, record), highlight=False, markup=False)
    if report.returncode != 0 and not state.failed:
        console.print(f"Snakemake failed (exit code {report.returncode}); the end of {report.log}:")
        console.print(sweep.log_tail(report.log), highlight=False, markup=False)
    for said in sweep.store_errors(state):  # the cause, e.g. a full disk, after the log's end
        console.print("[red]store not written:[/red]", end=" ")
        console.print(said, highlight=False, markup=False)
    if report.store.runs_table.is_file():
        tables = ", ".join(f"{name}.parquet" for name in report.store.tables())
        console.print(f"store: {report.store.root}/ {tables}", highlight=False)
    return 0 if report.ok else 1


def _plan(args: argparse.Namespace) -> int:
    """`satsweep plan`: the run table of a sweep, without running anything."""
    design = _load("plan", args)
    if design is None:
        return 2
    store = Store.of(design, args.results)
    design = store.round(design)  # a precision campaign: its round so far
    state = store.state(design)
    done = collections.Counter(r.config_id for r in state.done)
    table = Table(title=f"{design.study}: {design.description}".rstrip(": "))
    for name in ("#", "config_id", *design.factors, "done"):
        table.add_column(name)
    for config in itertools.islice(design.iter_configurations(), args.rows):
        levels = [value_text(config.params[name]) for name in design.factors]
        table.add_row(
            str(config.index + 1),
            config.config_id,
            *levels,
            f"{done[config.config_id]}/{design.replications_for(config.config_id)}",
        )
    console = Console()
    console.print(table)
    if design.n_configurations > args.rows:
        console.print(
            f"... and {design.n_configurations - args.rows} more configurations (--rows N "
            "shows more)"
        )
    fixed = _flags(design.fixed) or "(none)"
    todo = state.n_missing + len(state.failed) + len(state.damaged)
    console.print(
        f"{design.n_configurations} configurations x {design.replications_text()} replications = "
        f"{design.n_runs} runs; {len(state.done)} done, {todo} to run; fixed: {fixed}; "
        f"base_seed {design.base_seed}, streams {design.streams}; program {design.describe.name} "
        f"{design.describe.version}; store {state.store.root}"
        + (f"; {len(state.damaged)} damaged (satsweep status lists them)" if state.damaged else ""),
        highlight=False,
    )
    estimate = sweep.estimate_seconds(state, args.cores)
    if estimate is None:
        console.print("estimated cost: unknown (no finished run to measure yet)")
    else:
        seconds, basis = estimate
        console.print(
            f"estimated cost: {_duration(seconds)} on {args.cores} cores "
            f"(mean of {basis} finished runs)"
        )
    if args.check:
        problem = _trial(design, args.check_seconds, console)
        if problem is not None:
            _error("plan", problem)
            return 2
    return 0


def _trial(design: Design, seconds: float, console: Console) -> str | None:
    """``plan --check``: one run of the design's first configuration, its result in a temporary
    folder, never in the store. None when it finished, or was still running after ``seconds``
    (it started: its parameters were taken); else its failure in one line, with the last line
    the program said (OMNeT++'s own error, e.g. a unit it cannot convert)."""
    run = next(design.runs())
    try:
        design.executable.run(run.params, run.run, timeout=seconds)
    except SimulationError as e:
        if e.returncode is None and e.message.startswith("timed out"):
            console.print(
                f"check: {run.config_id}/r{run.replication} still running after {seconds:g} s, "
                "without an error so far",
                highlight=False,
                markup=False,
            )
            return None
        said = [line.strip() for line in e.stderr_tail.splitlines() if line.strip()]
        # the last line that says an error (OMNeT++ ends with "End."), else the last one
        said = [line for line in said if "error" in line.lower()] or said
        code = "" if e.returncode is None else f", exit code {e.returncode}"
        return (
            f"check: {run.config_id}/r{run.replication} {_flags(run.params)} failed "
            f"({e.message}{code})" + (f": {said[-1]}" if said else "")
        )
    console.print(
        f"check: {run.config_id}/r{run.replication} ran without an error", highlight=False
    )
    return None


def _reached(x: precision.Reached) -> str:
    """One target's state: the widest half-width against the one asked."""
    t = x.target
    asked = f"{t.halfwidth:g}" if t.halfwidth is not None else f"{t.relative:g} x |mean|"
    if x.halfwidth is None:
        return f"{t.response}: no interval yet (asked {asked})"
    verdict = "met" if x.met else "not met"
    return f"{t.response}: half-width {x.halfwidth:.4g}, asked {asked}: {verdict}"


def _status(args: argparse.Namespace) -> int:
    """`satsweep status`: done / damaged / missing / failed runs of a sweep, and which, and
    whether the compacted tables hold the done runs (:meth:`Store.compaction_problem`). Exit
    code 0 when every run is done and compacted, 1 when a run failed, 3 when runs are missing
    or damaged or the tables stale or damaged (none failed). A precision campaign is shown at
    its last round's r, with its targets."""
    design = _load("status", args)
    if design is None:
        return 2
    store = Store.of(design, args.results)
    design = store.round(design)  # a precision campaign: its last round
    state = store.state(design, deep=args.verify)
    stale = store.compaction_problem(state, deep=args.verify)
    console = Console()
    if design.precision is not None:
        p = design.precision
        console.print(
            f"{design.study}: precision over {p.over}, r from {p.min} to {p.max}; this round "
            f"r = {design.replications_text()}",
            highlight=False,
        )
        if store.runs_table.is_file() and not state.n_missing:
            for x in precision.reached(str(store.runs_table), design):
                console.print(f"  {_reached(x)}", highlight=False)
    console.print(
        f"{design.study}: {len(state.done)} done, {len(state.damaged)} damaged, "
        f"{state.n_missing} missing, {len(state.failed)} failed of {state.total} runs "
        f"({state.store.root})" + (" (every file reread)" if args.verify else ""),
        highlight=False,
        soft_wrap=True,  # one line for scripts that read it
    )
    if stale is not None:
        console.print(
            f"tables stale or damaged: {stale}; `satsweep run` compacts them again",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
    for said in sweep.store_errors(state):
        console.print(f"store not written: {said}", highlight=False, markup=False, soft_wrap=True)
    for run, problem in state.damaged[:LIST_LIMIT]:
        console.print(
            f"damaged {run.config_id}/r{run.replication}: {problem} (the next run moves its "
            "files to quarantine/ and redoes it)",
            highlight=False,
            markup=False,
        )
    for run, record in state.failed[:LIST_LIMIT]:
        # soft_wrap: each line the program said stays one line (OMNeT++'s errors are long)
        console.print(
            f"failed  {_failure(run, record)}", highlight=False, markup=False, soft_wrap=True
        )
    for run in itertools.islice(state.missing(), LIST_LIMIT):
        flags = _flags(run.params)
        console.print(
            f"missing {run.config_id}/r{run.replication} {flags}", highlight=False, markup=False
        )
    hidden = sum(max(0, n - LIST_LIMIT) for n in (len(state.failed), state.n_missing))
    hidden += max(0, len(state.damaged) - LIST_LIMIT)
    if hidden:
        console.print(f"... and {hidden} more")
    jobs = submit.recorded_jobs(design, args.results)
    if jobs:
        job = submit.job_status(jobs[-1])
        console.print(
            f"Slurm job {job.job_id} (submitted {jobs[-1].get('submitted_at')}): {job.state}, "
            f"{job.detail}; log {jobs[-1].get('output')}",
            highlight=False,
            markup=False,
        )
    if state.failed:
        return 1
    return INCOMPLETE if state.n_missing or state.damaged or stale else 0


def _submit(args: argparse.Namespace) -> int:
    """`satsweep submit`: the sweep as one Slurm batch job running a Ray cluster (Slurm+Ray)."""
    try:
        job = submit.submit(
            args.sweep,
            nodes=args.nodes,
            partition=args.partition,
            time_limit=args.time,
            mem=args.mem,
            cpus_per_node=args.cpus_per_node,
            results=args.results,
            max_runs=args.max_runs,
        )
    except (DesignError, FileNotFoundError, submit.SubmitError) as e:
        _error("submit", e)
        return 2
    print(job.job_id)
    Console(stderr=True, highlight=False).print(
        f"submitted {job.study} as Slurm job {job.job_id}: {job.nodes} node(s) x "
        f"{job.cpus_per_node} CPUs, {job.mem} per node, partition {job.partition}; "
        f"log {job.output}; 'satsweep status {args.sweep}' shows it",
        markup=False,
    )
    if args.wait:
        state = submit.wait(job.job_id)
        design = load_design(args.sweep, max_runs=None)
        store = Store.of(design, args.results)
        final = store.state(store.bind(design))
        Console(stderr=True, highlight=False).print(
            f"Slurm job {job.job_id}: {state.state}, {state.detail}; "
            f"{len(final.done)}/{final.total} runs done",
            markup=False,
        )
        return 0 if not final.n_missing and not final.failed else 1
    return 0


def _sql(args: argparse.Namespace) -> int:
    """`satsweep sql`: a read-only DuckDB query over the store's views: `runs` and the program's
    tables (analysis/README.md, "Querying a store safely"). The query may take --timeout
    seconds and --memory at most."""
    try:
        return _query(args)
    except KeyboardInterrupt:  # DuckDB was stopped first (_fetch)
        _error("sql", "interrupted")
        return 130


def _query(args: argparse.Namespace) -> int:
    """`satsweep sql` itself; :func:`_sql` turns Ctrl-C into exit code 130."""
    try:
        check_read_only(args.query)
        if args.study is not None:
            stores = [Store.named(args.study, args.results)]
        else:
            stores = []
            for store in studies(args.results):  # one unreadable study must not hide the others
                link = store.link_out()
                problem = f"the link {link} leads out of its store" if link else store.unreadable()
                if problem:
                    print(
                        f"satsweep sql: warning: study '{store.study}' left out: {problem}",
                        file=sys.stderr,
                    )
                else:
                    stores.append(store)
            if not stores:
                raise StoreError(f"no study in {args.results or 'results'}: run a sweep first")
        out = Path(args.out).absolute() if args.out else None
        if out is not None:
            _check_export(out, stores, results_dir(args.results))
        with connect(stores, _references(args.table), args.memory) as con:
            limit = _bytes(args.memory)
            if out is not None:
                table = _fetch(con, args.query, lambda c: _table(c, limit), args.timeout)
            else:
                columns, rows = _fetch(con, args.query, lambda c: _rows(c, limit), args.timeout)
    except StoreError as e:
        _error("sql", e)
        return 2
    except TimeoutError:
        _error(
            "sql",
            f"the query ran longer than --timeout {args.timeout:g} seconds and was stopped; "
            "allowed: a larger --timeout SECONDS, or --timeout 0 for no limit",
        )
        return 2
    except (duckdb.OutOfMemoryException, MemoryError):
        _error(
            "sql",
            f"the query or its result needs more memory than --memory {args.memory}; allowed: "
            "a larger --memory SIZE, e.g. --memory 8GB",
        )
        return 2
    except duckdb.Error as e:
        _error("sql", str(e).strip())
        return 2
    if out is not None:
        try:
            (write_csv if out.suffix.lower() == ".csv" else write_parquet)(out, table)
        except OSError as e:
            _error("sql", f"--out: cannot write {out}: {e.strerror or e}")
            return 2
        except pa.ArrowException as e:  # CSV has no lists or structs
            _error("sql", f"--out: cannot write {out}: {e}; allowed: FILE.parquet for it")
            return 2
        print(f"{table.num_rows} rows -> {out}", file=sys.stderr)
        return 0
    if args.csv:
        writer = csv.writer(sys.stdout)
        writer.writerow(columns)
        writer.writerows(rows)
    elif args.json:
        print(json.dumps([dict(zip(columns, row)) for row in rows], indent=1, default=str))
    else:
        table = Table()
        for name in columns:
            table.add_column(name)
        for row in rows:
            table.add_row(*(f"{v:.6g}" if isinstance(v, float) else str(v) for v in row))
        Console().print(table)
    return 0


def _fetch(
    con: duckdb.DuckDBPyConnection,
    query: str,
    convert: Callable[[duckdb.DuckDBPyConnection], Any],
    timeout: float,
) -> Any:
    """``convert(cursor)`` of ``query``'s result. DuckDB looks at no signal while it works, so
    it works in a thread of its own while this one waits: Ctrl-C (KeyboardInterrupt, raised
    here) or the end of ``timeout`` seconds (0: none; TimeoutError) interrupts it first."""
    done: dict[str, Any] = {}

    def work() -> None:
        try:
            done["result"] = convert(con.execute(query))
        except BaseException as e:  # for the waiting thread to raise
            done["error"] = e

    thread = threading.Thread(target=work, name="satsweep-sql", daemon=True)
    thread.start()
    try:
        thread.join(timeout or None)
    finally:
        timed_out = thread.is_alive()
        while thread.is_alive():  # again while DuckDB may not have started the query yet
            con.interrupt()
            thread.join(0.1)
    if "error" in done:
        raise TimeoutError(query) if timed_out else done["error"]
    return done["result"]


def _rows(cursor: duckdb.DuckDBPyConnection, limit: int) -> tuple[list[str], list[tuple]]:
    """The column names and rows of a query's result; MemoryError when the rows take more
    than ``limit`` bytes (the result is held to be printed; DuckDB's memory_limit does not
    count it). A result with a time zone goes through Arrow: DuckDB's own conversion of
    TIMESTAMP WITH TIME ZONE needs pytz."""
    description = cursor.description or []
    if any("TIME ZONE" in str(d[1]) for d in description):
        chunks: Iterable[list[tuple]] = (
            list(zip(*(column.to_pylist() for column in batch.columns)))
            for batch in _batches(cursor.fetch_record_batch(CHUNK))
        )
    else:
        chunks = iter(lambda: cursor.fetchmany(CHUNK), [])
    rows: list[tuple] = []
    size = 0
    for chunk in chunks:
        size += sum(sys.getsizeof(row) + sum(map(sys.getsizeof, row)) for row in chunk)
        if size > limit:
            raise MemoryError(limit)
        rows += chunk
    return [d[0] for d in description], rows


def _table(cursor: duckdb.DuckDBPyConnection, limit: int) -> pa.Table:
    """A query's result as an Arrow table; MemoryError when it takes more than ``limit``
    bytes."""
    reader = cursor.fetch_record_batch(CHUNK)
    batches = []
    size = 0
    for batch in _batches(reader):
        size += batch.nbytes
        if size > limit:
            raise MemoryError(limit)
        batches.append(batch)
    return pa.Table.from_batches(batches, reader.schema)


def _batches(reader: pa.RecordBatchReader) -> Iterator[pa.RecordBatch]:
    """The batches of a query's result. DuckDB's errors come through Arrow as OSError: they
    are given back as DuckDB's (MemoryError when DuckDB ran out of it)."""
    try:
        yield from reader
    except OSError as e:
        text = str(e).strip()
        raise (MemoryError if text.startswith("Out of Memory Error") else duckdb.Error)(
            text
        ) from None


def _bytes(size: str) -> int:
    """A --memory SIZE (500MB, 4GiB) in bytes, as DuckDB reads it: KB = 1000, KiB = 1024."""
    number, prefix, binary = SIZE.fullmatch(size).groups()  # type: ignore[union-attr]
    return int(float(number) * (1024 if binary else 1000) ** ("KMGT".index(prefix.upper()) + 1))


def _references(specs: list[str]) -> dict[str, Path]:
    """``--table NAME=FILE`` options as name -> file."""
    references = {}
    for spec in specs:
        name, _, file = spec.partition("=")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or not file:
            raise StoreError(
                f"--table {spec}: allowed: NAME=FILE, NAME a letter or _ then letters, digits or _"
            )
        references[name] = Path(file).absolute()
    return references


def _check_export(out: Path, stores: list[Store], results: Path) -> None:
    """An export goes outside every store, as CSV or Parquet, into a folder that exists. The
    stores are the queried ones and every folder of the results directory (each is a study's
    store or may become one), compared with links resolved."""
    if out.suffix.lower() not in EXPORTS:
        raise StoreError(f"--out: {out.name}: allowed: a file ending in .csv or .parquet")
    folders = [store.root for store in stores]
    if results.is_dir():
        folders += [folder for folder in results.iterdir() if folder.is_dir()]
    target = Path(os.path.realpath(out))  # realpath: a link loop is no error
    for folder in folders:
        if target.is_relative_to(os.path.realpath(folder)):
            raise StoreError(
                f"--out: {out} is inside the store {folder}; allowed: a file outside every "
                f"study's store (outside the folders of {results})"
            )
    if not out.parent.is_dir():
        raise StoreError(f"--out: the folder {out.parent} does not exist")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not allowed; allowed: an integer >= 1")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not allowed; allowed: seconds >= 0")
    return value


def _size(text: str) -> str:
    if not SIZE.fullmatch(text.strip()):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not allowed; allowed: a size such as 500MB, 2GB or 4GiB"
        )
    return text.strip()


def _add_sweep_commands(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    results = argparse.ArgumentParser(add_help=False)
    _add_results_option(results)
    sized = argparse.ArgumentParser(add_help=False)  # the commands that expand a design
    _add_results_option(sized)
    sized.add_argument(
        "--max-runs",
        type=_positive,
        default=MAX_RUNS,
        metavar="N",
        help=f"take a design of up to N runs (default {MAX_RUNS}: larger ones are refused "
        "with their size, as their plan, status and run cost time and memory)",
    )
    cores = os.cpu_count() or 1

    p = commands.add_parser(
        "run", parents=[sized], help="run a sweep through Snakemake", description=_run.__doc__
    )
    p.add_argument("sweep", help="the sweep design, e.g. sweeps/goyal98-quick.yaml")
    p.add_argument("--cores", type=_positive, default=cores, help=f"cores to use (default {cores})")
    p.add_argument(
        "--keep-going", action="store_true", help="go on with the other runs when one fails"
    )
    p.add_argument(
        "--executor",
        default="local",
        metavar="NAME",
        help="Snakemake executor: local (default), ray (a running Ray cluster: set "
        "SNAKEMAKE_RAY_ADDRESS), slurm (one Slurm job per Snakemake job), or any installed one",
    )
    p.add_argument(
        "--jobs",
        type=_positive,
        metavar="N",
        help="remote executors: job slots, the jobs running at once (default --cores); one "
        "more job per slot waits queued in the executor",
    )
    p.add_argument(
        "--group-size",
        type=_positive,
        metavar="K",
        help="remote executors: configurations per remote job, run one after the other "
        "(default: groups that shrink towards the end of the sweep, see workflow/README.md)",
    )
    p.add_argument(
        "--profile",
        metavar="DIR",
        help="remote executors: Snakemake profile (default: the shipped "
        "ray_jobs/profiles/<executor>)",
    )
    p.set_defaults(func=_run)

    p = commands.add_parser(
        "plan", parents=[sized], help="show a sweep's runs", description=_plan.__doc__
    )
    p.add_argument("sweep")
    p.add_argument(
        "--cores", type=_positive, default=cores, help=f"cores of the estimate (default {cores})"
    )
    p.add_argument(
        "--rows",
        type=_positive,
        default=PLAN_ROWS,
        metavar="N",
        help=f"configurations listed (default {PLAN_ROWS})",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="run the first configuration once (into a temporary folder, not the store) and "
        "exit 2 with its error when it fails",
    )
    p.add_argument(
        "--check-seconds",
        type=_seconds,
        default=60.0,
        metavar="S",
        help="--check: a run still going after S seconds has started well and is stopped "
        "(default 60)",
    )
    p.set_defaults(func=_plan)

    p = commands.add_parser(
        "status",
        parents=[sized],
        help="done/damaged/missing/failed runs",
        description=_status.__doc__,
    )
    p.add_argument("sweep")
    p.add_argument(
        "--verify",
        action="store_true",
        help="reread every file of every run against its record (sha256, rows)",
    )
    p.set_defaults(func=_status)

    p = commands.add_parser(
        "submit",
        parents=[sized],
        help="run a sweep as a Slurm job (a Ray cluster in the allocation)",
        description=_submit.__doc__,
    )
    p.add_argument("sweep", help="the sweep design, e.g. sweeps/goyal98-quick.yaml")
    p.add_argument(
        "--nodes", type=int, default=1, help="Slurm nodes, one Ray node each (default 1)"
    )
    p.add_argument("--partition", help="Slurm partition (default: the cluster's default)")
    p.add_argument(
        "--time", help="wall-time limit, e.g. 90 or 2:00:00 (default: ray-cluster.sbatch's 1:00:00)"
    )
    p.add_argument(
        "--mem",
        help="memory per node, e.g. 8G (default: CPUs x the design's mem_mb + 1.5G for Ray)",
    )
    p.add_argument(
        "--cpus-per-node",
        type=int,
        help="CPUs per node (default: all CPUs of the partition's smallest node)",
    )
    p.add_argument(
        "--wait", action="store_true", help="wait until the job has finished, then summarise"
    )
    p.set_defaults(func=_submit)

    p = commands.add_parser(
        "sql", parents=[results], help="query the store with DuckDB", description=_sql.__doc__
    )
    p.add_argument("query", help='e.g. "SELECT link, avg(efficiency) FROM runs GROUP BY link"')
    p.add_argument("--study", help="one study's store (default: every study, unioned)")
    p.add_argument(
        "--table",
        action="append",
        default=[],
        metavar="NAME=FILE",
        help="also a table NAME read from FILE (.csv or .parquet, e.g. a paper's results to "
        "compare with); may be given more than once",
    )
    output = p.add_mutually_exclusive_group()
    output.add_argument("--csv", action="store_true", help="print CSV")
    output.add_argument("--json", action="store_true", help="print JSON")
    output.add_argument(
        "--out",
        metavar="FILE",
        help="write the result to FILE.csv or FILE.parquet (outside every store) instead",
    )
    p.add_argument(
        "--timeout",
        type=_seconds,
        default=SQL_TIMEOUT,
        metavar="SECONDS",
        help=f"stop the query after SECONDS (default {SQL_TIMEOUT:g}; 0: no limit)",
    )
    p.add_argument(
        "--memory",
        type=_size,
        default=SQL_MEMORY,
        metavar="SIZE",
        help=f"the most memory the query, and its result, may take, e.g. 8GB (default "
        f"{SQL_MEMORY}; DuckDB spills nothing to disk, so a query that needs more fails)",
    )
    p.set_defaults(func=_sql)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(
        prog="satsweep", description="Reproducible parameter sweeps of network simulations."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    simulate = commands.add_parser(
        "simulate",
        help="run one simulation of a program and print its summary",
        description="Run one simulation: flags go to the program as --name=value (PROGRAM "
        "--describe lists them); --run=R picks the random stream (default 1).",
    )
    simulate.add_argument(
        "program",
        help="a program built by this project (e.g. satnet), a path to one, or an engine's "
        "adapter (e.g. omnetpp, with --option ini=FILE --option config=NAME)",
    )
    simulate.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a design option of the engine's adapter, as a design gives it (repeatable; "
        "docs/omnetpp.md)",
    )
    simulate.add_argument("--json", action="store_true", help="print the whole JSON result")
    simulate.set_defaults(func=_simulate)
    _add_analyze(commands)
    _add_report(commands)
    _add_sweep_commands(commands)
    # commands of plug-ins (an adapter's own, such as omnetpp's import), through the same hook
    for point in entry_points(group=COMMANDS):
        point.load()(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `satsweep` command."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if args.command == "simulate":
        args.flags = extra
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return args.func(args)
    except OSError as e:  # the one boundary for what the file system refuses
        where = f"{e.filename}: " if e.filename else ""
        what = e.strerror or str(e)
        if isinstance(e, PermissionError):
            _error(
                args.command,
                f"{where}{what}; allowed: a results folder you may write "
                "(--results DIR), and design and program files you may read",
            )
            return 2
        _error(args.command, f"{where}{what}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
