"""A design's checks against its program's ``--describe``: the factors' and fixed parameters'
names and levels, and the ``analysis`` section (responses, factors, theory, traces). Each
problem is (field, message), the message saying what is allowed."""

from __future__ import annotations

import re
from typing import Any

from satsweep.design.schema import Design, SteadySettings, TraceSettings, clip, quoted
from satsweep.engine import Description, Parameter, value_text
from satsweep.engine.crossed import SIMULATOR, Crossed
from satsweep.theory import TheoryNotFound, theory

__all__ = [
    "RESERVED_PARAMETERS",
    "check_analysis",
    "check_crossed",
    "check_parameters",
    "written_numbers",
]

#: What satsweep passes every run itself (the contract): a design may not name them.
RESERVED_PARAMETERS = {
    "run": "satsweep derives each run's --run (its random stream) from base_seed, configuration "
    "and replication",
    "out": "satsweep chooses where results go",
}


_MANTISSA, _EXPONENT = r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)", r"[eE][-+]?[0-9]+"
#: A number as YAML 1.2 (and JSON) writes it, the exponent optional.
_NUMBER = rf"{_MANTISSA}(?:{_EXPONENT})?"
#: A number with an exponent that YAML 1.2 reads as a number but PyYAML's YAML 1.1 as a
#: string: 1e8, 1.0e8, 2E-3 (YAML 1.1 wants a dot and a signed exponent: 1.0e+8).
_EXPONENT_NUMBER = re.compile(_MANTISSA + _EXPONENT)
#: A number followed by a unit, as OMNeT++ and ns-3 users write quantities (0.08s, 10 Mbps).
_QUANTITY = re.compile(rf"({_NUMBER})\s*(\S.*)")


def written_numbers(raw: dict[str, Any], describe: Description) -> None:
    """Reads, in place, the levels and values of a design's numeric parameters (in ``factors``,
    ``fixed``, ``configurations`` and ``exclude``) that PyYAML leaves strings as the numbers
    they say: written with an exponent (``1e8``), a number in YAML 1.2 and JSON; or followed by
    the parameter's own unit (``0.08s``, ``10 Mbps`` for ``unit: s``, ``unit: Mbps``), as
    OMNeT++'s ini files write quantities. An ``int`` parameter takes a whole number as an
    integer (``1e6``: 1000000). Units are not converted: another unit stays a string, which the
    checks refuse (:func:`check_parameters`). A string parameter's values stay as written, as
    does everything a design read before."""

    def number(name: object, value: object) -> object:
        parameter = describe.parameter(str(name))
        if (
            parameter is None
            or parameter.type not in ("int", "float")
            or not isinstance(value, str)
        ):
            return value
        text = value.strip()
        quantity = _QUANTITY.fullmatch(text)
        if quantity and parameter.unit and quantity.group(2).strip() == parameter.unit:
            text = quantity.group(1)
        elif not _EXPONENT_NUMBER.fullmatch(text):
            return value
        x = float(text)
        if parameter.type == "int" and x.is_integer():
            return int(text) if text.lstrip("+-").isdigit() else int(x)  # no rounding of 10^17
        return x

    def read(values: object) -> None:
        if isinstance(values, dict):
            for name, value in values.items():
                if isinstance(value, list):
                    values[name] = [number(name, v) for v in value]
                else:
                    values[name] = number(name, value)

    read(raw.get("factors"))
    read(raw.get("fixed"))
    for section in ("configurations", "exclude"):
        if isinstance(raw.get(section), list):
            for entry in raw[section]:
                read(entry)


def _level_problem(parameter: Parameter, level: object) -> str | None:
    """``parameter.check(level)``, with the level it quotes first cut (:func:`quoted`); a
    quantity in another unit than a numeric parameter's says so (:func:`written_numbers`)."""
    quantity = _QUANTITY.fullmatch(level.strip()) if isinstance(level, str) else None
    if quantity and parameter.type in ("int", "float"):
        unit = parameter.unit
        if unit is None:
            return f"{quoted(level)} has a unit, {parameter.name} none; allowed: a number"
        return (
            f"{quoted(level)} is not in {unit}, the unit of {parameter.name} (satsweep does not "
            f"convert units); allowed: a number in {unit}, plain or with its unit (e.g. 2 or 2{unit})"
        )
    problem = parameter.check(level)
    if problem is not None and problem.startswith(repr(level)):
        return quoted(level) + problem.removeprefix(repr(level))
    return problem


def check_parameters(raw: dict[str, Any], describe: Description) -> list[tuple[str, str]]:
    """Problems of the names and values of the factors, the fixed parameters and the listed
    configurations against the program's ``--describe`` (as far as the file's shape allows)."""
    declared = [p.name for p in describe.parameters]
    allowed = ", ".join(sorted(declared, key=str.lower)) or "(none)"
    factors = raw.get("factors") if isinstance(raw.get("factors"), dict) else {}
    fixed = raw.get("fixed") if isinstance(raw.get("fixed"), dict) else {}
    listed = raw.get("configurations") if isinstance(raw.get("configurations"), list) else []
    entries = [(f"configurations[{i}]", c) for i, c in enumerate(listed) if isinstance(c, dict)]
    varied = {*factors, *(name for _, entry in entries for name in entry)}
    problems = []
    for section, values in (("factors", factors), ("fixed", fixed), *entries):
        for name, value in values.items():
            where = f"{section}.{clip(str(name))}"
            parameter = describe.parameter(str(name))
            if name in RESERVED_PARAMETERS:
                problems.append((where, f"reserved: {RESERVED_PARAMETERS[name]}"))
            elif parameter is None:
                unknown = f"unknown parameter '{clip(str(name))}' of {describe.name}"
                problems.append((where, f"{unknown}; allowed: {allowed}"))
            elif section == "fixed" and name in varied:
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
                        f"duplicate level {quoted(level)} (the program would get "
                        f"--{name}={clip(text)} twice); allowed: distinct levels",
                    )
                )
            seen.add(text)
    return problems


def check_crossed(raw: dict[str, Any], crossed: Crossed) -> list[tuple[str, str]]:
    """Problems of a crossed design's parameters: each parameter of the design (not the
    factor ``simulator``) taken alike by every simulator's program, one line per parameter on
    which their descriptions disagree (:func:`~satsweep.engine.crossed.merged`), else checked
    against every program (:func:`check_parameters`); each simulator's own ``fixed`` checked
    against its program, and not a parameter of the design too."""

    def common(section: object) -> object:  # the section without the factor simulator
        if isinstance(section, dict):
            return {k: v for k, v in section.items() if k != SIMULATOR}
        if isinstance(section, list):
            return [common(entry) for entry in section]
        return section

    shared = {k: common(v) if k in ("factors", "configurations") else v for k, v in raw.items()}
    named = {
        (section, name)
        for section in ("factors", "fixed")
        for name in (shared.get(section) if isinstance(shared.get(section), dict) else {})
    }
    named |= {
        ("configurations", name)
        for entry in (
            shared.get("configurations") if isinstance(shared.get("configurations"), list) else []
        )
        if isinstance(entry, dict)
        for name in entry
    }
    differing = {name: section for section, name in sorted(named) if name in crossed.differences}
    if differing:  # one line each: the rest would repeat it per program
        allowed = (
            "allowed: programs that agree on the type, unit and choices of the design's parameters"
        )
        return [
            (f"{section}.{name}", f"{crossed.differences[name]}; {allowed}")
            for name, section in differing.items()
        ]
    problems = []
    for member in crossed.members.values():
        problems += check_parameters(shared, member.description)
    simulators = raw.get("simulators") if isinstance(raw.get("simulators"), dict) else {}
    design_parameters = {name for _, name in named}
    for level, member in crossed.members.items():
        spec = simulators.get(level)
        fixed = spec.get("fixed") if isinstance(spec, dict) else None
        if not isinstance(fixed, dict):
            continue
        written_numbers({"fixed": fixed}, member.description)
        where = f"simulators.{level}."
        for name in fixed:
            if name in design_parameters or name == SIMULATOR:
                problems.append((f"{where}fixed.{clip(str(name))}", f"'{name}' is also a "
                                 "parameter of the design; allowed: a parameter in one of both"))  # fmt: skip
        problems += [(where + field, message)
                     for field, message in check_parameters({"fixed": fixed}, member.description)]  # fmt: skip
    return list(dict.fromkeys(problems))


def check_analysis(design: Design) -> list[tuple[str, str]]:
    """Problems of the ``analysis`` section: names of the design's factors and of numeric
    summary fields."""
    settings, describe = design.analysis, design.describe
    factors = ", ".join(design.factors)
    # a steady-state response is analysed like a numeric summary field
    numeric = [f.name for f in describe.summary if f.type in ("int", "float")]
    numeric += [s.response for s in settings.steady]
    problems = []
    for i, steady in enumerate(settings.steady):
        problems += _check_steady(f"analysis.steady[{i}]", steady, design, settings.steady[:i])
    for response in settings.responses or ():
        if response not in numeric:
            problems.append(
                (
                    "analysis.responses",
                    f"{quoted(response)} is not a numeric summary field of {describe.name}; "
                    f"allowed: {', '.join(numeric) or '(none)'}",
                )
            )
    for factor in [*(settings.factors or ()), *([settings.by] if settings.by else [])]:
        if factor not in design.factors:
            problems.append(
                (
                    "analysis.by" if factor == settings.by else "analysis.factors",
                    f"{quoted(factor)} is not a factor of the design; allowed: {factors}",
                )
            )
    if settings.by and settings.by in (settings.factors or ()):
        problems.append(("analysis.by", f"{quoted(settings.by)} is also in analysis.factors"))
    if settings.theory is not None:
        try:  # loaded now: a theory that cannot be is found before the runs, not at the report
            theory(settings.theory, design.source.parent)
        except TheoryNotFound as e:
            problems.append(("analysis.theory", str(e)))
    for i, trace in enumerate(settings.traces):
        problems += _check_trace(f"analysis.traces[{i}]", trace, design)
    for i, target in enumerate(design.precision.until if design.precision else ()):
        if target.response not in numeric:
            problems.append(
                (
                    f"replications.until[{i}].response",
                    f"{quoted(target.response)} is not a numeric summary field of {describe.name}; "
                    f"allowed: {', '.join(numeric) or '(none)'}",
                )
            )
    if design.precision is not None and design.precision.over == "effects":
        names = [f for f in settings.factors or design.factors if f != settings.by]
        if single := [f for f in names if len(design.factors[f]) < 2]:
            problems.append(("replications.over", f"effects needs factors of two levels or more "
                             f"(factor {quoted(single[0])} has one); allowed: configurations, or "
                             "analysis.factors without it"))  # fmt: skip
    if design.precision is not None and design.precision.max_length is not None:
        problems += _check_max_length(design, design.precision.max_length)
    return problems


def _check_max_length(design: Design, most: float) -> list[tuple[str, str]]:
    """Problems of ``replications.max_length``: the steady responses name one ``length``
    parameter, fixed for every configuration (not a factor, not a simulator's own), and
    ``most`` is a value of it no shorter than the runs' length now."""
    where = "replications.max_length"
    lengths = list(dict.fromkeys(s.length for s in design.analysis.steady if s.length))
    if len(lengths) != 1:
        said = f"they name {', '.join(lengths)}" if lengths else "none names one"
        return [(where, f"needs the one parameter that sets a run's length, {said}; allowed: "
                 "analysis.steady responses with length: <parameter> (one parameter)")]  # fmt: skip
    name = lengths[0]
    own = [level for level, s in (design.simulators or {}).items() if name in s.fixed]
    if name in design.factors or own:
        how = "a factor" if name in design.factors else f"fixed by simulator {own[0]}"
        return [(where, f"the run length {name} is {how}; allowed: a length the design fixes "
                 "for every configuration (fixed:, or the program's default)")]  # fmt: skip
    parameter = design.describe.parameter(name)
    if parameter is None:  # analysis.steady's own check names it
        return []
    value: float | int = int(most) if parameter.type == "int" and most.is_integer() else most
    problem = _level_problem(parameter, value)
    if problem is not None:
        return [(where, problem)]
    now = design.run_length
    if now is not None and value < now:
        return [(where, f"{value:g} is shorter than the runs' {name} {now:g}; allowed: "
                 f"{now:g} or more")]  # fmt: skip
    return []


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
        return [(f"{where}.table", f"{quoted(trace.table)} is not a table of {describe.name}; "
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
        problems.append((f"{where}.x", f"{quoted(trace.x)} is not a numeric column of table "
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
                    f"{quoted(name)} is not a {'numeric ' if field != 'series' else ''}column of "
                    f"table {trace.table}; allowed: {', '.join(allowed)}",
                )
            )
    return problems


def _check_steady(
    where: str, steady: SteadySettings, design: Design, before: list[SteadySettings]
) -> list[tuple[str, str]]:
    """Problems of one steady-state response: a new name (not a summary field, a factor, a
    column of the runs or an earlier steady response), a table of the program, numeric
    columns of it, and ``length`` a numeric parameter."""
    describe = design.describe
    taken = {f.name for f in describe.summary} | set(design.factors) | {s.response for s in before}
    taken |= {"config_id", "replication"}
    problems = []
    if steady.response in taken:
        problems.append((f"{where}.response", f"{quoted(steady.response)} is already a summary "
                         "field, a factor or a steady response; allowed: a new name"))  # fmt: skip
    if steady.table not in describe.tables:
        allowed = ", ".join(describe.tables) or "(none)"
        return [*problems, (f"{where}.table", f"{quoted(steady.table)} is not a table of "
                            f"{describe.name}; allowed: {allowed}")]  # fmt: skip
    columns = {c.name: c.type for c in describe.tables[steady.table]}
    numeric = [name for name, kind in columns.items() if kind in ("int", "float")]
    for field in ("x", "y", "per"):
        name = getattr(steady, field)
        if name is not None and name not in numeric:
            problems.append((f"{where}.{field}", f"{quoted(name)} is not a numeric column of "
                             f"table {steady.table}; allowed: {', '.join(numeric)}"))  # fmt: skip
    if steady.length is not None:
        lengths = [p.name for p in describe.parameters if p.type in ("int", "float")]
        if steady.length not in lengths:
            problems.append((f"{where}.length", f"{quoted(steady.length)} is not a numeric "
                             f"parameter of {describe.name}; allowed: {', '.join(lengths)}"))  # fmt: skip
    return problems
