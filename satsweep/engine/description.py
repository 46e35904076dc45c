"""What a program says of itself with ``--describe`` (docs/engine-contract.md), as pydantic models.

A :class:`Description` lists the program's parameters (name, type, default, allowed values,
unit, help), the fields of its one-row ``summary`` and the columns of its tables. satsweep
checks a design against it before anything runs, types the store's columns by it and labels the
report with its units. Fields the contract does not name are ignored, so a program may say more.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["Column", "Cost", "Description", "Parameter", "Type", "conforms", "value_text"]

Type = Literal["int", "float", "string", "bool"]
NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
#: Names a program may not declare: satsweep passes --run and --out itself; the result's parts.
RESERVED_PARAMETERS = ("run", "out")
RESERVED_TABLES = ("params", "summary", "runs")

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


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class Column(_Model):
    """A field of the summary or a column of a table; ``minimum`` and ``maximum`` bound the
    values it can take (e.g. an index in [0, 1]), which reports use to flag intervals."""

    name: str = Field(pattern=NAME_PATTERN)
    type: Type
    unit: str | None = None
    help: str = ""
    minimum: float | None = None
    maximum: float | None = None


class Parameter(Column):
    """A parameter the program takes as ``--name=value``."""

    default: Any = None
    choices: list[Any] | None = None
    exclusiveMinimum: float | None = None  # noqa: N815 (JSON Schema's spelling)
    exclusiveMaximum: float | None = None  # noqa: N815

    @model_validator(mode="after")
    def _typed(self) -> Parameter:
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
    of the values of the ``per`` parameters."""

    per: list[str] = []
    by: str | None = None
    seconds: float | dict[str, float]


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
        names = [p.name for p in self.parameters]
        for name in names:
            if names.count(name) > 1:
                raise ValueError(f"parameter '{name}' is declared twice")
            if name in RESERVED_PARAMETERS:
                raise ValueError(f"parameter '{name}' is reserved (satsweep passes --{name})")
        for where, fields in (("summary", self.summary), *self.tables.items()):
            columns = [f.name for f in fields]
            twice = {c for c in columns if columns.count(c) > 1}
            if twice:
                raise ValueError(f"{where}: field '{sorted(twice)[0]}' is declared twice")
        for table in self.tables:
            if table in RESERVED_TABLES:
                raise ValueError(f"table '{table}' has a reserved name")
        if self.cost is not None:
            for name in [*self.cost.per, *([self.cost.by] if self.cost.by else [])]:
                if name not in names:
                    raise ValueError(f"cost: '{name}' is not a parameter")
        return self

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
        if isinstance(seconds, dict):
            rates = list(seconds.values())
            seconds = seconds.get(value_text(value(self.cost.by)), max(rates, default=1.0))
        for name in self.cost.per:
            try:
                seconds *= float(value(name))  # type: ignore[arg-type]
            except (TypeError, ValueError):  # no default: the factor is unknown
                continue
        return seconds
