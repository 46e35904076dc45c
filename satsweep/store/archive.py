"""A study in one file (``satsweep archive``), and a study read back from it (``satsweep
verify ARCHIVE``).

The archive is a tar.gz of one folder, ``<study>/``::

    design.json       the design of the runs, the program's path, sha256 and --describe
    program.json      the program's name, version, path, sha256 and --describe, on their own
                      (a crossed design's: each simulator's kind, versions, path and sha256
                      under ``simulators``)
    runs.parquet, <table>.parquet, compaction.json   the store's compacted tables
    design.yaml       the design file the study was run from, when it is still there
    environment.txt   the Python packages installed where the archive was made, one
                      ``name==version`` a line (pip freeze's form); what each run ran with
                      (program sha256, satsweep version, git commit, host) is in runs.parquet
    source/           the design file and the program's files, at their paths relative to
                      the common folder of the design file and the program's main file (the
                      ns-3 script, the OMNeT++ ini, the contract program's file): unpacked,
                      the design file's folder finds the program as `run` found it

What a rerun needs of the program (:func:`~satsweep.engine.program.program_files`, an
adapter's ``archived``): an ns-3 script and its declaration (the adapter builds the script); an
OMNeT++ study's ini files (with those they include), its declaration, the files of its
declared NED folders and the sources of its declared libraries, each library with the steps
that build it (``opp_makemake ...``, ``make MODE=release``); a contract program's file. A
program installed with satsweep (satnet, barakat, sabt: named by name) has no files: the
satsweep version that ships it stands for them. program.json records besides the program's
path, sha256 and --describe:

    kind       the program's adapter (``ns3``, ``omnetpp``), ``file`` (a contract program by
               path) or ``installed``
    design     the design file's path in source/
    files      each file's path in source/, size and sha256
    builds     each build step: its folder in source/, its command, the file it makes
    left_out   each file the program needs that the archive does not hold, and why
    versions   satsweep's version and git commit, the engine's (ns-3, OMNeT++, INET) and
               the compiler's

Only regular files are archived, and no link is followed out of source/'s root. A file
outside that root (an ini file included from above it, a NED folder beside it) is left out,
and so is the whole program when its files add up to more than :data:`MAX_PROGRAM_BYTES`:
named in a warning and in ``left_out``, never silently. ``satsweep verify ARCHIVE`` checks
each file's sha256, runs the build steps in the unpacked source/ and reruns the program from
there (:func:`unpack_program`): the model's folder need not exist. It refuses an installed
program archived under another satsweep version, naming the one to install. The program is
code from the archive: verify archives you trust.

It is written to a temporary name beside the target and renamed; the store is only read.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import tarfile
import tempfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from importlib.metadata import distributions
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from satsweep.engine.description import STUDY_PATTERN
from satsweep.store.files import write_atomically
from satsweep.store.layout import StoreError
from satsweep.store.store import Store

if TYPE_CHECKING:
    from satsweep.design import Design

__all__ = [
    "ARCHIVE_SUFFIXES",
    "MAX_PROGRAM_BYTES",
    "environment",
    "is_archive",
    "open_archive",
    "unpack_program",
    "write_archive",
]

ARCHIVE_SUFFIXES = (".tar.gz", ".tgz")


def is_archive(text: str) -> bool:
    """Whether a STUDY argument names an archive file (by its suffix)."""
    return text.lower().endswith(ARCHIVE_SUFFIXES)


def environment() -> str:
    """The Python packages of this environment, ``name==version`` a line, sorted by name."""
    found = {(d.metadata["Name"] or "").lower(): d.version for d in distributions()}
    return "".join(f"{name}=={v}\n" for name, v in sorted(found.items()) if name)


def _add_text(tar: tarfile.TarFile, name: str, text: str) -> None:
    data = text.encode()
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), 0o644
    tar.addfile(info, io.BytesIO(data))


#: The most bytes of a program's files an archive holds: past it, none of them (named in a
#: warning). A model's sources are kilobytes to megabytes; past this, they hold what a build
#: or a run made (or a copy of a library such as INET, which the reviewer installs).
MAX_PROGRAM_BYTES = 256 * 2**20
#: The folder of an archive that holds the design file and the program's files.
SOURCE = "source"


@dataclass
class _Sources:
    """The part ``source/`` of an archive: each file's name in it and the file to read, and
    what program.json records of them."""

    files: list[tuple[str, Path]] = field(default_factory=list)
    record: dict[str, Any] = field(default_factory=dict)


def _inside(path: Path, root: Path, real_root: Path) -> str | None:
    """Why ``path`` cannot be archived under ``root`` (whose real path is ``real_root``), or
    None: outside it, a link (itself or a folder above it) leading out of it, not a file."""
    if not path.is_relative_to(root):
        return f"outside {root}, the folder of the design file and the program"
    real = path.resolve()
    if not real.is_relative_to(real_root):
        return f"a link to {real}, outside {root}"
    if not real.is_file():
        return "not a regular file"
    return None


def _programs(design: Design) -> dict[str | None, tuple[str, dict[str, Any]]]:
    """Each program of the design by its simulator's level (None: the design's one program):
    its spec and its adapter's options."""
    if design.simulators is None:
        return {None: (str(design.program), design.adapter_options)}
    return {level: (s.program, s.adapter_options) for level, s in design.simulators.items()}


def _sources(recorded: dict[str, Any], design: Design, warn: Callable[[str], None]) -> _Sources:
    """The design file and the program's files (:func:`~satsweep.engine.program.program_files`)
    for ``source/`` (see the module), a crossed design's every program's; what cannot be
    archived is named through ``warn``."""
    from satsweep.engine import ProgramError
    from satsweep.engine.adapters import adapter
    from satsweep.engine.program import file_sha256, program_files

    out = _Sources()
    if not recorded.get("source"):
        warn("the store records no design file: the archive holds none of the program")
        return out
    source = Path(recorded["source"])
    founds, kinds = {}, {}
    for level, (spec, options) in _programs(design).items():
        try:
            found = program_files(spec, source.parent, options)
        except ProgramError as e:
            warn(f"program: {e}: the archive holds none of " + (
                 f"simulator {level}'s program" if level else "the program"))  # fmt: skip
            found = None
        founds[level] = found
        kinds[level] = (
            "installed" if found is not None and found.installed
            else spec if adapter(spec) is not None
            else "file"
        )  # fmt: skip
    # normalized: an ini reached through ".." (../omnetpp/goyal98/omnetpp.ini) is beside the
    # design's folder, not under it
    mains = [Path(os.path.abspath(f.main)) for f in founds.values() if f is not None and f.main]
    root = Path(os.path.commonpath([source.parent, *(main.parent for main in mains)]))
    real_root = root.resolve()
    notes = [note for found in founds.values() if found is not None for note in found.notes]
    for note in notes:
        warn(note)
    left_out: list[dict[str, str]] = []

    def keep(paths: Iterable[Path]) -> dict[str, Path]:
        """The files of ``paths`` under root, by their names in it; the others named."""
        kept = {}
        for path in map(Path, map(os.path.abspath, paths)):
            why = _inside(path, root, real_root)
            if why is None:
                kept.setdefault(path.relative_to(root).as_posix(), path.resolve())
            else:
                warn(f"{path}: left out of the archive: {why}")
                left_out.append({"path": str(path), "why": why})
        return kept

    # a design file that is gone is no loss: design.json holds the design
    kept = keep([source]) if source.is_file() else {}
    program = keep(path for found in founds.values() if found is not None for path in found.files)
    size = sum(path.stat().st_size for path in program.values())
    if size > MAX_PROGRAM_BYTES:
        why = f"the program's {len(program)} files are {size} bytes, over {MAX_PROGRAM_BYTES}"
        warn(f"{', '.join(map(str, mains))}: left out of the archive with its files: {why} "
             "(MAX_PROGRAM_BYTES)")  # fmt: skip
        left_out += [{"path": str(path), "why": why} for path in program.values()]
        program = {}
    kept.update(program)
    builds = []
    for level, found in founds.items():
        for step in found.builds if found is not None and program else ():
            if not (step.folder.is_relative_to(root) and step.makes.is_relative_to(root)):
                warn(f"{step.makes}: its build step ({' '.join(step.command)}) is outside "
                     f"{root}: left out")  # fmt: skip
                left_out.append({"path": str(step.makes), "why": f"built outside {root}"})
                continue
            builds.append({"folder": step.folder.relative_to(root).as_posix(),
                           "command": list(step.command),
                           "makes": step.makes.relative_to(root).as_posix(),
                           **({"simulator": level} if level is not None else {})})  # fmt: skip
    out.files = [(f"{SOURCE}/{name}", path) for name, path in kept.items()]
    versions = {level: dict(f.versions) if f is not None else {} for level, f in founds.items()}
    out.record = {
        "kind": kinds[None] if None in kinds else "crossed",
        "design": source.relative_to(root).as_posix(),
        "files": [
            {"path": name, "size": path.stat().st_size, "sha256": file_sha256(path)}
            for name, path in kept.items()
        ],
        "builds": builds,
        "left_out": left_out,
        "notes": notes,
        "versions": versions[None] if None in versions else {},
        # a crossed design's programs: each one's kind and versions, by simulator
        **(
            {
                "simulators": {
                    level: {
                        "kind": kinds[level],
                        "versions": versions[level],
                        **(recorded.get("simulators") or {}).get(level, {}),
                    }
                    for level in founds
                }
            }
            if None not in founds
            else {}
        ),  # fmt: skip
    }
    return out


def _add_file(tar: tarfile.TarFile, name: str, path: Path) -> None:
    """Adds the regular file ``path`` as ``name``: its bytes, its mode's permission bits."""
    stat = path.stat()
    info = tarfile.TarInfo(name)
    info.size, info.mode, info.mtime = stat.st_size, stat.st_mode & 0o755, int(stat.st_mtime)
    with path.open("rb") as handle:
        tar.addfile(info, handle)


def _store_files(store: Store, design: Design) -> list[Path]:
    """The files of the store that an archive holds: design.json, the compacted tables and
    compaction.json. Raises StoreError, one line, for one that is not a regular file in the
    store (tar would hold a link as a link, which verify refuses, or a table from elsewhere)
    or tables that are not as compaction.json records them
    (:meth:`~satsweep.store.compaction.Compaction.tables_problems`) or, in a store with run
    files, not the tables of its done runs
    (:meth:`~satsweep.store.compaction.Compaction.compaction_problem`)."""
    files = [store.design_file, *(store.table(t) for t in store.tables())]
    if os.path.lexists(store.compaction_file):
        files.append(store.compaction_file)
    for path in files:
        if path.is_symlink():
            why = f"a link to {os.readlink(path)}"
        elif not path.is_file():
            why = "not a regular file"
        else:
            continue
        raise StoreError(f"{path}: {why}; allowed: a regular file of the store as satsweep "
                         "wrote it (remove it: `satsweep run` writes it again)")  # fmt: skip
    # a store of tables alone (an archive unpacked into results/) has no runs to check them by
    problems = []
    if store.configurations_with_files() or store.folded_runs():
        problem = store.compaction_problem(store.state(store.round(design)))
        problems = [problem] if problem is not None else []
    problems = problems or store.tables_problems(design)
    if problems:
        raise StoreError(f"study '{store.study}': tables stale or damaged: {problems[0]}; allowed: "
                         "the tables of the done runs as compacted (`satsweep status` shows "
                         "them, `satsweep run` compacts them again)")  # fmt: skip
    return files


def write_archive(
    store: Store, target: Path, warn: Callable[[str], None] = lambda line: None
) -> list[str]:
    """Writes the archive of ``store`` to ``target`` (see the module) and returns the names in
    it; ``warn`` gets a line for each file of the program left out. Raises StoreError, writing
    nothing, when the store has no recorded design or no runs, or its files are not those
    satsweep wrote (:func:`_store_files`). The design file is archived by its bytes (a link
    to it too)."""
    recorded = store.recorded()
    design = store.design()
    if not recorded or "describe" not in recorded or design is None:
        raise StoreError(f"{store.root} has no recorded design (design.json): nothing to archive")
    if not store.runs_table.is_file():
        raise StoreError(f"study '{store.study}' has no finished runs ({store.runs_table})")
    files = _store_files(store, design)
    source = Path(recorded["source"]) if recorded.get("source") else None
    sources = _sources(recorded, design, warn)
    program = {**recorded.get("program", {}), "describe": recorded["describe"], **sources.record}
    names: list[str] = []

    def write(temporary: Path) -> None:
        with tarfile.open(temporary, "w:gz") as tar:
            for path in files:
                tar.add(path, f"{store.study}/{path.name}", recursive=False)
            if source is not None and source.is_file():  # its bytes, also through a link
                _add_file(tar, f"{store.study}/design.yaml", source)
            for name, path in sources.files:
                _add_file(tar, f"{store.study}/{name}", path)
            _add_text(tar, f"{store.study}/program.json", json.dumps(program, indent=1) + "\n")
            _add_text(tar, f"{store.study}/environment.txt", environment())
            names.extend(tar.getnames())

    write_atomically(target, write)
    return names


def _within(folder: Path, name: object, what: str) -> Path:
    """``folder / name`` for a relative path ``name`` that program.json gives, which must stay
    inside ``folder``; StoreError naming ``what`` otherwise."""
    if not isinstance(name, str) or not name:
        raise StoreError(f"{what}: {name!r} is not a path; allowed: one inside {SOURCE}/")
    relative = PurePosixPath(name)
    if relative.is_absolute() or ".." in relative.parts:
        raise StoreError(f"{what}: '{name}' leads out of {SOURCE}/; allowed: a path inside it")
    return folder / relative


def unpack_program(store: Store, log: Callable[[str], None] = lambda line: None) -> Path | None:
    """Makes the program of an unpacked archive (:func:`open_archive`'s store) ready to rerun:
    checks each of its files in ``source/`` against the size and sha256 program.json records,
    refuses a program installed with satsweep when this satsweep is another version, and runs
    the build steps there (in the adapter's ``build_environment``). Returns the folder of the
    design file in ``source/``, from which the program is found as `run` found it from the
    design file's; None for a study's own store, or an archive that holds no program (made
    before archives held it). ``log`` gets a line per note and build step. Raises StoreError,
    one line, naming the file, the step or the version."""
    from satsweep.engine import ProgramError
    from satsweep.engine.adapters import BuildStep
    from satsweep.engine.program import build_unpacked, file_sha256, program_versions

    file = store.root / "program.json"
    path = "the archive's program.json"  # the temporary folder's path would say nothing
    try:
        record = json.loads(file.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise StoreError(f"{path}: unreadable ({e}); allowed: the file satsweep archive wrote")
    design = store.design()
    if not isinstance(record, dict) or "kind" not in record or design is None:
        return None
    for key in ("files", "builds", "left_out"):
        if not all(isinstance(item, dict) for item in record.get(key) or []):
            raise StoreError(f"{path}: {key}: allowed: a list of objects, as archive writes it")
    programs = _programs(design)
    # a crossed design's programs each with its own kind and versions
    members = record.get("simulators") if design.simulators is not None else {None: record}
    if not isinstance(members, dict):
        raise StoreError(f"{path}: simulators: allowed: an object, as archive writes it")
    said = set()
    for level, (spec, _) in programs.items():
        member = members.get(level)
        archived = member.get("versions") or {} if isinstance(member, dict) else None
        if not isinstance(archived, dict):
            where = f"simulators.{level}" if level is not None else "versions"
            raise StoreError(f"{path}: {where}: allowed: an object, as archive writes it")
        here = program_versions(spec)
        if member.get("kind") == "installed" and archived.get("satsweep") != here["satsweep"]:
            commit = archived.get("satsweep_commit")
            raise StoreError(
                f"{path}: the program '{spec}' is the one satsweep "
                f"{archived.get('satsweep')} installs{f' (git commit {commit})' if commit else ''}, "
                f"and this is satsweep {here['satsweep']}; allowed: verify where satsweep "
                f"{archived.get('satsweep')} is installed"
                + (f" (./setup.sh in a checkout of {commit})" if commit else "")
            )
        for name, value in archived.items():
            if name in here and here[name] != value and (name, value) not in said:
                said.add((name, value))
                log(f"note: {name} {value} where the archive was made, {here[name]} here")
    for item in record.get("left_out") or []:
        log(f"note: {item.get('path')} was left out of the archive ({item.get('why')})")
    for note in record.get("notes") or []:
        log(f"note: {note}")
    source = store.root / SOURCE
    for item in record.get("files") or []:
        held = _within(source, item.get("path"), f"{path}: files")
        if not held.is_file():
            raise StoreError(f"{path}: {SOURCE}/{item.get('path')} is missing from the archive")
        if held.stat().st_size != item.get("size") or file_sha256(held) != item.get("sha256"):
            raise StoreError(f"{path}: {SOURCE}/{item.get('path')}: not the file archived (its "
                             "size or sha256 differs): the archive was changed")  # fmt: skip
    for step in record.get("builds") or []:
        command = step.get("command")
        if not isinstance(command, list) or not command:
            raise StoreError(f"{path}: builds: {command!r}; allowed: a command, a list of words")
        folder = _within(source, step.get("folder") or ".", f"{path}: builds")
        makes = _within(source, step.get("makes"), f"{path}: builds")
        log(f"building {SOURCE}/{step.get('makes')}: {' '.join(map(str, command))}")
        level = step.get("simulator")
        # a crossed design's: its own
        spec = programs.get(level, (None,))[0] if isinstance(level, str | None) else None
        if spec is None:
            raise StoreError(f"{path}: builds: simulator {step.get('simulator')!r} is not one "
                             f"of the design's; allowed: {', '.join(map(str, programs))}")  # fmt: skip
        try:
            build_unpacked(spec, BuildStep(folder, tuple(map(str, command)), makes))
        except ProgramError as e:
            raise StoreError(f"{path}: {e}") from None
    return _within(source, record.get("design"), f"{path}: design").parent


#: The most members an archive may have and the most bytes its files may unpack to, checked
#: from the members' headers before anything is unpacked, the count stopped past them: an
#: archive of 2 MB may unpack to gigabytes, or hold 200,000 empty files. A study's archive
#: has about ten members (a plain tar of a store's folder: a few per run), and unpacks to
#: the size of its compacted tables. Nor may it unpack to more than MAX_RATIO times its own
#: size (taken as 1 MiB at least): gzip makes Parquet tables, programs and JSON a few times
#: smaller, a bomb a thousand times (2 MB into 1.9 GB).
MAX_MEMBERS = 100_000
MAX_UNPACKED_BYTES = 4 * 2**30
MAX_RATIO = 100


def _kind(member: tarfile.TarInfo) -> str:
    """What a member that is neither a regular file nor a folder is, for its refusal."""
    if member.issym() or member.islnk():
        return "a link"
    if member.isfifo():
        return "a pipe"
    return "a device" if member.ischr() or member.isblk() else "neither a file nor a folder"


def _members(path: Path, tar: tarfile.TarFile) -> tuple[str | None, list[tarfile.TarInfo]]:
    """The archive's folder (None: the study's files are at its top, as ``tar -C
    results/study -czf x.tgz .`` makes it) and its members renamed to their paths inside it,
    from their headers alone: nothing is unpacked, and reading stops at the first member past
    :data:`MAX_MEMBERS`, :data:`MAX_UNPACKED_BYTES` or :data:`MAX_RATIO`. Raises StoreError
    naming the limit or the member: only regular files and folders, all inside one folder or
    all at the top."""
    allowed = "allowed: regular files and folders inside the study's one folder"
    found: list[tuple[tuple[str, ...], tarfile.TarInfo]] = []
    unpacked = 0
    by_ratio = MAX_RATIO * max(path.stat().st_size, 2**20)
    most, limit = min(MAX_UNPACKED_BYTES, by_ratio), "MAX_UNPACKED_BYTES"
    if by_ratio < MAX_UNPACKED_BYTES:
        limit = f"MAX_RATIO: {MAX_RATIO} times the archive's {path.stat().st_size} bytes"
    for count, member in enumerate(tar, 1):
        if count > MAX_MEMBERS:
            raise StoreError(f"{path}: more than {MAX_MEMBERS} members (MAX_MEMBERS), "
                             f"'{member.name}' the first past it; a study's has about ten")  # fmt: skip
        name = PurePosixPath(member.name)
        if name.is_absolute() or ".." in name.parts:
            raise StoreError(f"{path}: member '{member.name}' leads out of its folder; {allowed}")
        if not (member.isreg() or member.isdir()):
            raise StoreError(f"{path}: member '{member.name}' is {_kind(member)}; {allowed}")
        unpacked += member.size if member.isreg() else 0
        if unpacked > most:
            raise StoreError(f"{path}: unpacks to more than {most} bytes ({limit}) at member "
                             f"'{member.name}'")  # fmt: skip
        if name.parts:  # "." is the archive's top itself
            found.append((name.parts, member))
    if not found:
        raise StoreError(f"{path}: an empty archive; allowed: a study's (satsweep archive)")
    flat = any(len(parts) == 1 and member.isreg() for parts, member in found)
    tops = {parts[0] for parts, _ in found}
    if not flat and len(tops) != 1:
        raise StoreError(f"{path}: not a study's archive: {len(tops)} folders at its top "
                         f"({', '.join(sorted(tops)[:5])}); allowed: one, the study's")  # fmt: skip
    root = None if flat else tops.pop()
    members = []
    for parts, member in found:
        inside = parts if flat else parts[1:]
        if inside:  # the folder itself is made by the extraction
            member.name = "/".join(inside)
            members.append(member)
    return root, members


def _study_named(path: Path, folder: Path) -> str:
    """The study of an archive whose files are at its top: design.json's ``study``."""
    try:
        study = json.loads((folder / "design.json").read_text()).get("study")
    except (OSError, ValueError, AttributeError) as e:
        raise StoreError(f"{path}: design.json is not a study's ({e.__class__.__name__})") from None
    if not isinstance(study, str) or not re.fullmatch(STUDY_PATTERN, study):
        raise StoreError(f"{path}: design.json's study {study!r} is not a study's name; "
                         f"allowed: {STUDY_PATTERN}")  # fmt: skip
    return study


@contextlib.contextmanager
def open_archive(path: Path) -> Iterator[Store]:
    """The study of an archive, unpacked into a temporary directory that is removed
    afterwards (also when interrupted: the caller's KeyboardInterrupt unwinds through it).

    The archive is :func:`write_archive`'s, or a plain tar.gz of a store's folder (``tar -czf
    x.tgz -C results study``), or of its files (``tar -C results/study -czf x.tgz .``: the
    study is then design.json's ``study``). Before anything is unpacked its headers are
    checked (:func:`_members`): at most :data:`MAX_MEMBERS` members, :data:`MAX_UNPACKED_BYTES`
    and :data:`MAX_RATIO` times its size unpacked, and no more than the temporary folder's
    free space, only regular files and folders inside the one folder. Raises StoreError, one
    line, when ``path`` is not such an archive."""
    scratch = Path(tempfile.mkdtemp(prefix="satsweep-archive-"))
    try:
        folder = scratch / ".unpacked"  # no study's name starts with a dot
        try:
            with tarfile.open(path, "r:gz") as tar:
                root, members = _members(path, tar)
                size = sum(m.size for m in members if m.isreg())
                free = shutil.disk_usage(scratch).free
                if size > free:
                    raise StoreError(f"{path}: unpacks to {size} bytes, the temporary folder "
                                     f"{scratch.parent} has {free} free (TMPDIR)")  # fmt: skip
                folder.mkdir()
                tar.extractall(folder, members, filter="data")  # no paths out, no links
        except (OSError, tarfile.TarError, EOFError, zlib.error) as e:
            raise StoreError(f"{path}: cannot read the archive: {e}") from None
        if not (folder / "design.json").is_file():
            raise StoreError(f"{path}: not a study's archive (no design.json)")
        store = Store(folder.rename(scratch / (root or _study_named(path, folder))))
        store.unpacked_from = path  # its messages name the archive, not the temporary folder
        yield store
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
