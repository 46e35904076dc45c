"""What a program says of itself with ``--describe`` (docs/engine-contract.md), as pydantic models.

A :class:`Description` lists the program's parameters (name, type, default, allowed values,
unit, help), the fields of its one-row ``summary`` and the columns of its tables. satsweep
checks a design against it before anything runs, types the store's columns by it and labels the
report with its units. Fields the contract does not name are ignored, so a program may say more.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

__all__ = [
    "KEY_COLUMNS",
    "PROVENANCE_COLUMNS",
    "TABLE_KEY_COLUMNS",
    "Column",
    "Cost",
    "Description",
    "Parameter",
    "Type",
    "conforms",
    "value_text",
]

Type = Literal["int", "float", "string", "bool"]
NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
#: A study's name (it names results/<study>/): letters, digits, '.', '_', '-'.
STUDY_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
#: A table's name becomes a file name and an SQL view: ASCII, and short enough for any file system.
TABLE_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]{0,63}$"

# The store's own columns, each with its type, listed here, in the lowest room, so that the
# contract can keep a program's names off them; store/rows.py types them from these lists.
#: A store column's type: the contract's, or a UTC timestamp (naive).
OwnType = Literal["int", "float", "string", "bool", "timestamp"]
#: The columns that identify a run (the fields of ``design.Run`` of the same names): its study,
#: configuration, replication and random stream.
KEY_COLUMNS: dict[str, OwnType] = {
    "study": "string",
    "config_id": "string",
    "replication": "int",
    "seed": "int",
    "run": "int",
}
#: The key columns the store adds to each row of the program's tables.
TABLE_KEY_COLUMNS = tuple(KEY_COLUMNS)[:3]
#: What ran, where and when (the report shows them: analysis/50-provenance.sql).
PROVENANCE_COLUMNS: dict[str, OwnType] = {
    "program": "string",
    "program_version": "string",
    "program_sha256": "string",
    "satsweep_version": "string",
    "git_commit": "string",
    "git_dirty": "bool",
    "host": "string",
    "started_at": "timestamp",
    "elapsed_seconds": "float",
    # the engine and its version (Program.engine), NULL for none; last, being the newest: a
    # store's older rows lack it, and a table joined from both keeps the order
    "engine": "string",
}
#: Names the analysis (analysis/*.sql) adds beside every column of the runs or of a table.
ANALYSIS_COLUMNS = ("by_value", "cell_id", "position", "row_id")
#: Names the analysis adds beside the factors, which are parameters (the response is ``y``).
ANALYSIS_FACTOR_COLUMNS = (
    "obs_id",
    "y",
    "n_obs",
    "cell_mean",
    "cell_sd",
    "within_ss",
    "first_obs",
    "first_position",
    "panel_order",
)
#: Names a program may not declare: satsweep passes --run and --out itself; the result's parts.
RESERVED_PARAMETERS = ("run", "out")
RESERVED_TABLES = ("params", "summary", "runs")
#: Names no summary field may take: the store's own columns and the analysis'.
RESERVED_COLUMNS = (*KEY_COLUMNS, *PROVENANCE_COLUMNS, *ANALYSIS_COLUMNS)
#: Names no parameter may take: those, the analysis' names beside factors, and --out.
RESERVED_FACTORS = (*RESERVED_COLUMNS, *ANALYSIS_FACTOR_COLUMNS, "out")
#: Names no column of a table may take.
RESERVED_TABLE_COLUMNS = (*TABLE_KEY_COLUMNS, *ANALYSIS_COLUMNS)

_TYPE_TEXT = {
    "int": "an integer",
    "float": "a number",
    "string": "a string",
    "bool": "true or false",
}


def value_text(value: object) -> str:
    """The text a program gets for a value on its command line: booleans as 0/1, integral
    numbers without ``.0`` (``2.0`` -> ``2``), everything else as ``str``."""
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def from_text(kind: str, text: str) -> Any:
    """A command line's text as a value of the contract's type ``kind``; ValueError when it is
    not one (``true``/``false`` and ``1``/``0`` are booleans)."""
    if kind == "int":
        return int(text)
    if kind == "float":
        return float(text)
    if kind == "bool":
        if text in ("1", "true"):
            return True
        if text in ("0", "false"):
            return False
        raise ValueError(text)
    return text


def given_values(
    flags: Sequence[str], parameters: Sequence[Parameter], program: str
) -> dict[str, Any]:
    """The values ``--name=value`` flags give the declared ``parameters``, typed and checked;
    ValueError saying the first flag that is not one of them or not allowed, and what is (an
    adapter's usage error)."""
    declared = {p.name: p for p in parameters}
    given: dict[str, Any] = {}
    for flag in flags:
        name, equals, text = flag.removeprefix("--").partition("=")
        parameter = declared.get(name)
        if not flag.startswith("--") or not equals or parameter is None:
            raise ValueError(
                f"{flag}: not a parameter of {program}; allowed: "
                + ", ".join(f"--{n}=VALUE" for n in declared)
            )
        try:
            value = from_text(parameter.type, text)
        except ValueError:
            raise ValueError(f"--{name}={text}: {parameter.allowed()}") from None
        if problem := parameter.check(value):
            raise ValueError(f"--{name}: {problem}")
        given[name] = value
    return given


def flags(params: Mapping[str, object]) -> list[str]:
    """``--name=value`` of each parameter, as a program gets them (:func:`value_text`)."""
    return [f"--{name}={value_text(value)}" for name, value in params.items()]


def conforms(kind: Type, value: object) -> bool:
    """Whether ``value`` (as JSON or YAML gives it) is of the contract's type ``kind``."""
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "float":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, str)


def shown(text: str, most: int = 40) -> str:
    """A program's string in a message: quoted, control characters escaped, cut to ``most``."""
    return repr(text[:most]) + ("..." if len(text) > most else "")


def _once(what: str, names: list[str]) -> None:
    """Refuses a name declared twice, in any case (``Load`` and ``load`` are one SQL column)."""
    seen: set[str] = set()
    for name in names:
        if name.lower() in seen:
            raise ValueError(f"{what} '{name}' is declared twice (case does not count)")
        seen.add(name.lower())


def _unreserved(what: str, name: str, reserved: tuple[str, ...]) -> None:
    """Refuses a name, in any case, that satsweep's store or analysis uses itself."""
    if name.lower() in reserved:
        raise ValueError(
            f"{what}: the name is reserved (satsweep uses it itself); reserved: "
            + ", ".join(reserved)
        )


def _field_changes(
    what: str, before: object, now: list[dict[str, Any]], added: bool = True
) -> list[str]:
    """The fields of ``now`` removed, added (if ``added``) or of another type or unit than in
    ``before`` (a recorded list of fields, as JSON)."""
    if not isinstance(before, list):
        before = []
    old = {f.get("name"): f for f in before if isinstance(f, Mapping)}
    new = {f["name"]: f for f in now}
    found = [f"{what} {name} removed" for name in old if name not in new]
    for name, field in new.items():
        if name not in old:
            found += [f"{what} {name} added"] if added else []
            continue
        if old[name].get("type") != field["type"]:
            found.append(f"{what} {name}: {old[name].get('type')} -> {field['type']}")
        if old[name].get("unit") != field["unit"]:
            found.append(f"{what} {name}: unit {old[name].get('unit')} -> {field['unit']}")
    return found


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class Column(_Model):
    """A field of the summary or a column of a table; ``minimum`` and ``maximum`` bound the
    values it can take (e.g. an index in [0, 1]), which reports use to flag intervals.
    ``reproducible`` false: a measurement of the machine that ran the program (a wall-clock
    time, a memory peak), not of the model, which differs between reruns of one run: verify
    and compare leave it out of their verdict (docs/reproducibility.md)."""

    name: str = Field(pattern=NAME_PATTERN)
    type: Type
    unit: str | None = None
    help: str = ""
    minimum: float | None = None
    maximum: float | None = None
    #: None (absent) or true: reproducible; absent rather than true in a description written
    #: out (``exclude_none``), as a program's own --describe leaves it out
    reproducible: bool | None = None


class Parameter(Column):
    """A parameter the program takes as ``--name=value``."""

    default: Any = None
    choices: list[Any] | None = None
    exclusiveMinimum: float | None = None  # noqa: N815 (JSON Schema's spelling)
    exclusiveMaximum: float | None = None  # noqa: N815

    @model_validator(mode="after")
    def _typed(self) -> Parameter:
        if self.reproducible is False:  # a parameter is given, not measured
            raise ValueError("reproducible: only a summary field or a table column may be false")
        if self.default is not None and not conforms(self.type, self.default):
            raise ValueError(f"default {self.default!r} is not {_TYPE_TEXT[self.type]}")
        for choice in self.choices or ():
            if not conforms(self.type, choice):
                raise ValueError(f"choice {choice!r} is not {_TYPE_TEXT[self.type]}")
        return self

    def allowed(self) -> str:
        """What the parameter allows, for an error message: ``allowed: ...``."""
        if self.choices:
            return "allowed: " + ", ".join(value_text(c) for c in self.choices)
        bounds = [
            f"{op} {value_text(bound)}"
            for op, bound in (
                (">=", self.minimum),
                (">", self.exclusiveMinimum),
                ("<=", self.maximum),
                ("<", self.exclusiveMaximum),
            )
            if bound is not None
        ]
        return f"allowed: {_TYPE_TEXT[self.type]}" + (f" {' and '.join(bounds)}" if bounds else "")

    def check(self, value: object) -> str | None:
        """None when ``value`` is allowed, else the problem with what is allowed."""
        ok = conforms(self.type, value)
        if isinstance(value, str) and "\0" in value:  # no command line can pass it
            return f"{shown(value)} holds a NUL character; allowed: a string without one"
        if ok and self.type == "float":
            ok = math.isfinite(float(value))  # type: ignore[arg-type]
        if ok and self.choices:
            ok = value in self.choices
        if ok and self.type in ("int", "float"):
            x = float(value)  # type: ignore[arg-type]
            ok = not (
                (self.minimum is not None and x < self.minimum)
                or (self.maximum is not None and x > self.maximum)
                or (self.exclusiveMinimum is not None and x <= self.exclusiveMinimum)
                or (self.exclusiveMaximum is not None and x >= self.exclusiveMaximum)
            )
        return None if ok else f"{value!r} is not allowed; {self.allowed()}"


class Cost(_Model):
    """An optional estimate of one run's core-seconds, only to order and batch jobs:
    ``seconds`` (one number, or with ``by`` one per value of that parameter) times the product
    of the values of the ``per`` parameters. A ``per`` parameter a run does not set takes
    ``defaults[value of by][name]`` when given (a choice that presets other defaults, e.g. a
    scenario's simulated time), else its declared default."""

    per: list[str] = []
    by: str | None = None
    seconds: float | dict[str, float]
    defaults: dict[str, dict[str, float]] = {}


class Description(_Model):
    """A program's ``--describe``."""

    name: str = Field(min_length=1)
    version: str
    parameters: list[Parameter]
    summary: list[Column]
    tables: dict[str, list[Column]] = {}
    cost: Cost | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Description:
        # Names are columns, views and files: SQL (and some file systems) ignore their case.
        names = [p.name for p in self.parameters]
        _once("parameter", names)
        for name in names:
            if name in RESERVED_PARAMETERS:
                raise ValueError(f"parameter '{name}' is reserved (satsweep passes --{name})")
            _unreserved(f"parameter '{name}'", name, RESERVED_FACTORS)
        for table in self.tables:
            if not re.fullmatch(TABLE_PATTERN, table):
                raise ValueError(
                    f"table {shown(table)} is not a table name; allowed: letters, digits and _, "
                    "not first a digit, at most 64 characters"
                )
            _unreserved(f"table '{table}'", table, RESERVED_TABLES)
        _once("table", list(self.tables))
        parameters = {n.lower() for n in names}
        for field in self.summary:
            if field.name.lower() in parameters:
                raise ValueError(f"summary field '{field.name}' is also a parameter's name")
            _unreserved(f"summary field '{field.name}'", field.name, RESERVED_COLUMNS)
        for table, columns in (("summary", self.summary), *self.tables.items()):
            _once(f"{table}: field", [c.name for c in columns])
            for column in columns if table != "summary" else ():
                what = f"column '{column.name}' of table '{table}'"
                _unreserved(what, column.name, RESERVED_TABLE_COLUMNS)
        if self.cost is not None:
            for name in [*self.cost.per, *([self.cost.by] if self.cost.by else [])]:
                if name not in names:
                    raise ValueError(f"cost: '{name}' is not a parameter")
            for choice, values in self.cost.defaults.items():
                for name in values:
                    if name not in self.cost.per:
                        raise ValueError(
                            f"cost: defaults: {choice}: '{name}' is not one of per: "
                            f"{', '.join(self.cost.per) or '(none)'}"
                        )
        return self

    def not_reproducible(self, table: str | None = None) -> list[str]:
        """The summary's fields (or ``table``'s columns) declared ``reproducible: false``."""
        columns = self.summary if table is None else self.tables[table]
        return [c.name for c in columns if c.reproducible is False]

    def changes_since(self, recorded: Mapping[str, Any]) -> list[str]:
        """What differs from ``recorded`` (an earlier ``--describe`` of this program and
        version, as JSON) in what a store's columns hold: a parameter removed or of another
        type or unit; a summary field or table column added, removed or of another type or
        unit; a table added or removed. Help, choices, bounds, the order of declaration and
        the cost hint store nothing and do not count; a changed default or an added parameter
        is the store's to judge (it depends on whether the design sets the parameter)."""
        now = self.model_dump(mode="json")
        found = _field_changes("parameter", recorded.get("parameters"), now["parameters"], False)
        found += _field_changes("summary field", recorded.get("summary"), now["summary"])
        before = recorded.get("tables")
        before = before if isinstance(before, Mapping) else {}
        for table in [*before, *(t for t in now["tables"] if t not in before)]:
            if table not in now["tables"]:
                found.append(f"table {table} removed")
            elif table not in before:
                found.append(f"table {table} added")
            else:
                what = f"column of table {table}"
                found += _field_changes(what, before[table], now["tables"][table])
        return found

    def parameter(self, name: str) -> Parameter | None:
        """The parameter named ``name``, if declared."""
        return next((p for p in self.parameters if p.name == name), None)

    def units(self) -> dict[str, str]:
        """Every declared parameter, summary field and table column with a unit -> its unit."""
        fields = [*self.parameters, *self.summary, *(f for t in self.tables.values() for f in t)]
        return {f.name: f.unit for f in fields if f.unit}

    def estimated_seconds(self, params: Mapping[str, object]) -> float:
        """One run's estimated core-seconds by :class:`Cost` (1 without a cost hint), the
        parameters' defaults filling in what ``params`` does not set."""
        if self.cost is None:
            return 1.0

        def value(name: str) -> object:
            parameter = self.parameter(name)
            return params.get(name, parameter.default if parameter else None)

        seconds = self.cost.seconds
        preset: Mapping[str, float] = {}
        if isinstance(seconds, dict):
            choice = value_text(value(self.cost.by))
            preset = self.cost.defaults.get(choice, {})
            seconds = seconds.get(choice, max(seconds.values(), default=1.0))
        for name in self.cost.per:
            try:
                given = params.get(name, preset.get(name, value(name)))
                seconds *= float(given)  # type: ignore[arg-type]
            except (TypeError, ValueError):  # no default: the factor is unknown
                continue
        return seconds


def validation_message(e: ValidationError) -> str:
    """What is wrong first in a model's input, in one line: a rule's own message (the
    validators' ValueError: it says what is allowed itself), else pydantic's."""
    first = e.errors()[0]
    return str(first["ctx"]["error"]) if first["type"] == "value_error" else first["msg"]
