"""Plain ns-3 programs under the engine contract (docs/ns3.md): ``program: ns3``.

A design names ``program: ns3`` with ``script:``, an ns-3 program as its author wrote it: a
single C++ source file (built here against satsweep's ns-3, the PyPI wheel, and cached by its
hash) or an executable built elsewhere. Nothing in it changes: its ``CommandLine`` arguments
are the parameters (found by ``--PrintHelp``), ``--RngRun`` its replication, and what it prints
or writes in its working directory its result. A small declaration beside it,
``satsweep.yaml``, says what the program cannot: which lines of its output or columns of its
files are the summary and the tables, and, where the defaults do not tell, a parameter's type,
unit, choices and bounds, or an ns-3 attribute (``ns3::TcpSocket::SegmentSize``) to vary.

The adapter is the command ``satsweep-ns3 --script=FILE``, which honours the contract: each run
in a scratch folder of its own (scripts write files into their working directory), removed
once the result is read.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import os
import re
import subprocess
import sys
import sysconfig
import tempfile
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from functools import cached_property
from itertools import islice
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from satsweep.engine.adapters import Adapter, ProgramFiles, read_declaration
from satsweep.engine.description import (
    Column,
    Cost,
    Description,
    Parameter,
    from_text,
    given_values,
    shown,
    validation_message,
    value_text,
)
from satsweep.engine.program import (
    DESCRIBE_LIMIT_BYTES,
    DESCRIBE_TIMEOUT_S,
    SCRATCH_VARIABLE,
    STDERR_TAIL_LINES,
    USAGE_ERROR,
    Program,
    ProgramError,
    TooMuchOutput,
    bound_broken,
    bounded_output,
    file_sha256,
    run_tailed,
    write_whole,
)
from satsweep.engine.wheel import ns3_version

__all__ = [
    "DECLARATION",
    "ENGINE",
    "Ns3Adapter",
    "Ns3Program",
    "build",
    "compiler_version",
    "main",
    "ns3_version",
    "print_help",
]

#: The name a design gives as ``program:`` for an ns-3 program.
ENGINE = "ns3"
#: The declaration file, beside the script.
DECLARATION = "satsweep.yaml"
#: The adapter's command, installed with satsweep (pyproject.toml's scripts).
COMMAND = "satsweep-ns3"
#: ns-3's CommandLine arguments every program has, which no declared parameter may take.
GENERAL_ARGUMENTS = frozenset(
    "PrintHelp PrintVersion PrintGlobals PrintGroups PrintGroup PrintTypeIds PrintAttributes "
    "RngRun RngSeed".split()
)
#: How long ``--PrintHelp`` may take: half the ``--describe`` it serves, which can then say so.
HELP_TIMEOUT_S = DESCRIBE_TIMEOUT_S // 2
#: How much of a run's output is read at a time when its summary is searched, from its end; a
#: longer line is searched in pieces of this size.
OUTPUT_BLOCK_BYTES = 1 << 20
#: The lines of a run's output shown when a summary field's pattern matched none of them.
SHOWN_LINES = 5
#: The largest JSON file a summary field is read from.
SUMMARY_FILE_BYTES = 16 << 20


class Ns3Error(ValueError):
    """A script, declaration or run output that cannot be used."""


# ---- the program's own parameters: --PrintHelp ------------------------------------------------


def print_help(text: str) -> list[tuple[str, str, str | None]]:
    """The ``Program Options`` of a ``--PrintHelp`` output: (name, help, default text or None)."""
    found = []
    inside = False
    for line in text.splitlines():
        if line.strip() == "Program Options:":
            inside = True
        elif inside and line.strip().endswith(":") and not line.startswith(" "):
            break  # "General Arguments:" and what follows are ns-3's own
        elif inside and (m := re.match(r"\s+--([^:=\s]+):", line)):
            # "help [default]" split by hand: a regex doing it backtracks cubically on spaces
            said, default = line[m.end() :].strip(), None
            if said.endswith("]") and "[" in said:
                bracket = said.index("[")
                said, default = said[:bracket].rstrip(), said[bracket + 1 : -1]
            found.append((m.group(1), said, default))
    return found


def _inferred(default: str | None) -> tuple[str, Any]:
    """A parameter's type and typed default, from the default ``--PrintHelp`` shows."""
    if default is None:
        return "string", None
    if default in ("true", "false"):
        return "bool", default == "true"
    if re.fullmatch(r"[+-]?\d+", default):
        return "int", int(default)
    try:
        value = float(default)
    except ValueError:
        return "string", default
    return ("float", value) if math.isfinite(value) else ("string", default)


# ---- the declaration --------------------------------------------------------------------------


class Ns3Parameter(Parameter):
    """A parameter of the program: one of its own ``CommandLine`` arguments, or an ns-3
    attribute (``set: ns3::TcpSocket::SegmentSize``) passed as ``--ns3::...=value``. A numeric
    parameter's ``unit`` is attached to the value passed (``--dataRate=5Mbps``) unless
    ``attach`` is false."""

    set: str | None = Field(None, pattern=r"^ns3::[A-Za-z0-9_:]+$")
    attach: bool = True


class Ns3ParameterSaid(BaseModel):
    """What the declaration says of a parameter: of one of the program's own (by its name),
    whatever ``--PrintHelp`` does not say or says wrong (a type, a unit, choices, bounds);
    of an ns-3 attribute (``set:``), all of it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    type: Literal["int", "float", "string", "bool"] | None = None
    default: Any = None
    unit: str | None = None
    help: str | None = None
    choices: list[Any] | None = None
    minimum: float | None = None
    maximum: float | None = None
    exclusiveMinimum: float | None = None  # noqa: N815 (JSON Schema's spelling)
    exclusiveMaximum: float | None = None  # noqa: N815
    set: str | None = Field(None, pattern=r"^ns3::[A-Za-z0-9_:]+$")
    attach: bool = True


class Ns3SummaryField(Column):
    """A declared summary field and where it is read: ``stdout`` (a regular expression whose
    first group, or whole match, on the last line of the output it matches), or ``file`` (a
    CSV or JSON file the program writes in its working directory) with ``column`` (of the CSV's
    last row) or ``key`` (a dotted path into the JSON)."""

    stdout: str | None = None
    file: str | None = None
    column: str | None = None
    key: str | None = None

    @model_validator(mode="after")
    def _source(self) -> Ns3SummaryField:
        sources = [s for s in (self.stdout, self.file) if s is not None]
        if len(sources) != 1:
            raise ValueError(
                f"summary field '{self.name}' needs exactly one of stdout and file; allowed: "
                "stdout: REGEX, or file: NAME with column: (CSV) or key: (JSON)"
            )
        if self.stdout is not None:
            try:
                re.compile(self.stdout)
            except re.error as e:
                raise ValueError(f"summary field '{self.name}': stdout: not a regex: {e}")
        if self.file is not None and (self.column is None) == (self.key is None):
            raise ValueError(
                f"summary field '{self.name}': file {shown(self.file)} needs column: (a CSV "
                "file's column) or key: (a JSON file's dotted key)"
            )
        return self


class Ns3Table(BaseModel):
    """A declared table: the rows of a CSV file the program writes, its ``columns`` typed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    file: str = Field(min_length=1)
    columns: list[Column] = Field(min_length=1)


class Ns3Declaration(BaseModel):
    """The declaration ``satsweep.yaml`` beside an ns-3 program (docs/ns3.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    version: str = Field(min_length=1)
    parameters: list[Ns3ParameterSaid] = []
    summary: list[Ns3SummaryField] = Field(min_length=1)
    tables: dict[str, Ns3Table] = {}
    #: the contract's cost hint (docs/engine-contract.md): orders and batches the jobs
    cost: Cost | None = None


def _file_name(name: str, where: str) -> str:
    """A file the program writes in its working directory: a plain name, nothing outside."""
    if not name or "/" in name or "\\" in name or name in (".", ".."):
        raise Ns3Error(f"{where}: file {shown(name)}; allowed: a file name in the run's folder")
    return name


# ---- building a script against the wheel ------------------------------------------------------


def _wheel() -> Path:
    """The ns-3 of satsweep's environment: the ``ns3`` wheel's folder."""
    root = Path(sysconfig.get_paths()["purelib"]) / "ns3"
    if not (root / "include" / "ns3").is_dir():
        raise Ns3Error(f"no ns-3 in {root}; allowed: ./setup.sh installs the ns3 wheel")
    return root


def compiler_version() -> str | None:
    """The first line of ``--version`` of the C++ compiler :func:`build` uses (``$CXX``, else
    ``c++``), None when it does not run."""
    try:
        proc = subprocess.run(
            [*_compiler().split(), "--version"], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    said = proc.stdout.strip().splitlines()
    return said[0] if proc.returncode == 0 and said else None


def _compiler() -> str:
    return os.environ.get("CXX", "c++")


def build(script: Path) -> Path:
    """The executable of a single-file C++ ns-3 program, built once against the wheel's ns-3
    (every one of its modules linked) into ``~/.cache/satsweep/ns3-programs/<hash>/``, the
    hash of the script, the wheel (its folder and version), the compiler and its flags."""
    wheel = _wheel()
    libs = sorted((wheel / "lib64").glob("libns3.*.so"))
    compiler = _compiler()
    allowed = "allowed: a C++20 compiler's command, as `c++` (the default, CXX unset) or `g++`"
    if not compiler.split():
        raise Ns3Error(f"{script}: CXX is {shown(compiler)}, no command; {allowed}")
    flags = ["-std=c++20", "-O2", f"-I{wheel / 'include'}"]
    # the version too: a wheel upgraded in place keeps its folder, not its libraries
    made = [file_sha256(script), str(wheel), f"ns-3 {ns3_version()}", compiler, *flags]
    key = hashlib.sha256("\n".join(made).encode()).hexdigest()[:16]
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folder = cache / "satsweep" / "ns3-programs" / key
    executable = folder / script.stem
    if executable.is_file():
        return executable
    folder.mkdir(parents=True, exist_ok=True)
    print(f"building {script.name} against ns-3 into {folder} (once)", file=sys.stderr)
    with tempfile.TemporaryDirectory(dir=folder) as scratch:  # concurrent builds: one wins
        built = Path(scratch) / script.stem
        command = [
            *compiler.split(), *flags, str(script), f"-L{wheel / 'lib64'}",
            *(f"-l{lib.name[3:-3]}" for lib in libs), f"-Wl,-rpath,{wheel / 'lib64'}",
            "-o", str(built),
        ]  # fmt: skip
        try:
            proc = subprocess.run(command, capture_output=True, text=True)
        except OSError as e:
            raise Ns3Error(f"{script}: CXX={shown(compiler)} does not run ({e.strerror}); "
                           f"{allowed}") from None  # fmt: skip
        if proc.returncode != 0:
            said = [line for line in proc.stderr.splitlines() if "error" in line][:1]
            raise Ns3Error(
                f"{script}: does not build against ns-3 ({' '.join(said) or 'compiler failed'})"
            )
        if not built.is_file():  # exit 0 and no -o file: a compiler would not do that
            raise Ns3Error(f"{script}: CXX={shown(compiler)} exited 0 without writing the "
                           f"program (-o {built.name}); {allowed}")  # fmt: skip
        os.replace(built, executable)
    return executable


# ---- the program ------------------------------------------------------------------------------


class Ns3Program:
    """An ns-3 program (its script or executable) and the declaration beside it."""

    def __init__(self, script: Path):
        self.script = Path(script).absolute()
        if not self.script.is_file():
            raise Ns3Error(f"script: {script}: no such file; allowed: an ns-3 program's .cc file")
        self.declaration_file = self.script.parent / DECLARATION
        try:
            self.declaration = read_declaration(
                self.declaration_file, Ns3Declaration, "the script", "docs/ns3.md"
            )
        except ValueError as e:
            raise Ns3Error(str(e)) from None
        for field in self.declaration.summary:
            if field.file is not None:
                _file_name(field.file, f"summary field '{field.name}'")
        for name, table in self.declaration.tables.items():
            _file_name(table.file, f"table '{name}'")

    @cached_property
    def executable(self) -> Path:
        """The program to run: the script built (a .cc file), else the script itself."""
        if self.script.suffix in (".cc", ".cpp", ".cxx"):
            return build(self.script)
        if not os.access(self.script, os.X_OK):
            raise Ns3Error(f"script: {self.script} is neither a .cc file nor executable")
        return self.script

    @cached_property
    def sha256(self) -> str:
        """What the results depend on besides ns-3's libraries: the script (or executable), the
        declaration and, for a script built here, the executable that runs (:func:`build`'s,
        which it builds first): a binary replaced in the build cache is another identity."""
        digest = hashlib.sha256()
        for path in (self.script, self.declaration_file):
            digest.update(f"{path.name} {file_sha256(path)}\n".encode())
        if self.executable != self.script:
            digest.update(f"executable {file_sha256(self.executable)}\n".encode())
        return digest.hexdigest()

    @cached_property
    def parameters(self) -> list[Ns3Parameter]:
        """The program's ``CommandLine`` arguments (``--PrintHelp``), as the declaration
        overrides them, then the ns-3 attributes it declares."""
        try:  # within the --describe it serves, which has DESCRIBE_TIMEOUT_S
            proc = bounded_output([str(self.executable), "--PrintHelp"], timeout=HELP_TIMEOUT_S)
        except (TooMuchOutput, subprocess.TimeoutExpired) as e:
            raise Ns3Error(
                f"{self.executable} --PrintHelp {bound_broken(e)}; allowed: at most "
                f"{DESCRIBE_LIMIT_BYTES >> 20} MiB of ns-3's help within {HELP_TIMEOUT_S} s"
            ) from None
        if proc.returncode != 0:
            raise Ns3Error(f"{self.executable} --PrintHelp failed (exit code {proc.returncode})")
        declared = {p.name: p for p in self.declaration.parameters}
        found: list[Ns3Parameter] = []
        for name, help_text, default_text in print_help(proc.stdout.decode(errors="replace")):
            said = declared.pop(name, None)
            given = said.model_dump(exclude_unset=True) if said is not None else {}
            if said is not None and said.set is not None:
                raise Ns3Error(
                    f"{self.declaration_file}: parameter '{name}' is the program's own; "
                    "allowed: set: only for ns-3 attributes the program does not take"
                )
            kind, default = _inferred(default_text)
            kind = given.get("type", kind)
            if "default" not in given:
                default = _typed_text(kind, default_text, given.get("unit"), name)
            found.append(
                _parameter({"name": name, "help": help_text, "type": kind, "default": default}
                           | given, self.declaration_file)
            )  # fmt: skip
        for name, said in declared.items():
            if said.set is None:
                raise Ns3Error(
                    f"{self.declaration_file}: parameter '{name}' is not one of the program's "
                    f"(--PrintHelp); allowed: {', '.join(p.name for p in found) or 'none'}, "
                    "or an ns-3 attribute with set: ns3::..."
                )
            found.append(
                _parameter({"type": "string"} | said.model_dump(exclude_unset=True),
                           self.declaration_file)
            )  # fmt: skip
        for p in found:
            if p.name in GENERAL_ARGUMENTS:
                raise Ns3Error(f"{self.declaration_file}: parameter '{p.name}' is ns-3's own")
        return found

    def description(self) -> Description:
        """The contract's ``--describe`` of the program."""
        d = self.declaration
        try:
            return Description(
                name=d.name,
                version=d.version,
                parameters=[
                    Parameter(**p.model_dump(exclude={"set", "attach"})) for p in self.parameters
                ],
                summary=[
                    Column(**f.model_dump(include=set(Column.model_fields))) for f in d.summary
                ],
                tables={name: t.columns for name, t in d.tables.items()},
                cost=d.cost,
            )
        except ValidationError as e:  # a cost hint naming no parameter of the program, say
            raise Ns3Error(f"{self.declaration_file}: {validation_message(e)}") from None


def _parameter(fields: Mapping[str, Any], where: Path) -> Ns3Parameter:
    try:
        return Ns3Parameter.model_validate(dict(fields))
    except ValidationError as e:
        said = validation_message(e)
        raise Ns3Error(f"{where}: parameter '{fields.get('name')}': {said}") from None


def _typed_text(kind: str, text: str | None, unit: str | None, name: str) -> Any:
    """A ``--PrintHelp`` default as ``kind``, a declared unit after it taken off (``5Mbps``)."""
    if text is None:
        return None
    if unit and text.endswith(unit):
        text = text[: -len(unit)]
    try:
        return from_text(kind, text)
    except ValueError:
        raise Ns3Error(
            f"parameter '{name}': its default {shown(text)} (--PrintHelp) is not a {kind}; "
            "allowed: a declared type that fits it, or a declared default"
        ) from None


def option_text(parameter: Ns3Parameter, value: object) -> str:
    """A value as ns-3's CommandLine takes it, the declared unit attached to a number."""
    if isinstance(value, bool):
        return "true" if value else "false"
    numeric = parameter.type in ("int", "float")
    attach = parameter.unit if parameter.attach and numeric else ""
    return value_text(value) + (attach or "")


# ---- a run ------------------------------------------------------------------------------------


def _lines_backwards(path: Path) -> Iterator[str]:
    """The lines of a run's output (``str.splitlines``' lines of the file read as UTF-8), last
    first, read from the file's end in blocks of :data:`OUTPUT_BLOCK_BYTES`: any length of
    output costs no memory, and a summary printed last is found at once. A line longer than a
    block comes in pieces (its last piece first)."""
    with open(path, "rb") as f:
        size = f.seek(0, os.SEEK_END)
        if size == 0:
            return
        f.seek(size - 1)
        position = size - 1 if f.read(1) == b"\n" else size  # a last newline ends no line
        carry = b""  # a line's end, whose start is in the blocks before it
        while True:
            start = max(0, position - OUTPUT_BLOCK_BYTES)
            f.seek(start)
            pieces = (f.read(position - start) + carry).split(b"\n")
            position = start
            carry = pieces.pop(0) if start > 0 else b""
            if len(carry) > OUTPUT_BLOCK_BYTES:
                pieces.insert(0, carry)
                carry = b""
            for piece in reversed(pieces):
                # "\r" and the other line ends of str.splitlines, as the text read whole had
                yield from reversed(piece.decode(errors="replace").splitlines() or [""])
            if start == 0:
                return


def _last_matches(path: Path, fields: list[Ns3SummaryField]) -> dict[str, re.Match[str]]:
    """The last match of each field's ``stdout`` pattern in the run's output, searched line by
    line from its end (fields whose pattern matched no line are left out)."""
    patterns = {field.name: re.compile(field.stdout or "") for field in fields}
    found: dict[str, re.Match[str]] = {}
    for line in _lines_backwards(path):
        for name, pattern in patterns.items():
            if name not in found and (m := pattern.search(line)):
                found[name] = m
        if len(found) == len(patterns):
            break
    return found


def _summary(program: Ns3Program, stdout: Path, folder: Path) -> dict[str, Any]:
    """The summary fields as the declaration reads them from the run's output (the file
    ``stdout``) and files."""
    printed = [field for field in program.declaration.summary if field.stdout is not None]
    matches = _last_matches(stdout, printed) if printed else {}
    values: dict[str, Any] = {}
    for field in program.declaration.summary:
        if field.stdout is not None:
            last = matches.get(field.name)
            if last is None:
                lines = list(islice(_lines_backwards(stdout), SHOWN_LINES))[::-1]
                last = " | ".join(shown(line, 200) for line in lines)
                raise Ns3Error(
                    f"the program exited 0 but the summary field '{field.name}''s pattern "
                    f"{shown(field.stdout)} matched nothing in its output; the last lines: "
                    + (last or "none (it printed nothing)")
                )
            text = last.group(1) if last.re.groups else last.group(0)
        else:
            text = _file_value(field, folder / (field.file or ""))
        try:
            values[field.name] = None if text is None else from_text(field.type, str(text))
        except ValueError:
            raise Ns3Error(
                f"summary field '{field.name}': {shown(str(text))} is not a {field.type}"
            ) from None
    return values


def _file_value(field: Ns3SummaryField, path: Path) -> Any:
    """A summary field's value in a file the run wrote: its ``column`` in a CSV file's last row
    (the rows before it read one by one, not kept), or its dotted ``key`` in a JSON file."""
    if not path.is_file():
        raise Ns3Error(f"summary field '{field.name}': the run wrote no {path.name}")
    if field.column is None and path.stat().st_size > SUMMARY_FILE_BYTES:
        raise Ns3Error(
            f"summary field '{field.name}': {path.name} is larger than "
            f"{SUMMARY_FILE_BYTES >> 20} MiB; allowed: a JSON file of at most that"
        )
    try:
        if field.column is not None:
            with path.open(newline="", encoding="utf-8") as f:
                rows = deque(csv.DictReader(f), maxlen=1)
        else:
            value: Any = json.loads(path.read_text(encoding="utf-8"))
    except (csv.Error, ValueError) as e:  # not UTF-8, not JSON, a field past csv's limit
        raise Ns3Error(f"summary field '{field.name}': {path.name} does not read: {e}") from None
    if field.column is not None:
        if not rows or field.column not in rows[-1]:
            raise Ns3Error(
                f"summary field '{field.name}': {path.name} has no column {shown(field.column)}"
                " (or no row)"
            )
        return rows[-1][field.column]
    for part in (field.key or "").split("."):
        if not isinstance(value, dict) or part not in value:
            raise Ns3Error(f"summary field '{field.name}': {path.name} has no key {field.key}")
        value = value[part]
    return None if value is None else value


def _table(name: str, table: Ns3Table, path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise Ns3Error(f"table '{name}': the run wrote no {path.name}")
    with path.open(newline="", encoding="utf-8") as f:
        try:
            reader = csv.DictReader(f)
            fieldnames = reader.fieldnames or []
        except (csv.Error, UnicodeDecodeError) as e:
            raise Ns3Error(f"table '{name}': {path.name} does not read: {e}") from None
        missing = [c.name for c in table.columns if c.name not in fieldnames]
        if missing:
            raise Ns3Error(f"table '{name}': {path.name} has no column {shown(missing[0])}")
        rows = []
        try:
            for row in reader:
                rows.append(
                    {c.name: None if row[c.name] in ("", None) else from_text(c.type, row[c.name])
                     for c in table.columns}
                )  # fmt: skip
        except (csv.Error, ValueError) as e:  # a value not of its type; not UTF-8; past csv's limit
            raise Ns3Error(f"table '{name}': {path.name}: {e}") from None
    return rows


def run(program: Ns3Program, given: Mapping[str, object], run_number: int, out: Path) -> int:
    """Runs the program once in a scratch folder of its own (``--RngRun`` the run number) and
    writes the contract's result to ``out``; the exit code."""
    values = {p.name: given.get(p.name, p.default) for p in program.parameters}
    options = [
        f"--{p.set or p.name}={option_text(p, values[p.name])}"
        for p in program.parameters
        if values[p.name] is not None
    ]
    # under satsweep's scratch folder for the run when it names one: removed even if we are killed
    within = os.environ.get(SCRATCH_VARIABLE) or None
    with tempfile.TemporaryDirectory(prefix="satsweep-ns3-", dir=within) as scratch:
        folder = Path(scratch)
        printed = folder / ".stdout"
        with open(printed, "wb") as stdout:  # to the file as it comes, never into memory
            proc = run_tailed(
                [str(program.executable), *options, f"--RngRun={run_number}"], folder, stdout
            )
        if proc.returncode != 0:
            last = list(islice(_lines_backwards(printed), STDERR_TAIL_LINES))[::-1]
            said = "\n".join([*last, proc.stderr]).strip().splitlines()
            sys.stderr.write("\n".join(said[-STDERR_TAIL_LINES:]) + "\n")
            return proc.returncode
        try:
            result = {"params": values, "summary": _summary(program, printed, folder)}
            for name, table in program.declaration.tables.items():
                result[name] = _table(name, table, folder / table.file)
        except Ns3Error as e:
            sys.stderr.write(f"{e}\n")
            return 1
    write_whole(out, result)
    return 0


# ---- the adapter ------------------------------------------------------------------------------


class Ns3Options(BaseModel):
    """The design keys of ``program: ns3``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    script: str | None = Field(
        default=None,
        min_length=1,
        description="the ns-3 program: its C++ source (built against satsweep's ns-3) or an "
        "executable, relative to the sweep file, with satsweep.yaml beside it (docs/ns3.md)",
    )


class Ns3Adapter(Adapter):
    """A plain ns-3 program under the contract, through the command ``satsweep-ns3``."""

    name = ENGINE
    options = Ns3Options

    def program(self, options: BaseModel, base: Path) -> Program:
        """The adapter's command for the script; its identity hashes the script, the
        declaration and the executable built (:attr:`Ns3Program.sha256`); its engine is the
        wheel's ns-3 for a script built here (an executable built elsewhere: unknown, None)."""
        assert isinstance(options, Ns3Options)
        if options.script is None:
            raise ProgramError(
                f"'{ENGINE}' needs script: (an ns-3 program's .cc file, or an executable, "
                "relative to the sweep file)"
            )
        try:
            ns3 = Ns3Program(base / options.script)
            # a script is built here (its executable hashed), once, rather than in --describe
            identity = ns3.sha256
        except (Ns3Error, OSError) as e:
            raise ProgramError(str(e), "script") from None
        command = Path(sysconfig.get_path("scripts")) / COMMAND
        if not command.is_file():
            raise ProgramError(f"{command}: the ns-3 adapter is missing; ./setup.sh installs it")
        version = ns3_version() if ns3.executable != ns3.script else None
        return replace(
            Program.adapted(command, identity, (f"--script={ns3.script}",)),
            engine=None if version is None else f"ns-3 {version}",
        )

    def archived(self, options: BaseModel, base: Path) -> ProgramFiles:
        """The script and its declaration; no build step: the adapter builds a script where
        it runs (:func:`build`)."""
        assert isinstance(options, Ns3Options)
        if options.script is None:
            raise ProgramError(f"'{ENGINE}' needs script: (an ns-3 program)", "script")
        try:
            ns3 = Ns3Program(base / options.script)
        except Ns3Error as e:
            raise ProgramError(str(e), "script") from None
        return ProgramFiles(ns3.script, (ns3.script, ns3.declaration_file))

    def versions(self) -> dict[str, str]:
        """The ns-3 wheel's version (:func:`ns3_version`) and the first line of the compiler's
        ``--version`` (``$CXX``, else c++, as :func:`build` compiles)."""
        compiler = os.environ.get("CXX", "c++").split()
        try:
            proc = subprocess.run(
                [*compiler, "--version"], capture_output=True, text=True, timeout=60
            )
            said = (proc.stdout.splitlines() or ["unknown"])[0].strip()
        except (OSError, subprocess.SubprocessError):
            said = "none"
        return {"ns-3": ns3_version() or "none", "compiler": said}


def _usage(message: str) -> int:
    print(f"{COMMAND}: {message}", file=sys.stderr)
    return USAGE_ERROR


def main(argv: Sequence[str] | None = None) -> int:
    """``satsweep-ns3 --script=FILE (--describe | --PARAM=VALUE ... --run=R --out=FILE)``: a
    plain ns-3 program under the engine contract."""
    parser = argparse.ArgumentParser(prog=COMMAND, description=main.__doc__, allow_abbrev=False)
    parser.add_argument("--script", required=True, type=Path)
    parser.add_argument("--describe", action="store_true")
    parser.add_argument("--run", type=int)
    parser.add_argument("--out", type=Path)
    known, rest = parser.parse_known_args(argv)
    try:
        program = Ns3Program(known.script)
        if known.describe:
            print(program.description().model_dump_json(exclude_none=True))
            return 0
        parameters = program.parameters
    except Ns3Error as e:
        return _usage(str(e))
    if known.run is None or known.out is None or not 0 < known.run < 2**63:
        return _usage("a run needs --run=R (0 < R < 2^63) and --out=FILE")
    try:
        given = given_values(rest, parameters, program.declaration.name)
    except ValueError as e:
        return _usage(str(e))
    try:
        return run(program, given, known.run, known.out)
    except (Ns3Error, OSError) as e:
        print(f"{COMMAND}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
