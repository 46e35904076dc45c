"""What the command groups share: error lines, the --results option, a study named by its
design file or its name, and argument types."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import shtab
import yaml

from satsweep.design import Design, DesignError, load_design
from satsweep.design.loading import read_design_text
from satsweep.store import (
    ARCHIVE_SUFFIXES,
    Store,
    StoreError,
    is_archive,
    memory_bytes,
    open_archive,
    results_dir,
)
from satsweep.workflow import usable_cores

#: How a design file's name ends; any other argument without a "/" may be a study's name.
DESIGN_SUFFIXES = (".yaml", ".yml")

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
    ).complete = shtab.DIRECTORY  # type: ignore[attr-defined]


#: Bash's completion of a STUDY: the studies of the results directory (--results DIR on the
#: line, else $SATSWEEP_RESULTS, else ./results: folders with a design.json or a runs.parquet,
#: as :func:`study_names` has them), then design files and folders.
_BASH_STUDIES = r"""
_satsweep_studies() {
  local dir="${SATSWEEP_RESULTS:-results}" i d
  for ((i = 1; i < COMP_CWORD; i++)); do
    if [[ ${COMP_WORDS[i]} == --results ]]; then
      d="${COMP_WORDS[i+1]}"
      [[ $d == = ]] && d="${COMP_WORDS[i+2]}"
      dir="${d/#\~/$HOME}"
    fi
  done
  for d in "$dir"/*/; do
    d="${d%/}"
    if [[ ( -f $d/design.json || -f $d/runs.parquet ) && ${d##*/} == "$1"* ]]; then
      echo "${d##*/}"
    fi
  done
  compgen -f -X '!*.y*ml' -- "$1"
  compgen -d -- "$1"
}
"""
#: shtab's completion of a STUDY argument: study names (bash), else files.
STUDY_COMPLETION = {
    "bash": "_satsweep_studies",
    "zsh": "_files",
    "tcsh": "f",
    "preamble": {"bash": _BASH_STUDIES},
}


def add_study_argument(p: argparse.ArgumentParser, dest: str = "study") -> None:
    """The STUDY argument of every command that takes a study: its design file or its name
    (completed as :data:`STUDY_COMPLETION`)."""
    p.add_argument(
        dest,
        metavar="STUDY",
        help="the design's YAML file (e.g. sweeps/goyal98-quick.yaml) or the study's name "
        "(e.g. goyal98-quick: its store in --results)",
    ).complete = STUDY_COMPLETION  # type: ignore[attr-defined]


def is_design_file(text: str) -> bool:
    """Whether a STUDY argument names a design file rather than a study: a file that exists,
    a path with a folder, or a name ending in .yaml/.yml (missing files get load_design's
    error, which names the file)."""
    return Path(text).is_file() or "/" in text or text.lower().endswith(DESIGN_SUFFIXES)


def study_names(results: str | os.PathLike[str] | None) -> list[str]:
    """The studies under the results directory: its folders with a design.json or a
    runs.parquet, sorted."""
    base = results_dir(results)
    try:
        folders = sorted(p for p in base.iterdir() if p.is_dir())
    except OSError:
        return []
    return [
        p.name for p in folders if (p / "design.json").is_file() or (p / "runs.parquet").is_file()
    ]


def no_such_study(
    text: str, results: str | os.PathLike[str] | None, files: str = "a design's YAML file"
) -> str:
    """The error for a STUDY argument that is neither a file nor a study, listing the studies
    there are; ``files``: the files the command takes instead."""
    base = results_dir(results)
    names = study_names(results)
    there = ", ".join(names) if names else "(none yet: `satsweep run DESIGN.yaml` makes one)"
    return (
        f"no file and no study named '{text}' in {base}; allowed: {files}, or a study in "
        f"{base} (--results DIR): {there}"
    )


def study_name(
    text: str, results: str | os.PathLike[str] | None, files: str = "a design's YAML file"
) -> str:
    """The study's name of a STUDY argument: the ``study`` of a design file (read from its
    YAML, without asking its program), else ``text`` when it names a study in the results
    directory. StoreError otherwise, listing the studies there (:func:`no_such_study`)."""
    if is_design_file(text):
        try:
            raw = yaml.safe_load(read_design_text(text))
        except UnicodeDecodeError as e:  # random bytes, an archive (.tar.gz), a table
            raise StoreError(
                f"{text}: not a text file (byte {e.object[e.start]:#04x} at offset {e.start} is "
                f"not UTF-8); allowed: {files}, or a study's name"
            ) from None
        except (OSError, yaml.YAMLError) as e:
            said = " ".join(str(e).split())  # YAML's excerpt spans lines
            raise StoreError(f"{text}: cannot read the design file: {said}") from None
        study = raw.get("study") if isinstance(raw, dict) else None
        if not isinstance(study, str) or not study:
            raise StoreError(f"{text}: study: missing; allowed: a design naming its study")
        return study
    if text in study_names(results):
        return text
    raise StoreError(no_such_study(text, results, files))


def load_study(text: str, results: str | os.PathLike[str] | None, max_runs: int | None) -> Design:
    """The design of a STUDY argument: a design file loaded (:func:`load_design`), or a study's
    recorded design (its design.json: what its runs were made with; the program need not be
    here). DesignError otherwise, listing the studies in the results directory."""
    if is_design_file(text):
        return load_design(text, max_runs=max_runs)
    if text not in study_names(results):
        raise DesignError(no_such_study(text, results))
    store = Store(results_dir(results) / text)
    design = store.design()
    if design is None:
        raise DesignError(
            f"study '{text}' has no recorded design ({store.design_file}); allowed: its "
            "design's YAML file"
        )
    design._source = store.design_file  # what it was read from: errors name it
    return design


def study_file(text: str, results: str | os.PathLike[str] | None) -> Path:
    """The design file of a STUDY argument, for the commands that run it (the workflow reads
    the file): the file itself, or the one its store recorded (design.json's ``source``) when
    it still exists and still names that study. DesignError otherwise."""
    if is_design_file(text):
        return Path(text)
    if text not in study_names(results):
        raise DesignError(no_such_study(text, results))
    store = Store(results_dir(results) / text)
    source = (store.recorded() or {}).get("source")
    if not source:
        raise DesignError(
            f"study '{text}': its store does not record its design file (it was made before "
            "satsweep kept the path); allowed: the design's YAML file"
        )
    if not Path(source).is_file():
        raise DesignError(
            f"study '{text}': its design file {source} is gone; allowed: the design's YAML file"
        )
    try:
        named = yaml.safe_load(read_design_text(source)).get("study")
    except (OSError, UnicodeDecodeError, yaml.YAMLError, AttributeError):
        named = None
    if named != text:
        raise DesignError(
            f"study '{text}': its design file {source} now names the study '{named}'; "
            "allowed: the design's YAML file"
        )
    return Path(source)


def cores(text: str) -> int:
    """A --cores argument: an integer >= 1, or ``all`` (Snakemake's spelling) for every core
    this process may use (:func:`satsweep.workflow.usable_cores`)."""
    if text.strip().lower() == "all":
        return usable_cores()
    try:
        return positive(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not allowed; allowed: an integer >= 1, or all"
        ) from None


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


#: What a STUDY argument of a command that reads a store may be (its help and its error).
STORE_ARGUMENT = (
    f"a design's YAML file, a store folder, or an archive ({', '.join(ARCHIVE_SUFFIXES)})"
)


@contextlib.contextmanager
def opened_store(text: str, results: str | None) -> Iterator[Store]:
    """The store a STUDY argument names, for a command that only reads it: an archive unpacked
    for the while, a study in ``results``, a store's folder (with runs.parquet or design.json)
    or a design file's study. StoreError otherwise."""
    if is_archive(text) and Path(text).is_file():
        with open_archive(Path(text)) as store:
            yield store
        return
    folder = Path(text)
    named = "/" not in text and text in study_names(results)
    if not named and folder.is_dir() and ((folder / "runs.parquet").is_file()
                                          or (folder / "design.json").is_file()):  # fmt: skip
        yield Store(folder)
        return
    yield Store(results_dir(results) / study_name(text, results, STORE_ARGUMENT))
