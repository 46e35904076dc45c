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
from collections.abc import Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from satsweep.engine.adapters import Adapter, read_declaration
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
    STDERR_TAIL_LINES,
    USAGE_ERROR,
    Program,
    ProgramError,
    file_sha256,
    write_whole,
)

__all__ = ["DECLARATION", "ENGINE", "Ns3Adapter", "Ns3Program", "build", "main", "print_help"]

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
        elif inside and (m := re.match(r"^\s+--([^:=\s]+):\s*(.*?)\s*(?:\[(.*)\])?\s*$", line)):
            found.append((m.group(1), m.group(2), m.group(3)))
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


def build(script: Path) -> Path:
    """The executable of a single-file C++ ns-3 program, built once against the wheel's ns-3
    (every one of its modules linked) into ``~/.cache/satsweep/ns3-programs/<hash>/``."""
    wheel = _wheel()
    libs = sorted((wheel / "lib64").glob("libns3.*.so"))
    compiler = os.environ.get("CXX", "c++")
    flags = ["-std=c++20", "-O2", f"-I{wheel / 'include'}"]
    key = hashlib.sha256(
        "\n".join([file_sha256(script), str(wheel), compiler, *flags]).encode()
    ).hexdigest()[:16]
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
        proc = subprocess.run(command, capture_output=True, text=True)
        if proc.returncode != 0:
            said = [line for line in proc.stderr.splitlines() if "error" in line][:1]
            raise Ns3Error(
                f"{script}: does not build against ns-3 ({' '.join(said) or 'compiler failed'})"
            )
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
        """What the results depend on besides ns-3: the script (or executable) and the
        declaration."""
        digest = hashlib.sha256()
        for path in (self.script, self.declaration_file):
            digest.update(f"{path.name} {file_sha256(path)}\n".encode())
        return digest.hexdigest()

    @cached_property
    def parameters(self) -> list[Ns3Parameter]:
        """The program's ``CommandLine`` arguments (``--PrintHelp``), as the declaration
        overrides them, then the ns-3 attributes it declares."""
        proc = subprocess.run(
            [str(self.executable), "--PrintHelp"], capture_output=True, text=True, timeout=60
        )
        if proc.returncode != 0:
            raise Ns3Error(f"{self.executable} --PrintHelp failed (exit code {proc.returncode})")
        declared = {p.name: p for p in self.declaration.parameters}
        found: list[Ns3Parameter] = []
        for name, help_text, default_text in print_help(proc.stdout):
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


def _summary(program: Ns3Program, stdout: str, folder: Path) -> dict[str, Any]:
    """The summary fields as the declaration reads them from the run's output and files."""
    values: dict[str, Any] = {}
    for field in program.declaration.summary:
        if field.stdout is not None:
            pattern = re.compile(field.stdout)
            matches = [m for line in stdout.splitlines() if (m := pattern.search(line))]
            if not matches:
                raise Ns3Error(f"summary field '{field.name}': no line of the output matches "
                               f"{shown(field.stdout)}")  # fmt: skip
            last = matches[-1]
            text = last.group(1) if pattern.groups else last.group(0)
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
    if not path.is_file():
        raise Ns3Error(f"summary field '{field.name}': the run wrote no {path.name}")
    if field.column is not None:
        with path.open(newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        if not rows or field.column not in rows[-1]:
            raise Ns3Error(
                f"summary field '{field.name}': {path.name} has no column {shown(field.column)}"
                " (or no row)"
            )
        return rows[-1][field.column]
    value: Any = json.loads(path.read_text(encoding="utf-8"))
    for part in (field.key or "").split("."):
        if not isinstance(value, dict) or part not in value:
            raise Ns3Error(f"summary field '{field.name}': {path.name} has no key {field.key}")
        value = value[part]
    return None if value is None else value


def _table(name: str, table: Ns3Table, path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise Ns3Error(f"table '{name}': the run wrote no {path.name}")
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        missing = [c.name for c in table.columns if c.name not in (reader.fieldnames or [])]
        if missing:
            raise Ns3Error(f"table '{name}': {path.name} has no column {shown(missing[0])}")
        rows = []
        for row in reader:
            try:
                rows.append(
                    {c.name: None if row[c.name] in ("", None) else from_text(c.type, row[c.name])
                     for c in table.columns}
                )  # fmt: skip
            except ValueError as e:
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
    with tempfile.TemporaryDirectory(prefix="satsweep-ns3-") as scratch:
        folder = Path(scratch)
        with open(folder / ".stdout", "w+", encoding="utf-8", errors="replace") as stdout:
            proc = subprocess.run(
                [str(program.executable), *options, f"--RngRun={run_number}"],
                cwd=folder,
                stdout=stdout,
                stderr=subprocess.PIPE,
                text=True,
            )
            stdout.seek(0)
            printed = stdout.read()
        if proc.returncode != 0:
            said = (printed + proc.stderr).strip().splitlines()
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
        """The adapter's command for the script; its identity hashes the script and the
        declaration."""
        assert isinstance(options, Ns3Options)
        if options.script is None:
            raise ProgramError(
                f"'{ENGINE}' needs script: (an ns-3 program's .cc file, or an executable, "
                "relative to the sweep file)"
            )
        try:
            ns3 = Ns3Program(base / options.script)
            identity = ns3.sha256
            ns3.executable  # a script is built here, once, rather than inside --describe
        except (Ns3Error, OSError) as e:
            raise ProgramError(str(e), "script") from None
        command = Path(sysconfig.get_path("scripts")) / COMMAND
        if not command.is_file():
            raise ProgramError(f"{command}: the ns-3 adapter is missing; ./setup.sh installs it")
        return Program.adapted(command, identity, (f"--script={ns3.script}",))


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
