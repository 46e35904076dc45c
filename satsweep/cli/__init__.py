"""The `satsweep` command line: the parser of every command and its entry point. Each command
group adds its commands in a module of its own (``add(subparsers)``), as plug-ins add theirs."""

from __future__ import annotations

import argparse
import atexit
import contextlib
import difflib
import os
import platform
import sys
import threading
from importlib.metadata import PackageNotFoundError, entry_points, version

import satsweep
from satsweep.cli import compare, completion, reproduce, results, simulate, sql, studies, sweep
from satsweep.cli.common import error

#: The entry-point group of plug-ins' commands: each entry point is a function that adds its
#: subcommand to the parser's subparsers (docs/engine-contract.md, "Engines as plug-ins").
COMMANDS = "satsweep.commands"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(
        prog="satsweep", description="Reproducible parameter sweeps of network simulations."
    )
    parser.add_argument(
        "--version",
        action=_Version,
        nargs=0,
        help="print satsweep's version and those of Python, DuckDB, Snakemake, ns-3, OMNeT++, "
        "INET and the C++ compiler, then exit",
    )
    # the parser itself, for `satsweep completion` (which writes the script of all of it)
    parser.set_defaults(parser=parser)
    commands = parser.add_subparsers(dest="command", required=True)
    for group in (simulate, results, sweep, sql, studies, reproduce, compare, completion):
        group.add(commands)
    # commands of plug-ins (an adapter's own, such as omnetpp's import), through the same hook
    for point in entry_points(group=COMMANDS):
        point.load()(commands)
    return parser


class _Version(argparse.Action):
    """--version: :func:`versions` as it is (argparse's own action rewraps it into one line)."""

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        print(versions())
        parser.exit()


def versions() -> str:
    """satsweep's version, then Python's, DuckDB's, Snakemake's, the engines' (ns-3's wheel,
    OMNeT++'s and INET's, from their files: no simulator is started) and the C++ compiler's
    that builds ns-3 scripts, one a line (what a bug report needs; the store records
    satsweep's and the engine's per run)."""
    from satsweep.engine.ns3 import compiler_version, ns3_version
    from satsweep.engine.omnetpp import OmnetppError, inet_version, installation, omnetpp_version

    def of(package: str) -> str:
        try:
            return version(package)
        except PackageNotFoundError:
            return "not installed"

    try:
        omnetpp, inet = installation()
        engines = [
            f"OMNeT++ {omnetpp_version(omnetpp) or f'unknown ({omnetpp})'}",
            f"INET {inet_version(inet) or f'unknown ({inet})'}",
        ]
    except OmnetppError:
        engines = ["OMNeT++ not installed", "INET not installed"]
    return "\n".join(
        [
            f"satsweep {satsweep.__version__}",
            f"Python {platform.python_version()}",
            f"DuckDB {of('duckdb')}",
            f"Snakemake {of('snakemake')}",
            f"ns-3 {ns3_version() or 'not installed'}",
            *engines,
            f"C++ compiler {compiler_version() or 'not installed'}",
        ]
    )


def _unknown_command(parser: argparse.ArgumentParser, argv: list[str]) -> str | None:
    """The error for a first word that is no command (``satsweep lst``): every command, then
    the nearest ones ("did you mean"); None when it is a command, or an option comes first."""
    if not argv or argv[0].startswith("-"):
        return None  # --version, --help: argparse's own
    (commands,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    names, word = list(commands.choices), argv[0]
    if word in names:
        return None
    near = difflib.get_close_matches(word, names, n=2, cutoff=0.5)
    hint = f"; did you mean {' or '.join(f'`satsweep {n}`' for n in near)}?" if near else ""
    return f"unknown command '{word}'; allowed: {', '.join(names)}{hint}"


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `satsweep` command."""
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else argv
    said = _unknown_command(parser, argv)
    if said is not None:
        parser.error(said)
    args, extra = parser.parse_known_args(argv)
    if args.command == "simulate":
        args.flags = extra
    elif args.command == "sql" and len(extra) == 1 and args.positional_study is None:
        # argparse fills positionals up to the first option: `sql STUDY --csv QUERY` took
        # STUDY as the query and left QUERY over
        args.positional_study, args.query = args.query, extra[0]
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return args.func(args)
    except OSError as e:  # the one boundary for what the file system refuses
        where = f"{e.filename}: " if e.filename else ""
        what = e.strerror or str(e)
        if isinstance(e, PermissionError):
            error(
                args.command,
                f"{where}{what}; allowed: a results folder you may write "
                "(--results DIR), and design and program files you may read",
            )
            return 2
        error(args.command, f"{where}{what}")
        return 1


def command() -> None:
    """The `satsweep` program: :func:`main`, then the process ends at once. Python's own
    teardown frees every object one by one (a sweep's tables, pyarrow, pydantic's schemas):
    60-150 ms after a `run` or a `status` had said everything. The exit handlers still run
    first (temporary folders, logging), and with a thread other than daemons still working
    the process ends as usual, waiting for it."""
    code = main()
    main_thread = threading.main_thread()
    if any(t is not main_thread and not t.daemon for t in threading.enumerate()):
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError):  # a reader that has gone (`| head`)
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    command()
