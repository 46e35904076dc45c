"""What the command groups share: error lines, the --results option and argument types."""

from __future__ import annotations

import argparse
import sys

from satsweep.store import memory_bytes

#: The subparsers that a command group (and a plug-in, entry-point group satsweep.commands)
#: adds its commands to.
Subparsers = argparse._SubParsersAction


def error(command: str, message: object) -> None:
    """Prints ``satsweep COMMAND: error: MESSAGE`` to stderr, the one form of a command's error."""
    print(f"satsweep {command}: error: {message}", file=sys.stderr)


def add_results_option(p: argparse.ArgumentParser) -> None:
    """The --results DIR option of every command that reads or writes stores."""
    p.add_argument(
        "--results",
        metavar="DIR",
        help="results directory (default $SATSWEEP_RESULTS, else ./results)",
    )


def positive(text: str) -> int:
    """An argument that is an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not allowed; allowed: an integer >= 1")
    return value


def nonnegative_seconds(text: str) -> float:
    """An argument that is a finite number of seconds >= 0."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not allowed; allowed: seconds >= 0")
    return value


def memory_size(text: str) -> str:
    """An argument that is a memory size as DuckDB reads it (500MB, 2GB, 4GiB)."""
    try:
        memory_bytes(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not allowed; allowed: a size such as 500MB, 2GB or 4GiB"
        ) from None
    return text.strip()
