"""Reading a design file: YAML with a key given once and aliases within bounds, pydantic's
errors as one line each naming the field and what is allowed, the program found and asked for
its ``--describe``, the design checked against it (:mod:`satsweep.design.checks`) and its size
and random streams."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from satsweep.design.checks import (
    check_analysis,
    check_crossed,
    check_parameters,
    written_numbers,
)
from satsweep.design.expansion import MAX_REPLICATIONS, MAX_RNG
from satsweep.design.schema import AnalysisSettings, Design, DesignError, clip, quoted
from satsweep.engine import Program, ProgramError
from satsweep.engine.adapters import adapter as find_adapter
from satsweep.engine.adapters import option_owners
from satsweep.engine.crossed import Crossed
from satsweep.theory import allowed as allowed_theories

__all__ = [
    "MAX_ALIASED_NODES",
    "MAX_DESIGN_BYTES",
    "MAX_RUNS",
    "first_problem",
    "load_design",
    "read_design_text",
]

#: The largest design (configurations x replications) satsweep takes without ``--max-runs``:
#: plan, status and run cost time and memory in proportion to it.
MAX_RUNS = 1_000_000


class _Refused(yaml.YAMLError):
    """A file the loader refuses; the message says why and what is allowed."""


#: The most bytes of a design file read: a list of 10^6 configurations (the most runs without
#: --max-runs) is a few tens of MB; past it (``/dev/zero`` given as a design) one line.
MAX_DESIGN_BYTES = 64 << 20


def read_design_text(path: str | Path) -> str:
    """A design file's text, read up to :data:`MAX_DESIGN_BYTES`: past it a refusal (a YAML
    error, one line, saying the limit); OSError and UnicodeDecodeError as reading raises them."""
    with open(path, "rb") as handle:
        data = handle.read(MAX_DESIGN_BYTES + 1)
    if len(data) > MAX_DESIGN_BYTES:
        raise _Refused(
            f"more than {MAX_DESIGN_BYTES >> 20} MiB; allowed: a design file of at most "
            f"{MAX_DESIGN_BYTES >> 20} MiB (MAX_DESIGN_BYTES)"
        )
    return data.decode("utf-8")


class _DuplicateKey(_Refused):
    """A mapping that names a key twice (plain YAML keeps the last one, silently)."""


#: The nodes YAML aliases (``*name``) may add to a design file, each alias counting as a copy
#: of what it names: a "billion laughs" file of a few hundred bytes expands to 10^9 values.
MAX_ALIASED_NODES = 10_000
_MERGE = "tag:yaml.org,2002:merge"


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


class _UniqueKeys:
    """YAML's safe constructor, refusing a key given twice in one mapping (a key that a merge
    ``<<:`` brings in may be given again: the mapping's own wins, as YAML says) and aliases
    that add more than :data:`MAX_ALIASED_NODES` nodes; beside a parser (below)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._checked: set[int] = set()  # the mappings whose own keys were checked
        # an alias is spelled *name: a file without '*' composes to a tree, nothing shared
        self._aliases = "*" in stream

    def construct_document(self, node: yaml.Node) -> Any:
        expanded, spelled = _expanded_nodes(node) if self._aliases else (0, 0)
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
                        f"line {line}: key '{clip(str(key))}' is given twice (first on line "
                        f"{seen[key]}); allowed: each key once"
                    )
                seen[key] = line
        super().flatten_mapping(node)


class _UniqueKeyLoader(_UniqueKeys, yaml.SafeLoader):
    """With PyYAML's own parser, in Python: its errors are the ones the messages quote, and a
    file nested too deeply for it raises RecursionError."""


#: Nesting libyaml's parser may compose: it recurses in C, and a file 10^5 levels deep
#: crashes Python (a segmentation fault); a deeper file goes to PyYAML's parser, which refuses
#: it in one line.
_C_DEPTH = 200


def _read_yaml(text: str) -> Any:
    """A design file's data: through libyaml's parser when it is there and the file reads
    with it, nested at most :data:`_C_DEPTH` deep (a design listing 10^4 levels: 0.13 s of
    CPU with this check of its depth, 0.5-0.7 s through PyYAML's, measured under load), else
    through PyYAML's, which says what is wrong as the messages have it."""
    if yaml.__with_libyaml__:
        try:
            if not _deeper_than(text, _C_DEPTH):
                return yaml.load(text, Loader=_FastUniqueKeyLoader)
        except yaml.YAMLError:
            pass  # said below, as PyYAML's parser says it
    return yaml.load(text, Loader=_UniqueKeyLoader)


def _deeper_than(text: str, limit: int) -> bool:
    """Whether the file's lists and mappings nest more than ``limit`` deep, from libyaml's
    events (no recursion). It stops at the first level past the limit: libyaml's scanner
    checks every open level at every token, so reading 10^5 levels took 38 s of CPU."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.CSafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > limit:
                return True
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    return False


if yaml.__with_libyaml__:

    class _FastUniqueKeyLoader(_UniqueKeys, yaml.CSafeLoader):
        """With libyaml's parser, in C."""


_FIELD_HELP = {
    "study": "a name of letters, digits, '.', '_', '-' (it names results/<study>/)",
    "description": "text",
    "program": "a program built by this project (e.g. satnet), a path to an executable "
    "honouring the engine contract, relative to the sweep file, or an engine's adapter "
    '(with its own keys; docs/engine-contract.md, "Engines as plug-ins")',
    "simulators": "instead of program, a mapping of two or more simulator names -> {program, "
    "its adapter's keys, fixed}: the levels of the factor simulator (docs/designs.md)",
    "factors": "a mapping of parameter -> list of levels (strings, numbers or true/false)",
    "configurations": "a list of mappings parameter -> value, each setting the same "
    "parameters (instead of factors)",
    "fraction": "a mapping with generators (e.g. ['D = A:B:C']) and/or resolution (3 or more): "
    "a 2^(k-p) fraction of two-level factors",
    "exclude": "a list of mappings factor -> level or list of levels: the combinations left out",
    "fixed": "a mapping of parameter -> one value",
    "replications": f"an integer from 1 to {MAX_REPLICATIONS}, or {{min, max, until: "
    "{response, halfwidth | relative}, over: effects | configurations}} (min >= 2)",
    "base_seed": f"an integer from 1 to {MAX_RNG}",
    "streams": "1 (run numbers of stores made before streams 2) or 2 (the default)",
    "resources": "a mapping with mem_mb (an integer >= 1) and timeout_s (seconds > 0, each "
    "run's time limit)",
    "analysis": "a mapping with responses (summary fields), factors (factors, the last makes "
    "the report's columns), by (a factor), theory (an installed theory's name or a Python "
    "file) and traces (a list)",
}


def _analysis_help() -> dict[str, str]:
    """The keys of ``analysis``, and what each takes (the installed theories looked up when a
    message needs them, not at every import)."""
    return {
        "responses": "a list of numeric summary fields of the program",
        "factors": "a list of the design's factors (the last makes the report's columns)",
        "by": "a factor of the design",
        "theory": allowed_theories(),
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


#: The keys of ``fraction``, and what each takes.
_FRACTION_HELP = {
    "generators": "a list of generators such as 'D = A:B:C' or 'D = -ABC' (one-letter names)",
    "resolution": "an integer from 3 (main effects not aliased with each other) up",
}


#: The keys of a simulator of a crossed design, and what each takes.
_SIMULATOR_HELP = {
    "program": _FIELD_HELP["program"],
    "fixed": "a mapping of parameter -> one value, the parameters only this program takes",
    "(its adapter's keys)": "with an adapter's program, as in a design of it (e.g. ini, config)",
}


def _field_help(loc: list[str]) -> tuple[dict[str, str], str]:
    """The help of the mapping that holds the field at ``loc``, and the field's key in it."""
    if len(loc) >= 3 and loc[0] == "simulators":
        return _SIMULATOR_HELP, loc[2]
    if len(loc) >= 2 and loc[0] == "fraction":
        return _FRACTION_HELP, loc[1]
    if len(loc) >= 2 and loc[0] == "replications":
        return _PRECISION_HELP, loc[1]
    if len(loc) >= 4 and loc[:2] == ["analysis", "traces"]:
        return _TRACE_HELP, loc[3]
    if len(loc) >= 2 and loc[0] == "analysis":
        return _analysis_help(), loc[1]
    return _FIELD_HELP, loc[0] if loc else ""


def _field_name(loc: list[str | int]) -> str:
    """A pydantic location as the messages name fields: ``factors.flavor.1``, but an entry of
    ``analysis`` as :func:`_check_trace` names it, ``analysis.traces[0].y``."""
    name = ""
    for part in loc:
        if isinstance(part, int) and loc[0] in ("analysis", "replications"):
            name += f"[{part}]"
        else:
            name += f".{clip(str(part))}" if name else clip(str(part))
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
    if top in ("factors", "fixed", "configurations", "exclude") and len(loc) >= 2:
        got = error.get("input")
        return field, f"{quoted(got)} is not allowed; allowed: a string, a number or true/false"
    got = error.get("input")
    shown = f"{quoted(got)} is not allowed" if not isinstance(got, dict | list) else message
    return field, f"{shown}; allowed: {helps.get(key, message)}"


def first_problem(e: ValidationError) -> str:
    """The first of a Design's validation errors in one line, ``field: what is wrong; allowed:
    ...``, as :func:`load_design` says it (not pydantic's several lines)."""
    field, message = _describe(e.errors()[0])
    return f"{field}: {message}"


def _found(
    raw: dict[str, Any], base: Path, where: str, problems: list[tuple[str, str]]
) -> Program | None:
    """The program ``raw`` (a design, or ``where``: one of its simulators) names, None with
    the problems added: its adapter's keys given to another program, a program not found."""
    adapter = find_adapter(raw["program"])
    own = adapter.options.model_fields if adapter is not None else {}
    fields = Design.model_fields if not where else ("program", "fixed")
    if strange := [k for k in raw if k not in fields and k not in own]:
        owners = option_owners()  # another engine's key: say whose it is
        problems += [
            (f"{where}{k}", f"for program: {' or '.join(owners[k])} only")
            for k in strange
            if k in owners
        ]
    try:
        return Program.find(raw["program"], base, raw)
    except ProgramError as e:
        problems.append((f"{where}{e.field}", str(e)))
    except OSError as e:
        problems.append(
            (f"{where}program", f"cannot read {quoted(raw['program'])}: {e.strerror or e}")
        )
    return None


def load_design(path: str | Path, max_runs: int | None = MAX_RUNS) -> Design:
    """Reads and validates a sweep file; raises DesignError naming file, field and what is allowed.

    The program the design names is found and asked for its ``--describe`` (cached per binary),
    against which the factors and fixed parameters are checked. A design of more than
    ``max_runs`` runs (None: no limit) is refused with its size before anything is expanded;
    then every run's stream is checked to be its own (:meth:`Design.stream_clash`).
    """
    path = Path(path)
    try:
        raw = _read_yaml(read_design_text(path))
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
    program: Program | None = None
    simulators = raw.get("simulators")
    if isinstance(raw.get("program"), str) and raw["program"]:
        program = _found(raw, path.absolute().parent, "", problems)
    elif isinstance(simulators, dict) and simulators and "program" not in raw:
        members = {
            level: _found(spec, path.absolute().parent, f"simulators.{level}.", problems)
            for level, spec in simulators.items()
            if isinstance(spec, dict) and isinstance(spec.get("program"), str) and spec["program"]
        }
        if len(members) == len(simulators) and all(members.values()):
            try:
                program = Crossed.of(members)  # type: ignore[arg-type]
            except ProgramError as e:
                problems.append((e.field, str(e)))
    if isinstance(program, Crossed):
        written_numbers(raw, program.description)
        problems += check_crossed(raw, program)
    elif program is not None:
        written_numbers(raw, program.description)
        problems += check_parameters(raw, program.description)
    design = None
    try:
        design = Design.model_validate(raw)
    except ValidationError as e:
        said = {field for field, _ in problems}  # another engine's key, said once
        problems += [p for p in map(_describe, e.errors()) if p[0] not in said]
    if design is not None and program is not None:
        design._executable = program
        design._source = path.absolute()
        problems += check_analysis(design)
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


def with_analysis_of(path: str | Path, design: Design) -> Design:
    """``design`` (e.g. the one a store recorded) with the ``analysis`` section of the design
    file at ``path`` as it reads now, checked against ``design``'s factors and program; nothing
    else of the file is read (its factors and runs stay ``design``'s). Raises DesignError naming
    the file and field when the file cannot be read or the section is not allowed."""
    path = Path(path)
    try:
        raw = yaml.safe_load(read_design_text(path))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        said = " ".join(str(e).split())
        raise DesignError(f"{path}: cannot read the sweep file: {said}") from None
    named = raw.get("study") if isinstance(raw, dict) else None
    if named != design.study:
        raise DesignError(
            f"{path}: study: {quoted(named)} is not allowed; allowed: {design.study}, the study "
            "whose analysis it is"
        )
    section = raw.get("analysis", {})
    try:
        settings = AnalysisSettings.model_validate(section if section is not None else {})
    except ValidationError as e:
        problems = [_describe({**err, "loc": ("analysis", *err["loc"])}) for err in e.errors()]
        lines = [f"{path}: {field}: {message}" for field, message in problems]
        raise DesignError("\n".join(dict.fromkeys(lines))) from None
    edited = design.model_copy(update={"analysis": settings})
    edited._source = path.absolute()  # a theory file is named relative to its design file
    problems = check_analysis(edited)
    if problems:
        raise DesignError("\n".join(f"{path}: {field}: {message}" for field, message in problems))
    return edited
