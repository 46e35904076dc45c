"""The commands of a sweep: ``satsweep run``, ``plan``, ``status`` and ``submit``."""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import itertools
import signal
import sys
from typing import TYPE_CHECKING

from satsweep.analysis import AnalysisError, precision
from satsweep.cli.common import (
    Subparsers,
    add_results_option,
    add_study_argument,
    cores,
    error,
    load_study,
    nonnegative_seconds,
    positive,
    study_file,
)
from satsweep.cli.notes import ProgressLines, identical_note
from satsweep.cluster import submit
from satsweep.design import MAX_RUNS, Design, DesignError, Run, load_design
from satsweep.engine import SimulationError, flags, value_text
from satsweep.store import State, Store, StoreError, holder
from satsweep.workflow import run as sweep
from satsweep.workflow import usable_cores

if TYPE_CHECKING:
    from rich.console import Console

#: `satsweep status`'s exit code when runs are missing but none failed (a failed run: 1).
INCOMPLETE = 3
#: How many runs `satsweep status` lists per category.
LIST_LIMIT = 20
#: Configurations `satsweep plan` lists unless told (--rows).
PLAN_ROWS = 1000
#: Trial runs `satsweep plan --check` makes at most unless told (--check-runs).
CHECK_RUNS = 32


def add(commands: Subparsers) -> None:
    """Adds ``run``, ``plan``, ``status`` and ``submit``."""
    sized = argparse.ArgumentParser(add_help=False)  # the commands that expand a design
    add_results_option(sized)
    sized.add_argument(
        "--max-runs",
        type=positive,
        default=MAX_RUNS,
        metavar="N",
        help=f"take a design of up to N runs (default {MAX_RUNS}: larger ones are refused "
        "with their size, as their plan, status and run cost time and memory)",
    )
    usable = usable_cores()  # affinity, cgroup quota and Slurm allocation, not the host's
    cored = argparse.ArgumentParser(add_help=False)  # run's cores, and those plan estimates for
    cored.add_argument(
        "--cores",
        type=cores,
        default=usable,
        metavar="N",
        help=f"cores to use (plan: of its estimate), or all (default and all: the {usable} this "
        "process may use)",
    )

    p = commands.add_parser(
        "run",
        parents=[sized, cored],
        help="run a sweep's missing runs and compact its store",
        description=_run.__doc__,
    )
    add_study_argument(p, "sweep")
    p.add_argument(
        "--keep-going",
        action="store_true",
        help="go on with the other runs when one fails (without it, the first failure stops "
        "the sweep and the runs not started yet stay not run)",
    )
    p.add_argument(
        "--executor",
        default="local",
        metavar="NAME",
        help="local (default: one worker process per core, no Snakemake), or a Snakemake "
        "executor: ray (a running Ray cluster: set SNAKEMAKE_RAY_ADDRESS), slurm (one Slurm job "
        "per Snakemake job), or any installed one",
    )
    p.add_argument(
        "--jobs",
        type=positive,
        metavar="N",
        help="remote executors: job slots, the jobs running at once (default --cores); one "
        "more job per slot waits queued in the executor",
    )
    p.add_argument(
        "--group-size",
        type=positive,
        metavar="K",
        help="remote executors: runs per remote job, run one after the other (default: "
        "groups that shrink towards the end of the sweep, see workflow/README.md)",
    )
    p.add_argument(
        "--profile",
        metavar="DIR",
        help="remote executors: Snakemake profile (default: the shipped "
        "ray_jobs/profiles/<executor>)",
    )
    p.set_defaults(func=_run)

    p = commands.add_parser(
        "plan", parents=[sized, cored], help="show a sweep's runs", description=_plan.__doc__
    )
    add_study_argument(p, "sweep")
    p.add_argument(
        "--rows",
        type=positive,
        default=PLAN_ROWS,
        metavar="N",
        help=f"configurations listed (default {PLAN_ROWS})",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="run once each of the few configurations that take every level of every factor "
        "(--cores at a time, into temporary folders, not the store) and exit 2 with the error "
        "of each that fails",
    )
    p.add_argument(
        "--check-seconds",
        type=nonnegative_seconds,
        default=60.0,
        metavar="S",
        help="--check: a run still going after S seconds has started well and is stopped "
        "(default 60)",
    )
    p.add_argument(
        "--check-runs",
        type=positive,
        default=CHECK_RUNS,
        metavar="N",
        help="--check: run at most the first N of those configurations (default "
        f"{CHECK_RUNS}; a factor of many levels would otherwise run many)",
    )
    p.set_defaults(func=_plan)

    p = commands.add_parser(
        "status",
        parents=[sized],
        help="done/damaged/missing/failed runs",
        description=_status.__doc__,
    )
    add_study_argument(p, "sweep")
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
    add_study_argument(p, "sweep")
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


def _load(command: str, args: argparse.Namespace, file: bool = False) -> Design | None:
    """The design of ``args.sweep`` (a design file, or a study's name: its recorded design,
    or with ``file`` its recorded design file, which the workflow reads) bound to its store
    (:meth:`Store.bind`), refused (None, the error said) when it is not valid, larger than
    ``--max-runs`` or cannot share its study's store (another base_seed or program than the
    runs in it)."""
    try:
        if file:
            design = load_design(study_file(args.sweep, args.results), max_runs=args.max_runs)
        else:
            design = load_study(args.sweep, args.results, args.max_runs)
        design = Store.of(design, args.results).bind(design)
    except (DesignError, StoreError) as e:
        error(command, e)
        return None
    return design


def _duration(seconds: float) -> str:
    return str(dt.timedelta(seconds=round(seconds)))


def _flags(params: dict) -> str:
    return " ".join(flags(params))


def _levels(design: Design, run: Run) -> str:
    """A run's factor levels as flags (its fixed parameters left out)."""
    return " ".join(flags({name: run.params[name] for name in design.factors}))


def _failure(run: Run, record: dict) -> str:
    """A failed run, its command, exit code and the tail of its stderr (indented)."""
    flags = _flags(run.params)
    tail = "\n".join("    " + line for line in str(record.get("stderr_tail", "")).splitlines())
    code = record.get("returncode")
    said = f"{record.get('message')}" + ("" if code is None else f", exit code {code}")
    return f"{run.config_id}/r{run.replication} {flags} ({said})\n{tail}".rstrip()


def _run(args: argparse.Namespace) -> int:
    """`satsweep run`: every missing run of a sweep (by local workers, or through Snakemake and
    a remote executor), then the store compacted."""
    # SIGTERM (scancel, kill) stops the run as Ctrl-C does: its workers or Snakemake's jobs too.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    design = _load("run", args, file=True)
    if design is None:
        return 2
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

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
    # two refreshes a second: the counts change no faster, and each drawing takes the CPU
    # from the runs
    # a log (not a terminal) gets no live bar: a line now and then instead
    lines = None if console.is_terminal else ProgressLines(lambda t: console.print(t, markup=False))
    with Progress(*columns, console=console, transient=False, refresh_per_second=2) as progress:
        task = None

        def on_progress(done: int, total: int) -> None:
            nonlocal task
            if task is None:  # runs done before count as done, not as speed
                task = progress.add_task("sweep", total=total, completed=done)
            progress.update(task, completed=done, total=total)  # a campaign's rounds grow it
            if lines is not None:
                lines.update(done, total)

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
            error("run", e)
            return 2
        except (FileNotFoundError, sweep.SweepBusy) as e:
            error("run", e)
            return 2 if isinstance(e, FileNotFoundError) else 1
        except AnalysisError as e:  # a campaign's round that cannot be analysed: runs kept
            error("run", f"the campaign's analysis after a round: {e}; the runs are kept")
            return 1
        except KeyboardInterrupt:
            error("run", "interrupted: the sweep stopped; finished runs are kept")
            return 130
    state = report.state
    where = f"on {_cores(args.cores)}"
    # a campaign's runs made now, over its rounds (a round that grew the runs made all again)
    rounds = f" in {len(report.rounds)} rounds" if len(report.rounds) > 1 else ""
    if execution.remote:
        where = f"through --executor {args.executor} ({args.jobs or args.cores} slots)"
    console.print(
        f"[bold]{report.design.study}[/bold]: {len(state.done)}/{state.total} runs done "
        f"({report.done_now} now{rounds}, {report.done_before} before), {len(state.failed)} failed, "
        f"{state.n_missing} not run; {_duration(report.wall_seconds)} {where}"
    )
    if state.n_missing and state.failed and not args.keep_going:
        console.print(
            f"the first failure stopped the sweep: --keep-going runs the {state.n_missing} "
            "others despite it",
            highlight=False,
        )
    for step in report.rounds:
        console.print(
            f"round {step.design.round_text()}: "
            + "; ".join(_reached(x) for x in step.reached)
            + (f"; then longer runs: {step.grown}" if step.grown else ""),
            highlight=False,
            soft_wrap=True,  # a line a round
        )
    if report.rounds:
        last = report.rounds[-1].design
        longest = last.precision.max_length if last.precision else None
        most = f"max = {last.most_replications} replications" + (
            f" and max_length = {longest:g}" if longest is not None else ""
        )
        console.print(
            f"precision met at {last.round_text()}, {last.n_runs} runs"
            if report.rounds[-1].met
            else f"precision NOT met: stopped at {most} ({last.round_text()}, {last.n_runs} runs)",
            highlight=False,
            soft_wrap=True,
        )
        # longer runs may be the cheaper way, or the only one past a transient
        for lever in precision.run_length(
            last, str(report.store.runs_table), report.rounds[-1].reached
        ):
            if lever.too_short or (lever.ratio > 1 and longest is None):
                console.print(_lever(lever, longest), highlight=False, soft_wrap=True)
    for run, record in state.failed:
        console.print("[red]failed[/red]", end=" ")
        console.print(_failure(run, record), highlight=False, markup=False)
    if report.returncode != 0 and not state.failed:
        failed = "Snakemake" if execution.remote else "a worker"
        console.print(f"{failed} failed (exit code {report.returncode}); the end of {report.log}:")
        console.print(sweep.log_tail(report.log), highlight=False, markup=False)
    for said in sweep.store_errors(state):  # the cause, e.g. a full disk, after the log's end
        console.print("[red]store not written:[/red]", end=" ")
        console.print(said, highlight=False, markup=False)
    if report.store.runs_table.is_file():
        tables = ", ".join(f"{name}.parquet" for name in report.store.tables())
        console.print(f"store: {report.store.root}/ {tables}", highlight=False)
        if report.done_now:  # said once, after the runs that show it
            identical_note(report.store.runs_table, report.design, console)
    return 0 if report.ok else 1


def _cores(n: int) -> str:
    return f"{n} core" if n == 1 else f"{n} cores"


def _plan(args: argparse.Namespace) -> int:
    """`satsweep plan`: the run table of a sweep, without running anything."""
    from rich.console import Console
    from rich.table import Table

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
    if design.simulators is not None:  # a crossed design: each simulator's program and own
        fixed += "; simulators: " + ", ".join(
            f"{level} = {s.program}" + (f" {_flags(s.fixed)}" if s.fixed else "")
            for level, s in design.simulators.items()
        )
    todo = state.n_missing + len(state.failed) + len(state.damaged)
    replications = design.replications_text()
    configurations = design.n_configurations
    console.print(
        f"{configurations} configuration{'s' * (configurations != 1)} x {replications} "
        f"replication{'s' * (replications != '1')} = {design.n_runs} run{'s' * (design.n_runs != 1)}; {len(state.done)} done, {todo} to run; fixed: {fixed}; "
        f"base_seed {design.base_seed}, streams {design.streams}; program {design.describe.name} "
        f"{design.describe.version}; store {state.store.root}"
        + (f"; {len(state.damaged)} damaged (satsweep status lists them)" if state.damaged else ""),
        highlight=False,
    )
    notice = sweep.rebuilt_notice(design, store, state)
    if notice is not None:
        console.print(f"note: {notice}", highlight=False, markup=False, soft_wrap=True)
    if (fraction := design.fractional) is not None:
        console.print(
            f"{fraction.summary()} (the full design: {2 ** len(design.factors)} configurations)",
            highlight=False,
            emoji=False,  # words are names joined by ':' (a:b:c is no emoji code)
        )
    estimate = sweep.estimate_seconds(state, args.cores)
    hinted = sweep.hinted_seconds(state, args.cores) if estimate is None else None
    if estimate is None and hinted is None:
        console.print(
            "estimated cost: unknown (no finished run to measure yet, and the program declares "
            "no cost hint)"
        )
    elif estimate is None:
        console.print(
            f"estimated cost: {_duration(hinted)} on {_cores(args.cores)} (the program's cost "
            "hint; no finished run to measure yet)"
        )
    else:
        seconds, basis = estimate
        console.print(
            f"estimated cost: {_duration(seconds)} on {_cores(args.cores)} "
            f"(mean of {basis} finished runs)"
        )
    if design.precision is not None:
        # the rounds' worst case: every configuration at max, at this round's cost per run
        most = design.n_configurations * design.precision.max
        cost = hinted if estimate is None else estimate[0]
        more = (
            f", up to {_duration(cost / todo * (most - len(state.done)))} more on {_cores(args.cores)}"
            if cost and todo
            else ""
        )
        longest, length = design.precision.max_length, design.run_length
        grow = ""
        if longest is not None and length:
            # a round at the longest: every configuration at max, each run longest/length
            # times this one's (the cost hint's proportion)
            dearest = (
                f", up to {_duration(cost / todo * most * longest / length)} a round at that length"
                if cost and todo
                else ""
            )
            grow = (
                f"; runs may grow to {design.length_parameter} = {longest:g}{dearest}, a round "
                "that grows them makes every configuration's runs again (the shorter ones are "
                "kept, out of the tables)"
            )
        console.print(
            f"precision campaign: this round's {design.n_runs} runs, then rounds until the "
            f"targets are met; at most {most} runs (max = {design.precision.max} per "
            f"configuration){more}{grow}",
            highlight=False,
        )
    if args.check:
        try:
            problems = _trials(design, args.check_seconds, args.check_runs, args.cores, console)
        except KeyboardInterrupt:
            error("plan", "interrupted: the trial runs were stopped")
            return 130
        for problem in problems:
            error("plan", problem)
        if problems:
            return 2
    return 0


def _trials(design: Design, seconds: float, most: int, cores: int, console: Console) -> list[str]:
    """``plan --check``: one run of each of the design's covering configurations
    (:meth:`Design.covering_configurations`: every level of every factor, the first
    configuration first), at most ``most`` of them, ``cores`` at a time, each result in a
    temporary folder, never in the store. Each line says how a trial went as it ends; returns
    the failures, each in one line."""
    from concurrent.futures import ThreadPoolExecutor, wait

    covering = design.covering_configurations()
    trials = [config.run(design, 1) for config in covering[:most]]
    console.print(
        f"check: {len(covering)} configuration{'s take' if len(covering) != 1 else ' takes'} "
        "every level of every factor; "
        + (f"the first {most} run (--check-runs N for more), " if len(covering) > most else "")
        + f"each once, {min(cores, len(trials))} at a time",
        highlight=False,
        soft_wrap=True,  # a line each, for scripts that read them
    )
    with ThreadPoolExecutor(max_workers=min(cores, len(trials))) as pool:
        ended = [pool.submit(_trial, design, run, seconds, console) for run in trials]
        try:
            return [problem for trial in ended if (problem := trial.result()) is not None]
        except BaseException:  # Ctrl-C: only this thread hears it, and it would wait for each
            pool.shutdown(wait=False, cancel_futures=True)  # no trial starts any more
            while running := [trial for trial in ended if not trial.done()]:
                sweep.kill_child_groups()  # each trial's program, in its own group
                wait(running, timeout=0.2)
            raise


def _trial(design: Design, run: Run, seconds: float, console: Console) -> str | None:
    """One trial of ``plan --check``: None when the run finished, or was still running after
    ``seconds`` (it started: its parameters were taken); else its failure in one line, with
    the last line the program said (OMNeT++'s own error, e.g. a unit it cannot convert)."""
    try:
        design.executable.run(run.params, run.run, timeout=seconds)
    except SimulationError as e:
        if e.returncode is None and e.message.startswith("timed out"):
            console.print(
                f"check: {run.config_id}/r{run.replication} {_levels(design, run)} still running "
                f"after {seconds:g} s, without an error so far",
                highlight=False,
                markup=False,
                soft_wrap=True,
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
        f"check: {run.config_id}/r{run.replication} {_levels(design, run)} ran without an error",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
    return None


def _lever(lever: precision.Lever, longest: float | None) -> str:
    """What a steady-state target would cost by more replications and by longer runs, and
    whether its runs leave their transient (``longest``: the campaign's max_length)."""
    name, r = lever.parameter, lever.replications
    if lever.too_short:
        grow = (
            f"replications.max_length above {lever.length:g}"
            if longest is not None
            else "replications.max_length"
        )
        return (
            f"  {lever.target.response}: runs of {name} {lever.length:g} too short to leave "
            f"their transient (a bias more replications do not remove): {grow} lets the "
            "campaign grow them (docs/steady-state.md)"
        )
    return (
        f"  {lever.target.response}: warm-up {lever.warmup:g} of {name} {lever.length:g}; "
        f"r = {r} replications would cost ~{lever.cost_replications:.3g} core-s more, "
        f"{name}: {lever.longer:.4g} at the same r ~{lever.cost_longer:.3g} core-s"
        + (f" (cheaper: replications.max_length: {lever.longer:.4g} lets the campaign grow "
           "the runs)" if lever.longer_is_cheaper else "")
    )  # fmt: skip


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
    from rich.console import Console

    design = _load("status", args)
    if design is None:
        return 2
    store = Store.of(design, args.results)
    design = store.round(design)  # a precision campaign: its last round
    state = store.state(design, deep=args.verify)
    stale = store.compaction_problem(state, deep=args.verify)
    console = Console()
    jobs = submit.recorded_jobs(design, args.results)
    job = submit.job_status(jobs[-1]) if jobs else None
    # a run (a job's driver, or a local `satsweep run`) on the store now: named first
    running = _running(store, state, job, jobs[-1] if jobs else {})
    if running is not None:
        console.print(running, highlight=False, markup=False, soft_wrap=True)
    if design.precision is not None:
        p = design.precision
        console.print(
            f"{design.study}: precision over {p.over}, r from {p.min} to {p.max}"
            + (f", {design.length_parameter} up to {p.max_length:g}" if p.max_length else "")
            + f"; this round {design.round_text()}",
            highlight=False,
            soft_wrap=True,  # one line for scripts that read it
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
    notice = sweep.rebuilt_notice(design, store, state)
    if notice is not None:  # a notice, not damage: the exit code stays what the runs make it
        console.print(f"note: {notice}", highlight=False, markup=False, soft_wrap=True)
    if stale is not None and running is not None:  # stale because runs are being added
        console.print(
            f"tables not compacted yet: {stale}; the run on the store compacts them at its end",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
    elif stale is not None:
        console.print(
            f"tables stale or damaged: {stale}; `satsweep run` compacts them again",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
    for said in sweep.store_errors(state):
        console.print(f"store not written: {said}", highlight=False, markup=False, soft_wrap=True)
    for fold, problem in state.broken_folds:  # few: a fold holds up to 10^5 runs
        console.print(
            f"damaged fold {fold}: {problem} (its runs count as missing; the next run moves the "
            "fold to quarantine/ and runs them again)",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
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
    # the missing runs of a store being run are its queue: counted above, not listed
    missing = LIST_LIMIT if running is None else 0
    for run in itertools.islice(state.missing(), missing):
        flags = _flags(run.params)
        console.print(
            f"missing {run.config_id}/r{run.replication} {flags}", highlight=False, markup=False
        )
    hidden = sum(max(0, n - LIST_LIMIT) for n in (len(state.failed), len(state.damaged)))
    hidden += max(0, state.n_missing - missing) if running is None else 0
    if hidden:
        console.print(f"... and {hidden} more")
    if job is not None and running is None:  # the last job, ended: how
        console.print(
            f"Slurm job {job.job_id} (submitted {jobs[-1].get('submitted_at')}): {job.state}, "
            f"{job.detail}; log {jobs[-1].get('output')}",
            highlight=False,
            markup=False,
        )
        if job.state == "TIMEOUT":
            note = submit.time_limit_note(state, jobs[-1])
            console.print(note, highlight=False, markup=False, soft_wrap=True)
    if state.failed:
        return 1
    return INCOMPLETE if state.n_missing or state.damaged or stale else 0


def _running(store: Store, state: State, job: submit.JobState | None, recorded: dict) -> str | None:
    """`status`'s first line while the store is being run: by the study's last Slurm job
    while Slurm has it active (``job``, ``recorded``: its line of jobs.jsonl), else by the
    holder of the store's lock (store/holder.py: host, pid, Slurm job); with the runs done so
    far. None when nothing runs the store."""
    held = holder.is_held(store.root)
    named = holder.read_holder(store.root, check=False) if held else None
    active = job is not None and job.active
    if not (held or active):
        return None
    progress = f"{len(state.done)}/{state.total} runs done"
    if active:
        nodes = recorded.get("nodes", "?")
        verb = "queued as" if job.state == "PENDING" else "being run by"
        line = (
            f"{verb} Slurm job {job.job_id} ({job.state}, {job.detail}; {nodes} node"
            f"{'s' * (nodes != 1)}): {progress}; log {recorded.get('output')}"
        )
        if named is not None and named.slurm_job_id != job.job_id:
            line += f"; the store's lock names {named.describe()}"
        return line
    by = named.describe() if named is not None else "a process that did not name itself"
    return f"being run by {by}: {progress}"


def _submit(args: argparse.Namespace) -> int:
    """`satsweep submit`: the sweep as one Slurm batch job running a Ray cluster (Slurm+Ray)."""
    from rich.console import Console

    design = _load("submit", args, file=True)
    if design is None:
        return 2
    # as `run` warns: a rebuilt program of the same version would add runs to the store
    sweep.warn_rebuilt(
        design,
        Store.of(design, args.results),
        lambda text: Console(stderr=True).print(
            f"warning: {text}", style="yellow", highlight=False, markup=False, soft_wrap=True
        ),
    )
    try:
        job = submit.submit(
            design.source,
            nodes=args.nodes,
            partition=args.partition,
            time_limit=args.time,
            mem=args.mem,
            cpus_per_node=args.cpus_per_node,
            results=args.results,
            max_runs=args.max_runs,
        )
    except (DesignError, FileNotFoundError, submit.SubmitError) as e:
        error("submit", e)
        return 2
    except submit.NothingToRun as e:  # not an error: the study is as complete as a job makes it
        print(f"satsweep submit: {e}", file=sys.stderr)
        return 0
    print(job.job_id)
    Console(stderr=True, highlight=False).print(
        f"submitted {job.study} as Slurm job {job.job_id}: {job.nodes} node(s) x "
        f"{job.cpus_per_node} CPUs, {job.mem} per node, partition {job.partition}; "
        f"log {job.output}; 'satsweep status {args.sweep}' shows it",
        markup=False,
    )
    if args.wait:
        state = submit.wait(job.job_id, output=job.output)
        design = load_design(study_file(args.sweep, args.results), max_runs=None)
        store = Store.of(design, args.results)
        final = store.state(store.bind(design))
        Console(stderr=True, highlight=False).print(
            f"Slurm job {job.job_id}: {state.state}, {state.detail}; "
            f"{len(final.done)}/{final.total} runs done",
            markup=False,
        )
        if state.state == "TIMEOUT":
            Console(stderr=True, highlight=False).print(
                submit.time_limit_note(
                    final,
                    {"nodes": job.nodes, "cpus_per_node": job.cpus_per_node, "time": job.time},
                ),
                markup=False,
                soft_wrap=True,
            )
        return 0 if not final.n_missing and not final.failed else 1
    return 0
