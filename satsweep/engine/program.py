"""A simulation program under the engine contract (docs/engine-contract.md): found by name or
path, asked once per binary what it takes and gives (``--describe``), run once per simulation.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from satsweep.engine.description import Description, conforms, flags

__all__ = [
    "USAGE_ERROR",
    "Program",
    "ProgramError",
    "SimulationError",
    "file_sha256",
    "program_dirs",
]

#: A program's exit code for bad input (the contract).
USAGE_ERROR = 2
#: How long ``--describe`` may take.
DESCRIBE_TIMEOUT_S = 60
#: How many lines of a failed program's stderr are kept.
STDERR_TAIL_LINES = 20


class ProgramError(ValueError):
    """A program that cannot be found, or whose ``--describe`` breaks the contract."""


class SimulationError(RuntimeError):
    """A simulation that did not produce a result; carries the tail of its stderr."""

    def __init__(self, message: str, returncode: int | None, stderr_tail: str = ""):
        code = f" (exit code {returncode})" if returncode is not None else ""
        super().__init__(f"{message}{code}\n{stderr_tail}".rstrip())
        self.message = message
        self.returncode = returncode
        self.stderr_tail = stderr_tail


def file_sha256(path: Path) -> str:
    """The sha256 of a file's bytes, in hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def program_dirs() -> list[Path]:
    """Where programs named by name live: ``$SATSWEEP_PROGRAMS`` (a path list), then
    ``<prefix>/libexec/satsweep`` of this Python environment, where setup.sh installs them."""
    listed = os.environ.get("SATSWEEP_PROGRAMS", "")
    dirs = [Path(d) for d in listed.split(os.pathsep) if d]
    return [*dirs, Path(sys.prefix) / "libexec" / "satsweep"]


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "satsweep" / "describe"


@cache
def _identity(path: Path, mtime_ns: int, size: int) -> str:
    return file_sha256(path)


def _is_script(path: Path) -> bool:
    """Whether the file is a script (``#!``): what it describes may depend on other files."""
    try:
        with open(path, "rb") as handle:
            return handle.read(2) == b"#!"
    except OSError:
        return False


@cache
def _description(path: Path, sha256: str, args: tuple[str, ...] = ()) -> Description:
    """``--describe`` of the binary with this hash (given ``args`` first): from the cache, else
    asked and cached. A script is asked once per process instead: a wrapper's own hash stays
    the same when the program it runs is rebuilt."""
    cached = None if _is_script(path) or args else _cache_dir() / f"{sha256}.json"
    try:
        if cached is not None:
            return Description.model_validate_json(cached.read_bytes())
    except (OSError, ValueError):
        pass
    try:
        proc = subprocess.run(
            [str(path), *args, "--describe"], capture_output=True, timeout=DESCRIBE_TIMEOUT_S
        )
    except (OSError, subprocess.SubprocessError) as e:
        raise ProgramError(f"{path} --describe: cannot run it: {e}") from None
    if proc.returncode != 0:
        said = proc.stderr.decode(errors="replace").strip().splitlines()
        raise ProgramError(
            f"{path} --describe exited with {proc.returncode}"
            + (f": {said[-1]}" if said else "")
            + "; allowed: a program that honours the engine contract (docs/engine-contract.md)"
        )
    try:
        description = Description.model_validate_json(proc.stdout)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise ProgramError(
            f"{path} --describe: {where}: {first['msg']}; allowed: one JSON object as "
            "docs/engine-contract.md describes"
        ) from None
    if cached is None:
        return description
    try:  # a cache that cannot be written only costs the next process a --describe
        cached.parent.mkdir(parents=True, exist_ok=True)
        temporary = cached.with_name(f".{cached.name}.{os.getpid()}")
        temporary.write_text(description.model_dump_json())
        os.replace(temporary, cached)
    except OSError:
        pass
    return description


@dataclass(frozen=True)
class Program:
    """An executable honouring the engine contract, and what it says of itself."""

    path: Path
    sha256: str
    description: Description
    #: arguments every call starts with (an adapter's study: ``--ini=... --config=...``)
    args: tuple[str, ...] = ()
    #: the random stream a run number selects, for a program with fewer streams than run
    #: numbers (OMNeT++'s seed sets); None: each run number is its own stream
    stream: Callable[[int], int] | None = None

    @classmethod
    def at(cls, path: Path) -> Program:
        """The program at ``path`` (its ``--describe`` cached per binary hash)."""
        path = Path(path).absolute()
        stat = path.stat()
        sha256 = _identity(path, stat.st_mtime_ns, stat.st_size)
        return cls(path, sha256, _description(path, sha256))

    @classmethod
    def omnetpp(cls, ini: Path, config: str) -> Program:
        """An OMNeT++ study (an ini file and one of its configurations) under the contract,
        through the adapter ``satsweep-omnetpp`` (:mod:`satsweep.engine.omnetpp`); its hash
        covers the ini, the declaration, the libraries and the NED files."""
        from satsweep.engine.omnetpp import COMMAND, OmnetppError, OmnetppStudy, seed_set

        try:
            study = OmnetppStudy(ini, config)
        except OmnetppError as e:
            raise ProgramError(str(e)) from None
        adapter = Path(sysconfig.get_path("scripts")) / COMMAND
        if not adapter.is_file():
            raise ProgramError(f"{adapter}: the OMNeT++ adapter is missing; ./setup.sh installs it")
        args = (f"--ini={study.ini}", f"--config={study.config}")
        description = _description(adapter, study.sha256, args)
        return cls(adapter, study.sha256, description, args, seed_set)

    @classmethod
    def find(
        cls, spec: str, base: Path, ini: str | None = None, config: str | None = None
    ) -> Program:
        """The program a design names: a path (it has a ``/``; relative to ``base``, the
        design file's directory), the name of a program built by this project
        (:func:`program_dirs`), or ``omnetpp`` with an ``ini`` file (relative to ``base``) and
        its ``config``. Raises ProgramError saying what is allowed."""
        from satsweep.engine.omnetpp import ENGINE

        if spec == ENGINE:
            if ini is None:
                raise ProgramError(
                    f"'{ENGINE}' needs ini: (an OMNeT++ ini file, relative to the sweep file) "
                    "and config: (one of its configurations)"
                )
            return cls.omnetpp(base / ini, config or "General")
        if ini is not None or config is not None:
            raise ProgramError(f"ini: and config: are for program: {ENGINE} only")
        if "/" in spec:
            path = (base / spec).absolute()
            if not path.is_file():
                raise ProgramError(
                    f"'{spec}': no such file ({path}); allowed: a path to an executable, "
                    "relative to the sweep file, or a program built by this project"
                )
            if not os.access(path, os.X_OK):
                raise ProgramError(f"'{spec}': {path} is not executable (chmod +x it)")
            return cls.at(path)
        for directory in program_dirs():
            candidate = directory / spec
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return cls.at(candidate)
        built = sorted(
            {
                p.name
                for d in program_dirs()
                if d.is_dir()
                for p in d.iterdir()
                if p.is_file() and os.access(p, os.X_OK)
            }
        )
        where = ", ".join(str(d) for d in program_dirs())
        raise ProgramError(
            f"'{spec}' is not a program built by this project (none in {where}); allowed: "
            + (", ".join(built) + ", or " if built else "")
            + "a path to an executable (e.g. ./my-sim); ./setup.sh builds and installs this "
            "project's programs"
        )

    @property
    def name(self) -> str:
        return self.description.name

    def command(self, params: Mapping[str, object], run: int | str, out: Path) -> list[str]:
        """The command line of one run: the parameters, ``--run`` and ``--out``."""
        return [str(self.path), *self.args, *flags(params), f"--run={run}", f"--out={out}"]

    def run(
        self, params: Mapping[str, object], run: int | str, out: Path | None = None
    ) -> dict[str, Any]:
        """Runs one simulation and returns its result, checked against the description.

        The program writes the result to ``out`` when given, else to a temporary file that is
        removed afterwards. Raises SimulationError when it fails or breaks the contract.
        """
        with tempfile.TemporaryDirectory(prefix="satsweep-") as scratch:
            target = Path(out) if out is not None else Path(scratch) / "result.json"
            try:
                proc = subprocess.run(
                    self.command(params, run, target), capture_output=True, text=True
                )
            except OSError as e:
                raise SimulationError(f"cannot start {self.path}: {e.strerror or e}", None) from e
            if proc.returncode != 0:
                tail = "\n".join(proc.stderr.strip().splitlines()[-STDERR_TAIL_LINES:])
                raise SimulationError(f"{self.name} failed", proc.returncode, tail)
            try:
                result = json.loads(target.read_text())
            except (OSError, ValueError) as e:
                raise SimulationError(f"{self.name} wrote no readable result: {e}", 0) from e
        problem = self.check_result(result)
        if problem:
            raise SimulationError(f"result does not follow the contract: {problem}", 0)
        return result

    def check_result(self, result: object) -> str | None:
        """None when ``result`` has the shape and types ``--describe`` promised, else what
        is wrong first."""
        d = self.description
        if not isinstance(result, dict):
            return "not a JSON object"
        parts = {"params": d.parameters, "summary": d.summary}
        for part, fields in parts.items():
            values = result.get(part)
            if not isinstance(values, dict):
                return f"'{part}' is not an object"
            if problem := _check_row(part, values, {f.name: f.type for f in fields}):
                return problem
        for table, columns in d.tables.items():
            rows = result.get(table, [])
            if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
                return f"table '{table}' is not a list of objects"
            kinds = {c.name: c.type for c in columns}
            for i, row in enumerate(rows):
                if problem := _check_row(f"{table}[{i}]", row, kinds):
                    return problem
        extra = set(result) - {*parts, *d.tables}
        if extra:
            return f"'{sorted(extra)[0]}' is not a part the description declares"
        return None


def _check_row(where: str, values: Mapping[str, object], kinds: Mapping[str, str]) -> str | None:
    for name, value in values.items():
        kind = kinds.get(name)
        if kind is None:
            return f"{where}: '{name}' is not declared by --describe"
        if value is not None and not conforms(kind, value):  # type: ignore[arg-type]
            return f"{where}: '{name}' = {value!r} is not of type {kind}"
    return None
