"""``satsweep verify`` and ``satsweep archive``: reruns that prove themselves, and a study in
one file that they can be proved from."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path

from satsweep.cli.common import (
    STORE_ARGUMENT,
    Subparsers,
    add_results_option,
    error,
    opened_store,
    positive,
    study_name,
)
from satsweep.store import (
    ARCHIVE_SUFFIXES,
    Store,
    StoreError,
    is_archive,
    results_dir,
    write_archive,
)
from satsweep.store.archive import unpack_program
from satsweep.workflow.verify import Verification, VerifyError, verify


def add(commands: Subparsers) -> None:
    """Adds ``verify`` and ``archive``."""
    p = commands.add_parser(
        "verify",
        help="rerun stored runs (all, or --sample N) elsewhere and say field by field whether "
        "they reproduce exactly",
        description=_verify.__doc__,
    )
    p.add_argument(
        "study",
        metavar="STUDY",
        help=f"a study's name (its store in --results), {STORE_ARGUMENT}",
    )
    add_results_option(p)
    p.add_argument(
        "--sample",
        type=positive,
        metavar="N",
        help="rerun N runs chosen at random (default: every run)",
    )
    p.add_argument(
        "--seed",
        type=int,
        help="the seed that chooses the --sample (default: a new one, printed to repeat it)",
    )
    p.set_defaults(func=_verify)

    p = commands.add_parser(
        "archive",
        help="write the study to one file: design, Parquet store, program description and "
        "hashes, environment",
        description=_archive.__doc__,
    )
    p.add_argument(
        "study",
        metavar="STUDY",
        help="the design's YAML file or the study's name (its store in --results)",
    )
    add_results_option(p)
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="the archive to write, ending in .tar.gz or .tgz (default: <results>/<study>.tar.gz)",
    )
    p.set_defaults(func=_archive)


def _verify(args: argparse.Namespace) -> int:
    """`satsweep verify`: reruns a study's stored runs (every one, or a sample chosen at random)
    the way `run` made them (the recorded design, program and --run) into a temporary
    directory, never into the store, and compares every field of each with the stored one.
    Names the program's sha256 and the environment (satsweep, git commit, host) where they
    differ from what the runs record. First checks that the store holds exactly the design's
    runs as compaction.json recorded them (none missing, twice or extra). Exit 0 when it does
    and every run reproduces exactly, 1 otherwise, 130 when interrupted (Ctrl-C, SIGTERM)."""
    # SIGTERM (kill, a job's end) unwinds as Ctrl-C does, as for `run`: the temporary folders
    # are removed and the program rerunning is killed with its process group
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        with opened_store(args.study, args.results) as store:
            said = "every run" if args.sample is None else f"{args.sample} runs at random"
            print(f"rerunning {said} of study '{store.study}' in a temporary directory",
                  file=sys.stderr)  # fmt: skip
            # an archive's own program, unpacked and built: the model's folder need not exist
            source = unpack_program(store, log=lambda line: print(line, file=sys.stderr))
            result = verify(store, args.sample, args.seed, log=print, source=source)
    except (StoreError, VerifyError) as e:
        error("verify", e)
        return 2
    except KeyboardInterrupt:
        error("verify", "interrupted: the reruns stopped, their temporary folders removed")
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
    _say(result, args.study)
    return 0 if result.reproduced else 1


#: The differences shown per run; the rest are counted.
_MOST_SHOWN = 20


def _say(result: Verification, study: str) -> None:
    """The differences (each run's first field first), the environment's, the seed, the count
    and what makes the store other than the whole study."""
    for check in result.checks:
        if check.reproduced:
            continue
        where = f"{check.config_id}/r{check.replication}"
        if check.failure:
            print(f"{where}: {check.failure}")
        if check.first is not None:
            n = len(check.differences)
            print(f"{where}: differs first in {check.first} "
                  f"({n} difference{'s' if n > 1 else ''})")  # fmt: skip
        for name, stored, rerun in check.differences[:_MOST_SHOWN]:
            print(f"{where}: {name}: stored {stored!r}, rerun {rerun!r}")
        if len(check.differences) > _MOST_SHOWN:  # a table may differ in every row
            print(f"{where}: ... and {len(check.differences) - _MOST_SHOWN} more differences")
    for column, stored, now in result.environment:
        print(f"environment: {column}: the runs record {', '.join(map(str, stored))}; now {now}")
    if result.seed is not None:
        print(f"sample chosen with --seed {result.seed} (satsweep verify {study} --sample "
              f"{len(result.checks)} --seed {result.seed} reruns it)")  # fmt: skip
    if result.unchecked:
        print(f"not compared: {', '.join(result.unchecked)} (measurements of the machine: "
              "the program declares them reproducible: false)")  # fmt: skip
    if result.added:
        print(f"not compared: {', '.join(result.added)} (the stored runs have no such column: "
              "the program now declares more than when they were made; "
              "environment: program_version above, when it changed)")  # fmt: skip
    for problem in result.completeness:
        print(f"incomplete: {problem}")
    same = sum(c.reproduced for c in result.checks)
    if result.completeness:  # the count alone would read as the whole study's
        print(f"{same} of {len(result.checks)} stored runs reproduce exactly, but the store is "
              "not the whole study (incomplete: above)")  # fmt: skip
    else:
        print(f"{same} of {len(result.checks)} runs reproduce exactly")


def _archive(args: argparse.Namespace) -> int:
    """`satsweep archive`: writes the study to one tar.gz: its design.json, its Parquet tables,
    the program's description and hashes, the design file, the program's files (an ns-3
    script, an OMNeT++ study's ini, NED files and library sources with their build steps, a
    contract program's file; a program installed with satsweep by satsweep's version) and the
    environment's packages (pip freeze's form). A file of the program that it cannot hold
    (outside the folder of the design file and the program, or a program over 256 MiB) is
    named in a warning. The store is only read; the file is written whole or not at all, into
    a folder that exists outside the store. It refuses a store whose tables are not as their
    compaction wrote them, or are links (`satsweep status` shows why, `satsweep run` compacts
    again). `satsweep verify ARCHIVE` reruns from it, on a machine without the model's folder."""
    try:
        name = study_name(args.study, args.results)
    except StoreError as e:
        error("archive", e)
        return 2
    store = Store(results_dir(args.results) / name)
    target = Path(args.output) if args.output else store.root.with_name(f"{name}.tar.gz")
    if not is_archive(target.name):
        error(
            "archive", f"-o {target}: allowed: a file name ending in {', '.join(ARCHIVE_SUFFIXES)}"
        )
        return 2
    # through links: a folder that links into the store is the store (the archive's temporary
    # file is written in the folder, then renamed over the name, which may itself be a link)
    folder = Path(os.path.realpath(target.parent))  # a loop of links stays, and is no folder
    if (folder / target.name).is_relative_to(os.path.realpath(store.root)):
        error("archive", f"-o {target}: inside the store {store.root}, which archive never "
              "changes; allowed: a path outside it")  # fmt: skip
        return 2
    if args.output and not folder.is_dir():
        error("archive", f"-o {target}: no folder {target.parent}; allowed: a file in a folder "
              "that exists (archive makes none)")  # fmt: skip
        return 2
    try:
        names = write_archive(store, target, warn=lambda line: print(
            f"satsweep archive: warning: {line}", file=sys.stderr))  # fmt: skip
    except StoreError as e:
        error("archive", e)
        return 2
    for entry in names:
        print(f"  {entry}", file=sys.stderr)
    print(target)
    return 0
