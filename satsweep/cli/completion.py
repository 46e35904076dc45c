"""``satsweep completion SHELL``: the shell's completion script of every command and option,
generated from the parser itself by shtab, so it never lags behind the commands."""

from __future__ import annotations

import argparse

import shtab

from satsweep.cli.common import Subparsers

#: The shells shtab writes completion for.
SHELLS = ("bash", "zsh", "tcsh")


def add(commands: Subparsers) -> None:
    """Adds ``completion``."""
    p = commands.add_parser(
        "completion",
        help="print the shell completion script of satsweep's commands and options",
        description=_completion.__doc__,
    )
    p.add_argument("shell", choices=SHELLS, help="the shell the script is for")
    p.set_defaults(func=_completion)


def _completion(args: argparse.Namespace) -> int:
    """Prints the completion script for SHELL. Install it once, e.g. for bash
    `satsweep completion bash > ~/.local/share/bash-completion/completions/satsweep`, or for zsh
    `satsweep completion zsh > "${fpath[1]}/_satsweep"`; a new shell then completes commands,
    options and their choices, and where a study is asked, in bash the studies of --results DIR
    (else $SATSWEEP_RESULTS, else ./results) and design files (other shells: files)."""
    # the whole parser, this command's included: the one that parsed args (its default
    # ``parser``), so that this module need not import its package back
    print(shtab.complete(args.parser, shell=args.shell), end="")
    return 0
