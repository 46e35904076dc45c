"""A simulation program under the engine contract (docs/engine-contract.md): found by name or
path, asked once per binary what it takes and gives (``--describe``), run once per simulation.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import select
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from satsweep.engine.adapters import BuildStep, ProgramFiles
from satsweep.engine.adapters import adapter as find_adapter
from satsweep.engine.description import (
    Description,
    conforms,
    flags,
    shown,
    validation_message,
)
from satsweep.engine.wheel import ns3_version

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
#: How much a program may print of itself (``--describe``, an ns-3 program's ``--PrintHelp``).
DESCRIBE_LIMIT_BYTES = 16 << 20
#: The suffixes of a C++ source file: a program to build (``program: ns3``), not to run.
CXX_SUFFIXES = (".cc", ".cpp", ".cxx")
#: The environment variable naming a run's scratch folder (:meth:`Program.run`'s
#: ``scratch_dir``), where the adapters make theirs: removed after the run even when the run
#: was killed, and swept by the store's next pass when satsweep itself was.
SCRATCH_VARIABLE = "SATSWEEP_SCRATCH"
#: How many lines of a failed program's stderr are kept, and at most how many bytes.
STDERR_TAIL_LINES = 20
STDERR_TAIL_BYTES = 1 << 16
#: The values of the contract's ``int``: what a 64-bit column holds.
INT_RANGE = (-(2**63), 2**63 - 1)


class ProgramError(ValueError):
    """A program that cannot be found, or whose ``--describe`` breaks the contract; ``field``
    is the design key it concerns (``program``, or an adapter's option)."""

    def __init__(self, message: str, field: str = "program"):
        super().__init__(message)
        self.field = field


class SimulationError(RuntimeError):
    """A simulation that did not produce a result; carries the tail of its stderr."""

    def __init__(self, message: str, returncode: int | None, stderr_tail: str = ""):
        code = f" (exit code {returncode})" if returncode is not None else ""
        super().__init__(f"{message}{code}\n{stderr_tail}".rstrip())
        self.message = message
        self.returncode = returncode
        self.stderr_tail = stderr_tail


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The sha256 of a file's bytes, in hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_whole(path: Path, result: Mapping[str, Any]) -> None:
    """Writes a run's result as JSON, whole or not at all (a temporary file, then a rename):
    what the contract asks of every program, for the adapters."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(result))
    os.replace(temporary, path)


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
        proc = bounded_output([str(path), *args, "--describe"])
    except (TooMuchOutput, subprocess.TimeoutExpired) as e:
        raise ProgramError(
            f"{path} --describe {bound_broken(e)}; allowed: at most {DESCRIBE_LIMIT_BYTES >> 20}"
            f" MiB of JSON within {DESCRIBE_TIMEOUT_S} s (docs/engine-contract.md)"
        ) from None
    except (OSError, subprocess.SubprocessError) as e:
        raise ProgramError(f"{path} --describe: cannot run it: {e}") from None
    if proc.returncode != 0:
        said = proc.stderr.decode(errors="replace").strip().splitlines()
        last = said[-1] if said else ""
        raise ProgramError(
            f"{path} --describe exited with {proc.returncode}"
            + (f": {last}" if last else "")
            # an adapter's own one line says what is allowed (an ns-3 program's --PrintHelp)
            + ("" if "; allowed: " in last else "; allowed: a program that honours the engine "
               "contract (docs/engine-contract.md)")
        )  # fmt: skip
    try:
        description = Description.model_validate_json(proc.stdout)
    except ValidationError as e:
        where = ".".join(str(part) for part in e.errors()[0]["loc"])
        said = validation_message(e)  # a rule of the contract says itself what is wrong
        raise ProgramError(
            f"{path} --describe: {where + ': ' if where else ''}{said}; allowed: one JSON object as "
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
    #: the simulation engine it runs on, with its version (``ns-3 3.44.post0``, ``OMNeT++ 6.1,
    #: INET 4.5.4``), which every run's provenance records: an adapter's, or ns-3 for this
    #: project's own programs; None for a program built against no engine satsweep knows
    engine: str | None = None

    def __post_init__(self) -> None:
        # setup.sh installs this project's programs into <prefix>/libexec/satsweep (the last of
        # program_dirs()), each built against the ns3 wheel (sim/CMakeLists.txt): where it is
        # says so, whatever its name
        if self.engine is None and self.path.parent == program_dirs()[-1]:
            version = ns3_version()
            if version is not None:
                object.__setattr__(self, "engine", f"ns-3 {version}")

    @classmethod
    def at(cls, path: Path) -> Program:
        """The program at ``path`` (its ``--describe`` cached per binary hash)."""
        path = Path(path).absolute()
        stat = path.stat()
        sha256 = _identity(path, stat.st_mtime_ns, stat.st_size)
        return cls(path, sha256, _description(path, sha256))

    @classmethod
    def adapted(
        cls,
        path: Path,
        identity: str,
        args: tuple[str, ...],
        stream: Callable[[int], int] | None = None,
    ) -> Program:
        """A program an adapter makes (:mod:`satsweep.engine.adapters`): the command ``path``
        called with ``args`` (its study), whose results depend on what ``identity`` hashes
        (its ``--describe`` is cached by it)."""
        return cls(path, identity, _description(path, identity, args), args, stream)

    @classmethod
    def find(cls, spec: str, base: Path, options: Mapping[str, object] | None = None) -> Program:
        """The program a design names: an adapter's name (:func:`~satsweep.engine.adapters.
        adapters`; its options are taken from ``options``, e.g. the design's keys, and paths in
        them are relative to ``base``), a path (it has a ``/``; relative to ``base``, the design
        file's directory), or the name of a program built by this project
        (:func:`program_dirs`). Raises ProgramError saying what is allowed."""
        adapter = find_adapter(spec)
        if adapter is not None:
            given = {k: v for k, v in (options or {}).items() if k in adapter.options.model_fields}
            try:
                validated = adapter.options.model_validate(given)
            except ValidationError as e:
                first = e.errors()[0]
                key = ".".join(str(part) for part in first["loc"])
                said = first["msg"].removeprefix("Value error, ")
                raise ProgramError(
                    f"{said}; allowed: {adapter.help().get(key, 'see its documentation')}", key
                ) from None
            return adapter.program(validated, base)
        if "/" in spec:
            path = (base / spec).absolute()
            if not path.is_file():
                raise ProgramError(
                    f"'{spec}': no such file ({path}); allowed: a path to an executable, "
                    "relative to the sweep file, or a program built by this project"
                )
            if path.suffix in CXX_SUFFIXES:  # an ns-3 program's source, meant for its adapter
                raise ProgramError(
                    f"'{spec}' is a C++ source file, not a program; allowed: an ns-3 program's "
                    f"source as program: ns3 with script: {spec} (docs/ns3.md), or an executable"
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
        if (base / spec).is_file():  # a file beside the design, named without its ./
            raise ProgramError(
                f"'{spec}' is not a program built by this project (none in {where}), but "
                f"{base / spec} is a file beside the design: did you mean ./{spec}? allowed: a "
                "path (with a /, relative to the sweep file) or the name of a built program"
            )
        raise ProgramError(
            f"'{spec}' is not a program built by this project (none in {where}); allowed: "
            + (", ".join(built) + ", or " if built else "")
            + "a path to an executable (e.g. ./my-sim); ./setup.sh builds and installs this "
            "project's programs"
        )

    @property
    def name(self) -> str:
        return self.description.name

    def program_for(self, params: Mapping[str, object]) -> Program:
        """The program that makes a run of ``params``: this one (a crossed design's,
        :class:`~satsweep.engine.crossed.Crossed`, is its simulator's)."""
        return self

    def programs(self) -> list[Program]:
        """The programs that make the runs: this one (a crossed design's, its members)."""
        return [self]

    def estimated_seconds(self, params: Mapping[str, object]) -> float:
        """One run's estimated core-seconds (:meth:`Description.estimated_seconds`)."""
        return self.description.estimated_seconds(params)

    @property
    def has_cost(self) -> bool:
        """Whether the program gives a cost hint (else every run is estimated alike)."""
        return self.description.cost is not None

    @property
    def identities(self) -> set[str]:
        """The sha256 a store's runs of this program may record (its own)."""
        return {self.sha256}

    def command(self, params: Mapping[str, object], run: int | str, out: Path) -> list[str]:
        """The command line of one run: the parameters, ``--run`` and ``--out``."""
        return [str(self.path), *self.args, *flags(params), f"--run={run}", f"--out={out}"]

    def run(
        self,
        params: Mapping[str, object],
        run: int | str,
        out: Path | None = None,
        timeout: float | None = None,
        cwd: Path | None = None,
        scratch_dir: Path | None = None,
    ) -> dict[str, Any]:
        """Runs one simulation and returns its result, checked against the description.

        The program writes the result to ``out`` when given, else to a temporary file that is
        removed afterwards; it works in ``cwd`` (default: this process's working directory).
        ``scratch_dir``, made for the run and removed after it whatever became of it, is its
        scratch folder (:data:`SCRATCH_VARIABLE`; an adapter's ``.stdout`` and files); without
        it and ``out``, a folder in the temporary folder of the result.
        Raises SimulationError when it fails or breaks the contract, or runs longer than
        ``timeout`` seconds (its process group is then killed).
        """
        # a temporary folder only without ``out``: a sweep's runs each have their file
        scratch = tempfile.TemporaryDirectory(prefix="satsweep-") if out is None else None
        with scratch or contextlib.nullcontext():
            target = Path(scratch.name) / "result.json" if scratch else Path(out)  # type: ignore[arg-type]
            if scratch_dir is None and scratch:  # `simulate`, `plan --check`'s killed trials
                scratch_dir = Path(scratch.name) / "scratch"
            env = None
            if scratch_dir is not None:
                scratch_dir.mkdir(parents=True, exist_ok=True)
                env = {**os.environ, SCRATCH_VARIABLE: str(scratch_dir)}
            try:
                proc = _run_group(self.command(params, run, target), timeout, cwd, env)
            except OSError as e:
                raise SimulationError(f"cannot start {self.path}: {e.strerror or e}", None) from e
            except subprocess.TimeoutExpired as e:
                said = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else ""
                tail = "\n".join((said or "").strip().splitlines()[-STDERR_TAIL_LINES:])
                raise SimulationError(f"timed out after {timeout:g} s", None, tail) from None
            finally:  # a killed adapter cannot remove its scratch: its caller does
                if scratch_dir is not None:
                    shutil.rmtree(scratch_dir, ignore_errors=True)
            if proc.returncode != 0:
                tail = "\n".join(proc.stderr.strip().splitlines()[-STDERR_TAIL_LINES:])
                raise SimulationError(f"{self.name} failed", proc.returncode, tail)
            try:
                result = json.loads(target.read_text(), parse_constant=_NotJson)
            except (OSError, ValueError) as e:
                raise SimulationError(f"{self.name} wrote no readable result: {e}", 0) from e
        problem = self.check_result(result, run)
        if problem:
            raise SimulationError(f"result does not follow the contract: {problem}", 0)
        # the echo of run is the key's own, and a parameter left out of the echo took the
        # value it was given, else its declared default (docs/engine-contract.md)
        result["params"].pop("run", None)
        for p in self.description.parameters:
            result["params"].setdefault(p.name, params.get(p.name, p.default))
        return result

    def check_result(self, result: object, run: int | str | None = None) -> str | None:
        """None when ``result`` has the shape and types ``--describe`` promised, else what
        is wrong first. ``params`` may echo ``run``, which must then be ``run``."""
        d = self.description
        if not isinstance(result, dict):
            return "not a JSON object"
        parts = {"params": d.parameters, "summary": d.summary}
        for part, fields in parts.items():
            values = result.get(part)
            if not isinstance(values, dict):
                return f"'{part}' is not an object"
            if part == "params" and "run" in values:
                values = dict(values)
                echoed = values.pop("run")
                if run is not None and (isinstance(echoed, bool) or str(echoed) != str(run)):
                    return f"params: 'run' = {_brief(echoed)} is not the run given ({run})"
            if problem := _check_row(part, values, {f.name: f.type for f in fields}):
                return problem
        missing = [f.name for f in d.summary if f.name not in result["summary"]]
        if missing:
            return (
                f"summary: '{missing[0]}' is missing; allowed: every declared field, null where "
                "it has no value"
            )
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
            return f"{shown(sorted(extra)[0])} is not a part the description declares"
        return None


def _die_with_job() -> None:  # in the program's process, before exec
    ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: a killed job takes it along


#: The launcher setup.sh builds from launch.c: PR_SET_PDEATHSIG in one small exec.
LAUNCHER = Path(sys.prefix) / "libexec" / "satsweep-launch"


@cache
def _dies_with_job() -> tuple[str, ...]:
    """The command prefix that makes a program die with its job (PR_SET_PDEATHSIG) without a
    ``preexec_fn``, which makes subprocess fork the whole interpreter instead of vfork (its
    page tables copied, and copied again as the child runs Python: 20 ms of each run
    measured, more than a short run's own time): satsweep's own :data:`LAUNCHER` where setup.sh
    built it, else ``setpriv --pdeathsig KILL --`` where util-linux's setpriv can (2.33 and
    later; an exec of it and its libraries costs about 1 ms more at each run's start), else ()
    and :func:`_die_with_job` does it. Each is tried once, on ``true``."""
    setpriv = shutil.which("setpriv")
    candidates = [(str(LAUNCHER),), *([(setpriv, "--pdeathsig", "KILL", "--")] if setpriv else [])]
    for prefix in candidates:
        try:
            proc = subprocess.run(
                [*prefix, "true"], capture_output=True, timeout=DESCRIBE_TIMEOUT_S
            )
        except (OSError, subprocess.SubprocessError):
            continue
        if proc.returncode == 0:
            return prefix
    return ()


def _run_group(
    command: list[str],
    timeout: float | None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``subprocess.run(command, capture_output=True, text=True, timeout=timeout)``, but the
    program runs in a process group of its own that is killed whole (SIGKILL) on timeout or
    when this process is interrupted: subprocess.run would kill the program alone, and its
    children would hold the pipes open. Only the last :data:`STDERR_TAIL_BYTES` of stderr are
    kept and stdout is dropped (satsweep reads neither else): a program that prints gigabytes
    costs no memory."""
    prefix = _dies_with_job()
    proc = subprocess.Popen(
        [*prefix, *command],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        process_group=0,
        preexec_fn=None if prefix else _die_with_job,
    )
    stderr = _Tail(proc.stderr)  # type: ignore[arg-type]
    try:
        stderr.follow(proc, timeout)
    except BaseException as e:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
        stderr.follow(proc, None)
        if isinstance(e, subprocess.TimeoutExpired):
            raise subprocess.TimeoutExpired(command, e.timeout, None, stderr.kept) from None
        raise
    finally:
        stderr.close()
    return subprocess.CompletedProcess(
        command, proc.returncode, "", stderr.kept.decode(errors="replace")
    )


class _Tail:
    """A program's stderr read to its end on the caller's thread, keeping only its last bytes
    (``kept``): a thread per run cost more than the rest of satsweep's own work on it."""

    #: How often an open pipe is checked for its program's end (a child of the program may
    #: hold the pipe after it has ended).
    POLL_S = 0.1

    def __init__(self, pipe: IO[bytes]) -> None:
        self.pipe = pipe
        self.kept = b""
        self.open = True

    def follow(self, proc: subprocess.Popen[bytes], timeout: float | None) -> None:
        """Reads until the pipe's end and the program's, TimeoutExpired after ``timeout``
        seconds; a pipe still open :data:`DESCRIBE_TIMEOUT_S` after the program ended is left."""
        deadline = None if timeout is None else time.monotonic() + timeout
        ended: float | None = None  # when the program was seen ended with the pipe still open
        fd = self.pipe.fileno()
        poller = select.poll()  # not select.select: no limit on the descriptor's number
        poller.register(fd, select.POLLIN)
        while self.open:
            now = time.monotonic()
            if ended is None and proc.poll() is not None:
                ended = now
            if ended is not None and now - ended > DESCRIBE_TIMEOUT_S:
                return
            if ended is None and deadline is not None and now >= deadline:
                raise subprocess.TimeoutExpired(proc.args, timeout)  # type: ignore[arg-type]
            wait = self.POLL_S if deadline is None else max(0.0, min(self.POLL_S, deadline - now))
            if poller.poll(wait * 1000):  # data, or the pipe's end
                block = os.read(fd, 1 << 16)
                if block:
                    self.kept = (self.kept + block)[-STDERR_TAIL_BYTES:]
                else:
                    self.open = False
        try:  # the pipe ended first (the program closed it): its end, within the time left
            proc.wait(None if deadline is None else max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            raise subprocess.TimeoutExpired(proc.args, timeout) from None  # type: ignore[arg-type]

    def close(self) -> None:
        self.pipe.close()


class TooMuchOutput(RuntimeError):
    """A program that printed more than :func:`bounded_output` keeps."""


def bound_broken(e: TooMuchOutput | subprocess.TimeoutExpired) -> str:
    """Which bound of :func:`bounded_output` a program broke, for a message."""
    if isinstance(e, subprocess.TimeoutExpired):
        return f"did not end within {e.timeout:g} s"
    return str(e)


def bounded_output(
    command: list[str],
    limit: int = DESCRIBE_LIMIT_BYTES,
    timeout: float = DESCRIBE_TIMEOUT_S,
) -> subprocess.CompletedProcess[bytes]:
    """``subprocess.run(command, capture_output=True, timeout=timeout)`` for what a program
    says of itself (``--describe``, ``--PrintHelp``), bounded: TooMuchOutput past ``limit``
    bytes of stdout, TimeoutExpired past ``timeout`` seconds (its process group is then killed
    whole), and only the last :data:`STDERR_TAIL_BYTES` of stderr kept. The program dies with
    this process (an adapter's ``--PrintHelp`` with the adapter)."""
    prefix = _dies_with_job()
    proc = subprocess.Popen(
        [*prefix, *command],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        process_group=0,
        preexec_fn=None if prefix else _die_with_job,
    )
    stdout, stderr = bytearray(), bytearray()
    pipes = {proc.stdout.fileno(): stdout, proc.stderr.fileno(): stderr}  # type: ignore[union-attr]
    poller = select.poll()
    for fd in pipes:
        poller.register(fd, select.POLLIN)
    deadline = time.monotonic() + timeout
    try:
        while pipes:
            left = deadline - time.monotonic()
            if left <= 0:
                raise subprocess.TimeoutExpired(command, timeout)
            for fd, _ in poller.poll(left * 1000):
                block = os.read(fd, 1 << 16)
                if not block:  # the pipe's end
                    poller.unregister(fd)
                    del pipes[fd]
                elif pipes[fd] is stdout:
                    stdout.extend(block)
                    if len(stdout) > limit:
                        raise TooMuchOutput(f"printed more than {limit >> 20} MiB")
                else:
                    stderr.extend(block)
                    del stderr[:-STDERR_TAIL_BYTES]
        proc.wait(max(0.0, deadline - time.monotonic()))
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise
    finally:
        proc.stdout.close()  # type: ignore[union-attr]
        proc.stderr.close()  # type: ignore[union-attr]
    return subprocess.CompletedProcess(command, proc.returncode, bytes(stdout), bytes(stderr))


def run_tailed(
    command: list[str], cwd: Path | None = None, stdout: IO[Any] | None = None
) -> subprocess.CompletedProcess[str]:
    """Runs an adapter's simulation (``command``) to its end, keeping only the last
    :data:`STDERR_TAIL_BYTES` of its stderr (``stderr`` of the result): a program that prints
    gigabytes costs no memory. Its stdout goes to ``stdout`` (a file), else into the same tail,
    the two interleaved as printed (OMNeT++ says its errors on either)."""
    proc = subprocess.Popen(
        command,
        cwd=cwd,
        stdout=subprocess.PIPE if stdout is None else stdout,
        stderr=subprocess.STDOUT if stdout is None else subprocess.PIPE,
    )
    tail = _Tail(proc.stdout if stdout is None else proc.stderr)  # type: ignore[arg-type]
    try:
        tail.follow(proc, None)
    finally:
        tail.close()
    said = tail.kept.decode(errors="replace")
    return subprocess.CompletedProcess(command, proc.returncode, None, said)


class _NotJson:
    """NaN, Infinity or -Infinity in a result: Python's json reads them, JSON has no such value."""

    def __init__(self, text: str) -> None:
        self.text = text


def _check_row(where: str, values: Mapping[str, object], kinds: Mapping[str, str]) -> str | None:
    for name, value in values.items():
        kind = kinds.get(name)
        if kind is None:
            return f"{where}: {shown(name)} is not declared by --describe"
        if value is not None and (problem := _unstorable(kind, value)):
            return f"{where}: '{name}' {problem}"
    return None


def _unstorable(kind: str, value: object) -> str | None:
    """None when a result's ``value`` can be stored as the contract's type ``kind``, else what
    it is (its class, never the whole of a value that may be huge) and what is allowed."""
    if isinstance(value, _NotJson):
        return (
            f"is {value.text}, which JSON does not have; allowed: a number, or null for a value "
            "that is not a number"
        )
    if not conforms(kind, value):  # type: ignore[arg-type]
        return f"= {_brief(value)} is not of type {kind}"
    if kind == "int" and not INT_RANGE[0] <= value <= INT_RANGE[1]:  # type: ignore[operator]
        return f"= {_brief(value)} is too large; allowed: a 64-bit integer (-2^63 to 2^63-1)"
    if kind == "float":
        try:
            finite = math.isfinite(float(value))  # type: ignore[arg-type]
        except OverflowError:  # an integer beyond any float
            finite = False
        if not finite:
            return f"= {_brief(value)} is too large; allowed: a 64-bit float, or null"
    if kind == "string":
        try:
            value.encode()  # type: ignore[union-attr]
        except UnicodeEncodeError:  # a lone surrogate (\ud800): not text any file can hold
            return f"= {_brief(value)} is not Unicode text; allowed: a string of characters"
    return None


def _brief(value: object) -> str:
    """A value of a result for a message: short (a program's strings and numbers may be huge)."""
    if isinstance(value, str):
        return shown(value)
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"an integer of {value.bit_length()} bits"
    if isinstance(value, dict | list):
        return "an object" if isinstance(value, dict) else "a list"
    return repr(value)


# ---- a program in an archive (satsweep archive, satsweep verify ARCHIVE) ------------------------


@cache
def satsweep_versions() -> dict[str, str]:
    """satsweep's version and, when it runs from a git checkout, that checkout's commit."""
    import satsweep

    found = {"satsweep": satsweep.__version__}
    try:
        proc = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(satsweep.__file__).parent,
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return found
    if proc.returncode == 0 and proc.stdout.strip():
        found["satsweep_commit"] = proc.stdout.strip()
    return found


def program_files(
    spec: str, base: Path, options: Mapping[str, object] | None = None
) -> ProgramFiles:
    """What an archive must hold of the program a design names (:meth:`Program.find`'s
    arguments) to rerun it on another machine (:class:`~satsweep.engine.adapters.ProgramFiles`):
    an adapter's study as the adapter says (``Adapter.archived``); a program by path, its file;
    a program by name, installed with satsweep, none (satsweep's version stands for it). The
    versions of satsweep and of the adapter's engine come along. Raises ProgramError."""
    adapter = find_adapter(spec)
    if adapter is None:
        if "/" not in spec:
            return ProgramFiles(None, installed=True, versions=satsweep_versions())
        path = Path(os.path.abspath(base / spec))
        if not path.is_file():
            raise ProgramError(f"'{spec}': no such file ({path}); allowed: the program's file")
        return ProgramFiles(path, (path,), versions=satsweep_versions())
    given = {k: v for k, v in (options or {}).items() if k in adapter.options.model_fields}
    try:
        validated = adapter.options.model_validate(given)
    except ValidationError as e:
        raise ProgramError(f"{spec}: {validation_message(e)}") from None
    found = adapter.archived(validated, base)
    if found is None:
        found = ProgramFiles(None, notes=(f"the adapter '{spec}' names no files to archive",))
    return replace(found, versions={**satsweep_versions(), **adapter.versions()})


def program_versions(spec: str) -> dict[str, str]:
    """The versions :func:`program_files` records, as they are here: satsweep's, and those of
    the engine of ``spec``'s adapter."""
    adapter = find_adapter(spec)
    return {**satsweep_versions(), **(adapter.versions() if adapter is not None else {})}


#: How much of a failed build step's output its error names (its last lines).
BUILD_TAIL_LINES = 5


def build_unpacked(spec: str, step: BuildStep) -> None:
    """Runs a build step of an unpacked archive's program (:func:`program_files`) in the
    environment of ``spec``'s adapter (``Adapter.build_environment``: OMNeT++'s tools on PATH,
    say), else this process's. Raises ProgramError in one line, with the last lines of its
    output, when it fails or makes nothing."""
    adapter = find_adapter(spec)
    env = adapter.build_environment() if adapter is not None else None
    said = " ".join(step.command)
    try:
        proc = subprocess.run(
            list(step.command), cwd=step.folder, env=env, capture_output=True, text=True
        )
    except OSError as e:
        raise ProgramError(f"build step '{said}' in {step.folder}: cannot run it: {e}") from None
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-BUILD_TAIL_LINES:]
        raise ProgramError(
            f"build step '{said}' in {step.folder} exited with {proc.returncode}: "
            + (" | ".join(tail) or "(nothing said)")
        )
    if not step.makes.exists():
        raise ProgramError(f"build step '{said}' in {step.folder} made no {step.makes.name}")
