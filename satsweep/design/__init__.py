"""Sweep designs: a YAML file in ``sweeps/`` describing a full factorial design of satnet runs.

A design names a study, its factors (satnet flag -> list of levels), fixed parameters (more
satnet flags), the number of replications r and a base seed::

    study: goyal98-quick
    description: the paper's 4 x 2 x 3 design on three links, scaled down
    factors:
      link: [wan, meo, geo]
      flavor: [vanilla, reno, newreno, sack]
      drop: [epd, sd]
      bufferRtt: [0.5, 1, 2]
    fixed:
      clients: 20
      simTime: 20
    replications: 2
    base_seed: 1

:func:`load_design` validates a file (errors name the file, the field and what is allowed) and
:meth:`Design.runs` expands it into the full factorial x r, each run with its ``config_id`` and
ns-3 random stream (see :func:`config_id` and :func:`rng_run`).
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from satsweep import engine

__all__ = [
    "RESERVED_FLAGS",
    "Configuration",
    "Design",
    "DesignError",
    "Run",
    "config_id",
    "load_design",
    "rng_run",
]

#: Flags satsweep sets itself for every run: a design may not name them.
RESERVED_FLAGS = {
    "run": "satsweep derives each run's --run (ns-3 RngRun) from base_seed, config and replication",
    "seed": "set base_seed instead (it becomes --seed, ns-3 RngSeed)",
    "out": "satsweep chooses where results go",
}
#: The largest --run / --seed satnet accepts.
MAX_RNG = 2**32 - 1
STUDY_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"

Level = StrictBool | int | float | str


class DesignError(ValueError):
    """A sweep file that cannot be run; the message names the file, the field and what is allowed."""


class Resources(BaseModel):
    """What one job (one configuration, its replications run one after the other) asks for."""

    model_config = ConfigDict(extra="forbid")
    mem_mb: int = Field(default=512, ge=1)


class Design(BaseModel):
    """A validated sweep design. Build it with :func:`load_design`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    study: str = Field(pattern=STUDY_PATTERN, max_length=100)
    description: str = ""
    factors: dict[str, list[Level]] = Field(min_length=1)
    fixed: dict[str, Level] = Field(default_factory=dict)
    replications: int = Field(ge=1)
    base_seed: int = Field(default=1, ge=1, le=MAX_RNG)
    resources: Resources = Field(default_factory=Resources)

    @cached_property
    def configurations(self) -> list[Configuration]:
        """The full factorial, first factor varying slowest, in the order of the file."""
        names = list(self.factors)
        configs = []
        for index, levels in enumerate(itertools.product(*self.factors.values())):
            params = {**dict(zip(names, levels, strict=True)), **self.fixed}
            configs.append(Configuration(index, config_id(params), params))
        return configs

    def configuration(self, cid: str) -> Configuration:
        """The configuration with this config_id."""
        for config in self.configurations:
            if config.config_id == cid:
                return config
        raise KeyError(f"study {self.study} has no configuration {cid}")

    def runs(self) -> Iterator[Run]:
        """Every run: each configuration x replications 1..r."""
        for config in self.configurations:
            yield from config.runs(self)

    @property
    def n_runs(self) -> int:
        return len(self.configurations) * self.replications

    def column_types(self) -> dict[str, str]:
        """The store's type of each factor and fixed parameter: bool, int, float or str."""
        values = {name: list(levels) for name, levels in self.factors.items()}
        values.update({name: [value] for name, value in self.fixed.items()})
        return {name: _common_type(vals) for name, vals in values.items()}


@dataclass(frozen=True)
class Configuration:
    """One design point: the values of every factor plus the fixed parameters."""

    index: int
    config_id: str
    params: dict[str, Any]

    def runs(self, design: Design) -> list[Run]:
        return [
            Run(
                study=design.study,
                config_id=self.config_id,
                replication=k,
                seed=design.base_seed,
                run=rng_run(design.base_seed, self.config_id, k),
                params=self.params,
            )
            for k in range(1, design.replications + 1)
        ]


@dataclass(frozen=True)
class Run:
    """One simulation: a configuration, its replication index k (1..r) and its random stream."""

    study: str
    config_id: str
    replication: int
    seed: int  # ns-3 RngSeed (--seed): the design's base_seed
    run: int  # ns-3 RngRun (--run): rng_run(base_seed, config_id, replication)
    params: dict[str, Any]

    def flags(self) -> dict[str, Any]:
        """Everything satnet gets for this run (without --out)."""
        return {**self.params, "seed": self.seed, "run": self.run}


def config_id(params: dict[str, Any]) -> str:
    """The stable id of a configuration: 12 hex digits of the sha256 of its effective parameters.

    The parameters are serialised as canonical JSON (keys sorted, each value as the text satnet
    gets, see :func:`satsweep.engine.flag_value`), so neither the order of keys in the file nor
    ``5`` versus ``"5"`` or ``2.0`` versus ``2`` changes it; replication and seed are not part of it.
    """
    canonical = json.dumps(
        {name: engine.flag_value(value) for name, value in params.items()},
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode()).hexdigest()[:12]


def rng_run(base_seed: int, cid: str, replication: int) -> int:
    """ns-3 RngRun of replication k of a configuration: 1 + (first 8 bytes, big-endian, of
    sha256("satsweep:<base_seed>:<config_id>:<k>")) mod (2**32 - 1), in 1 .. 2**32 - 1.

    It depends on nothing else, so raising r keeps every existing run's stream and adds new ones.
    """
    digest = hashlib.sha256(f"satsweep:{base_seed}:{cid}:{replication}".encode()).digest()
    return 1 + int.from_bytes(digest[:8], "big") % MAX_RNG


def _common_type(values: list[Any]) -> str:
    kinds = {type(v) for v in values}
    if kinds == {bool}:
        return "bool"
    if kinds == {int}:
        return "int"
    if kinds <= {int, float}:
        return "float"
    return "str"


_FIELD_HELP = {
    "study": "a name of letters, digits, '.', '_', '-' (it names results/<study>/)",
    "description": "text",
    "factors": "a mapping of satnet flag -> list of levels (strings or numbers)",
    "fixed": "a mapping of satnet flag -> one value",
    "replications": "an integer >= 1",
    "base_seed": f"an integer from 1 to {MAX_RNG}",
    "resources": "a mapping with mem_mb (an integer >= 1)",
}


def _describe(error: dict[str, Any]) -> tuple[str, str]:
    """(field, message) of one pydantic error, with what is allowed."""
    loc = [str(part) for part in error["loc"]]
    # a Level union reports one error per member type: keep the field, drop the type name
    while loc and loc[-1] in ("bool", "int", "float", "str"):
        loc.pop()
    field = ".".join(loc) or "(top level)"
    kind, message = error["type"], error["msg"].removeprefix("Value error, ")
    top = loc[0] if loc else ""
    if kind == "extra_forbidden":
        return field, f"unknown field; allowed: {', '.join(_FIELD_HELP)}"
    if kind == "missing":
        return field, f"missing; allowed: {_FIELD_HELP.get(top, 'a value')}"
    if kind == "value_error":
        return field, message
    if top in ("factors", "fixed") and len(loc) >= 2:
        got = error.get("input")
        return field, f"{got!r} is not allowed; allowed: a string, a number or true/false"
    got = error.get("input")
    shown = f"{got!r} is not allowed" if not isinstance(got, dict | list) else message
    return field, f"{shown}; allowed: {_FIELD_HELP.get(top, message)}"


def _check_names_and_levels(raw: dict[str, Any]) -> list[tuple[str, str]]:
    """Problems of the factor and parameter names and of the level lists (shape permitting)."""
    known = set(engine.satnet_flag_names())
    allowed = ", ".join(sorted(known - set(RESERVED_FLAGS), key=str.lower))
    factors = raw.get("factors") if isinstance(raw.get("factors"), dict) else {}
    fixed = raw.get("fixed") if isinstance(raw.get("fixed"), dict) else {}
    problems = []
    for section, names in (("factors", factors), ("fixed", fixed)):
        for name in names:
            if name in RESERVED_FLAGS:
                problems.append((f"{section}.{name}", f"reserved: {RESERVED_FLAGS[name]}"))
            elif name not in known:
                what = "unknown factor" if section == "factors" else "unknown satnet flag"
                problems.append((f"{section}.{name}", f"{what} '{name}'; allowed: {allowed}"))
            elif section == "fixed" and name in factors:
                problems.append(
                    (f"fixed.{name}", f"'{name}' is also a factor; allowed: a flag in one of both")
                )
    for name, levels in factors.items():
        if not isinstance(levels, list):
            continue
        if not levels:
            problems.append((f"factors.{name}", "empty level list; allowed: one or more levels"))
        seen: set[str] = set()
        for level in levels:
            text = engine.flag_value(level)
            if text in seen:
                problems.append(
                    (
                        f"factors.{name}",
                        f"duplicate level {level!r} (satnet would get --{name}={text} twice); "
                        "allowed: distinct levels",
                    )
                )
            seen.add(text)
    return problems


def load_design(path: str | Path) -> Design:
    """Reads and validates a sweep file; raises DesignError naming file, field and what is allowed."""
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text())
    except OSError as e:
        raise DesignError(f"{path}: cannot read the sweep file: {e.strerror or e}") from e
    except yaml.YAMLError as e:
        raise DesignError(f"{path}: not valid YAML: {e}") from e
    if not isinstance(raw, dict):
        raise DesignError(f"{path}: (top level): allowed: a mapping with {', '.join(_FIELD_HELP)}")
    problems = _check_names_and_levels(raw)
    try:
        design = Design.model_validate(raw)
    except ValidationError as e:
        problems += map(_describe, e.errors())
    if problems:
        lines = [f"{path}: {field}: {message}" for field, message in problems]
        raise DesignError("\n".join(dict.fromkeys(lines))) from None
    streams: dict[int, Run] = {}
    for run in design.runs():
        other = streams.setdefault(run.run, run)
        if other is not run:  # 2**32 streams: a collision is rare but would correlate two runs
            raise DesignError(
                f"{path}: base_seed: {design.base_seed} gives runs {other.config_id}/r"
                f"{other.replication} and {run.config_id}/r{run.replication} the same ns-3 "
                "RngRun; allowed: another base_seed"
            )
    return design
