"""Engines a design names by ``program: NAME``: adapters that make a study in an engine's own
form (an OMNeT++ ini file and its configuration, ...) a program honouring the engine contract.

An adapter is registered through the entry-point group :data:`GROUP` of its distribution's
metadata, e.g. in its ``pyproject.toml``::

    [project.entry-points."satsweep.adapters"]
    omnetpp = "satsweep.engine.omnetpp:OmnetppAdapter"

satsweep's own adapters (``omnetpp``, ``ns3``) are registered exactly so
(docs/engine-contract.md, "Engines as plug-ins"). The core knows adapters only through
:func:`adapter`: their names, their design options (validated by the
adapter's own pydantic model), the options that decide the runs' random streams, and how the
options become a :class:`~satsweep.engine.program.Program`.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from satsweep.engine.description import Description, validation_message

if TYPE_CHECKING:
    from satsweep.engine.program import Program

#: The entry-point group adapters are registered in.
GROUP = "satsweep.adapters"


@dataclass(frozen=True)
class BuildStep:
    """A command that makes a file of a program from its archived sources after the archive
    is unpacked elsewhere (an OMNeT++ model's library): run in ``folder``, it makes ``makes``."""

    folder: Path
    command: tuple[str, ...]
    makes: Path


@dataclass(frozen=True)
class ProgramFiles:
    """What an archive holds of a program so that it can be rerun on another machine
    (``satsweep archive``): its ``main`` file (an ns-3 script, an ini file, a program's own
    file), every file it needs (``files``, absolute, ``main`` among them), the ``builds`` that
    make the rest from them once unpacked, and ``notes``: files it would need but that are not
    there to archive, each with why. ``installed``: a program installed with satsweep, found
    by its name, none of whose files is archived (satsweep's version stands for them)."""

    main: Path | None
    files: tuple[Path, ...] = ()
    builds: tuple[BuildStep, ...] = ()
    notes: tuple[str, ...] = ()
    installed: bool = False
    versions: Mapping[str, str] = field(default_factory=dict)


class Adapter(ABC):
    """An engine under the contract: ``program: <name>`` in a design, with its options as
    further keys of the design."""

    #: the design's ``program:`` value
    name: ClassVar[str]
    #: the design keys the adapter takes (a pydantic model that forbids others); a field's
    #: ``description`` is its help in the design's error messages
    options: ClassVar[type[BaseModel]]
    #: options that decide how run numbers become the runs' random streams, each with
    #: (its value when a design leaves it out, its value for a store recorded before the
    #: option existed): a design meeting a store takes the store's, and may not set another
    stream_options: ClassVar[Mapping[str, tuple[Any, Any]]] = {}

    @abstractmethod
    def program(self, options: BaseModel, base: Path) -> Program:
        """The runnable program of ``options`` (validated by :attr:`options`), with paths in
        them relative to ``base`` (the design file's folder). Raises ProgramError saying what
        is wrong and what is allowed."""

    def recorded(self, options: BaseModel) -> dict[str, Any]:
        """The options as a store records them in design.json: those set, and every stream
        option with its value."""
        said = options.model_dump(mode="json", exclude_none=True)
        for key, (default, _) in self.stream_options.items():
            if said.get(key) is None:
                said[key] = default
        return said

    def archived(self, options: BaseModel, base: Path) -> ProgramFiles | None:
        """What an archive must hold of the program of ``options`` (paths in them relative to
        ``base``) to rerun it elsewhere: its files and the steps that build the rest once
        unpacked (:class:`ProgramFiles`). None: the adapter cannot say (the archive then
        holds none of the program, and says so). Raises ProgramError as :meth:`program`."""
        return None

    def versions(self) -> dict[str, str]:
        """The versions of what builds and runs the adapter's programs here (the engine, its
        compiler), by name, for an archive to record and a rerun to compare."""
        return {}

    def build_environment(self) -> dict[str, str] | None:
        """The environment the build steps of an unpacked archive (:meth:`archived`) run with;
        None: this process's. Raises ProgramError when the engine is missing here."""
        return None

    def default_traces(self, describe: Description) -> list[dict[str, Any]]:
        """The report's traces (``analysis.traces`` entries) of a design of this engine that
        names none, for the program ``describe`` describes: none unless an engine's tables
        have a figure that fits them all."""
        return []

    def help(self) -> dict[str, str]:
        """Each option's help, for the design's messages."""
        return {
            name: f"with program: {self.name}, {field.description or 'see its documentation'}"
            for name, field in self.options.model_fields.items()
        }


class AdapterError(ValueError):
    """An adapter registered under the entry-point group that cannot be used."""


@functools.cache
def adapter(name: object) -> Adapter | None:
    """The adapter registered as ``name``, or None; only its own module is imported (once per
    process), so a design of another program pays for no engine's imports."""
    if not isinstance(name, str):
        return None
    points = entry_points(group=GROUP, name=name)
    if not points:
        return None
    (point, *_) = points
    try:
        loaded = point.load()
    except Exception as e:  # a broken plug-in: say which, not a traceback of its import
        raise AdapterError(f"adapter '{point.name}' ({point.value}) cannot be loaded: {e}")
    made = loaded() if isinstance(loaded, type) else loaded
    if not isinstance(made, Adapter) or made.name != point.name:
        raise AdapterError(
            f"adapter '{point.name}' ({point.value}) is not a satsweep Adapter named '{point.name}'"
        )
    return made


def adapters() -> Mapping[str, Adapter]:
    """Every registered adapter by name (each module imported)."""
    found = {point.name: adapter(point.name) for point in entry_points(group=GROUP)}
    return {name: a for name, a in found.items() if a is not None}


def option_owners() -> dict[str, list[str]]:
    """Every adapter option's name, with the adapters taking it (for a design that gives one
    to another program)."""
    owners: dict[str, list[str]] = {}
    for adapter in adapters().values():
        for key in adapter.options.model_fields:
            owners.setdefault(key, []).append(adapter.name)
    return {key: sorted(names) for key, names in owners.items()}


Declared = TypeVar("Declared", bound=BaseModel)


def read_declaration(path: Path, model: type[Declared], beside: str, doc: str) -> Declared:
    """An adapter's declaration file (``satsweep.yaml`` beside the study's file, ``beside``)
    read as ``model``; ValueError in one line naming the file, the field and what is allowed
    (``doc`` says the rest)."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ValueError(
            f"{path}: cannot read the declaration: {e.strerror or e}; allowed: a {path.name} "
            f"beside {beside} ({doc})"
        ) from None
    except yaml.YAMLError as e:
        raise ValueError(f"{path}: not valid YAML: {e}") from None
    try:
        return model.model_validate(raw)
    except ValidationError as e:
        where = ".".join(str(part) for part in e.errors()[0]["loc"]) or "(top level)"
        said = validation_message(e)
        if "allowed:" not in said:  # else a rule of the declaration says it itself
            said += f"; allowed: as {doc} describes"
        raise ValueError(f"{path}: {where}: {said}") from None
