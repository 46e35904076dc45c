"""OMNeT++ simulations under the engine contract (docs/omnetpp.md).

A design names ``program: omnetpp`` with ``ini:`` (an OMNeT++ ini file) and ``config:`` (one of
its configurations). OMNeT++ cannot say which of a network's many parameters a study varies,
nor which of its scalars make its summary, so a small declaration file beside the ini,
``satsweep.yaml``, says it: the contract's parameters and summary fields, plus the NED folders
and libraries to load, the OMNeT++ parameter each design parameter sets, the scalar (or
statistic's field) each summary field is read from, and the vectors that become tables.

The adapter is the command ``satsweep-omnetpp --ini=FILE --config=NAME``, which then honours the
contract: ``--describe`` prints the declaration's parameters and summary; a run maps each
``--name=value`` to an OMNeT++ ``--<pattern>=value`` option (the declared unit attached) and
``--run`` to the states of OMNeT++'s generators (``--seeds``, :data:`SEEDS`),
runs Cmdenv headless in a scratch folder outside every NED folder (its result files never pile
up where OMNeT++'s NED loader scans), reads the run's scalars, statistics and declared vectors
with ``opp_scavetool`` and writes the contract's JSON. The scratch folder is removed: only the result is
kept, with the files the model wrote that the declaration's ``keep`` names (table ``kept``).
"""

from __future__ import annotations

import argparse
import configparser
import csv
import decimal
import hashlib
import io
import json
import math
import os
import re
import shlex
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from satsweep.engine.description import (
    Column,
    Cost,
    Description,
    Parameter,
    given_values,
    shown,
    value_text,
)
from satsweep.engine.adapters import (
    Adapter,
    BuildStep,
    ProgramFiles,
    read_declaration,
)
from satsweep.engine.program import (
    SCRATCH_VARIABLE,
    STDERR_TAIL_LINES,
    USAGE_ERROR,
    Program,
    ProgramError,
    file_sha256,
    run_tailed,
    write_whole,
)

__all__ = [
    "DECLARATION",
    "ENGINE",
    "Declaration",
    "OmnetppAdapter",
    "OmnetppStudy",
    "main",
    "Recorded",
    "recorded_results",
    "trial",
    "engine_versions",
    "inet_version",
    "omnetpp_version",
]

#: The name a design gives as ``program:`` for an OMNeT++ study.
ENGINE = "omnetpp"
#: The adapter's declaration file, beside the ini file.
DECLARATION = "satsweep.yaml"
#: The adapter's command, installed with satsweep (pyproject.toml's scripts).
COMMAND = "satsweep-omnetpp"
#: The adapter's own options, which no declared parameter may take.
ADAPTER_OPTIONS = ("ini", "config", "describe", "seeds", "help")
#: The prefix of a scalar by which a model reports the value a parameter resolved to.
RESOLVED_PREFIX = "param:"
#: An ini line that sets the fingerprint option (OmnetppStudy.fingerprinted); an indented
#: line continues the one before, for OMNeT++.
FINGERPRINT_KEY = re.compile(r"^fingerprint[ \t]*=", re.M)
#: OMNeT++ 6.1's options of the fingerprint (src/envir/envirbase.cc, src/sim/cfingerprint.cc).
FINGERPRINT_OPTIONS = (
    "fingerprint",
    "fingerprint-ingredients",
    "fingerprint-events",
    "fingerprint-modules",
    "fingerprint-results",
)


class OmnetppError(ValueError):
    """An ini file, configuration or declaration that cannot be used, or no OMNeT++."""


#: The units OMNeT++ 6.1 knows (the unit table of its src/common/unitconversion.cc), by the
#: short names an NED value takes (``0.08s``).
OMNETPP_UNITS = (
    *("d", "h", "min", "s", "ms", "us", "ns", "ps", "fs", "as"),
    *("bps", "kbps", "Mbps", "Gbps", "Tbps"),
    *("B", "KiB", "MiB", "GiB", "TiB", "kB", "MB", "GB", "TB"),
    *("b", "Kib", "Mib", "Gib", "Tib", "kb", "Mb", "Gb", "Tb"),
    *("rad", "deg", "m", "dm", "cm", "mm", "um", "nm", "km"),
    *("W", "mW", "uW", "nW", "pW", "fW", "kW", "MW", "GW", "Hz", "kHz", "MHz", "GHz", "THz"),
    *("kg", "g", "t", "K", "J", "kJ", "MJ", "Ws", "Wh", "kWh", "MWh", "V", "kV", "mV"),
    *("A", "mA", "uA", "Ohm", "mOhm", "kOhm", "MOhm", "mps", "kmps", "kmph"),
    *("C", "As", "mAs", "Ah", "mAh", "x"),
    *("dBW", "dBm", "dBmW", "dBV", "dBmV", "dBA", "dBmA", "dB"),
)


class OmnetppParameter(Parameter):
    """A declared parameter and the OMNeT++ parameter (pattern) it sets. Its ``unit`` is an
    OMNeT++ unit attached to the value passed (``--**.serviceTime=0.08s``) unless ``attach`` is
    false: then it only labels the values (an NED parameter without ``@unit``)."""

    set: str | None = None
    attach: bool = True
    #: An NED expression the value is placed in, where it says ``${<name>}``, as in the ini
    #: line it comes from: ``truncnormal(${serviceTimeMean}, 1s)``; default the value alone.
    expression: str | None = None

    @model_validator(mode="after")
    def _attachable(self) -> OmnetppParameter:
        if self.expression is not None:
            own = "${" + self.name + "}"
            others = set(re.findall(r"\$\{[^}]*\}", self.expression)) - {own}
            if own not in self.expression or others:
                raise ValueError(
                    f"parameter '{self.name}': expression {shown(self.expression)} must use "
                    f'{own}, and no other ${{...}}; allowed: e.g. "exponential({own})"'
                )
        if self.unit is None or not self.attach:
            return self
        if self.type not in ("int", "float"):
            raise ValueError(
                f"parameter '{self.name}': unit {shown(self.unit)} cannot be attached to a "
                f"{self.type} value; allowed: attach: false (the unit only labels the values)"
            )
        if self.unit not in OMNETPP_UNITS:
            raise ValueError(
                f"parameter '{self.name}': unit {shown(self.unit)} is not an OMNeT++ unit; allowed: "
                + " ".join(OMNETPP_UNITS)
                + ", or attach: false (the unit only labels the values)"
            )
        return self

    @property
    def pattern(self) -> str:
        """The OMNeT++ parameter assigned: ``set``, else ``**.<name>``."""
        return self.set or f"**.{self.name}"


#: The fields of a recorded statistic (``@statistic`` with ``record=stats`` or ``histogram``)
#: a summary field can read: opp_scavetool's, and ``sum``, the mean times the sum of weights.
STATISTIC_FIELDS = ("count", "sum", "mean", "stddev", "min", "max")


class OmnetppSummaryField(Column):
    """A declared summary field and what it is read from: a scalar, or a field of a recorded
    statistic (``statistic`` and ``field``), of the modules ``module`` matches."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    scalar: str | None = Field(None, min_length=1)
    statistic: str | None = Field(None, min_length=1)
    field: str | None = None
    module: str = "**"
    reduce: Literal["one", "sum", "mean", "min", "max"] = "one"

    @model_validator(mode="after")
    def _source(self) -> OmnetppSummaryField:
        if (self.scalar is None) == (self.statistic is None):
            raise ValueError(
                f"summary field '{self.name}' needs exactly one of scalar and statistic; "
                "allowed: scalar: NAME, or statistic: NAME with field: "
                + ", ".join(STATISTIC_FIELDS)
            )
        if self.statistic is None and self.field is not None:
            raise ValueError(
                f"summary field '{self.name}': field is a statistic's; allowed: statistic: "
                "NAME with field, or scalar: NAME without"
            )
        if self.statistic is not None and self.field not in STATISTIC_FIELDS:
            raise ValueError(
                f"summary field '{self.name}': field "
                + ("missing" if self.field is None else f"{shown(self.field)} is not one")
                + " of statistic "
                + f"{shown(self.statistic)}; allowed: "
                + ", ".join(STATISTIC_FIELDS)
            )
        return self

    @property
    def source(self) -> str:
        """What the field reads, for messages: ``scalar 'x'`` or ``statistic 'x' (mean)``."""
        if self.statistic is None:
            return f"scalar {shown(self.scalar or '')}"
        return f"statistic {shown(self.statistic)} ({self.field})"


class OmnetppTable(BaseModel):
    """A declared table: the samples of recorded vectors (``vector``, one name or several) of
    the modules ``module`` matches, a row per sample or, with ``bin``, per time bin of that
    many seconds that has samples (their mean at the bin's start)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    vector: str | list[str]
    module: str = "**"
    bin: float | None = Field(None, gt=0, allow_inf_nan=False)
    unit: str | None = None
    help: str = ""

    @model_validator(mode="after")
    def _named(self) -> OmnetppTable:
        if not self.vectors or not all(self.vectors):
            raise ValueError("a vector's name is empty; allowed: one or more vector names")
        return self

    @property
    def vectors(self) -> list[str]:
        """The vectors' names."""
        return [self.vector] if isinstance(self.vector, str) else list(self.vector)

    def columns(self) -> list[Column]:
        """The table's columns under the engine contract."""
        when = "the start of the bin" if self.bin else "the time of the sample"
        what = f"mean of the samples in the bin of {self.bin:g} s" if self.bin else "the sample"
        return [
            Column(name="module", type="string", help="the recording module's path"),
            Column(name="vector", type="string", help="the vector's name"),
            Column(name="time", type="float", unit="s", help=f"simulation time: {when}"),
            Column(name="value", type="float", unit=self.unit, help=self.help or what),
        ]


#: The table of the files a run keeps (a declaration's ``keep``): a row per file.
KEPT_TABLE = "kept"
KEPT_COLUMNS = [
    Column(name="path", type="string", help="the file's path in the run's working folder"),
    Column(name="size", type="int", unit="bytes", help="the file's size"),
    Column(name="sha256", type="string", help="the sha256 of the file's bytes"),
    Column(name="content", type="string", help="the file's bytes, base64 (RFC 4648)"),
]
#: The most bytes, all its kept files together, a run keeps (they travel base64 through the
#: run's JSON result into the store: 16 MiB take ~22 MB there).
MAX_KEPT_BYTES = 16 << 20
#: The most files a run keeps.
MAX_KEPT_FILES = 1000


class Declaration(BaseModel):
    """The declaration file ``satsweep.yaml`` of an OMNeT++ study (docs/omnetpp.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    version: str = Field(min_length=1)
    ned: list[str] = []
    libraries: list[str] = []
    parameters: list[OmnetppParameter]
    summary: list[OmnetppSummaryField] = Field(min_length=1)
    tables: dict[str, OmnetppTable] = {}
    #: the contract's cost hint (docs/engine-contract.md): orders and batches the jobs
    cost: Cost | None = None
    #: whole seconds of simulated time: each run records, besides OMNeT++'s fingerprint of the
    #: whole run, one of its events before each (docs/omnetpp.md, "Fingerprints")
    fingerprint_at: list[int] = []
    #: files the model writes, as globs relative to a run's working folder, kept with the run
    #: as the rows of table ``kept`` (:func:`kept_rows`; docs/omnetpp.md, "Files a model writes")
    keep: list[str] = []

    @model_validator(mode="after")
    def _contract(self) -> Declaration:
        for pattern in self.keep:
            parts = Path(pattern).parts
            if not pattern or Path(pattern).is_absolute() or ".." in parts:
                raise ValueError(
                    f"keep: {shown(pattern)}: allowed: a glob relative to the run's working "
                    'folder, without "..", e.g. "results/*.pcap"'
                )
        if self.keep and KEPT_TABLE in self.tables:
            raise ValueError(
                f"table '{KEPT_TABLE}' holds the files of keep:; allowed: another name for the "
                "declared table"
            )
        self.description()  # the contract's own rules (names, reserved words, twice declared)
        times = self.fingerprint_at
        if any(t <= 0 for t in times) or any(a >= b for a, b in zip(times, times[1:])):
            raise ValueError(
                f"fingerprint_at: {times}: allowed: whole seconds of simulated time, positive "
                "and increasing (OMNeT++'s event filters match whole seconds only)"
            )
        for p in self.parameters:
            if p.name in ADAPTER_OPTIONS:
                raise ValueError(
                    f"parameter '{p.name}' is an option of {COMMAND} itself; allowed: another "
                    "name (set: names the OMNeT++ parameter)"
                )
        return self

    def description(self, first: Sequence[Column] = ()) -> Description:
        """The contract's ``--describe`` of the study; ``first``: summary fields before the
        declared ones (the run's fingerprints, :meth:`OmnetppStudy.description`)."""
        return Description(
            name=self.name,
            version=self.version,
            parameters=[
                Parameter(**p.model_dump(exclude={"set", "attach", "expression"}))
                for p in self.parameters
            ],
            summary=[
                *first,
                *(Column(**f.model_dump(include=set(Column.model_fields))) for f in self.summary),
            ],
            tables={
                **{name: table.columns() for name, table in self.tables.items()},
                **({KEPT_TABLE: KEPT_COLUMNS} if self.keep else {}),
            },
            cost=self.cost,
        )


def included_name(line: str) -> str | None:
    """The file an ini file's line includes, as OMNeT++'s reader takes it: ``include`` at the
    line's start, blanks, the name (relative to the including file's folder) and maybe a
    comment; None for another line."""
    if not (line.startswith("include") and line[7:8].isspace()):
        return None
    return line[7:].split("#", 1)[0].strip() or None


def _config_sections(ini: Path) -> list[str]:
    """The configurations an ini file defines: ``General`` and each ``[Config NAME]``.
    Included files (``include``) are not followed: a configuration in one is not found."""
    parser = configparser.RawConfigParser(strict=False, comment_prefixes=("#", ";"))
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    lines = ini.read_text(encoding="utf-8").splitlines()
    try:
        # OMNeT++ allows keys before the first section (they belong to General); an include
        # line is no key (configparser would refuse it)
        kept = (line for line in lines if included_name(line) is None)
        parser.read_string("[General]\n" + "\n".join(kept))
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
            self.declaration = read_declaration(
                self.declaration_file, Declaration, "the ini file", "docs/omnetpp.md"
            )
        except ValueError as e:
            raise OmnetppError(str(e)) from None
        declared = {f.name for f in self.declaration.summary}
        for column in self.fingerprint_fields():
            if column.name in declared:
                raise OmnetppError(
                    f"{self.declaration_file}: summary field '{column.name}' is the run's "
                    f"{column.help}, which satsweep records because the ini sets fingerprint; "
                    "allowed: another name for the declared field"
                )
        if self.declaration.fingerprint_at:
            self.fingerprint_settings()  # refused now, not at the first run

    @cached_property
    def fingerprinted(self) -> bool:
        """Whether each run records OMNeT++'s fingerprint: a ``fingerprint =`` line in the ini
        or an ini file it includes (in any section: the configuration's own entries are not
        resolved here), or a declared ``fingerprint_at``."""
        if self.declaration.fingerprint_at:
            return True
        for path in [self.ini, *self.included()]:
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            if FINGERPRINT_KEY.search(text):
                return True
        return False

    def fingerprint_fields(self) -> list[Column]:
        """The summary fields a fingerprinted run records before the declared ones (none
        when not :attr:`fingerprinted`): ``fingerprint``, one ``fingerprint_before_<T>`` per
        ``fingerprint_at``, ``events`` and ``sim_time``."""
        if not self.fingerprinted:
            return []
        return [
            Column(name="fingerprint", type="string",
                   help="OMNeT++'s event fingerprint of the run, with the ini's ingredients "
                   "(hash/ingredients, as OMNeT++ prints it)"),
            *(Column(name=f"fingerprint_before_{t}", type="string",
                     help=f"OMNeT++'s fingerprint of the run's events before t = {t} s")
              for t in self.declaration.fingerprint_at),
            Column(name="events", type="int",
                   help="the event number at which the run stopped, as OMNeT++ reports it"),
            Column(name="sim_time", type="float", unit="s",
                   help="the simulated time at which the run stopped, as OMNeT++ reports it"),
        ]  # fmt: skip

    def description(self) -> Description:
        """The contract's ``--describe``: the declaration's, its summary after the
        :meth:`fingerprint_fields`."""
        return self.declaration.description(self.fingerprint_fields())

    def fingerprint_settings(self) -> dict[str, str]:
        """The configuration's fingerprint options (``fingerprint``, ``fingerprint-ingredients``,
        ``-events``, ``-modules``, ``-results``) that it or a base sets, unquoted, as OMNeT++
        looks them up: the configuration's section, its base's (``extends``, one each), then
        General, the first entry of each. Only the ini file itself is read, one line per entry
        (a continued line is not joined): an ini that includes others is refused, as is an
        option with several values (commas), to which ``fingerprint_at`` could not add its
        own."""
        if self.included():
            raise OmnetppError(
                f"fingerprint_at: {self.ini.name} includes other ini files, whose fingerprint "
                "options are not read; allowed: fingerprint options in the one ini file"
            )
        sections: dict[str, dict[str, tuple[str, int]]] = {"General": {}}
        current = sections["General"]
        lines = self.ini.read_text(encoding="utf-8", errors="replace").splitlines()
        for number, line in enumerate(lines, start=1):
            if line.startswith("["):
                name = line.split("]", 1)[0][1:].strip().removeprefix("Config ").strip()
                current = sections.setdefault(name, {})
                continue
            key, equals, value = line.partition("=")
            if equals and key.strip() in (*FINGERPRINT_OPTIONS, "extends"):
                current.setdefault(key.strip(), (value.split("#", 1)[0].strip(), number))
        chain: list[str] = []
        name = self.config
        while name in sections and name not in chain and name != "General":
            chain.append(name)
            base = sections[name].get("extends", ("General", 0))[0]
            if "," in base:
                raise OmnetppError(
                    f"fingerprint_at: {self.ini.name}: [{name}] extends several bases; "
                    "allowed: one base (their fingerprint options are not linearized here)"
                )
            name = base.strip() or "General"
        chain.append("General")
        settings: dict[str, str] = {}
        for section in chain:
            for key, (value, number) in sections[section].items():
                if key == "extends" or key in settings:
                    continue
                if len(value) > 1 and value[0] == value[-1] == '"':
                    value = value[1:-1]
                if "," in value:
                    raise OmnetppError(
                        f"fingerprint_at: {self.ini.name}:{number}: {key} has several values "
                        f"({value}); allowed: one, to which fingerprint_at adds its own"
                    )
                settings[key] = value
        return settings

    @property
    def base(self) -> Path:
        """The folder of the ini file and the declaration."""
        return self.ini.parent

    def ned_folders(self, inet: Path) -> list[Path]:
        """The NED path: the declared folders as declared, relative to the study's folder
        (where opp_run runs: a folder above it may hold ';' or ':', which separate the NED
        path's folders), then INET's."""
        return [*(Path(d) for d in self.declaration.ned), inet / "src"]

    def libraries(self, inet: Path) -> list[Path]:
        """The libraries to load: INET's, then the declared ones."""
        return [inet / "src" / "INET", *(self.base / lib for lib in self.declaration.libraries)]

    def included(self) -> list[Path]:
        """The ini files the study's ini reads through ``include`` lines, directly or through
        another, as OMNeT++ finds them (each relative to the file that includes it): breadth
        first, each once (a cycle, which OMNeT++ refuses, ends here). A file that cannot be
        read is listed but not followed."""
        found: list[Path] = []
        seen = {self.ini}
        pending = [self.ini]
        while pending:
            current = pending.pop(0)
            try:
                lines = current.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                continue  # missing or unreadable: hashed as such (sha256), not followed
            for name in filter(None, map(included_name, lines)):
                path = Path(os.path.normpath(current.parent / name))
                if path not in seen:
                    seen.add(path)
                    found.append(path)
                    pending.append(path)
        return found

    def files(self) -> list[Path]:
        """What a run's outcome depends on besides OMNeT++ and INET themselves: the ini, the
        ini files it includes (:meth:`included`), the declaration, the declared libraries and
        every NED file of the declared folders."""
        found = [self.ini, *self.included(), self.declaration_file]
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


#: What OMNeT++ splits its NED path (``-n``) at, with no way to escape either.
NED_PATH_SEPARATORS = (";", ":")


def ned_path(folders: Sequence[Path], base: Path) -> str:
    """The NED path (``-n``) of ``folders`` (relative to ``base``) for opp_run running in any
    folder (``--print-command``): absolute paths; a folder whose path holds a separator
    (:data:`NED_PATH_SEPARATORS`) by its real path (which resolves a symbolic link of that
    name); OmnetppError when both do. A run's own working folder names them all cleanly
    (:class:`WorkingFolder`)."""

    def candidates(folder: Path) -> Iterator[str]:  # lazily: a clean path costs no syscall
        yield os.path.abspath(base / folder)
        yield os.path.realpath(base / folder)

    entries = []
    for folder in folders:
        clean = next(
            (c for c in candidates(folder) if not any(s in c for s in NED_PATH_SEPARATORS)), None
        )
        if clean is None:
            raise OmnetppError(
                f"the NED folder {folder} holds ';' or ':', which OMNeT++ splits its NED path "
                "at, even resolved; allowed: a folder without them (a symbolic link to it will "
                "do), or the run's own command (a run names its NED folders by links)"
            )
        entries.append(clean)
    return os.pathsep.join(entries)


#: The most entries of a study's folder that a run's working folder mirrors.
MAX_MIRRORED = 10_000
#: Entries of a study's folder a run's working folder leaves out: OMNeT++'s default result
#: folder, which a model's relative output paths ("results/server.pcap") name.
NOT_MIRRORED = frozenset({"results"})
#: How the working folder's links to the NED folders are named (a dot: the NED loader, which
#: skips dot files, never scans them as part of the working folder).
NED_LINK = ".satsweep-ned-"


class WorkingFolder:
    """A run's working folder of its own, ``work``: a symbolic link to each entry of the
    study's folder ``base`` (but :data:`NOT_MIRRORED`), so that a model's relative input paths
    resolve as from ``base``, and an empty ``results``, where its relative outputs land instead
    of the study's folder: two runs at once never write the same file.

    The NED path (:attr:`ned_path`) names each NED folder by a link of its own in ``work``
    (:data:`NED_LINK`): a short name without OMNeT++'s separators, which OMNeT++ resolves to the
    folder's real path (it canonicalizes NED folders), so packages resolve as from ``base``. A
    ``base`` without ``package.ned`` whose NED files declare a package (an example copied out
    of INET's tree) is given as ``work`` itself with a ``package.ned`` of that package, and the
    ini through its link there (:attr:`ini`), so that its network's name resolves in that
    package. OmnetppError beyond :data:`MAX_MIRRORED` entries."""

    def __init__(self, base: Path, work: Path, folders: Sequence[Path], ini: Path) -> None:
        work.mkdir()
        with os.scandir(base) as entries:
            for count, entry in enumerate(entries):
                if count >= MAX_MIRRORED:
                    raise OmnetppError(
                        f"the study's folder {base} holds more than {MAX_MIRRORED} entries, "
                        "which every run's working folder would link; allowed: a folder of the "
                        "model's own files"
                    )
                if entry.name not in NOT_MIRRORED and not entry.name.startswith(NED_LINK):
                    (work / entry.name).symlink_to(entry.path)
        (work / "results").mkdir()
        self.ini = ini
        package = declared_package(base)
        rooted = bool(package) and not (base / "package.ned").exists()
        if rooted:
            (work / "package.ned").write_text(f"package {package};\n")
            self.ini = work / ini.name
        names = []
        for i, folder in enumerate(folders):
            real = Path(os.path.realpath(base / folder))
            if rooted and real == Path(os.path.realpath(base)):
                names.append(".")
                continue
            (work / f"{NED_LINK}{i}").symlink_to(real)
            names.append(f"{NED_LINK}{i}")
        self.path = work
        self.ned_path = os.pathsep.join(names)


class PrintedFolder:
    """The shell commands that make, in the current folder (a new one), what
    :class:`WorkingFolder` makes for a run, for a command printed to run from any folder
    (``--print-command``): :attr:`setup`, with the NED path (:attr:`ned_path`: the other NED
    folders by their absolute paths, :func:`ned_path`) and the ini (:attr:`ini`) to give
    opp_run there."""

    def __init__(self, base: Path, folders: Sequence[Path], ini: Path) -> None:
        skipped = " ".join(f"! -name {shlex.quote(n)}" for n in sorted(NOT_MIRRORED))
        steps = [
            f"find {shlex.quote(str(base))} -mindepth 1 -maxdepth 1 {skipped} "
            f"! -name {shlex.quote(NED_LINK + '*')} -exec ln -s {{}} . \\;",
            "mkdir results",
        ]
        self.ini = str(ini)
        package = declared_package(base)
        rooted = bool(package) and not (base / "package.ned").exists()
        if rooted:
            steps.append(f"printf 'package %s;\\n' {shlex.quote(str(package))} > package.ned")
            self.ini = ini.name
        names = []
        for folder in folders:
            if rooted and os.path.realpath(base / folder) == os.path.realpath(base):
                names.append(".")
            else:
                names.append(ned_path([folder], base))
        self.setup = " && ".join(steps)
        self.ned_path = os.pathsep.join(names)


#: A NED file's package line (its first statement, after comments).
PACKAGE_LINE = re.compile(r"^\s*package\s+([A-Za-z_][\w.]*)\s*;", re.M)


def declared_package(folder: Path) -> str | None:
    """The package the NED files directly in ``folder`` declare, when they all declare the
    same one (None when none does, or they differ: OMNeT++ then says what it expects)."""
    packages = set()
    for ned in folder.glob("*.ned"):
        try:
            with ned.open(encoding="utf-8", errors="replace") as text:
                head = text.read(65536)  # the package line comes first
        except OSError:
            continue
        found = PACKAGE_LINE.search(head)
        packages.add(found.group(1) if found else "")
    return packages.pop() if len(packages) == 1 else None


def installation() -> tuple[Path, Path]:
    """OMNETPP_ROOT and INET_ROOT: from the environment, else from ``<prefix>/omnetpp.env``,
    which ``./setup.sh`` writes (unless --without-omnetpp)."""
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
            f"no {env_file}); allowed: ./setup.sh (without --without-omnetpp), or OMNETPP_ROOT and INET_ROOT "
            "naming a built OMNeT++ 6.x and INET 4.5"
        )
    return Path(roots["OMNETPP_ROOT"]), Path(roots["INET_ROOT"])


def omnetpp_version(root: Path) -> str | None:
    """The version of the OMNeT++ at ``root`` as its ``Version`` file says it (``omnetpp-6.1``:
    ``6.1``, what its configure takes), None without the file."""
    try:
        said = (root / "Version").read_text().strip()
    except OSError:
        return None
    return said.rpartition("-")[2] or None


def inet_version(root: Path) -> str | None:
    """The version of the INET at ``root`` as its ``bin/inet_version`` reads it: INET_VERSION
    and INET_PATCH_LEVEL of ``src/inet/common/INETDefs.h`` (0x0405, 0x04: ``4.5.4``), None
    without them."""
    try:
        text = (root / "src" / "inet" / "common" / "INETDefs.h").read_text(errors="replace")
    except OSError:
        return None
    version = re.search(r"^#define +INET_VERSION +0x([0-9A-Fa-f]{2})([0-9A-Fa-f]{2})\b", text, re.M)
    patch = re.search(r"^#define +INET_PATCH_LEVEL +0x([0-9A-Fa-f]{2})\b", text, re.M)
    if version is None or patch is None:
        return None
    return ".".join(str(int(part, 16)) for part in (*version.groups(), patch.group(1)))


def engine_versions() -> str | None:
    """OMNeT++'s and INET's versions as a run's provenance records them (``OMNeT++ 6.1, INET
    4.5.4``; ``?`` for one that does not say), None when they are not installed
    (:func:`installation`)."""
    try:
        omnetpp, inet = installation()
    except OmnetppError:
        return None
    return f"OMNeT++ {omnetpp_version(omnetpp) or '?'}, INET {inet_version(inet) or '?'}"


def option_value(parameter: OmnetppParameter, value: object) -> str:
    """A value as an OMNeT++ ini expression: strings quoted, booleans true/false, numbers with
    the parameter's unit attached, placed in the parameter's ``expression`` if it has one
    (:class:`OmnetppParameter`)."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, str):
        text = json.dumps(value)  # an NED string literal: double quotes, backslash escapes
    else:
        text = value_text(value)
        if parameter.attach:
            text += parameter.unit or ""
    if parameter.expression is None:
        return text
    return parameter.expression.replace("${" + parameter.name + "}", text)


def _pattern(omnetpp_pattern: str) -> re.Pattern[str]:
    """An OMNeT++ object-path pattern as a regular expression: ``**`` any text, ``*`` any text
    without a dot, ``?`` one character but a dot, everything else literal."""
    parts = re.split(r"(\*\*|\*|\?)", omnetpp_pattern)
    wild = {"**": ".*", "*": r"[^.]*", "?": r"[^.]"}
    return re.compile("".join(wild.get(p, re.escape(p)) for p in parts) + r"\Z")


def read_scalars(sca: Path, scavetool: Path) -> list[tuple[str, str, float]]:
    """Every scalar of a result file as (module, name, value), exported by ``opp_scavetool``,
    with the fields of its statistics as scalars ``<statistic>:<field>`` (``rtt:stats:mean``),
    all to 17 significant digits (a double's; the exporter's default is 14)."""
    proc = subprocess.run(
        [str(scavetool), "export", "-T", "s", "-w", "-x", "precision=17", "-F", "CSV-R"]
        + ["-o", "-", str(sca)],
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


def _recorded(field: OmnetppSummaryField, scalars: Sequence[tuple[str, str, float]]) -> list[float]:
    """The values a summary field reads, one per matching module (:func:`read_scalars`)."""
    module = _pattern(field.module)
    if field.statistic is None or field.field != "sum":
        name = field.scalar if field.statistic is None else f"{field.statistic}:{field.field}"
        return [v for m, n, v in scalars if n == name and module.match(m)]
    # opp_scavetool exports no sum: the mean times the sum of the weights (the count unless
    # weighted); an empty statistic's mean is NaN, its sum 0
    means = {m: v for m, n, v in scalars if n == f"{field.statistic}:mean" and module.match(m)}
    return [
        means[m] * w if w else 0.0
        for m, n, w in scalars
        if n == f"{field.statistic}:sumweights" and m in means
    ]


def summarize(
    declaration: Declaration, scalars: Sequence[tuple[str, str, float]]
) -> dict[str, Any]:
    """The summary the declaration asks for, from a run's scalars (:func:`read_scalars`). NaN
    or infinity is null; a field whose scalar or statistic was not recorded (or, with ``reduce:
    one``, recorded more than once) is an error."""
    summary: dict[str, Any] = {}
    for field in declaration.summary:
        values = _recorded(field, scalars)
        if not values or (field.reduce == "one" and len(values) > 1):
            raise OmnetppError(
                f"summary field '{field.name}': {field.source} of modules "
                f"'{field.module}' recorded {len(values)} times; the declaration asks for "
                + ("exactly one" if field.reduce == "one" else "at least one")
            )
        if field.reduce in ("one", "sum"):
            value = math.fsum(values)
        elif field.reduce == "mean":
            value = math.fsum(values) / len(values)
        else:
            value = min(values) if field.reduce == "min" else max(values)
        if not math.isfinite(value):  # as satnet writes it: JSON has no NaN or Infinity
            summary[field.name] = None
        elif field.type == "int":
            summary[field.name] = round(value)
        elif field.type == "bool":
            summary[field.name] = value != 0
        else:
            summary[field.name] = value
    return summary


def _filter_literal(name: str) -> str:
    """A name as an opp_scavetool filter pattern matching only itself: quoted, every character
    but letters and digits escaped for the pattern (``\\\\(``), a quote for the string."""
    escaped = (c if c.isalnum() else '\\"' if c == '"' else "\\\\" + c for c in name)
    return '"' + "".join(escaped) + '"'


# numpy only where vectors are read: every satsweep command loads this module (its plug-in
# command `satsweep import` is registered through it), most read no vector
if TYPE_CHECKING:
    import numpy as np

    #: A recorded vector: module, name, sample times and values.
    Vector = tuple[str, str, np.ndarray, np.ndarray]


def read_vectors(vec: Path, scavetool: Path, names: Sequence[str]) -> list[Vector]:
    """The vectors of a result file with one of these names, every module's, exported by
    ``opp_scavetool`` (which reads only their blocks of the file), to 17 significant digits."""
    import numpy as np

    query = " OR ".join(f"name =~ {_filter_literal(n)}" for n in dict.fromkeys(names))
    proc = subprocess.run(
        [str(scavetool), "export", "-T", "v", "-f", query, "-x", "precision=17", "-F", "CSV-R"]
        + ["-o", "-", str(vec)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise OmnetppError(f"opp_scavetool could not read {vec.name}: {proc.stderr.strip()}")
    csv.field_size_limit(sys.maxsize)  # a vector's samples are one field
    return [
        (
            row["module"],
            row["name"],
            np.fromstring(row["vectime"], sep=" "),
            np.fromstring(row["vecvalue"], sep=" "),
        )
        for row in csv.DictReader(io.StringIO(proc.stdout))
        if row.get("type") == "vector"
    ]


def table_rows(name: str, table: OmnetppTable, vectors: Sequence[Vector]) -> list[dict[str, Any]]:
    """A declared table's rows from a run's vectors, ordered by module, vector and time. With
    ``bin``, a row per bin with samples: sample t is in bin floor(t / bin) (to a billionth of
    a bin, so that decimal times on a boundary fall in the later bin), the row's time is the
    bin's start, its value the samples' mean. NaN or infinity is null. A declared vector that
    no matching module recorded is an error."""
    import numpy as np

    module = _pattern(table.module)
    chosen = sorted(
        (v for v in vectors if v[1] in table.vectors and module.match(v[0])),
        key=lambda v: (v[0], table.vectors.index(v[1])),
    )
    for vector in table.vectors:
        if not any(v[1] == vector for v in chosen):
            raise OmnetppError(
                f"table '{name}': vector '{vector}' of modules '{table.module}' was not "
                "recorded; the declaration asks for it (is it a vector the model records?)"
            )
    rows: list[dict[str, Any]] = []
    for path, vector, times, values in chosen:
        if table.bin is not None and len(times):
            index = np.floor(times / table.bin + 1e-9).astype(np.int64)
            bins, where, counts = np.unique(index, return_inverse=True, return_counts=True)
            values = np.bincount(where, weights=values) / counts
            width = decimal.Decimal(repr(table.bin))  # 3 x 0.1 is 0.3, not 0.30000000000000004
            times = [float(width * int(b)) for b in bins]
        rows.extend(
            {
                "module": path,
                "vector": vector,
                "time": float(t),
                "value": float(x) if math.isfinite(x) else None,
            }
            for t, x in zip(times, values, strict=True)
        )
    return rows


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


#: How a run number becomes OMNeT++'s random streams (a design's ``omnetpp_seeds``): ``run``,
#: the whole run number makes the state of every generator (:data:`RNG_SOURCE`); ``seed-set``,
#: the run number hashed into a seed set (stores made before ``run`` existed).
SEEDS = ("run", "seed-set")
#: The random number generator class of ``seeds: run``, built once per OMNeT++ installation
#: (:func:`rng_library`) and selected with ``--rng-class``; ``state`` is what
#: :func:`mt_state` computes.
RNG_CLASS = "SatsweepMt"
RNG_SOURCE = r"""// satsweep's random number generator class for OMNeT++ (satsweep/engine/omnetpp.py builds it):
// OMNeT++'s Mersenne Twister, its state made from the whole run number (--satsweep-run).
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <omnetpp.h>

using namespace omnetpp;

Register_PerRunConfigOption(CFGID_SATSWEEP_RUN, "satsweep-run", CFG_STRING, nullptr,
    "satsweep's run number (1 .. 2^63-1): with rng-class=SatsweepMt it makes every RNG's state.");

namespace {
// SplitMix64's finalizer: a bijection of 64-bit words (xorshifts and odd multipliers).
uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
}  // namespace

class SatsweepMt : public cMersenneTwister
{
  public:
    void initialize(int, int rngId, int, int parsimProcId, int, cConfiguration *cfg) override
    {
        const char *text = cfg->getConfigValue("satsweep-run");
        char *end = nullptr;
        errno = 0;
        unsigned long long run = text ? std::strtoull(text, &end, 10) : 0;
        if (!text || end == text || *end || errno || run == 0 || run >> 63)
            throw cRuntimeError("SatsweepMt: satsweep-run must be a run number 1 .. 2^63-1");
        // Words 1 and 2 are mix(run), word 3 the RNG (and partition): distinct runs and RNGs
        // get distinct states by construction. The other words are SplitMix64's sequence from
        // all three, so that nearby run numbers give unrelated states.
        MTRand::uint32 state[MTRand::SAVE];  // (an unsigned long holding 32 bits)
        uint64_t key = mix(run);
        uint32_t id = (uint32_t)rngId ^ ((uint32_t)parsimProcId << 20);
        state[0] = 0x80000000UL;  // only its top bit counts
        state[1] = (uint32_t)key;
        state[2] = (uint32_t)(key >> 32);
        state[3] = id;
        uint64_t x = key ^ mix(0x5A75E3E9ULL << 32 | id);
        for (int i = 4; i < MTRand::N; i++) {
            x += 0x9E3779B97F4A7C15ULL;
            state[i] = (uint32_t)(mix(x) >> 32);
        }
        state[MTRand::N] = 0;  // no value left: the first draw twists the state
        rng.load(state);
    }
};

Register_Class(SatsweepMt);
"""
_MASK64 = (1 << 64) - 1


def _mix(z: int) -> int:
    """SplitMix64's finalizer, a bijection of 64-bit words (as RNG_SOURCE's ``mix``)."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def mt_state(run: int, rng: int = 0, partition: int = 0) -> list[int]:
    """The 624 words of Mersenne Twister state that ``seeds: run`` gives OMNeT++'s generator
    ``rng`` in a run (what RNG_SOURCE loads; numpy's MT19937 draws the same numbers from it).
    Words 1 and 2 are a bijection of the run number and word 3 is the generator: distinct runs
    and generators have distinct states by construction."""
    key, ident = _mix(run), (rng ^ (partition << 20)) & 0xFFFFFFFF
    words = [0x80000000, key & 0xFFFFFFFF, key >> 32, ident]
    x = key ^ _mix((0x5A75E3E9 << 32) | ident)
    for _ in range(4, 624):
        x = (x + 0x9E3779B97F4A7C15) & _MASK64
        words.append(_mix(x) >> 32)
    return words


def rng_library(omnetpp: Path) -> Path:
    """RNG_SOURCE built against the OMNeT++ at ``omnetpp`` (with the compiler its Makefile.inc
    names), once: in satsweep's cache folder, keyed by the source and the installation. The
    path as ``opp_run -l`` takes it (no ``lib`` prefix, no ``.so``)."""
    key = hashlib.sha256(f"{RNG_SOURCE}\n{omnetpp.resolve()}".encode()).hexdigest()[:16]
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folder = cache / "satsweep" / "omnetpp-rng" / key
    library = folder / "libsatsweeprng.so"
    if library.is_file():
        return folder / "satsweeprng"
    try:
        found = re.search(r"^CXX\s*=\s*(.+)$", (omnetpp / "Makefile.inc").read_text(), re.M)
    except OSError:
        found = None
    compiler = shlex.split(found.group(1)) if found else ["c++"]
    try:
        _build(compiler, omnetpp, folder, library)
    except OSError as e:
        raise OmnetppError(
            f"cannot build satsweep's OMNeT++ generator in {folder}: {e.strerror or e}"
        ) from None
    return folder / "satsweeprng"


def _build(compiler: list[str], omnetpp: Path, folder: Path, library: Path) -> None:
    """Compiles RNG_SOURCE into ``library`` (:func:`rng_library`)."""
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder) as scratch:  # concurrent builds: one wins
        source, built = Path(scratch) / "SatsweepMt.cc", Path(scratch) / library.name
        source.write_text(RNG_SOURCE)
        lib = omnetpp / "lib"
        proc = subprocess.run(
            [*compiler, "-std=c++17", "-O2", "-fPIC", "-shared", f"-I{omnetpp / 'include'}"]
            + [str(source), f"-L{lib}", "-loppsim", f"-Wl,-rpath,{lib}", "-o", str(built)],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            said = (proc.stderr.strip().splitlines() or ["(nothing said)"])[-1]
            raise OmnetppError(f"cannot build satsweep's OMNeT++ generator ({folder}): {said}")
        os.replace(built, library)


def seed_set(run: int) -> int:
    """The OMNeT++ seed set of a run number under ``seeds: seed-set`` (stores made before
    ``run``). OMNeT++ takes a seed set as a C int and seeds its Mersenne Twister with 32 bits:
    the run number is hashed into 1 .. 2^31 - 1. Distinct runs can then meet on one seed set
    (likely past ~50,000 runs), so a design checks its runs' seed sets before it runs
    (Program.stream)."""
    digest = hashlib.sha256(f"satsweep-omnetpp:{run}".encode()).digest()
    return 1 + int.from_bytes(digest[:8], "big") % (2**31 - 1)


def seed_options(seeds: str, run_number: int, omnetpp: Path) -> list[str]:
    """The opp_run options that give a run its random streams under ``seeds`` (:data:`SEEDS`)."""
    if seeds == "seed-set":
        return [f"--seed-set={seed_set(run_number)}"]
    return [
        f"-l{rng_library(omnetpp)}",
        f"--rng-class={RNG_CLASS}",
        f"--satsweep-run={run_number}",
    ]


class OmnetppOptions(BaseModel):
    """The design keys of ``program: omnetpp``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ini: str | None = Field(
        default=None,
        min_length=1,
        description="the study's OMNeT++ ini file, relative to the sweep file (docs/omnetpp.md)",
    )
    config: str | None = Field(
        default=None,
        min_length=1,
        description="a configuration of the ini file (default General)",
    )
    omnetpp_seeds: Literal["run", "seed-set"] | None = Field(
        default=None,
        description="run (the default: each run its own random streams) or seed-set (stores "
        "made before run existed; docs/omnetpp.md)",
    )


class OmnetppAdapter(Adapter):
    """An OMNeT++ study (an ini file, one of its configurations and the declaration beside
    it) under the contract, through the command ``satsweep-omnetpp``; registered in
    pyproject.toml's ``satsweep.adapters`` entry points like any other adapter."""

    name = ENGINE
    options = OmnetppOptions
    # how a run number makes OMNeT++'s random streams (SEEDS): run for a new design, and
    # seed-set for a store recorded before omnetpp_seeds existed
    stream_options = {"omnetpp_seeds": ("run", "seed-set")}

    def program(self, options: BaseModel, base: Path) -> Program:
        """The adapter's command for the study; its identity hashes the ini and the files it
        includes, the declaration, the libraries and the NED files
        (:meth:`OmnetppStudy.sha256`); its engine is the installed OMNeT++ and INET
        (:func:`engine_versions`)."""
        assert isinstance(options, OmnetppOptions)
        if options.ini is None:
            raise ProgramError(
                f"'{ENGINE}' needs ini: (an OMNeT++ ini file, relative to the sweep file) and "
                "config: (one of its configurations)"
            )
        try:
            study = OmnetppStudy(base / options.ini, options.config or "General")
        except OmnetppError as e:
            raise ProgramError(str(e)) from None
        command = Path(sysconfig.get_path("scripts")) / COMMAND
        if not command.is_file():
            raise ProgramError(f"{command}: the OMNeT++ adapter is missing; ./setup.sh installs it")
        seeds = options.omnetpp_seeds or SEEDS[0]
        args = (f"--ini={study.ini}", f"--config={study.config}", f"--seeds={seeds}")
        # seed sets are fewer than run numbers: a design checks its runs' for clashes
        stream = seed_set if seeds == "seed-set" else None
        return replace(
            Program.adapted(command, study.sha256, args, stream), engine=engine_versions()
        )

    @classmethod
    def study(cls, ini: Path, config: str, seeds: str = SEEDS[0]) -> Program:
        """The program of ``ini``'s configuration ``config`` with ``seeds`` (:data:`SEEDS`)."""
        options = OmnetppOptions(ini=str(Path(ini).absolute()), config=config, omnetpp_seeds=seeds)
        return cls().program(options, Path.cwd())

    def archived(self, options: BaseModel, base: Path) -> ProgramFiles:
        """The ini and the ini files it includes, the declaration, the files of the declared
        NED folders and the sources of the declared libraries' folders (:func:`_sources`),
        with the steps that build each library from them (:func:`_library_builds`)."""
        assert isinstance(options, OmnetppOptions)
        if options.ini is None:
            raise ProgramError(f"'{ENGINE}' needs ini: (an OMNeT++ ini file)", "ini")
        try:
            study = OmnetppStudy(base / options.ini, options.config or "General")
        except OmnetppError as e:
            raise ProgramError(str(e)) from None
        files = [study.ini, *study.included(), study.declaration_file]
        notes = [f"{p}: included by the ini, but no such file" for p in files if not p.is_file()]
        for folder in study.declaration.ned:
            files += _sources(Path(os.path.normpath(study.base / folder)))
        builds: list[BuildStep] = []
        for lib in study.declaration.libraries:
            library = Path(os.path.normpath(study.base / lib))
            files += _sources(library.parent)
            steps, note = _library_builds(library)
            builds += steps
            if note:
                notes.append(note)
            if not steps and library.with_name(f"lib{library.name}.so").is_file():
                files.append(library.with_name(f"lib{library.name}.so"))
        kept = [p for p in dict.fromkeys(files) if p.is_file()]
        return ProgramFiles(study.ini, tuple(kept), tuple(builds), tuple(notes))

    def default_traces(self, describe: Description) -> list[dict[str, Any]]:
        """A trace of each declared vector table (not :data:`KEPT_TABLE`): its values over
        simulated time, a line per recording module, each configuration's first run."""
        return [
            {"table": name, "x": "time", "y": ["value"], "series": "module"}
            for name in describe.tables
            if name != KEPT_TABLE
        ]

    def versions(self) -> dict[str, str]:
        """OMNeT++'s and INET's versions (:func:`omnetpp_version`, :func:`inet_version`) and
        the first line of the ``--version`` of the compiler OMNeT++'s Makefile.inc names."""
        try:
            omnetpp, inet = installation()
        except OmnetppError:
            return {"OMNeT++": "none", "INET": "none", "compiler": "none"}
        return {
            "OMNeT++": omnetpp_version(omnetpp) or "unknown",
            "INET": inet_version(inet) or "unknown",
            "compiler": _compiler_version(omnetpp),
        }

    def build_environment(self) -> dict[str, str]:
        """This process's environment with OMNeT++'s tools (``$OMNETPP_ROOT/bin``, of
        :func:`installation`) first on PATH, as OMNeT++'s own environment script sets it: what
        a library's ``opp_makemake`` and ``make`` need."""
        try:
            omnetpp, _ = installation()
        except OmnetppError as e:
            raise ProgramError(str(e)) from None
        path = os.pathsep.join([str(omnetpp / "bin"), os.environ.get("PATH", "")])
        return {**os.environ, "PATH": path}


#: Folders under a NED or library folder that hold what a build or a run made, not the model.
PRODUCT_FOLDERS = frozenset({"out", "results", ".git", "__pycache__"})
#: Suffixes of files that a build or a run made (libraries, objects, result files).
PRODUCT_SUFFIXES = frozenset(
    {".so", ".o", ".a", ".dll", ".dylib", ".sca", ".vec", ".vci", ".elog", ".pyc"}
)


def _sources(folder: Path) -> list[Path]:
    """The model's files under ``folder`` for an archive: every regular file but what a build
    or a run made (:data:`PRODUCT_FOLDERS`, :data:`PRODUCT_SUFFIXES`, executables: ELF files).
    Links to folders are not entered."""
    found = []
    for directory, folders, names in os.walk(folder):
        folders[:] = sorted(f for f in folders if f not in PRODUCT_FOLDERS)
        for name in sorted(names):
            path = Path(directory) / name
            if path.suffix in PRODUCT_SUFFIXES or not path.is_file():
                continue
            try:
                with open(path, "rb") as handle:
                    if handle.read(4) == b"\x7fELF":
                        continue
            except OSError:
                continue
            found.append(path)
    return found


#: How an opp_makemake Makefile names the command that made it, in its header.
MAKEMAKE_LINE = re.compile(r"^#\s+(opp_makemake\b.*)$", re.M)


def _library_builds(library: Path) -> tuple[list[BuildStep], str | None]:
    """The steps that build a declared library (``opp_run -l`` form: ``folder/name`` for
    ``folder/libname.so``) in its folder: the ``opp_makemake`` command its Makefile's header
    names, if any, then ``make MODE=release`` (``MODE=debug`` for a ``_dbg`` name, OMNeT++'s
    debug suffix). Without a Makefile, none, and a note: the built library is archived as it
    is, which runs only where such a build does."""
    folder, made = library.parent, library.with_name(f"lib{library.name}.so")
    try:
        makefile = (folder / "Makefile").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return [], (
            f"{made}: no Makefile in {folder} to build it from its sources; the built library "
            "is archived as it is"
        )
    steps = []
    if found := MAKEMAKE_LINE.search(makefile):
        steps.append(BuildStep(folder, tuple(shlex.split(found.group(1))), folder / "Makefile"))
    mode = "debug" if library.name.endswith("_dbg") else "release"
    steps.append(BuildStep(folder, ("make", f"MODE={mode}"), made))
    return steps, None


def _compiler_version(omnetpp: Path) -> str:
    """The first line of ``--version`` of the compiler ``omnetpp``'s Makefile.inc names."""
    try:
        found = re.search(r"^CXX\s*=\s*(.+)$", (omnetpp / "Makefile.inc").read_text(), re.M)
        proc = subprocess.run(
            [*(shlex.split(found.group(1)) if found else ["c++"]), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return "none"
    return (proc.stdout.splitlines() or ["unknown"])[0].strip()


def _usage(message: str) -> int:
    print(f"{COMMAND}: {message}", file=sys.stderr)
    return USAGE_ERROR


def command_line(
    study: OmnetppStudy,
    given: Mapping[str, object],
    run_number: int,
    result_dir: str,
    seeds: str = SEEDS[0],
    work: Path | PrintedFolder | None = None,
    ini_run: int = 0,
) -> list[str]:
    """The opp_run command of one run, run in ``work``, which it makes the run's
    :class:`WorkingFolder` (a :class:`PrintedFolder`: the folder its shell commands make;
    None: from anywhere, every path absolute): the study's configuration, its run ``ini_run``
    (``-r``), with the given parameters (declared defaults for the rest), its random
    streams made from ``run_number`` as ``seeds`` says (:data:`SEEDS`), results in
    ``result_dir``."""
    omnetpp, inet = installation()
    declaration = study.declaration
    # every parameter with a value, defaults too: the declaration, not the ini, says them
    values = {p.name: given.get(p.name, p.default) for p in declaration.parameters}
    options = [
        f"--{p.pattern}={option_value(p, values[p.name])}"
        for p in declaration.parameters
        if values[p.name] is not None
    ]
    # a declared table's vectors are recorded even where the ini turns vectors off (first
    # match wins, and OMNeT++ matches the command line's options before the ini's)
    options += [
        f"--{table.module}.{vector}.vector-recording=true"
        for table in declaration.tables.values()
        for vector in table.vectors
    ]
    folders = study.ned_folders(inet)
    if work is None:
        ned, ini = ned_path(folders, study.base), study.ini
    elif isinstance(work, PrintedFolder):
        ned, ini = work.ned_path, work.ini
    else:
        folder = WorkingFolder(study.base, work, folders, study.ini)
        ned, ini = folder.ned_path, folder.ini
    return [
        str(omnetpp / "bin" / "opp_run"),
        *("-u", "Cmdenv", "-c", study.config, "-r", str(ini_run)),
        "-n",
        ned,
        *(f"-l{lib}" for lib in study.libraries(inet)),
        f"--result-dir={result_dir}",
        "--output-scalar-file=${resultdir}/run.sca",
        "--output-vector-file=${resultdir}/run.vec",
        "--output-scalar-file-append=false",
        *seed_options(seeds, run_number, omnetpp),
        "--cmdenv-express-mode=true",
        "--cmdenv-status-frequency=60s",
        *fingerprint_options(study),
        *options,
        str(ini),  # absolute: includes and xmldoc() resolve from its own folder
    ]


def printed_command(
    study: OmnetppStudy, given: Mapping[str, object], run_number: int, seeds: str
) -> str:
    """The shell command of a run (``--print-command``), to run from any folder: in a new
    temporary folder, made as a run's working folder (:class:`PrintedFolder`), where its
    results land; ``-r`` the ini's own run of the configuration with these parameters and the
    run's replication (:func:`ini_run`), else 0 and a comment line before it saying why."""
    omnetpp, inet = installation()
    folder = PrintedFolder(study.base, study.ned_folders(inet), study.ini)
    # a design's run number holds its replication k in its 15 low bits (rng_run, streams 2)
    replication = run_number & 0x7FFF
    own = ini_run(study, given, replication, omnetpp)
    command = command_line(
        study, given, run_number, "results", seeds, folder, 0 if own is None else own
    )
    said = (
        ""
        if own is not None
        else f"# no run of [Config {study.config}] in {study.ini.name} has these values and "
        f"repetition {replication - 1}: -r 0\n"
    )
    return f'{said}cd "$(mktemp -d)" && {folder.setup} && {shlex.join(command)}'


#: A number in an ini value as ``opp_run -q rundetails`` prints it, to compare by value.
_VALUE_NUMBER = re.compile(r"(?<![\w.])[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _same_value(text: str) -> str:
    """An ini value with its numbers as floats and without blanks: ``1e-06`` and ``1e-6``
    alike, as ``0.01 * 0.1`` and ``0.01*0.1``."""
    return "".join(_VALUE_NUMBER.sub(lambda m: repr(float(m.group())), text).split())


def ini_run(
    study: OmnetppStudy, given: Mapping[str, object], replication: int, omnetpp: Path
) -> int | None:
    """The ini's own run number of the study's configuration whose repetition is
    ``replication`` - 1 and whose assignments of each declared parameter's key (where its runs
    assign it) are the values given (the declared defaults for the rest), as ``opp_run -s -q
    rundetails`` lists them; None when no run is, or opp_run cannot list them."""
    values = {p.name: given.get(p.name, p.default) for p in study.declaration.parameters}
    wanted = {
        p.pattern: _same_value(option_value(p, values[p.name]))
        for p in study.declaration.parameters
        if values[p.name] is not None
    }
    with tempfile.TemporaryDirectory(prefix="satsweep-runs-") as scratch:  # writes nothing
        try:
            proc = subprocess.run(
                [str(omnetpp / "bin" / "opp_run"), "-s", "-c", study.config, "-q", "rundetails",
                 str(study.ini)],
                cwd=scratch, capture_output=True, text=True, errors="replace", timeout=120,
            )  # fmt: skip
        except (OSError, subprocess.SubprocessError):
            return None
    if proc.returncode != 0:
        return None
    runs: list[tuple[int, int, dict[str, str]]] = []
    for line in proc.stdout.splitlines():
        if header := re.match(r"Run (\d+):", line):
            repetition = re.search(r"\$repetition=(\d+)", line)
            runs.append((int(header.group(1)), int(repetition.group(1)) if repetition else 0, {}))
        elif line.startswith("\t") and runs:
            key, _, value = line.strip().partition(" = ")
            runs[-1][2].setdefault(key, _same_value(value))
    for number, repetition, assigned in runs:
        if repetition == replication - 1 and all(
            assigned[key] == value for key, value in wanted.items() if key in assigned
        ):
            return number
    return None


def fingerprint_options(study: OmnetppStudy) -> list[str]:
    """The opp_run options of a declared ``fingerprint_at`` (none without): OMNeT++'s
    fingerprints, one of the whole run and one per time T of the events before it, with the
    configuration's ingredients and filters (:meth:`OmnetppStudy.fingerprint_settings`). An
    event filter can test a message's ``arrivalTime`` (the time of its event), which OMNeT++
    writes in plain decimals and matches with patterns of whole numbers: ``{..T-1}**`` is
    every time below T."""
    times = study.declaration.fingerprint_at
    if not times:
        return []
    settings = study.fingerprint_settings()
    # an ingredients suffix in the ini's fingerprint (after '/') overrides the option
    suffixes = [t.partition("/")[2] for t in settings.get("fingerprint", "").split()]
    ingredients = next(filter(None, suffixes), settings.get("fingerprint-ingredients") or "tplx")
    events = settings.get("fingerprint-events") or "*"
    # "*" is OMNeT++'s "every event", not a pattern (which would not match a dotted path)
    before = [
        f"arrivalTime =~ {{..{t - 1}}}**" if events == "*" else
        f"({events}) and arrivalTime =~ {{..{t - 1}}}**"
        for t in times
    ]  # fmt: skip
    count = len(times) + 1

    def each(name: str) -> str:
        return ",".join([settings.get(name) or "*"] * count)

    return [
        f"--fingerprint={','.join([f'0000/{ingredients}'] * count)}",
        f"--fingerprint-events={','.join([events, *before])}",
        f"--fingerprint-modules={each('fingerprint-modules')}",
        f"--fingerprint-results={each('fingerprint-results')}",
    ]


#: Cmdenv's line with the run's fingerprint(s), after finish() (envirbase.cc checkFingerprint):
#: verified, or a mismatch (which does not fail the run); several are joined by ", ".
FINGERPRINT_LINE = re.compile(
    r"^<!> Fingerprint (?:successfully verified: (.*)|mismatch! calculated: (.*?), expected: .*)$",
    re.M,
)
#: Cmdenv's line that says why and when the simulation stopped (a cTerminationException in the
#: event loop: "<!> Simulation time limit reached -- at t=200s, event #583").
STOPPED_LINE = re.compile(r"^<!> .* at t=(\S+)s, event #(\d+)\s*$", re.M)


def fingerprint_summary(study: OmnetppStudy, said: str) -> dict[str, Any]:
    """A fingerprinted run's :meth:`OmnetppStudy.fingerprint_fields` from what Cmdenv printed
    (the tail of its output: these lines come last). OmnetppError when no fingerprint was
    printed, or not as many as ``fingerprint_at`` asks for; ``events`` and ``sim_time`` are
    null when no line says where the run stopped."""
    found = FINGERPRINT_LINE.findall(said)
    if not found:
        raise OmnetppError(
            f"the ini sets fingerprint, but OMNeT++ printed no fingerprint for configuration "
            f"'{study.config}'; allowed: fingerprint = in its section, a base's or General's"
        )
    verified, calculated = found[-1]
    prints = (verified or calculated).strip()
    times = study.declaration.fingerprint_at
    summary: dict[str, Any] = {"fingerprint": prints}
    if times:
        values = prints.split(", ")
        if len(values) != len(times) + 1:
            raise OmnetppError(
                f"fingerprint_at: OMNeT++ printed {len(values)} fingerprints ({prints}); "
                f"{len(times) + 1} were asked for"
            )
        summary["fingerprint"] = values[0]
        summary.update({f"fingerprint_before_{t}": v for t, v in zip(times, values[1:])})
    stopped = STOPPED_LINE.findall(said)
    summary["events"] = int(stopped[-1][1]) if stopped else None
    summary["sim_time"] = float(stopped[-1][0]) if stopped else None
    return summary


def run(
    study: OmnetppStudy,
    given: Mapping[str, object],
    run_number: int,
    out: Path,
    seeds: str = SEEDS[0],
) -> int:
    """Runs one simulation of the study (:func:`command_line`) and writes its result to
    ``out``; the exit code."""
    omnetpp, _ = installation()
    declaration = study.declaration
    # under satsweep's scratch folder for the run when it names one: removed even if we are killed
    within = os.environ.get(SCRATCH_VARIABLE) or None
    with tempfile.TemporaryDirectory(prefix="satsweep-omnetpp-", dir=within) as scratch:
        work = Path(scratch) / "work"
        command = command_line(study, given, run_number, scratch, seeds, work)
        # Cmdenv reports errors on stdout and stderr alike ("<!> Error: ..."): one bounded tail
        proc = run_tailed(command, work)
        if proc.returncode != 0:
            said = proc.stderr.strip().splitlines()
            sys.stderr.write("\n".join(said[-STDERR_TAIL_LINES:]) + "\n")
            return proc.returncode
        sca = Path(scratch) / "run.sca"
        if not sca.is_file():
            sys.stderr.write("the run recorded no scalars (run.sca missing)\n")
            return 1
        vec = Path(scratch) / "run.vec"
        if declaration.tables and not vec.is_file():
            sys.stderr.write("the run recorded no vectors (run.vec missing) for its tables\n")
            return 1
        scavetool = omnetpp / "bin" / "opp_scavetool"
        try:
            # the fingerprints first: verify names the first field that differs
            first = fingerprint_summary(study, proc.stderr) if study.fingerprinted else {}
            scalars = read_scalars(sca, scavetool)
            result = {
                "params": echo(declaration, given, scalars),
                "summary": {**first, **summarize(declaration, scalars)},
            }
            if declaration.tables:
                names = [v for t in declaration.tables.values() for v in t.vectors]
                vectors = read_vectors(vec, scavetool, names)
                for name, table in declaration.tables.items():
                    result[name] = table_rows(name, table, vectors)
            if declaration.keep:
                result[KEPT_TABLE] = kept_rows(work, declaration.keep)
        except OmnetppError as e:
            sys.stderr.write(f"{e}\n")
            return 1
    write_whole(out, result)
    return 0


def kept_rows(work: Path, patterns: Sequence[str]) -> list[dict[str, Any]]:
    """The rows of table ``kept`` (:data:`KEPT_COLUMNS`) of the files a run wrote in its
    working folder ``work`` that the ``keep`` globs match, in path order: files the run made,
    not the model's own files the folder links to (a path through a link is skipped).
    OmnetppError, one line, when a glob matches no such file, or past :data:`MAX_KEPT_FILES`
    files or :data:`MAX_KEPT_BYTES` bytes."""
    import base64

    real = os.path.realpath(work)
    found: dict[str, Path] = {}
    for pattern in patterns:
        matched = [
            p
            for p in work.glob(pattern)
            if os.path.realpath(p) == os.path.join(real, p.relative_to(work)) and p.is_file()
        ]
        if not matched:
            raise OmnetppError(
                f"keep: {shown(pattern)} matched no file the run wrote in its working folder; "
                "allowed: globs of files the model writes (e.g. results/*.pcap)"
            )
        found.update((p.relative_to(work).as_posix(), p) for p in matched)
    if len(found) > MAX_KEPT_FILES:
        raise OmnetppError(
            f"keep: the run wrote {len(found)} files to keep; allowed: at most {MAX_KEPT_FILES}"
        )
    size = sum(p.stat().st_size for p in found.values())
    if size > MAX_KEPT_BYTES:
        raise OmnetppError(
            f"keep: the run's files to keep have {size} bytes; allowed: at most "
            f"{MAX_KEPT_BYTES} bytes ({MAX_KEPT_BYTES >> 20} MiB) a run"
        )
    rows = []
    for name in sorted(found):
        data = found[name].read_bytes()
        rows.append(
            {
                "path": name,
                "size": len(data),
                "sha256": hashlib.sha256(data).hexdigest(),
                "content": base64.b64encode(data).decode("ascii"),
            }
        )
    return rows


@dataclass(frozen=True)
class Recorded:
    """A result a run recorded, as its result files declare it: ``kind`` (``scalar``,
    ``statistic``, ``histogram`` (a statistic with bins) or ``vector``), the recording module's
    path, the result's name, its ``attr unit`` (None without), for a scalar its value, for a
    statistic its count (None for a vector), and its ``attr recordingmode``."""

    kind: str
    module: str
    name: str
    unit: str | None = None
    value: float | None = None
    #: its ``attr recordingmode`` (``sum(packetBytes)``), None without
    mode: str | None = None


#: The most lines of a trial run's result files :func:`recorded_results` reads (a 1 s trial
#: of INET's examples writes a few thousand; a vector's samples are skipped unparsed).
MAX_RESULT_LINES = 10_000_000


def recorded_results(lines: Iterator[str]) -> list[Recorded]:
    """The results an OMNeT++ result file (``.sca`` or ``.vec``, format version 3) declares:
    each ``scalar``, ``statistic`` and ``vector`` line with the ``attr unit``, ``attr
    recordingmode`` and ``field count`` lines after it (a ``bin`` line makes a statistic a histogram). Other lines (the
    run's attributes, ``par``, a vector's samples) are skipped. OmnetppError past
    :data:`MAX_RESULT_LINES`."""
    found: list[Recorded] = []
    current: Recorded | None = None  # the item the attr/field/bin lines after it belong to

    def close() -> None:
        if current is not None:
            found.append(current)

    for number, line in enumerate(lines):
        if number >= MAX_RESULT_LINES:
            raise OmnetppError(
                f"the trial run's results have more than {MAX_RESULT_LINES} lines; allowed: a "
                "shorter --trial-time"
            )
        head = line.split(" ", 1)[0]
        if head not in ("scalar", "statistic", "vector", "attr", "field", "bin", "run", "par"):
            continue  # a vector's sample, version, itervar, config: nothing to note
        if head == "bin":
            if current is not None and current.kind == "statistic":
                current = replace(current, kind="histogram")
            continue
        try:
            words = shlex.split(line)
        except ValueError:  # an unbalanced quote: not a line OMNeT++ writes
            continue
        if head == "attr" and current is not None and len(words) >= 3 and words[1] == "unit":
            current = replace(current, unit=words[2])
        elif head == "attr" and current is not None and words[1:2] == ["recordingmode"]:
            current = replace(current, mode=words[2] if len(words) >= 3 else None)
        elif head == "field" and current is not None and len(words) >= 3 and words[1] == "count":
            current = replace(current, value=_number(words[2]))
        elif head in ("scalar", "statistic", "vector", "run", "par"):
            close()
            current = None
            if head == "scalar" and len(words) >= 4:
                current = Recorded("scalar", words[1], words[2], value=_number(words[3]))
            elif head == "statistic" and len(words) >= 3:
                current = Recorded("statistic", words[1], words[2])
            elif head == "vector" and len(words) >= 4:  # vector <id> <module> <name> [ETV]
                current = Recorded("vector", words[2], words[3])
    close()
    return found


def _number(text: str) -> float:
    """A number of a result file (``nan``, ``inf`` and ``-inf`` as OMNeT++ writes them)."""
    try:
        return float(text)
    except ValueError:
        return math.nan


def trial(
    ini: Path, config: str, seconds: str, libraries: Sequence[Path] = ()
) -> tuple[list[Recorded], str]:
    """Runs run 0 of the configuration for ``seconds`` of simulated time, with INET and
    ``libraries`` loaded, and lists what it recorded (:func:`recorded_results`); with what
    happened, for the declaration. OmnetppError, with what OMNeT++ said, when it fails."""
    try:
        omnetpp, inet = installation()
    except OmnetppError:
        return [], "no trial run (OMNeT++ is not installed): name the scalars yourself"
    with tempfile.TemporaryDirectory(prefix="satsweep-import-") as scratch:
        ini = ini.absolute()
        try:  # the model's folder untouched
            folder = WorkingFolder(
                ini.parent, Path(scratch) / "work", [Path("."), inet / "src"], ini
            )
        except OmnetppError as e:
            return [], f"no trial run ({e}): name the scalars yourself"
        command = [
            str(omnetpp / "bin" / "opp_run"),
            *("-u", "Cmdenv", "-c", config, "-r", "0"),
            "-n",
            folder.ned_path,
            f"-l{inet / 'src' / 'INET'}",
            *(f"-l{lib}" for lib in libraries),
            f"--result-dir={scratch}",
            "--output-scalar-file=${resultdir}/run.sca",
            "--output-vector-file=${resultdir}/run.vec",
            f"--sim-time-limit={seconds}",
            "--cpu-time-limit=60s",
            "--cmdenv-express-mode=true",
            str(folder.ini),
        ]
        try:
            proc = subprocess.run(
                command,
                cwd=folder.path,
                capture_output=True,
                text=True,
                errors="replace",  # a model may print any bytes
                timeout=120,
            )
        except subprocess.TimeoutExpired:
            return [], "the trial run took over 120 s: name the scalars yourself"
        sca = Path(scratch) / "run.sca"
        if proc.returncode != 0 or not sca.is_file():
            said = (proc.stdout + proc.stderr).strip().splitlines()
            errors = [line for line in said if line.startswith("<!> Error")]
            last = (errors or said or [f"exit code {proc.returncode}"])[-1]
            # a model that does not run here would get a declaration of placeholders
            raise OmnetppError(f"the trial run of run 0 failed: {last[:500]}")
        rows = []
        for path in (sca, Path(scratch) / "run.vec"):
            if path.is_file():
                with path.open(encoding="utf-8", errors="replace") as lines:
                    rows += recorded_results(line.rstrip("\n") for line in lines)
    return rows, f"what run 0 recorded in a {seconds} trial run"


def main(argv: Sequence[str] | None = None) -> int:
    """``satsweep-omnetpp --ini=FILE --config=NAME [--seeds=run|seed-set] (--describe |
    --PARAM=VALUE ... --run=R --out=FILE)``: an OMNeT++ study under the engine contract."""
    # no abbreviations: a study's --s=... is its parameter s, not --seeds
    parser = argparse.ArgumentParser(
        prog=COMMAND, description=main.__doc__, add_help=True, allow_abbrev=False
    )
    parser.add_argument("--ini", required=True, type=Path)
    parser.add_argument("--config", default="General")
    parser.add_argument("--describe", action="store_true")
    parser.add_argument("--run", type=int)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--seeds", choices=SEEDS, default=SEEDS[0])
    parser.add_argument(
        "--print-command",
        action="store_true",
        help="print the run's opp_run command instead of running it: it runs from any folder "
        "in a temporary folder of its own, where its results land",
    )
    known, rest = parser.parse_known_args(argv)
    try:
        study = OmnetppStudy(known.ini, known.config)
    except OmnetppError as e:
        return _usage(str(e))
    if known.describe:
        print(study.description().model_dump_json(exclude_none=True))
        return 0
    if known.run is None or not 0 < known.run < 2**63:
        return _usage("a run needs --run=R (0 < R < 2^63) and --out=FILE")
    if known.out is None and not known.print_command:
        return _usage("a run needs --run=R (0 < R < 2^63) and --out=FILE")
    try:
        given = given_values(rest, study.declaration.parameters, study.declaration.name)
    except ValueError as e:
        return _usage(str(e))
    try:
        if known.print_command:
            print(printed_command(study, given, known.run, known.seeds))
            return 0
        return run(study, given, known.run, known.out, known.seeds)
    except OmnetppError as e:
        print(f"{COMMAND}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
