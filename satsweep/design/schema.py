"""The schema of a sweep design: a YAML file describing a factorial design of a program's runs
(the full factorial, a two-level fraction of it, the full factorial less excluded
combinations, or an explicit list of configurations).

A design names a study, the program that simulates it (docs/engine-contract.md), its factors
(parameter -> list of levels), fixed parameters, the number of replications r and a base seed,
and optionally what its analysis looks at::

    study: goyal98-quick
    description: the paper's 4 x 2 x 3 design on three links, scaled down
    program: satnet
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
    analysis: {responses: [efficiency, fairness], by: link, factors: [drop, flavor, bufferRtt]}

The ``analysis`` section may also name the study's theory, drawn beside the results: an
installed theory's name (``theory: barakat``) or a Python file defining ``THEORY``, relative to
the design file (``theory: ./my_theory.py``; :func:`satsweep.theory.theory`), and ``traces``,
figures of one of the program's tables, each ``{table, x, y: [columns], series, title, replications}`` (x and y
numeric columns of the table, series any column of it: one line per value; replications
``first``, the first run of each configuration, or ``mean``, the mean over its runs with a t
interval, and with ``mean`` x may be a factor with numeric levels), e.g.
``traces: [{table: cwnd, x: time, y: [cwnd, ssthresh], series: transfer}]`` or
``traces: [{table: connections, x: pool, y: [throughput], series: connection, replications:
mean}]``.

Instead of the full factorial a design may run (docs/designs.md):

- a 2^(k-p) fraction of two-level factors, by its generators or the resolution it needs,
  ``fraction: {generators: ["D = A:B:C"]}`` or ``fraction: {resolution: 4}``
  (:mod:`satsweep.design.fraction`); design.json records its generators, resolution and
  defining relation;
- the full factorial less the combinations an entry of ``exclude`` matches, each entry a map of
  factor -> level (or list of levels), e.g. ``exclude: [{flavor: vanilla, drop: sd}]``;
- an explicit list, ``configurations: [{flavor: reno, drop: sd}, ...]`` instead of
  ``factors`` (each entry sets the same parameters; the factors are those parameters, their
  levels in order of appearance).

A configuration's ``config_id`` is the hash of its effective parameters whichever way it comes.

Instead of ``program`` a design may cross several programs that take its parameters,
``simulators: {ns3: {program: satnet, fixed: {tcpModel: ns2}}, omnetpp: {program: omnetpp,
ini: ..., config: ...}}`` (docs/designs.md): their names are the levels of the factor
``simulator`` (:data:`~satsweep.engine.crossed.SIMULATOR`, first unless ``factors`` names it),
each with its program's adapter keys and ``fixed``, the parameters only it takes; each run is
made by its simulator's program (:class:`~satsweep.engine.crossed.Crossed`).

:func:`~satsweep.design.load_design` validates a file against the schema and the program's
``--describe`` (errors name the file, the field and what is allowed) and :meth:`Design.runs`
expands it into its configurations x r, each run with its ``config_id`` and random stream (see
:func:`~satsweep.design.config_id` and :func:`~satsweep.design.rng_run`).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from array import array
from collections.abc import Iterator
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StrictBool,
    ValidationInfo,
    field_validator,
    model_validator,
)

from satsweep.design.expansion import MAX_REPLICATIONS, MAX_RNG, Configuration, Run, config_id
from satsweep.design.fraction import Fraction, FractionError, choose_generators
from satsweep.engine import Description, Program, flags, value_text
from satsweep.engine.adapters import adapter as find_adapter
from satsweep.engine.crossed import SIMULATOR
from satsweep.engine.description import STUDY_PATTERN
from satsweep.theory import theory_file

__all__ = [
    "MAX_QUOTED",
    "AnalysisSettings",
    "Design",
    "DesignError",
    "FractionSettings",
    "Precision",
    "Resources",
    "SimulatorSettings",
    "Target",
    "SteadySettings",
    "TraceSettings",
    "clip",
    "quoted",
]

Level = StrictBool | int | float | str


class DesignError(ValueError):
    """A sweep file that cannot be run; the message names the file, the field and what is allowed."""


#: The characters of a value or name from a file that a message quotes.
MAX_QUOTED = 60


def clip(text: str) -> str:
    """Text from a file, as a message quotes it: cut to :data:`MAX_QUOTED` characters."""
    return text if len(text) <= MAX_QUOTED else text[: MAX_QUOTED - 3] + "..."


def quoted(value: object) -> str:
    """``repr(value)`` for a message, cut (:func:`clip`): a value may be as large as its file."""
    return clip(repr(value))


class Resources(BaseModel):
    """What one job (one configuration, its replications run one after the other) asks for."""

    model_config = ConfigDict(extra="forbid")
    mem_mb: int = Field(default=512, ge=1)
    #: each run's time limit in wall seconds (None: none): a run past it is killed with its
    #: process group and recorded as failed ("timed out after N s")
    timeout_s: float | None = Field(default=None, gt=0, allow_inf_nan=False, strict=True)


class TraceSettings(BaseModel):
    """A figure of the report drawn from one of the program's tables: its ``y`` columns against
    ``x``, one line per value of ``series`` (e.g. a transfer) if given. With ``replications:
    first`` (the default) one panel per configuration, its first run's rows; with ``mean`` the
    mean over the configuration's replications at each x with its t confidence interval (the
    report's confidence). ``x`` is a numeric column of the table, or (with ``mean``) a factor of
    the design with numeric levels: then one panel per configuration of the other factors, each
    run's rows first averaged per series. A column of the table wins over a factor of the same
    name."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    table: str
    x: str
    y: list[str] = Field(min_length=1)
    series: str | None = None
    title: str = ""
    replications: Literal["first", "mean"] = "first"


class SteadySettings(BaseModel):
    """A steady-state response (docs/steady-state.md): per run, the time average of ``y`` of
    one of the program's tables over its rows from the warm-up on (``x`` at least the warm-up;
    rows sharing an ``x``, e.g. one per connection, add up first), or with ``per`` the ratio
    sum(y) / sum(per) over those rows. ``warmup``: ``auto`` (each configuration's MSER-5
    truncation point on its replications' mean series) or a number of ``x``'s unit, the same
    for every configuration. ``length``: the parameter that sets a run's length in ``x``'s unit
    (e.g. simTime), which a precision campaign may then grow instead of the replications."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    response: str
    table: str
    x: str = "time"
    y: str
    per: str | None = None
    warmup: Literal["auto"] | float = "auto"
    length: str | None = None

    @field_validator("warmup", mode="before")
    @classmethod
    def _warmup(cls, value: Any) -> Any:
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if value != "auto" and not (number and math.isfinite(value) and value >= 0):
            raise ValueError(f"{quoted(value)} is not allowed; allowed: auto, or a number >= 0")
        return value


class Target(BaseModel):
    """A precision asked of one response: the largest confidence-interval half-width, absolute
    (``halfwidth``, in the response's unit) or relative to the mean (``relative``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    response: str
    halfwidth: float | None = Field(default=None, gt=0)
    relative: float | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _one_kind(self) -> Target:
        if (self.halfwidth is None) == (self.relative is None):
            raise ValueError("give one of halfwidth (absolute) or relative")
        return self


class Precision(BaseModel):
    """Replications until the confidence intervals are as narrow as asked: at least ``min``, at
    most ``max`` per configuration; ``until`` the targets, applying to every main effect of the
    analysis (``over: effects``) or to every configuration's mean (``over: configurations``).
    ``max_length``: the longest run the campaign may make, in the unit of the steady responses'
    ``length`` parameter; with it, a round may grow the runs instead of the replications, the
    cheaper of the two (docs/steady-state.md, "Run length as a lever")."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    min: int = Field(ge=2, le=MAX_REPLICATIONS)
    max: int = Field(ge=2, le=MAX_REPLICATIONS)
    until: list[Target] = Field(min_length=1)
    over: Literal["effects", "configurations"] = "effects"
    max_length: float | None = Field(default=None, gt=0, allow_inf_nan=False)

    @model_validator(mode="before")
    @classmethod
    def _one_target(cls, data: Any) -> Any:
        # `until` may be one target or a list of them
        if isinstance(data, dict) and isinstance(data.get("until"), dict):
            return {**data, "until": [data["until"]]}
        return data

    @model_validator(mode="after")
    def _ordered(self) -> Precision:
        if self.max < self.min:
            raise ValueError(f"max {self.max} is below min {self.min}")
        return self


class FractionSettings(BaseModel):
    """A 2^(k-p) fraction of the design's two-level factors: its ``generators`` (``"D =
    A:B:C"``, :func:`~satsweep.design.fraction.parse_generator`), or the ``resolution`` it
    needs (the smallest fraction found, :func:`~satsweep.design.fraction.choose_generators`),
    or both (the generators' resolution is checked). Resolution III at least: below it two main
    effects would be one estimate."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    generators: list[str] | None = Field(default=None, min_length=1)
    resolution: int | None = Field(default=None, ge=3, le=64)
    # what design.json records beside the generators; when given, it must be theirs
    defining_relation: list[str] | None = None

    @model_validator(mode="after")
    def _asked(self) -> FractionSettings:
        if self.generators is None and self.resolution is None:
            raise ValueError(
                "give generators (e.g. ['D = A:B:C']), a resolution (3, 4, ...) or both"
            )
        return self

    def build(self, factors: dict[str, list[Any]]) -> Fraction:
        """The fraction of these factors; FractionError says why there is none."""
        names = list(factors)
        if several := [f"'{n}' has {len(v)}" for n, v in factors.items() if len(v) != 2]:
            raise FractionError(
                f"factor {several[0]} levels; allowed: two levels for every factor of a fraction "
                "(multi-level factors crossed with a fraction are not supported: the analysis "
                "could not state what their interactions estimate)"
            )
        if self.generators is not None:
            fraction = Fraction.from_text(names, self.generators)
        else:
            fraction = choose_generators(names, self.resolution or 3)
        # the resolution first, word by word: below III the relation may have 2^19 words
        got, asked = fraction.resolution, self.resolution or 3
        if got is not None and got < asked:
            why = (
                "main effects aliased with each other" if got < 3 else "below the resolution asked"
            )
            p = len(fraction.generators)
            relation = (  # written out only while it is short
                f"I = {clip(' = '.join(fraction.defining_text()[1:]))}"
                if p <= 10
                else f"of {2**p} words"
            )
            raise FractionError(
                f"generators {clip(', '.join(fraction.generator_text()))} give resolution {got} "
                f"(defining relation {relation}), {why}; allowed: generators of resolution "
                f"{asked} or more"
            )
        if self.defining_relation not in (None, fraction.defining_text()):
            raise FractionError(
                f"defining_relation {quoted(self.defining_relation)} is not the one of "
                f"generators {clip(', '.join(fraction.generator_text()))}; allowed: theirs, or "
                "none (satsweep records it)"
            )
        return fraction


class AnalysisSettings(BaseModel):
    """What the study's analysis and report look at by default (each may be given instead on
    the command line): responses (summary fields), the factors in the order of the report's
    tables (the last one makes the columns) and a factor to analyse per level of; the study's
    theory (an installed theory's name or a file, :func:`satsweep.theory.theory`), drawn beside
    the results; and the traces, figures of the program's tables."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    responses: list[str] | None = Field(default=None, min_length=1)
    factors: list[str] | None = Field(default=None, min_length=1)
    by: str | None = None
    theory: str | None = None
    traces: list[TraceSettings] = Field(default_factory=list)
    steady: list[SteadySettings] = Field(default_factory=list)


def _adapter_keys(data: Any) -> Any:
    """A design's (or a simulator's) keys of its adapter (``program:``) as its options, which
    the adapter checks: ``adapter_options``."""
    if isinstance(data, dict) and "adapter_options" in data:
        raise ValueError("adapter_options: not a field of a design")
    adapter = find_adapter(data.get("program")) if isinstance(data, dict) else None
    if adapter is None:
        return data
    keys = adapter.options.model_fields
    given = {k: v for k, v in data.items() if k in keys}
    return {k: v for k, v in data.items() if k not in keys} | {"adapter_options": given}


class SimulatorSettings(BaseModel):
    """One level of a crossed design's factor ``simulator``: its program (as a design's
    ``program:``, with its adapter's keys) and the parameters only this program takes, fixed."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    program: str = Field(min_length=1)
    adapter_options: dict[str, Any] = Field(default_factory=dict)
    fixed: dict[str, Level] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _adapter_keys(cls, data: Any) -> Any:
        return _adapter_keys(data)

    def resolved(self) -> dict[str, Any]:
        """As design.json records it: the program, its adapter's options as keys of their own
        (:meth:`Adapter.recorded`), the fixed parameters when there are."""
        said: dict[str, Any] = {"program": self.program}
        adapter = find_adapter(self.program)
        if adapter is not None:
            said |= adapter.recorded(adapter.options.model_validate(self.adapter_options))
        return said | ({"fixed": self.fixed} if self.fixed else {})


class Design(BaseModel):
    """A validated sweep design. Build it with :func:`load_design`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    study: str = Field(pattern=STUDY_PATTERN, max_length=100)
    description: str = ""
    # None: the design crosses the programs of `simulators`
    program: str | None = Field(min_length=1)
    # the levels of the factor `simulator` (SIMULATOR), each with its program: a crossed design
    simulators: dict[str, SimulatorSettings] | None = Field(default=None, min_length=2)
    # an adapter's design keys (satsweep.engine.adapters), as the file gives them: the
    # adapter validates them; design.json records them as keys of their own
    adapter_options: dict[str, Any] = Field(default_factory=dict)
    factors: dict[str, list[Level]] = Field(min_length=1)
    fixed: dict[str, Level] = Field(default_factory=dict)
    # the configurations as a list (the file's `configurations:`, which sets `factors`)
    listed: list[dict[str, Level]] | None = Field(default=None, alias="configurations")
    fraction: FractionSettings | None = None
    exclude: list[dict[str, Level | list[Level]]] = Field(default_factory=list)
    replications: int = Field(ge=1, le=MAX_REPLICATIONS)
    # replications: {min, max, until}: rounds until the precision; replications is then the
    # number of the current round (min at first)
    precision: Precision | None = None
    # a round of a campaign over configurations: the configurations (config_id) that have more
    # replications than `replications`, with their own r; set by `satsweep run`, never by a file
    replications_of: dict[str, int] = Field(default_factory=dict)
    base_seed: int = Field(default=1, ge=1, le=MAX_RNG)
    # how run numbers are derived (rng_run): 2, or 1 for the stores made before 2 existed
    streams: Literal[1, 2] = 2
    resources: Resources = Field(default_factory=Resources)
    analysis: AnalysisSettings = Field(default_factory=AnalysisSettings)
    _executable: Program | None = PrivateAttr(default=None)
    _source: Path | None = PrivateAttr(default=None)
    # the configurations' ids once expanded (iter_configurations), 8 bytes each: a command
    # expands a design at least twice (the stream check, then the state or the plan), and
    # the ids' sha256 were half of it. Copies share it: none changes the parameters.
    _ids: array | None = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def _adapter_keys(cls, data: Any) -> Any:
        """The keys of the design's adapter (``program:``) are its options, which it checks."""
        return _adapter_keys(data)

    @model_validator(mode="before")
    @classmethod
    def _simulator_factor(cls, data: Any) -> Any:
        """``simulators:`` makes the factor ``simulator``, its levels the simulators', first
        (varying slowest) unless ``factors`` or the configurations name it themselves."""
        if not isinstance(data, dict) or data.get("simulators") is None:
            return data  # a program's design (without one, `program` is missing)
        if data.get("program") is not None:
            raise ValueError("give program or simulators (a crossed design), not both")
        simulators, factors = data["simulators"], data.get("factors")
        data = {**data, "program": None}
        listed = data.get("configurations") is not None  # its entries set the simulator
        if isinstance(simulators, dict) and isinstance(factors, dict) and SIMULATOR not in factors:
            if not listed:
                return {**data, "factors": {SIMULATOR: list(simulators), **factors}}
        return data

    @model_validator(mode="before")
    @classmethod
    def _precision(cls, data: Any) -> Any:
        """``replications: {min, max, until}`` asks for precision: it starts at min."""
        if isinstance(data, dict) and isinstance(data.get("replications"), dict):
            asked = data["replications"]
            start = asked.get("min") if isinstance(asked.get("min"), int) else 2
            return {**data, "replications": start, "precision": asked}
        return data

    @model_validator(mode="before")
    @classmethod
    def _listed_factors(cls, data: Any) -> Any:
        """``configurations:`` sets the factors: the parameters its entries set, each with its
        values in order of appearance. Every entry sets the same parameters, once each."""
        if not isinstance(data, dict) or data.get("configurations") is None:
            return data
        if "factors" in data:
            raise ValueError("give factors or configurations, not both")
        if "fraction" in data or "exclude" in data:
            raise ValueError("configurations: a list takes no fraction nor exclude")
        listed = data["configurations"]
        if (
            not isinstance(listed, list)
            or not listed
            or not all(isinstance(c, dict) for c in listed)
        ):
            return data  # the field's own validation says what is allowed
        names = list(listed[0])
        factors: dict[str, list[Any]] = {name: [] for name in names}
        # each factor's levels so far by their text: linear in the entries (was quadratic)
        levels: dict[str, set[str]] = {name: set() for name in names}
        seen: dict[tuple[str, ...], int] = {}
        for i, entry in enumerate(listed):
            if set(entry) != set(names):
                raise ValueError(
                    f"configurations[{i}] sets {', '.join(map(str, entry)) or 'nothing'}; allowed: "
                    f"the parameters configurations[0] sets ({', '.join(names)}), every one"
                )
            key = tuple(value_text(entry[name]) for name in names)
            if key in seen:
                raise ValueError(f"configurations[{i}] is configurations[{seen[key]}] again")
            seen[key] = i
            for name, text in zip(names, key, strict=True):
                if text not in levels[name]:
                    levels[name].add(text)
                    factors[name].append(entry[name])
        return {**data, "factors": factors}

    @field_validator("fraction")
    @classmethod
    def _fraction(cls, fraction: FractionSettings | None, info: ValidationInfo) -> Any:
        """The fraction is built now: generators that give none are refused with the file."""
        if fraction is not None and "factors" in info.data:
            try:
                fraction.build(info.data["factors"])
            except FractionError as e:
                raise ValueError(str(e)) from None
        return fraction

    @field_validator("exclude")
    @classmethod
    def _exclude(cls, exclude: list[dict[str, Any]], info: ValidationInfo) -> Any:
        """Each entry names factors and levels of them; not with a fraction (it would lose the
        balance its analysis rests on)."""
        factors = info.data.get("factors", {})
        if exclude and info.data.get("fraction") is not None:
            raise ValueError("not with a fraction (its analysis needs every run of it)")
        for i, entry in enumerate(exclude):
            if not entry:
                raise ValueError(f"[{i}] is empty; allowed: a map of factor -> level(s)")
            for name, value in entry.items():
                if name not in factors:
                    raise ValueError(
                        f"[{i}]: '{name}' is not a factor; allowed: {', '.join(factors)}"
                    )
                texts = [value_text(level) for level in factors[name]]
                for level in value if isinstance(value, list) else [value]:
                    if value_text(level) not in texts:
                        raise ValueError(
                            f"[{i}].{name}: {quoted(level)} is not a level of {name}; allowed: "
                            f"{', '.join(texts)}"
                        )
        return exclude

    @model_validator(mode="after")
    def _simulator_levels(self) -> Design:
        """A crossed design's factor ``simulator`` takes only its simulators' names."""
        if self.simulators is None:
            return self
        if SIMULATOR not in self.factors:  # a list's entries leave it out
            raise ValueError(
                f"configurations: every entry sets {SIMULATOR}; allowed: "
                + ", ".join(self.simulators)
            )
        if SIMULATOR in self.fixed:
            raise ValueError(
                f"fixed.{SIMULATOR}: the factor of simulators; allowed: levels of factors."
                f"{SIMULATOR}, or a design of one program"
            )
        for level in self.factors.get(SIMULATOR, []):
            if value_text(level) not in self.simulators:
                raise ValueError(
                    f"factors.{SIMULATOR}: {quoted(level)} is not a simulator; allowed: "
                    + ", ".join(self.simulators)
                )
        return self

    @model_validator(mode="after")
    def _something_left(self) -> Design:
        if self.exclude and self.n_configurations == 0:
            raise ValueError(
                "exclude: every configuration is excluded; allowed: entries that leave some"
            )
        return self

    def with_replications(self, replications: int, of: dict[str, int] | None = None) -> Design:
        """The same design with ``replications`` per configuration, or with ``of`` (config_id ->
        r) for the configurations that have more (a round of a precision campaign), its file and
        program kept."""
        more = {cid: r for cid, r in (of or {}).items() if r > replications}
        return self.model_copy(update={"replications": replications, "replications_of": more})

    def with_length(self, value: float) -> Design:
        """The same design with its runs of length ``value``, rounded up for an ``int`` length (a
        round of a precision campaign that grows the runs, :attr:`length_parameter`): other
        configurations, with ids of their own, in the same order (a configuration's own
        replications follow it); its file and program kept."""
        name = self.length_parameter
        if name is None:
            raise ValueError(f"study {self.study} has no run length to grow")
        parameter = self.describe.parameter(name)
        if parameter is not None and parameter.type == "int":  # 1200, not 1200.0: another id
            value = math.ceil(value)
        before = [c.config_id for c in self.iter_configurations()]
        longer = self.model_copy(update={"fixed": {**self.fixed, name: value}})
        longer._ids = None  # other parameters: other ids
        longer.__dict__.pop("configurations", None)
        after = [c.config_id for c in longer.iter_configurations()]
        of = dict(zip(before, after, strict=True))
        return longer.with_replications(
            self.replications, {of[cid]: r for cid, r in self.replications_of.items() if cid in of}
        )

    @property
    def length_parameter(self) -> str | None:
        """The parameter a precision campaign may grow (``replications.max_length``): the
        ``length`` of the steady responses (checked to be one, fixed); None without one."""
        if self.precision is None or self.precision.max_length is None:
            return None
        return next((s.length for s in self.analysis.steady if s.length is not None), None)

    def fixed_number(self, name: str) -> float | None:
        """The number every run gives the parameter ``name``: fixed, else the program's
        default; None when that is no number."""
        parameter = self.describe.parameter(name)
        value = self.fixed.get(name, parameter.default if parameter is not None else None)
        number = isinstance(value, int | float) and not isinstance(value, bool)
        return float(value) if number else None

    @property
    def run_length(self) -> float | None:
        """The runs' length in :attr:`length_parameter`'s unit (:meth:`fixed_number`), None
        without one."""
        name = self.length_parameter
        return None if name is None else self.fixed_number(name)

    def replications_for(self, config_id: str) -> int:
        """The replications of one configuration: its own in a round over configurations, else
        ``replications``."""
        return self.replications_of.get(config_id, self.replications)

    @property
    def most_replications(self) -> int:
        """The replications of the configuration that has the most."""
        return max([self.replications, *self.replications_of.values()])

    def replications_text(self) -> str:
        """The replications as a reader is told them: ``5``, or ``3..9`` when the
        configurations have their own."""
        most = self.most_replications
        return f"{self.replications}" + (f"..{most}" if most > self.replications else "")

    def round_text(self) -> str:
        """A precision campaign's round as a reader is told it: ``r = 5``, with the runs'
        length when the campaign may grow it (``r = 5, steps = 1200``)."""
        length = self.run_length
        said = f", {self.length_parameter} = {length:g}" if length is not None else ""
        return f"r = {self.replications_text()}{said}"

    @property
    def balanced(self) -> bool:
        """Whether every configuration has the same replications (the factorial analysis needs
        it; else it takes replications 1..``replications`` of each)."""
        return not self.replications_of

    @property
    def source(self) -> Path:
        """The design file (absolute), as :func:`load_design` read it."""
        if self._source is None:
            raise RuntimeError("a Design's file is set by load_design")
        return self._source

    @property
    def theory_file(self) -> Path | None:
        """The file of the design's theory when it names one (``analysis.theory: ./x.py``),
        absolute: the store records it beside the design, for the report to find it."""
        spec = self.analysis.theory
        if spec is None or theory_file(spec) is None:  # none, or an installed one's name
            return None
        return theory_file(spec, self.source.parent)

    @property
    def executable(self) -> Program:
        """The program the design names, or the crossing of its simulators' programs
        (:class:`~satsweep.engine.crossed.Crossed`), resolved by :func:`load_design`."""
        if self._executable is None:
            raise RuntimeError("a Design's program is resolved by load_design")
        return self._executable

    @property
    def describe(self) -> Description:
        """The program's ``--describe``."""
        return self.executable.description

    @cached_property
    def fractional(self) -> Fraction | None:
        """The fraction the design runs (None: not a fraction)."""
        return self.fraction.build(self.factors) if self.fraction is not None else None

    @cached_property
    def _exclusion(self) -> dict[str, list[int]]:
        """For each factor that an entry of ``exclude`` names, the entries that match each of
        its levels (in the factor's order), as bits (bit i: entry i; an entry that does not
        name the factor matches every level of it)."""
        masks = {}
        for name in dict.fromkeys(name for entry in self.exclude for name in entry):
            texts = [value_text(level) for level in self.factors[name]]
            bits = [0] * len(texts)
            for i, entry in enumerate(self.exclude):
                given = entry.get(name)
                said = given if isinstance(given, list) else [given]
                matched = {value_text(v) for v in said} if name in entry else set(texts)
                for j, text in enumerate(texts):
                    if text in matched:
                        bits[j] |= 1 << i
            masks[name] = bits
        return masks

    def _kept(self, names: list[str]) -> Iterator[tuple[int, ...]]:
        """The combinations of levels of the factors ``names`` (level indices, the first
        varying slowest) that no entry of ``exclude`` matches: the entries that match each
        factor's level, intersected (one AND per factor ``exclude`` names, not a look at
        every entry: 2^19 configurations less 340 entries took minutes)."""
        every = (1 << len(self.exclude)) - 1
        masks = [(j, self._exclusion[n]) for j, n in enumerate(names) if n in self._exclusion]
        for point in itertools.product(*(range(len(self.factors[n])) for n in names)):
            matching = every
            for j, bits in masks:
                matching &= bits[point[j]]
                if not matching:
                    break
            if not matching:
                yield point

    def _level_maps(self) -> Iterator[dict[str, Any]]:
        """Each configuration's factor levels, in the design's order."""
        names = list(self.factors)
        if self.listed is not None:
            for entry in self.listed:
                yield {name: entry[name] for name in names}
        elif self.fractional is not None:
            for signs in self.fractional.rows():  # the first level is -1, the second +1
                yield {n: self.factors[n][s > 0] for n, s in zip(names, signs, strict=True)}
        elif not self.exclude:
            for levels in itertools.product(*self.factors.values()):
                yield dict(zip(names, levels, strict=True))
        else:
            values = list(self.factors.values())
            for point in self._kept(names):
                yield {n: values[j][i] for j, (n, i) in enumerate(zip(names, point, strict=True))}

    def _params(self, levels: dict[str, Any]) -> dict[str, Any]:
        """A configuration's parameters: its levels, the fixed parameters and, crossed, its
        simulator's own fixed parameters."""
        if self.simulators is None:
            return {**levels, **self.fixed}
        own = self.simulators[value_text(levels[SIMULATOR])].fixed
        return {**levels, **self.fixed, **own}

    def iter_configurations(self) -> Iterator[Configuration]:
        """The configurations (the full factorial, first factor varying slowest, in the order
        of the file; the fraction's rows; or the list), one at a time (only their ids are kept
        in memory, once they have all been expanded)."""
        ids = self._ids
        if ids is not None:
            for index, levels in enumerate(self._level_maps()):
                yield Configuration(index, f"{ids[index]:012x}", self._params(levels))
            return
        found = array("Q")
        for index, levels in enumerate(self._level_maps()):
            params = self._params(levels)
            cid = config_id(params)
            found.append(int(cid, 16))
            yield Configuration(index, cid, params)
        self._ids = found  # only an expansion to its end

    @cached_property
    def configurations(self) -> list[Configuration]:
        """Every configuration (:meth:`iter_configurations`), as a list."""
        return list(self.iter_configurations())

    def covering_configurations(self) -> list[Configuration]:
        """Few configurations that together take every level of every factor (each level some
        configuration takes), for a trial of each level, in the order they are picked: the first
        configuration first, and none takes more levels not yet taken than one before it (the
        first N of them are the best N to try). Passes in order, each taking the configurations
        that take at least ``need`` levels not yet taken, ``need`` from the number of factors
        down to 1: a full factorial gets as many as its largest factor has levels (its
        diagonal), in at most one pass per factor."""
        names = list(self.factors)
        left = {(n, value_text(level)) for n, levels in self.factors.items() for level in levels}
        picked: dict[int, dict[str, Any]] = {}
        for need in range(len(names), 0, -1):
            for index, levels in enumerate(self._level_maps()):
                if not left:
                    break
                pairs = {(n, value_text(levels[n])) for n in names} & left
                if len(pairs) >= need:
                    picked[index] = levels
                    left -= pairs
        return [
            Configuration(index, config_id(params), params)
            for index, levels in picked.items()
            for params in [self._params(levels)]
        ]

    def configuration(self, cid: str) -> Configuration:
        """The configuration with this config_id."""
        for config in self.iter_configurations():
            if config.config_id == cid:
                return config
        raise KeyError(f"study {self.study} has no configuration {cid}")

    def runs(self) -> Iterator[Run]:
        """Every run: each configuration x replications 1..r."""
        for config in self.iter_configurations():
            yield from config.runs(self)

    @cached_property
    def n_configurations(self) -> int:
        """The number of configurations, from the factors' level counts (nothing expanded but
        the combinations of the factors ``exclude`` names)."""
        if self.listed is not None:
            return len(self.listed)
        full = math.prod(len(levels) for levels in self.factors.values())
        if self.fractional is not None:
            return full >> len(self.fractional.generators)
        named = [n for n in self.factors if any(n in entry for entry in self.exclude)]
        if not named:
            return full
        others = math.prod(len(v) for n, v in self.factors.items() if n not in named)
        return others * sum(1 for _ in self._kept(named))

    @property
    def n_runs(self) -> int:
        more = sum(r - self.replications for r in self.replications_of.values())
        return self.n_configurations * self.replications + more

    @property
    def most_runs(self) -> int:
        """The runs the design may come to: configurations x r, or x max for a precision
        campaign (what ``--max-runs`` is checked against)."""
        most = self.precision.max if self.precision is not None else self.replications
        return self.n_configurations * most

    def stream_clash(self) -> str | None:
        """None when every run has its own random stream, else which two runs share one.
        With ``streams: 2`` distinct configurations have distinct streams by construction, so
        only config_ids are compared (memory grows with the configurations); with
        ``streams: 1`` every run number is."""
        programs = self._executable.programs() if self._executable is not None else []
        if any(p.stream is not None for p in programs):
            # a program's own streams are fewer: each run's is checked, per program
            taken: dict[tuple[int, int], Run] = {}
            for run in self.runs():
                program = self.executable.program_for(run.params)
                if program.stream is None:
                    continue
                other = taken.setdefault((id(program), program.stream(run.run)), run)
                if other is not run:
                    return (
                        f"runs {other.config_id}/r{other.replication} and {run.config_id}/r"
                        f"{run.replication} would get the same random stream of "
                        f"{program.name} (run numbers {other.run} and {run.run}); "
                        "allowed: another base_seed"
                    )
            return None
        if self.streams == 2:
            seen: dict[str, int] = {}
            for config in self.iter_configurations():
                index = seen.setdefault(config.config_id, config.index)
                if index != config.index:  # a 48-bit hash: rare, but the store would mix them
                    other = next(itertools.islice(self.iter_configurations(), index, None))
                    return (
                        f"configurations {' '.join(flags(other.params))} and "
                        f"{' '.join(flags(config.params))} "
                        f"have the same config_id {config.config_id}; allowed: designs whose "
                        "configurations have distinct ids (split this one into two studies)"
                    )
            return None
        streams: dict[int, Run] = {}
        for run in self.runs():
            other = streams.setdefault(run.run, run)
            if other is not run:
                return (
                    f"base_seed: {self.base_seed} gives runs {other.config_id}/r"
                    f"{other.replication} and {run.config_id}/r{run.replication} the same "
                    "random stream (--run, streams: 1); allowed: another base_seed, or "
                    "streams: 2 in a new store"
                )
        return None

    def parameters(self) -> list[str]:
        """The design's parameters: its factors, then its fixed parameters, then (crossed) its
        simulators' own fixed parameters."""
        own = [name for s in (self.simulators or {}).values() for name in s.fixed]
        return list(dict.fromkeys([*self.factors, *self.fixed, *own]))

    def resolved(self) -> dict[str, Any]:
        """The design as the store records it: every field, defaults filled in (the program as
        the file names it; the store records its path and hash beside it), and an adapter's
        options as keys of their own, as the adapter records them: designs of other programs
        hash as they always did."""
        # the other designs' fields only when used: the designs before them hash as they did
        # (a list's factors come from it: it records the list alone)
        unused = {
            "listed": self.listed is None,
            "factors": self.listed is not None,
            "fraction": True,
            "exclude": not self.exclude,
            "program": self.program is None,
            "simulators": True,
        }
        resolved = self.model_dump(
            mode="json",
            by_alias=True,
            exclude={"adapter_options", *(name for name, skip in unused.items() if skip)},
        )
        if self.fractional is not None:
            resolved["fraction"] = {
                "generators": self.fractional.generator_text(),
                "resolution": self.fractional.resolution,
                "defining_relation": self.fractional.defining_text(),
            }
        if self.simulators is not None:
            resolved["simulators"] = {k: s.resolved() for k, s in self.simulators.items()}
        adapter = find_adapter(self.program)
        if adapter is not None:
            resolved |= adapter.recorded(adapter.options.model_validate(self.adapter_options))
        return resolved

    def stream_option(self, key: str) -> Any:
        """The value of the adapter's stream option ``key`` (given, else its default)."""
        adapter = find_adapter(self.program)
        assert adapter is not None
        return adapter.recorded(adapter.options.model_validate(self.adapter_options))[key]

    def with_options(self, **options: Any) -> Design:
        """The same design with these adapter options, and its program made again with them."""
        bound = self.model_copy(update={"adapter_options": {**self.adapter_options, **options}})
        bound._source = self._source
        base = self._source.parent if self._source is not None else Path.cwd()
        bound._executable = Program.find(self.program, base, bound.adapter_options)
        return bound

    def sha256(self) -> str:
        """The hash of :meth:`resolved` as canonical JSON: the same design file gives the same
        hash wherever it and its program are."""
        canonical = json.dumps(self.resolved(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()
