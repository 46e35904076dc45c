"""OMNeT++ simulations under the engine contract (docs/omnetpp.md).

A design names ``program: omnetpp`` with ``ini:`` (an OMNeT++ ini file) and ``config:`` (one of
its configurations). OMNeT++ cannot say which of a network's many parameters a study varies,
nor which of its scalars make its summary, so a small declaration file beside the ini,
``satsweep.yaml``, says it: the contract's parameters and summary fields, plus the NED folders
and libraries to load, the OMNeT++ parameter each design parameter sets and the scalar each
summary field is read from.

The adapter is the command ``satsweep-omnetpp --ini=FILE --config=NAME``, which then honours the
contract: ``--describe`` prints the declaration's parameters and summary; a run maps each
``--name=value`` to an OMNeT++ ``--<pattern>=value`` option and ``--run`` to a seed set,
runs Cmdenv headless in a scratch folder outside every NED folder (its result files never pile
up where OMNeT++'s NED loader scans), reads the run's scalars with ``opp_scavetool`` and writes
the contract's JSON. The scratch folder is removed: only the result is kept.
"""

from __future__ import annotations

import argparse
import configparser
import csv
import hashlib
import io
import json
import math
import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from satsweep.engine.description import Column, Description, Parameter
from satsweep.engine.program import STDERR_TAIL_LINES, USAGE_ERROR, file_sha256

__all__ = ["DECLARATION", "ENGINE", "Declaration", "OmnetppStudy", "main"]

#: The name a design gives as ``program:`` for an OMNeT++ study.
ENGINE = "omnetpp"
#: The adapter's declaration file, beside the ini file.
DECLARATION = "satsweep.yaml"
#: The adapter's command, installed with satsweep (pyproject.toml's scripts).
COMMAND = "satsweep-omnetpp"
#: The prefix of a scalar by which a model reports the value a parameter resolved to.
RESOLVED_PREFIX = "param:"


class OmnetppError(ValueError):
    """An ini file, configuration or declaration that cannot be used, or no OMNeT++."""


class OmnetppParameter(Parameter):
    """A declared parameter and the OMNeT++ parameter (pattern) it sets."""

    set: str | None = None

    @property
    def pattern(self) -> str:
        """The OMNeT++ parameter assigned: ``set``, else ``**.<name>``."""
        return self.set or f"**.{self.name}"


class OmnetppSummaryField(Column):
    """A declared summary field and the scalar(s) it is read from."""

    scalar: str = Field(min_length=1)
    module: str = "**"
    reduce: Literal["one", "sum", "mean", "min", "max"] = "one"


class Declaration(BaseModel):
    """The declaration file ``satsweep.yaml`` of an OMNeT++ study (docs/omnetpp.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    version: str = Field(min_length=1)
    ned: list[str] = []
    libraries: list[str] = []
    parameters: list[OmnetppParameter]
    summary: list[OmnetppSummaryField] = Field(min_length=1)

    @model_validator(mode="after")
    def _contract(self) -> Declaration:
        self.description()  # the contract's own rules (names, reserved words, twice declared)
        return self

    def description(self) -> Description:
        """The contract's ``--describe`` of the study."""
        return Description(
            name=self.name,
            version=self.version,
            parameters=[Parameter(**p.model_dump(exclude={"set"})) for p in self.parameters],
            summary=[
                Column(**f.model_dump(exclude={"scalar", "module", "reduce"})) for f in self.summary
            ],
        )


def _config_sections(ini: Path) -> list[str]:
    """The configurations an ini file defines: ``General`` and each ``[Config NAME]``.
    Included files (``include``) are not followed: a configuration in one is not found."""
    parser = configparser.RawConfigParser(strict=False, comment_prefixes=("#", ";"))
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    try:
        # OMNeT++ allows keys before the first section (they belong to General)
        parser.read_string("[General]\n" + ini.read_text(encoding="utf-8"))
    except configparser.Error as e:
        raise OmnetppError(f"{ini}: not an OMNeT++ ini file: {e}") from None
    return [s.removeprefix("Config ").strip() for s in parser.sections()]


class OmnetppStudy:
    """An OMNeT++ study: an ini file, one of its configurations and the declaration beside it."""

    def __init__(self, ini: Path, config: str):
        self.ini = Path(ini).absolute()
        self.config = config
        if not self.ini.is_file():
            raise OmnetppError(f"ini: {ini}: no such file; allowed: an OMNeT++ ini file")
        configs = _config_sections(self.ini)
        if config not in configs:
            raise OmnetppError(
                f"config: '{config}' is not a configuration of {self.ini.name}; allowed: "
                + ", ".join(configs)
            )
        self.declaration_file = self.ini.parent / DECLARATION
        try:
            raw = yaml.safe_load(self.declaration_file.read_text(encoding="utf-8"))
        except OSError as e:
            raise OmnetppError(
                f"{self.declaration_file}: cannot read the study's declaration: "
                f"{e.strerror or e}; allowed: a {DECLARATION} beside the ini file "
                "(docs/omnetpp.md)"
            ) from None
        except yaml.YAMLError as e:
            raise OmnetppError(f"{self.declaration_file}: not valid YAML: {e}") from None
        try:
            self.declaration = Declaration.model_validate(raw)
        except ValidationError as e:
            first = e.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "(top level)"
            raise OmnetppError(
                f"{self.declaration_file}: {where}: {first['msg']}; allowed: as docs/omnetpp.md "
                "describes"
            ) from None

    @property
    def base(self) -> Path:
        """The folder of the ini file and the declaration."""
        return self.ini.parent

    def ned_folders(self, inet: Path) -> list[Path]:
        """The NED path: the declared folders, then INET's."""
        return [*(self.base / d for d in self.declaration.ned), inet / "src"]

    def libraries(self, inet: Path) -> list[Path]:
        """The libraries to load: INET's, then the declared ones."""
        return [inet / "src" / "INET", *(self.base / lib for lib in self.declaration.libraries)]

    def files(self) -> list[Path]:
        """What a run's outcome depends on besides OMNeT++ and INET themselves: the ini, the
        declaration, the declared libraries and every NED file of the declared folders."""
        found = [self.ini, self.declaration_file]
        for lib in self.declaration.libraries:
            path = self.base / lib
            found.append(path.with_name(f"lib{path.name}.so"))
        for folder in self.declaration.ned:
            found.extend(sorted((self.base / folder).rglob("*.ned")))
        return found

    @cached_property
    def sha256(self) -> str:
        """A hash of :meth:`files` (names relative to the ini's folder, and contents) and the
        configuration's name."""
        digest = hashlib.sha256(f"config {self.config}\n".encode())
        for path in self.files():
            try:
                content = file_sha256(path)
            except OSError:
                content = "missing"
            digest.update(f"{os.path.relpath(path, self.base)} {content}\n".encode())
        return digest.hexdigest()


# ---- the adapter's command ------------------------------------------------------------------


def installation() -> tuple[Path, Path]:
    """OMNETPP_ROOT and INET_ROOT: from the environment, else from ``<prefix>/omnetpp.env``,
    which ``./setup.sh --with-omnetpp`` writes."""
    roots = {k: os.environ.get(k, "") for k in ("OMNETPP_ROOT", "INET_ROOT")}
    env_file = Path(sys.prefix) / "omnetpp.env"
    if not all(roots.values()) and env_file.is_file():
        for line in env_file.read_text().splitlines():
            key, _, value = line.partition("=")
            if key in roots and not roots[key]:
                roots[key] = shlex.split(value)[0] if value else ""
    if not all(roots.values()):
        raise OmnetppError(
            "OMNeT++ is not installed for this environment (no OMNETPP_ROOT and INET_ROOT, and "
            f"no {env_file}); allowed: ./setup.sh --with-omnetpp, or OMNETPP_ROOT and INET_ROOT "
            "naming a built OMNeT++ 6.x and INET 4.5"
        )
    return Path(roots["OMNETPP_ROOT"]), Path(roots["INET_ROOT"])


def option_value(parameter: OmnetppParameter, value: object) -> str:
    """A value as an OMNeT++ ini expression: strings quoted, booleans true/false."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)  # an NED string literal: double quotes, backslash escapes
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)


def _typed(parameter: OmnetppParameter, text: str) -> object:
    """A flag's text as the parameter's type; ValueError when it is not one."""
    if parameter.type == "int":
        return int(text)
    if parameter.type == "float":
        return float(text)
    if parameter.type == "bool":
        if text in ("1", "true"):
            return True
        if text in ("0", "false"):
            return False
        raise ValueError(text)
    return text


def _pattern(omnetpp_pattern: str) -> re.Pattern[str]:
    """An OMNeT++ object-path pattern as a regular expression: ``**`` any text, ``*`` any text
    without a dot, ``?`` one character but a dot, everything else literal."""
    parts = re.split(r"(\*\*|\*|\?)", omnetpp_pattern)
    wild = {"**": ".*", "*": r"[^.]*", "?": r"[^.]"}
    return re.compile("".join(wild.get(p, re.escape(p)) for p in parts) + r"\Z")


def read_scalars(sca: Path, scavetool: Path) -> list[tuple[str, str, float]]:
    """Every scalar of a result file as (module, name, value), exported by ``opp_scavetool``."""
    proc = subprocess.run(
        [str(scavetool), "export", "-T", "s", "-F", "CSV-R", "-o", "-", str(sca)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise OmnetppError(f"opp_scavetool could not read {sca.name}: {proc.stderr.strip()}")
    rows = csv.DictReader(io.StringIO(proc.stdout))
    return [
        (row["module"], row["name"], float(row["value"]))
        for row in rows
        if row.get("type") == "scalar"
    ]


def summarize(
    declaration: Declaration, scalars: Sequence[tuple[str, str, float]]
) -> dict[str, Any]:
    """The summary the declaration asks for, from a run's scalars. NaN is null; a field whose
    scalar was not recorded (or, with ``reduce: one``, recorded more than once) is an error."""
    summary: dict[str, Any] = {}
    for field in declaration.summary:
        module = _pattern(field.module)
        values = [v for m, n, v in scalars if n == field.scalar and module.match(m)]
        if not values or (field.reduce == "one" and len(values) > 1):
            raise OmnetppError(
                f"summary field '{field.name}': scalar '{field.scalar}' of modules "
                f"'{field.module}' recorded {len(values)} times; the declaration asks for "
                + ("exactly one" if field.reduce == "one" else "at least one")
            )
        if field.reduce in ("one", "sum"):
            value = math.fsum(values)
        elif field.reduce == "mean":
            value = math.fsum(values) / len(values)
        else:
            value = min(values) if field.reduce == "min" else max(values)
        if math.isnan(value):
            summary[field.name] = None
        elif field.type == "int":
            summary[field.name] = round(value)
        elif field.type == "bool":
            summary[field.name] = value != 0
        else:
            summary[field.name] = value
    return summary


def echo(
    declaration: Declaration,
    given: Mapping[str, object],
    scalars: Sequence[tuple[str, str, float]],
) -> dict[str, Any]:
    """Every parameter with the value the run used: the model's ``param:<name>`` scalar when
    it recorded one (a value it derived), else the value given or the declared default."""
    resolved = {
        n.removeprefix(RESOLVED_PREFIX): v for _, n, v in scalars if n.startswith(RESOLVED_PREFIX)
    }
    params: dict[str, Any] = {}
    for p in declaration.parameters:
        value = given.get(p.name, p.default)
        if p.name in resolved and p.type in ("int", "float"):
            value = round(resolved[p.name]) if p.type == "int" else resolved[p.name]
        params[p.name] = value
    return params


def seed_set(run: int) -> int:
    """The OMNeT++ seed set of a run number. OMNeT++ takes a seed set as a C int and seeds its
    Mersenne Twister with 32 bits, while run numbers go up to 2^63 - 1: the run number is hashed
    into 1 .. 2^31 - 1. Distinct runs can then meet on one seed set (likely past ~50,000 runs),
    so a design checks its runs' seed sets before it runs (Program.stream)."""
    digest = hashlib.sha256(f"satsweep-omnetpp:{run}".encode()).digest()
    return 1 + int.from_bytes(digest[:8], "big") % (2**31 - 1)


def _usage(message: str) -> int:
    print(f"{COMMAND}: {message}", file=sys.stderr)
    return USAGE_ERROR


def _write_whole(path: Path, result: Mapping[str, Any]) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(result))
    os.replace(temporary, path)


def run(study: OmnetppStudy, given: Mapping[str, object], run_number: int, out: Path) -> int:
    """Runs one simulation of the study and writes its result to ``out``; the exit code."""
    omnetpp, inet = installation()
    declaration = study.declaration
    # every parameter with a value, defaults too: the declaration, not the ini, says them
    values = {p.name: given.get(p.name, p.default) for p in declaration.parameters}
    options = [
        f"--{p.pattern}={option_value(p, values[p.name])}"
        for p in declaration.parameters
        if values[p.name] is not None
    ]
    with tempfile.TemporaryDirectory(prefix="satsweep-omnetpp-") as scratch:
        command = [
            str(omnetpp / "bin" / "opp_run"),
            "-u",
            "Cmdenv",
            "-c",
            study.config,
            "-r",
            "0",
            "-n",
            os.pathsep.join(str(p) for p in study.ned_folders(inet)),
            *(f"-l{lib}" for lib in study.libraries(inet)),
            f"--result-dir={scratch}",
            "--output-scalar-file=${resultdir}/run.sca",
            "--output-vector-file=${resultdir}/run.vec",
            "--output-scalar-file-append=false",
            f"--seed-set={seed_set(run_number)}",
            "--cmdenv-express-mode=true",
            "--cmdenv-status-frequency=60s",
            *options,
            str(study.ini),
        ]
        proc = subprocess.run(command, cwd=study.base, capture_output=True, text=True)
        # Cmdenv reports errors on stdout and stderr alike ("<!> Error: ...")
        said = (proc.stdout + proc.stderr).strip().splitlines()
        if proc.returncode != 0:
            sys.stderr.write("\n".join(said[-STDERR_TAIL_LINES:]) + "\n")
            return proc.returncode
        sca = Path(scratch) / "run.sca"
        if not sca.is_file():
            sys.stderr.write("the run recorded no scalars (run.sca missing)\n")
            return 1
        try:
            scalars = read_scalars(sca, omnetpp / "bin" / "opp_scavetool")
            result = {
                "params": echo(declaration, given, scalars),
                "summary": summarize(declaration, scalars),
            }
        except OmnetppError as e:
            sys.stderr.write(f"{e}\n")
            return 1
    _write_whole(out, result)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``satsweep-omnetpp --ini=FILE --config=NAME (--describe | --PARAM=VALUE ... --run=R
    --out=FILE)``: an OMNeT++ study under the engine contract."""
    parser = argparse.ArgumentParser(prog=COMMAND, description=main.__doc__, add_help=True)
    parser.add_argument("--ini", required=True, type=Path)
    parser.add_argument("--config", default="General")
    parser.add_argument("--describe", action="store_true")
    parser.add_argument("--run", type=int)
    parser.add_argument("--out", type=Path)
    known, rest = parser.parse_known_args(argv)
    try:
        study = OmnetppStudy(known.ini, known.config)
    except OmnetppError as e:
        return _usage(str(e))
    if known.describe:
        print(study.declaration.description().model_dump_json(exclude_none=True))
        return 0
    if known.run is None or known.out is None or not 0 < known.run < 2**63:
        return _usage("a run needs --run=R (0 < R < 2^63) and --out=FILE")
    declared = {p.name: p for p in study.declaration.parameters}
    given: dict[str, object] = {}
    for flag in rest:
        name, equals, text = flag.removeprefix("--").partition("=")
        parameter = declared.get(name)
        if not flag.startswith("--") or not equals or parameter is None:
            return _usage(
                f"{flag}: not a parameter of {study.declaration.name}; allowed: "
                + ", ".join(f"--{n}=VALUE" for n in declared)
            )
        try:
            value = _typed(parameter, text)
        except ValueError:
            return _usage(f"--{name}={text}: {parameter.allowed()}")
        if problem := parameter.check(value):
            return _usage(f"--{name}: {problem}")
        given[name] = value
    try:
        return run(study, given, known.run, known.out)
    except OmnetppError as e:
        print(f"{COMMAND}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
