"""Several programs as one: a design that crosses simulators (``simulators:`` in a design,
docs/designs.md) runs each configuration on the program of its level of the factor
:data:`SIMULATOR`. :class:`Crossed` is that program: its description is the members' merged
(:func:`merged`), and each run is made by its own member, which is given the run's parameters
but the simulator."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from satsweep.engine.description import Column, Description, Parameter, value_text
from satsweep.engine.program import Program, ProgramError

__all__ = ["SIMULATOR", "Crossed", "merged"]

#: The factor whose levels are a crossed design's simulators (``engine`` is taken: the store's
#: provenance column naming each run's engine and its version).
SIMULATOR = "simulator"


def _said(kind: str, value: object) -> str:
    if kind == "choices":
        return ", ".join(value_text(v) for v in value) if value else "(any)"  # type: ignore[attr-defined]
    return "(none)" if value is None else str(value)


def _difference(what: str, fields: Mapping[str, Column], names: Mapping[str, str]) -> str | None:
    """What the members' declarations of one field (level -> its declaration) differ in:
    type, unit or (a parameter's) choices, each member's (``names``: level -> its program's
    name), or None when they agree."""
    for kind in ("type", "unit", "choices"):
        values = {level: getattr(f, kind, None) for level, f in fields.items()}
        first = next(iter(values.values()))
        if any(v != first for v in values.values()):  # choices 1 and 1.0 of a float agree
            each = "; ".join(
                f"{_said(kind, v)} in {level}"
                + (f" ({names[level]})" if names[level] != level else "")
                for level, v in values.items()
            )
            return f"{what}: {kind} {'differ' if kind == 'choices' else 'differs'} ({each})"
    return None


def _common(
    what: str,
    declared: Mapping[str, list[Column]],
    names: Mapping[str, str],
    differences: dict[str, str],
) -> list[Any]:
    """The fields every member declares alike (in the first member's order); a field every
    member declares but not alike goes into ``differences``."""
    (first, *_) = declared.values()
    kept = []
    for column in first:
        fields = {level: next((c for c in cs if c.name == column.name), None)
                  for level, cs in declared.items()}  # fmt: skip
        if any(f is None for f in fields.values()):
            continue
        problem = _difference(f"{what} '{column.name}'", fields, names)  # type: ignore[arg-type]
        if problem is None:
            kept.append(column)
        else:
            differences[column.name] = problem
    return kept


def merged(descriptions: Mapping[str, Description]) -> tuple[Description, dict[str, str]]:
    """The description of a crossed design's programs (simulator level -> its description) and
    what they disagree on (name -> what differs, for the design's checks to refuse where it
    matters). Parameters: :data:`SIMULATOR` (a string, the levels its choices), then every
    member's, a shared one only where the members that declare it agree on type, unit and
    choices (its default where they agree on it too). Summary and tables: the fields and
    columns every member declares alike, the tables every member declares. No cost hint:
    :meth:`Crossed.estimated_seconds` asks each run's member."""
    for level, d in descriptions.items():
        if d.parameter(SIMULATOR) is not None:
            raise ProgramError(
                f"simulators.{level}: {d.name} declares a parameter '{SIMULATOR}', the factor of "
                "a crossed design; allowed: programs without one",
                f"simulators.{level}",
            )
    differences: dict[str, str] = {}
    names = {level: d.name for level, d in descriptions.items()}
    parameters = [
        Parameter(
            name=SIMULATOR,
            type="string",
            choices=list(descriptions),
            help="the simulator (a program) that made the run",
        )
    ]
    for name in dict.fromkeys(p.name for d in descriptions.values() for p in d.parameters):
        fields = {
            level: p for level, d in descriptions.items() if (p := d.parameter(name)) is not None
        }
        problem = _difference(f"parameter '{name}'", fields, names)
        if problem is not None:
            differences[name] = problem
            continue
        (first, *others) = fields.values()
        if any(p.default != first.default for p in others):  # no one default: none
            first = first.model_copy(update={"default": None})
        parameters.append(first)
    summary = _common(
        "summary field", {k: d.summary for k, d in descriptions.items()}, names, differences
    )
    tables = {}
    for table in next(iter(descriptions.values())).tables:
        if all(table in d.tables for d in descriptions.values()):
            found: dict[str, str] = {}
            tables[table] = _common(
                f"column of table {table}", {k: d.tables[table] for k, d in descriptions.items()},
                names, found,
            )  # fmt: skip
    description = Description(
        name="+".join(f"{level}:{d.name}" for level, d in descriptions.items()),
        version="+".join(f"{level}:{d.version}" for level, d in descriptions.items()),
        parameters=parameters,
        summary=summary,
        tables=tables,
    )
    return description, differences


@dataclass(frozen=True)
class Crossed(Program):
    """The programs of a crossed design as one: each run goes to the member named by its
    :data:`SIMULATOR` parameter, which gets the other parameters. Its ``sha256`` hashes the
    members' (a store's runs each record their own member's)."""

    #: simulator level -> its program
    members: Mapping[str, Program] = field(default_factory=dict)
    #: what the members disagree on, by field name (:func:`merged`)
    differences: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, members: Mapping[str, Program]) -> Crossed:
        """The crossing of ``members`` (level -> program); ProgramError when one declares the
        parameter :data:`SIMULATOR`."""
        description, differences = merged({k: p.description for k, p in members.items()})
        identity = json.dumps({k: p.sha256 for k, p in members.items()}, sort_keys=True)
        sha256 = hashlib.sha256(identity.encode()).hexdigest()
        return cls(Path(), sha256, description, members=dict(members), differences=differences)

    def program_for(self, params: Mapping[str, object]) -> Program:
        member = self.members.get(value_text(params.get(SIMULATOR)))
        if member is None:
            raise ValueError(
                f"{SIMULATOR}: {params.get(SIMULATOR)!r} is not allowed; allowed: "
                + ", ".join(self.members)
            )
        return member

    def programs(self) -> list[Program]:
        return list(self.members.values())

    @staticmethod
    def _own(params: Mapping[str, object]) -> dict[str, object]:
        return {name: value for name, value in params.items() if name != SIMULATOR}

    def command(self, params: Mapping[str, object], run: int | str, out: Path) -> list[str]:
        return self.program_for(params).command(self._own(params), run, out)

    def run(self, params: Mapping[str, object], run: int | str, *args: Any, **kw: Any) -> dict:
        """The run made by its simulator's program (:meth:`Program.run`)."""
        return self.program_for(params).run(self._own(params), run, *args, **kw)

    def estimated_seconds(self, params: Mapping[str, object]) -> float:
        return self.program_for(params).estimated_seconds(self._own(params))

    @property
    def has_cost(self) -> bool:
        return any(p.has_cost for p in self.members.values())

    @property
    def identities(self) -> set[str]:
        return {self.sha256, *(i for p in self.members.values() for i in p.identities)}
