"""Sweep designs: a YAML file describing a full factorial design of a program's runs.

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

The ``analysis`` section may also name the study's theory (``theory: barakat``, a name of
:data:`satsweep.theory.THEORIES`, drawn beside the results) and ``traces``, figures of one of the
program's tables, each ``{table, x, y: [columns], series, title, replications}`` (x and y
numeric columns of the table, series any column of it: one line per value; replications
``first``, the first run of each configuration, or ``mean``, the mean over its runs with a t
interval, and with ``mean`` x may be a factor with numeric levels), e.g.
``traces: [{table: cwnd, x: time, y: [cwnd, ssthresh], series: transfer}]`` or
``traces: [{table: connections, x: pool, y: [throughput], series: connection, replications:
mean}]``.

:func:`load_design` validates a file against the schema and the program's ``--describe``
(errors name the file, the field and what is allowed) and :meth:`Design.runs` expands it into
the full factorial x r, each run with its ``config_id`` and random stream (see
:func:`config_id` and :func:`rng_run`).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StrictBool,
    ValidationError,
    model_validator,
)

from satsweep.engine import Description, Parameter, Program, ProgramError, flags, value_text
from satsweep.engine.adapters import adapter as find_adapter
from satsweep.engine.adapters import option_owners
from satsweep.engine.description import STUDY_PATTERN
from satsweep.theory import THEORIES

__all__ = [
    "RESERVED_PARAMETERS",
    "AnalysisSettings",
    "TraceSettings",
    "Configuration",
    "Design",
    "DesignError",
    "Run",
    "config_id",
    "load_design",
    "rng_run",
]

#: What satsweep passes every run itself (the contract): a design may not name them.
RESERVED_PARAMETERS = {
    "run": "satsweep derives each run's --run (its random stream) from base_seed, configuration "
    "and replication",
    "out": "satsweep chooses where results go",
}
#: The largest base_seed (and, with ``streams: 1``, the largest --run satsweep derives).
MAX_RNG = 2**32 - 1
#: Replications of a configuration: k takes the low 15 bits of a ``streams: 2`` run number.
MAX_REPLICATIONS = 2**15 - 1
#: The largest design (configurations x replications) satsweep takes without ``--max-runs``:
#: plan, status and run cost time and memory in proportion to it.
MAX_RUNS = 1_000_000

Level = StrictBool | int | float | str


class DesignError(ValueError):
    """A sweep file that cannot be run; the message names the file, the field and what is allowed."""


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
    analysis (``over: effects``) or to every configuration's mean (``over: configurations``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    min: int = Field(ge=2, le=MAX_REPLICATIONS)
    max: int = Field(ge=2, le=MAX_REPLICATIONS)
    until: list[Target] = Field(min_length=1)
    over: Literal["effects", "configurations"] = "effects"

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


class AnalysisSettings(BaseModel):
    """What the study's analysis and report look at by default (each may be given instead on
    the command line): responses (summary fields), the factors in the order of the report's
    tables (the last one makes the columns) and a factor to analyse per level of; the study's
    theory (a name of :data:`satsweep.theory.THEORIES`), drawn beside the results; and the
    traces, figures of the program's tables."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    responses: list[str] | None = Field(default=None, min_length=1)
    factors: list[str] | None = Field(default=None, min_length=1)
    by: str | None = None
    theory: str | None = None
    traces: list[TraceSettings] = Field(default_factory=list)


class Design(BaseModel):
    """A validated sweep design. Build it with :func:`load_design`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    study: str = Field(pattern=STUDY_PATTERN, max_length=100)
    description: str = ""
    program: str = Field(min_length=1)
    # an adapter's design keys (satsweep.engine.adapters), as the file gives them: the
    # adapter validates them; design.json records them as keys of their own
    adapter_options: dict[str, Any] = Field(default_factory=dict)
    factors: dict[str, list[Level]] = Field(min_length=1)
    fixed: dict[str, Level] = Field(default_factory=dict)
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

    @model_validator(mode="before")
    @classmethod
    def _adapter_keys(cls, data: Any) -> Any:
        """The keys of the design's adapter (``program:``) are its options, which it checks."""
        if isinstance(data, dict) and "adapter_options" in data:
            raise ValueError("adapter_options: not a field of a design")
        adapter = find_adapter(data.get("program")) if isinstance(data, dict) else None
        if adapter is None:
            return data
        keys = adapter.options.model_fields
        given = {k: v for k, v in data.items() if k in keys}
        return {k: v for k, v in data.items() if k not in keys} | {"adapter_options": given}

    @model_validator(mode="before")
    @classmethod
    def _precision(cls, data: Any) -> Any:
        """``replications: {min, max, until}`` asks for precision: it starts at min."""
        if isinstance(data, dict) and isinstance(data.get("replications"), dict):
            asked = data["replications"]
            start = asked.get("min") if isinstance(asked.get("min"), int) else 2
            return {**data, "replications": start, "precision": asked}
        return data

    def with_replications(self, replications: int, of: dict[str, int] | None = None) -> Design:
        """The same design with ``replications`` per configuration, or with ``of`` (config_id ->
        r) for the configurations that have more (a round of a precision campaign), its file and
        program kept."""
        more = {cid: r for cid, r in (of or {}).items() if r > replications}
        return self.model_copy(update={"replications": replications, "replications_of": more})

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
    def executable(self) -> Program:
        """The program the design names (resolved by :func:`load_design`)."""
        if self._executable is None:
            raise RuntimeError("a Design's program is resolved by load_design")
        return self._executable

    @property
    def describe(self) -> Description:
        """The program's ``--describe``."""
        return self.executable.description

    def iter_configurations(self) -> Iterator[Configuration]:
        """The full factorial, first factor varying slowest, in the order of the file, one
        configuration at a time (nothing else is kept in memory)."""
        names = list(self.factors)
        for index, levels in enumerate(itertools.product(*self.factors.values())):
            params = {**dict(zip(names, levels, strict=True)), **self.fixed}
            yield Configuration(index, config_id(params), params)

    @cached_property
    def configurations(self) -> list[Configuration]:
        """Every configuration (:meth:`iter_configurations`), as a list."""
        return list(self.iter_configurations())

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

    @property
    def n_configurations(self) -> int:
        """The number of configurations, from the factors' level counts (nothing expanded)."""
        return math.prod(len(levels) for levels in self.factors.values())

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
        stream = self._executable.stream if self._executable is not None else None
        if stream is not None:  # the program's own streams are fewer: each run's is checked
            taken: dict[int, Run] = {}
            for run in self.runs():
                other = taken.setdefault(stream(run.run), run)
                if other is not run:
                    return (
                        f"runs {other.config_id}/r{other.replication} and {run.config_id}/r"
                        f"{run.replication} would get the same random stream of "
                        f"{self.executable.name} (run numbers {other.run} and {run.run}); "
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
        """The design's parameters: its factors, then its fixed parameters."""
        return [*self.factors, *self.fixed]

    def resolved(self) -> dict[str, Any]:
        """The design as the store records it: every field, defaults filled in (the program as
        the file names it; the store records its path and hash beside it), and an adapter's
        options as keys of their own, as the adapter records them: designs of other programs
        hash as they always did."""
        resolved = self.model_dump(mode="json", exclude={"adapter_options"})
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


@dataclass(frozen=True)
class Configuration:
    """One design point: the values of every factor plus the fixed parameters."""

    index: int
    config_id: str
    params: dict[str, Any]

    def run(self, design: Design, replication: int) -> Run:
        """Replication k of this configuration, with its random stream."""
        return Run(
            study=design.study,
            config_id=self.config_id,
            replication=replication,
            seed=design.base_seed,
            run=rng_run(design.base_seed, self.config_id, replication, design.streams),
            params=self.params,
        )

    def runs(self, design: Design) -> list[Run]:
        """Its replications 1..r (:meth:`Design.replications_for`)."""
        return [self.run(design, k) for k in range(1, design.replications_for(self.config_id) + 1)]


@dataclass(frozen=True)
class Run:
    """One simulation: a configuration, its replication index k (1..r) and its random stream."""

    study: str
    config_id: str
    replication: int
    seed: int  # the design's base_seed, the root of the run's stream
    run: int  # the program's --run: rng_run(base_seed, config_id, replication, streams)
    params: dict[str, Any]


def config_id(params: dict[str, Any]) -> str:
    """The stable id of a configuration: 12 hex digits of the sha256 of its effective parameters.

    The parameters are serialised as canonical JSON (keys sorted, each value as the text the
    program gets, see :func:`satsweep.engine.value_text`), so neither the order of keys in the file nor
    ``5`` versus ``"5"`` or ``2.0`` versus ``2`` changes it; replication and seed are not part of it.
    """
    canonical = json.dumps(
        {name: value_text(value) for name, value in params.items()},
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode()).hexdigest()[:12]


def rng_run(base_seed: int, cid: str, replication: int, streams: int = 2) -> int:
    """The random stream (``--run``) of replication k of a configuration.

    ``streams: 2``: ``(P(config_id) << 15) | k``, where P is a permutation of the 48-bit
    config_id keyed by base_seed (a four-round Feistel network whose round function is
    sha256): distinct configurations have distinct P, and k (1 .. 2**15 - 1) takes the low
    bits, so no two runs of a design share a stream, whatever its size (at most 2**63 - 1,
    which ns-3's 64-bit RngRun and the store's int64 column hold).

    ``streams: 1`` (stores made before): 1 + (first 8 bytes, big-endian, of
    sha256("satsweep:<base_seed>:<config_id>:<k>")) mod (2**32 - 1), in 1 .. 2**32 - 1;
    collisions are checked, and likely past ~10^5 runs.

    Either depends on nothing else, so raising r keeps every existing run's stream and adds
    new ones.
    """
    if streams == 1:
        digest = hashlib.sha256(f"satsweep:{base_seed}:{cid}:{replication}".encode()).digest()
        return 1 + int.from_bytes(digest[:8], "big") % MAX_RNG
    if not 1 <= replication <= MAX_REPLICATIONS:
        raise ValueError(f"replication {replication} is outside 1..{MAX_REPLICATIONS}")
    return (_permute48(base_seed, int(cid, 16)) << 15) | replication


def _permute48(key: int, value: int) -> int:
    """A permutation of 48-bit integers chosen by ``key`` (Feistel: any round function gives
    a bijection)."""
    left, right = value >> 24, value & 0xFFFFFF
    for round_ in range(4):
        digest = hashlib.sha256(f"satsweep:{key}:{round_}:{right}".encode()).digest()
        left, right = right, left ^ int.from_bytes(digest[:3], "big")
    return (left << 24) | right


class _Refused(yaml.YAMLError):
    """A file the loader refuses; the message says why and what is allowed."""


class _DuplicateKey(_Refused):
    """A mapping that names a key twice (plain YAML keeps the last one, silently)."""


#: The nodes YAML aliases (``*name``) may add to a design file, each alias counting as a copy
#: of what it names: a "billion laughs" file of a few hundred bytes expands to 10^9 values.
MAX_ALIASED_NODES = 10_000
#: The characters of a value or name from a file that a message quotes.
MAX_QUOTED = 60
_MERGE = "tag:yaml.org,2002:merge"


def _clip(text: str) -> str:
    """Text from a file, as a message quotes it: cut to :data:`MAX_QUOTED` characters."""
    return text if len(text) <= MAX_QUOTED else text[: MAX_QUOTED - 3] + "..."


def _quoted(value: object) -> str:
    """``repr(value)`` for a message, cut (:func:`_clip`): a value may be as large as its file."""
    return _clip(repr(value))


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _expanded_nodes(root: yaml.Node) -> tuple[int, int]:
    """(nodes of the document with every alias expanded, nodes it spells out), counted over
    the composed nodes once each (an alias is the node it names, shared); _Refused for a node
    that contains itself."""
    sizes: dict[int, int] = {}
    started: set[int] = set()
    stack = [(root, False)]
    while stack:  # depth first, without recursion: a file may nest deeply
        node, children_done = stack.pop()
        if children_done:
            sizes[id(node)] = 1 + sum(sizes[id(child)] for child in _children(node))
            continue
        if id(node) in sizes:
            continue
        if id(node) in started:  # started, not finished: an ancestor of itself
            raise _Refused(
                f"line {node.start_mark.line + 1}: an alias inside what it names (a recursive "
                "structure); allowed: aliases to finished anchors"
            )
        started.add(id(node))
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in sizes)
    return sizes[id(root)], len(sizes)


class _UniqueKeyLoader(yaml.SafeLoader):
    """YAML's safe loader, refusing a key given twice in one mapping (a key that a merge
    ``<<:`` brings in may be given again: the mapping's own wins, as YAML says) and aliases
    that add more than :data:`MAX_ALIASED_NODES` nodes."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._checked: set[int] = set()  # the mappings whose own keys were checked

    def construct_document(self, node: yaml.Node) -> Any:
        expanded, spelled = _expanded_nodes(node)
        if expanded - spelled > MAX_ALIASED_NODES:
            raise _Refused(
                f"aliases (*name) expand the file's {spelled} nodes to {expanded}; allowed: "
                f"aliases adding at most {MAX_ALIASED_NODES} nodes"
            )
        return super().construct_document(node)

    def flatten_mapping(self, node: yaml.MappingNode) -> None:
        # called for every mapping constructed and, before it is merged, every mapping of a
        # merge: each mapping's own keys are checked once, before merged keys join them
        if id(node) not in self._checked:
            self._checked.add(id(node))
            seen: dict[Any, int] = {}
            for key_node, _ in node.value:
                if key_node.tag == _MERGE:
                    continue
                key = self.construct_object(key_node)
                line = key_node.start_mark.line + 1
                if not isinstance(key, str | int | float | bool):  # the base class refuses others
                    continue
                if key in seen:
                    raise _DuplicateKey(
                        f"line {line}: key '{_clip(str(key))}' is given twice (first on line "
                        f"{seen[key]}); allowed: each key once"
                    )
                seen[key] = line
        super().flatten_mapping(node)


_FIELD_HELP = {
    "study": "a name of letters, digits, '.', '_', '-' (it names results/<study>/)",
    "description": "text",
    "program": "a program built by this project (e.g. satnet), a path to an executable "
    "honouring the engine contract, relative to the sweep file, or an engine's adapter "
    '(with its own keys; docs/engine-contract.md, "Engines as plug-ins")',
    "factors": "a mapping of parameter -> list of levels (strings, numbers or true/false)",
    "fixed": "a mapping of parameter -> one value",
    "replications": f"an integer from 1 to {MAX_REPLICATIONS}, or {{min, max, until: "
    "{response, halfwidth | relative}, over: effects | configurations}} (min >= 2)",
    "base_seed": f"an integer from 1 to {MAX_RNG}",
    "streams": "1 (run numbers of stores made before streams 2) or 2 (the default)",
    "resources": "a mapping with mem_mb (an integer >= 1) and timeout_s (seconds > 0, each "
    "run's time limit)",
    "analysis": "a mapping with responses (summary fields), factors (factors, the last makes "
    "the report's columns), by (a factor), theory (a theory's name) and traces (a list)",
}
#: The keys of ``analysis``, and what each takes.
_ANALYSIS_HELP = {
    "responses": "a list of numeric summary fields of the program",
    "factors": "a list of the design's factors (the last makes the report's columns)",
    "by": "a factor of the design",
    "theory": f"the name of a theory: {', '.join(sorted(THEORIES)) or '(none)'}",
    "traces": "a list of mappings with table, x, y, series, title and replications",
}
#: The keys of an entry of ``analysis.traces``, and what each takes.
_TRACE_HELP = {
    "table": "a table the program declares",
    "x": "a numeric column of the table, or with replications: mean a factor with numeric levels",
    "y": "a list of one or more numeric columns of the table",
    "series": "a column of the table (one line per value)",
    "title": "text",
    "replications": "first (the first run of each configuration) or mean (the mean over the "
    "replications, with its confidence interval)",
}


#: The keys of ``replications`` when it asks for precision, and what each takes.
_PRECISION_HELP = {
    "min": f"an integer from 2 to {MAX_REPLICATIONS} (the first round)",
    "max": f"an integer from 2 to {MAX_REPLICATIONS}, at least min",
    "until": "a target {response, halfwidth} or {response, relative}, or a list of them",
    "over": "effects (every main effect, the default) or configurations (every mean)",
}


def _field_help(loc: list[str]) -> tuple[dict[str, str], str]:
    """The help of the mapping that holds the field at ``loc``, and the field's key in it."""
    if len(loc) >= 2 and loc[0] == "replications":
        return _PRECISION_HELP, loc[1]
    if len(loc) >= 4 and loc[:2] == ["analysis", "traces"]:
        return _TRACE_HELP, loc[3]
    if len(loc) >= 2 and loc[0] == "analysis":
        return _ANALYSIS_HELP, loc[1]
    return _FIELD_HELP, loc[0] if loc else ""


def _field_name(loc: list[str | int]) -> str:
    """A pydantic location as the messages name fields: ``factors.flavor.1``, but an entry of
    ``analysis`` as :func:`_check_trace` names it, ``analysis.traces[0].y``."""
    name = ""
    for part in loc:
        if isinstance(part, int) and loc[0] in ("analysis", "replications"):
            name += f"[{part}]"
        else:
            name += f".{_clip(str(part))}" if name else _clip(str(part))
    return name


def _describe(error: dict[str, Any]) -> tuple[str, str]:
    """(field, message) of one pydantic error, with what is allowed."""
    parts = list(error["loc"])
    # a Level union reports one error per member type: keep the field, drop the type name
    while parts and parts[-1] in ("bool", "int", "float", "str"):
        parts.pop()
    if parts and parts[0] == "precision":  # the file says replications: {min, max, until}
        parts[0] = "replications"
    loc = [str(part) for part in parts]
    field = _field_name(parts) or "(top level)"
    kind, message = error["type"], error["msg"].removeprefix("Value error, ")
    top = loc[0] if loc else ""
    helps, key = _field_help(loc)
    if kind == "extra_forbidden":
        return field, f"unknown field; allowed: {', '.join(helps)}"
    if kind == "missing":
        return field, f"missing; allowed: {helps.get(key, 'a value')}"
    if kind == "value_error":
        return field, message
    if top in ("factors", "fixed") and len(loc) >= 2:
        got = error.get("input")
        return field, f"{_quoted(got)} is not allowed; allowed: a string, a number or true/false"
    got = error.get("input")
    shown = f"{_quoted(got)} is not allowed" if not isinstance(got, dict | list) else message
    return field, f"{shown}; allowed: {helps.get(key, message)}"


def _level_problem(parameter: Parameter, level: object) -> str | None:
    """``parameter.check(level)``, with the level it quotes first cut (:func:`_quoted`)."""
    problem = parameter.check(level)
    if problem is not None and problem.startswith(repr(level)):
        return _quoted(level) + problem.removeprefix(repr(level))
    return problem


def _check_parameters(raw: dict[str, Any], describe: Description) -> list[tuple[str, str]]:
    """Problems of the factor and fixed names and values against the program's ``--describe``
    (as far as the file's shape allows)."""
    declared = [p.name for p in describe.parameters]
    allowed = ", ".join(sorted(declared, key=str.lower)) or "(none)"
    factors = raw.get("factors") if isinstance(raw.get("factors"), dict) else {}
    fixed = raw.get("fixed") if isinstance(raw.get("fixed"), dict) else {}
    problems = []
    for section, values in (("factors", factors), ("fixed", fixed)):
        for name, value in values.items():
            where = f"{section}.{_clip(str(name))}"
            parameter = describe.parameter(str(name))
            if name in RESERVED_PARAMETERS:
                problems.append((where, f"reserved: {RESERVED_PARAMETERS[name]}"))
            elif parameter is None:
                unknown = f"unknown parameter '{_clip(str(name))}' of {describe.name}"
                problems.append((where, f"{unknown}; allowed: {allowed}"))
            elif section == "fixed" and name in factors:
                problems.append(
                    (where, f"'{name}' is also a factor; allowed: a parameter in one of both")
                )
            else:
                levels = value if section == "factors" and isinstance(value, list) else [value]
                problems += [
                    (where, problem)
                    for problem in dict.fromkeys(
                        filter(None, (_level_problem(parameter, v) for v in levels))
                    )
                ]
    for name, levels in factors.items():
        if not isinstance(levels, list):
            continue
        if not levels:
            problems.append((f"factors.{name}", "empty level list; allowed: one or more levels"))
        seen: set[str] = set()
        for level in levels:
            text = value_text(level)
            if text in seen:
                problems.append(
                    (
                        f"factors.{name}",
                        f"duplicate level {_quoted(level)} (the program would get "
                        f"--{name}={_clip(text)} twice); allowed: distinct levels",
                    )
                )
            seen.add(text)
    return problems


def _check_analysis(design: Design) -> list[tuple[str, str]]:
    """Problems of the ``analysis`` section: names of the design's factors and of numeric
    summary fields."""
    settings, describe = design.analysis, design.describe
    factors = ", ".join(design.factors)
    numeric = [f.name for f in describe.summary if f.type in ("int", "float")]
    problems = []
    for response in settings.responses or ():
        if response not in numeric:
            problems.append(
                (
                    "analysis.responses",
                    f"'{response}' is not a numeric summary field of {describe.name}; "
                    f"allowed: {', '.join(numeric) or '(none)'}",
                )
            )
    for factor in [*(settings.factors or ()), *([settings.by] if settings.by else [])]:
        if factor not in design.factors:
            problems.append(
                (
                    "analysis.by" if factor == settings.by else "analysis.factors",
                    f"'{factor}' is not a factor of the design; allowed: {factors}",
                )
            )
    if settings.by and settings.by in (settings.factors or ()):
        problems.append(("analysis.by", f"'{settings.by}' is also in analysis.factors"))
    if settings.theory is not None and settings.theory not in THEORIES:
        problems.append(
            (
                "analysis.theory",
                f"no theory '{settings.theory}'; allowed: {', '.join(sorted(THEORIES))}",
            )
        )
    for i, trace in enumerate(settings.traces):
        problems += _check_trace(f"analysis.traces[{i}]", trace, design)
    for i, target in enumerate(design.precision.until if design.precision else ()):
        if target.response not in numeric:
            problems.append(
                (
                    f"replications.until[{i}].response",
                    f"'{target.response}' is not a numeric summary field of {describe.name}; "
                    f"allowed: {', '.join(numeric) or '(none)'}",
                )
            )
    return problems


def _numeric_factors(design: Design) -> list[str]:
    """The design's factors whose levels are all numbers (not true/false)."""
    return [
        name
        for name, levels in design.factors.items()
        if all(isinstance(v, int | float) and not isinstance(v, bool) for v in levels)
    ]


def _check_trace(where: str, trace: TraceSettings, design: Design) -> list[tuple[str, str]]:
    """Problems of one trace: a table of the program, columns of it (numeric y; x a numeric
    column, or with ``replications: mean`` a factor with numeric levels)."""
    describe = design.describe
    if trace.table not in describe.tables:
        allowed = ", ".join(describe.tables) or "(none)"
        return [(f"{where}.table", f"'{trace.table}' is not a table of {describe.name}; "
                 f"allowed: {allowed}")]  # fmt: skip
    columns = {c.name: c.type for c in describe.tables[trace.table]}
    numeric = [name for name, kind in columns.items() if kind in ("int", "float")]
    problems = []
    # a column of the table wins over a factor of the same name (the report draws it so)
    if trace.x in design.factors and trace.x not in columns:
        if trace.replications != "mean":
            problems.append((f"{where}.replications", f"'{trace.replications}' with x a factor "
                             f"({trace.x}); allowed: mean, or x a numeric column of table "
                             f"{trace.table} ({', '.join(numeric)})"))  # fmt: skip
        elif trace.x not in _numeric_factors(design):
            problems.append((f"{where}.x", f"factor {trace.x} has levels that are not numbers; "
                             f"allowed: a numeric column of table {trace.table} "
                             f"({', '.join(numeric)}) or a factor with numeric levels "
                             f"({', '.join(_numeric_factors(design)) or 'none'})"))  # fmt: skip
    elif trace.x not in numeric:
        factors = _numeric_factors(design) if trace.replications == "mean" else []
        problems.append((f"{where}.x", f"'{trace.x}' is not a numeric column of table "
                         f"{trace.table}" + (" nor a factor" if factors else "") + "; allowed: "
                         + ", ".join(numeric + factors)))  # fmt: skip
    for field, name, allowed in (
        *(("y", y, numeric) for y in trace.y),
        *((("series", trace.series, list(columns)),) if trace.series else ()),
    ):
        if name not in allowed:
            problems.append(
                (
                    f"{where}.{field}",
                    f"'{name}' is not a {'numeric ' if field != 'series' else ''}column of "
                    f"table {trace.table}; allowed: {', '.join(allowed)}",
                )
            )
    return problems


def load_design(path: str | Path, max_runs: int | None = MAX_RUNS) -> Design:
    """Reads and validates a sweep file; raises DesignError naming file, field and what is allowed.

    The program the design names is found and asked for its ``--describe`` (cached per binary),
    against which the factors and fixed parameters are checked. A design of more than
    ``max_runs`` runs (None: no limit) is refused with its size before anything is expanded;
    then every run's stream is checked to be its own (:meth:`Design.stream_clash`).
    """
    path = Path(path)
    try:
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=_UniqueKeyLoader)
    except OSError as e:
        raise DesignError(f"{path}: cannot read the sweep file: {e.strerror or e}") from e
    except UnicodeDecodeError as e:
        raise DesignError(
            f"{path}: not a text file (byte {e.object[e.start]:#04x} at offset {e.start} is not "
            "UTF-8); allowed: a YAML sweep design"
        ) from None
    except _Refused as e:
        raise DesignError(f"{path}: {e}") from None
    except RecursionError:  # the composer recurses once per level of nesting
        raise DesignError(
            f"{path}: nested too deeply to read; allowed: lists and mappings a few levels deep"
        ) from None
    except yaml.MarkedYAMLError as e:  # one line: where and what, without YAML's excerpt
        mark = e.problem_mark or e.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        what = " ".join(" ".join(filter(None, (e.context, e.problem))).split())
        raise DesignError(f"{path}: not valid YAML: {where}{what}") from None
    except yaml.YAMLError as e:
        raise DesignError(f"{path}: not valid YAML: {' '.join(str(e).split())}") from None
    if not isinstance(raw, dict):
        raise DesignError(f"{path}: (top level): allowed: a mapping with {', '.join(_FIELD_HELP)}")
    problems: list[tuple[str, str]] = []
    if "replications_of" in raw:  # the rounds' own field (design.json), not a design's
        problems.append(
            ("replications_of", f"not a field of a design; allowed: {_FIELD_HELP['replications']}")
        )
    program = None
    if isinstance(raw.get("program"), str) and raw["program"]:
        adapter = find_adapter(raw["program"])
        own = adapter.options.model_fields if adapter is not None else {}
        if strange := [k for k in raw if k not in Design.model_fields and k not in own]:
            owners = option_owners()  # another engine's key: say whose it is
            problems += [
                (k, f"for program: {' or '.join(owners[k])} only") for k in strange if k in owners
            ]
        try:
            program = Program.find(raw["program"], path.absolute().parent, raw)
        except ProgramError as e:
            problems.append((e.field, str(e)))
        except OSError as e:
            problems.append(("program", f"cannot read '{raw['program']}': {e.strerror or e}"))
    if program is not None:
        problems += _check_parameters(raw, program.description)
    design = None
    try:
        design = Design.model_validate(raw)
    except ValidationError as e:
        said = {field for field, _ in problems}  # another engine's key, said once
        problems += [p for p in map(_describe, e.errors()) if p[0] not in said]
    if design is not None and program is not None:
        design._executable = program
        design._source = path.absolute()
        problems += _check_analysis(design)
    if problems or design is None:
        lines = [f"{path}: {field}: {message}" for field, message in problems]
        raise DesignError("\n".join(dict.fromkeys(lines))) from None
    if max_runs is not None and design.most_runs > max_runs:
        most = design.most_runs // design.n_configurations
        raise DesignError(
            f"{path}: {design.n_configurations} configurations x "
            f"{'up to ' if design.precision is not None else ''}{most} replications = "
            f"{design.most_runs} runs is more than {max_runs}; allowed: a smaller design, or "
            f"--max-runs {design.most_runs} to take it (time and memory grow with it)"
        )
    clash = design.stream_clash()
    if clash is not None:
        raise DesignError(f"{path}: {clash}")
    return design
