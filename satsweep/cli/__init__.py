"""The `satsweep` command line: the parser of every command and its entry point. Each command
group adds its commands in a module of its own (``add(subparsers)``), as plug-ins add theirs."""

from __future__ import annotations

import argparse
import sys
from importlib.metadata import entry_points

from satsweep.cli import results, simulate, sql, sweep
from satsweep.cli.common import error

#: The entry-point group of plug-ins' commands: each entry point is a function that adds its
#: subcommand to the parser's subparsers (docs/engine-contract.md, "Engines as plug-ins").
COMMANDS = "satsweep.commands"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(
        prog="satsweep", description="Reproducible parameter sweeps of network simulations."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for group in (simulate, results, sweep, sql):
        group.add(commands)
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
            error(
                args.command,
                f"{where}{what}; allowed: a results folder you may write "
                "(--results DIR), and design and program files you may read",
            )
            return 2
        error(args.command, f"{where}{what}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
