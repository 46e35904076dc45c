"""An OMNeT++ ini configuration's own parameter study as a satsweep design (docs/omnetpp.md,
"Importing an ini's parameter study").

``satsweep import omnetpp.ini --config NAME`` reads the configuration the way OMNeT++'s scenario
generator does (its section chain through ``extends =`` down to ``[General]``, every ``${...}``
of every entry of it, ``repeat =``) and writes a design whose factors are the iteration
variables and whose replications are ``repeat``, plus the ``satsweep.yaml`` declaration the
adapter needs: one parameter per variable, set (``set:``) on the key the variable stands in.
The design then runs the configurations ``opp_runall`` would, as many times; only the seeds
differ (satsweep's streams instead of ``seed-set = ${runnumber}``).

What the design cannot say is refused, in one line naming file, line and key: parallel
iteration (``${x=...!y}``) and ``constraint =`` (they need explicit configurations), two
variables in one value, a variable used by another key, ranges that depend on other variables, and a
key that a higher-priority entry would shadow.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from satsweep.engine import USAGE_ERROR
from satsweep.engine.description import (
    NAME_PATTERN,
    RESERVED_COLUMNS,
    RESERVED_FACTORS,
    STUDY_PATTERN,
    validation_message,
)
from satsweep.engine.omnetpp import (
    DECLARATION,
    ENGINE,
    OMNETPP_UNITS,
    Declaration,
    OmnetppError,
    Recorded,
    _pattern,
    trial,
)

__all__ = [
    "IniError",
    "Selection",
    "Study",
    "add_command",
    "import_config",
    "read_study",
    "selection",
]

#: OMNeT++'s predefined variables (``${runnumber}`` ...): references to them are not factors.
PREDEFINED = frozenset(
    "inifile configname runnumber network experiment measurement replication processid "
    "datetime datetimef runid repetition seedset iterationvars iterationvarsf iterationvarsd "
    "resultdir".split()
)
#: Keys whose value only names or labels a run: a variable referenced there changes no result.
LABELS = frozenset(
    "description experiment-label measurement-label replication-label output-scalar-file "
    "output-vector-file eventlog-file snapshot-file result-dir".split()
)
#: Keys the adapter sets itself on every run, which an imported parameter may not set.
ADAPTER_KEYS = frozenset(
    "seed-set result-dir output-scalar-file output-vector-file output-scalar-file-append "
    "cmdenv-express-mode cmdenv-status-frequency repeat network".split()
)
#: The most levels an iteration variable may have (its ranges expanded): a design's factor
#: beyond it would not run anyway (a design has at most 10^6 runs without --max-runs).
MAX_LEVELS = 10_000
#: The largest ini file the import reads, in bytes (OMNeT++'s and INET's are a few kB).
MAX_INI_BYTES = 1 << 20
_NUMBER = re.compile(r"([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*([A-Za-z]\w*)?\Z")
_UNIT = re.compile(r"[A-Za-z]\w*\Z")


class IniError(ValueError):
    """An ini file or configuration the import cannot turn into a design; the message is one
    line naming file, line and key, and what is allowed."""


@dataclass(frozen=True)
class Entry:
    """One ``key = value`` line of an ini file."""

    key: str
    value: str
    file: Path
    line: int

    def where(self) -> str:
        """``file:line: key`` for messages."""
        return f"{self.file}:{self.line}: {self.key}"


@dataclass
class Variable:
    """An iteration variable: its factor name, levels and the key it sets."""

    name: str
    entry: Entry
    levels: list[Any]
    unit: str | None
    type: str
    #: the key's value with ``${name}`` where the variable stood, when it is inside one
    expression: str | None = None
    #: false when the unit is written in the expression (``${m=1,2}s``): a label only
    attach: bool = True


@dataclass
class Study:
    """A configuration's parameter study: its variables (factors) and ``repeat``."""

    ini: Path
    config: str
    variables: list[Variable]
    replications: int
    #: the configuration's ``warmup-period`` in seconds, None without one (docs/steady-state.md)
    warmup: float | None = None


def _strip_comment(text: str) -> str:
    """The line without its ``#`` comment (not inside a string literal)."""
    quoted = False
    for i, c in enumerate(text):
        if c == '"' and (i == 0 or text[i - 1] != "\\"):
            quoted = not quoted
        elif c == "#" and not quoted:
            return text[:i]
    return text


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """The lines of an ini file as OMNeT++ joins them (a trailing backslash, or an indented
    line after a line of content, continues it), comments removed, with their first line's
    number."""
    joined: list[tuple[int, list[str]]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        last = joined[-1][1] if joined else None
        if last is not None and last[-1].endswith("\\"):
            last[-1] = last[-1][:-1] + raw
        elif (
            last is not None
            and last[0].strip()
            and not last[0].lstrip().startswith("#")
            and raw.strip()
            and raw[0] in " \t"
        ):
            last.append(raw)
        else:
            joined.append((number, [raw]))
    return [(n, " ".join(_strip_comment(p) for p in parts)) for n, parts in joined]


def read_ini(ini: Path) -> dict[str, list[Entry]]:
    """The sections of an ini file (``General`` or the configuration's name) and their entries
    in file order; keys before the first section belong to ``General``."""
    try:
        with ini.open("rb") as handle:  # at most one byte past the limit, whatever the file
            data = handle.read(MAX_INI_BYTES + 1)
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise IniError(f"{ini}: cannot read it: {getattr(e, 'strerror', None) or e}") from None
    if len(data) > MAX_INI_BYTES:
        raise IniError(
            f"{ini}: more than {MAX_INI_BYTES} bytes; allowed: an ini file of at most "
            f"{MAX_INI_BYTES} bytes (1 MiB)"
        )
    sections: dict[str, list[Entry]] = {"General": []}
    seen: set[str] = set()
    current = "General"
    for start, line in _logical_lines(text):
        if not line.strip():
            continue
        if line[0] in " \t":
            raise IniError(
                f"{ini}:{start}: {line.strip()[:40]!r}: content must begin on column 1 "
                "(OMNeT++ reads an indented line as the continuation of the one before)"
            )
        line = line.strip()
        if line.startswith("["):
            if not line.endswith("]"):
                raise IniError(f"{ini}:{start}: section heading: no closing ']'")
            name = line[1:-1].strip().removeprefix("Config ").strip()  # "Config " is optional
            if not re.fullmatch(r"[^\s\]]+", name):
                raise IniError(
                    f"{ini}:{start}: section [{line[1:-1]}]: not a configuration; "
                    "allowed: [General] or [Config NAME]"
                )
            if name in seen:
                raise IniError(f"{ini}:{start}: section [{line[1:-1]}]: defined twice")
            seen.add(name)
            sections.setdefault(name, [])
            current = name
            continue
        if re.match(r"include\s", line):
            raise IniError(
                f"{ini}:{start}: include: included ini files are not followed by the import; "
                "allowed: one ini file"
            )
        key, equals, value = line.partition("=")
        if not equals or not key.strip():
            raise IniError(f"{ini}:{start}: {line[:40]!r}: not a 'key = value' line")
        sections[current].append(Entry(key.strip(), value.strip(), ini, start))
    return sections


def section_chain(sections: dict[str, list[Entry]], config: str, ini: Path) -> list[str]:
    """The configuration, its bases through ``extends =`` (one each), then ``General``: the
    order in which OMNeT++ looks a key up."""
    if config not in sections:
        raise IniError(
            f"{ini}: config: '{config}' is not a configuration of {ini.name}; allowed: "
            + ", ".join(sections)
        )
    chain = [config]
    while chain[-1] != "General":
        bases = [e for e in sections[chain[-1]] if e.key == "extends"]
        if not bases:
            chain.append("General")
            break
        names = [n.strip() for n in bases[-1].value.split(",")]
        if len(names) != 1:
            raise IniError(
                f"{bases[-1].where()}: several bases ({bases[-1].value}); allowed: one "
                "configuration (the import does not linearize multiple inheritance)"
            )
        if names[0] not in sections or names[0] == "General":
            raise IniError(
                f"{bases[-1].where()}: '{names[0]}' is not a configuration; allowed: "
                + ", ".join(s for s in sections if s != "General")
            )
        if names[0] in chain:
            raise IniError(f"{bases[-1].where()}: '{names[0]}': inheritance cycle")
        chain.append(names[0])
    return chain


def _split(text: str, separator: str, first: bool = False) -> list[str]:
    """``text`` split at ``separator`` outside string literals and brackets, as OMNeT++'s
    tokenizer does (HONOR_QUOTES, HONOR_PARENS); ``first``: at the first one only (what is
    after it is not scanned: each ``${`` of a line looks only as far as its ``}``)."""
    parts, depth, quoted, start = [], 0, False, 0
    for i, c in enumerate(text):
        if c == '"' and (i == 0 or text[i - 1] != "\\"):
            quoted = not quoted
        elif quoted:
            continue
        elif depth == 0 and c == separator:
            parts.append(text[start:i])
            start = i + 1
            if first:
                break
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
    parts.append(text[start:])
    return parts


@dataclass(frozen=True)
class _Use:
    """One ``${...}`` of an entry: a definition (``value`` given) or a reference."""

    name: str
    value: str | None
    parallel: str | None
    start: int
    end: int


def _uses(entry: Entry) -> list[_Use]:
    """Every ``${...}`` of an entry's value, parsed as OMNeT++'s parseVariable does."""
    found, pos, text = [], 0, entry.value
    while (start := text.find("${", pos)) >= 0:
        # the line's rest up to the first "}" that may close it (a "}" inside brackets or
        # quotes does not): slices that grow only until one is found, not the whole rest
        # for each "${" (quadratic in a line of 10^5 of them)
        window = 64
        while True:
            inside = _split(text[start + 2 : start + 2 + window], "}", first=True)
            if len(inside) == 2 or start + 2 + window >= len(text):
                break
            window *= 2
        if len(inside) < 2:
            raise IniError(f"{entry.where()}: missing '}}' for '${{'")
        body = inside[0]
        end = start + 2 + len(body) + 1
        pos = end
        name, value = "", body.strip()
        head = re.match(r"\s*([A-Za-z_]\w*)\s*", body)
        if head and body[head.end() :] == "":
            name, value = head.group(1), None
        elif head and body[head.end() :].startswith("=") and not body[head.end() :][1:2] == "=":
            name, value = head.group(1), body[head.end() + 1 :]
        elif head and "," not in body:
            raise IniError(f"{entry.where()}: ${{{body}}}: missing '=' after the variable name")
        parallel = None
        if value is not None and (bang := re.search(r"!\s*([A-Za-z_]\w*)\s*\Z", value)):
            parallel, value = bang.group(1), value[: bang.start()]
        found.append(_Use(name, value, parallel, start, end))
    return found


def _format_g(value: float) -> str:
    """A number as C's ``%g`` writes it, as OMNeT++ writes a range's values."""
    return "%g" % value


def _levels(entry: Entry, name: str, value: str) -> list[str]:
    """The level texts of a variable's value list, ranges expanded as OMNeT++ does."""
    texts = []
    for item in _split(value, ","):
        item = item.strip()
        if ".." not in item or item.startswith('"'):
            texts.append(item)
            continue
        start, _, rest = item.partition("..")
        parts = re.split(r"(?<![\w@])step(?![\w@])", rest, maxsplit=1)
        stop, step = parts[0], parts[1] if len(parts) > 1 else "1"
        try:
            low, high, by = (float(s) for s in (start, stop, step))
        except ValueError:
            raise IniError(
                f"{entry.where()}: ${{{name}}}: range '{item}': not plain numbers; allowed: "
                "FROM..TO [step STEP] with numbers (a unit goes after the variable: ${x=1..5}s)"
            ) from None
        if by == 0 or not all(map(math.isfinite, (low, high, by))):
            raise IniError(
                f"{entry.where()}: ${{{name}}}: range '{item}': allowed: finite numbers, a step "
                "other than 0"
            )
        span = (high - low + 1.000001 * by) / by  # the values' count, before its floor
        if span < 1:
            raise IniError(
                f"{entry.where()}: ${{{name}}}: range '{item}' has no value (its step goes away "
                "from its end); allowed: FROM..TO with a step of TO's sign from FROM"
            )
        if not len(texts) + span < MAX_LEVELS + 1:  # inf too, for a range too long to count
            raise IniError(
                f"{entry.where()}: ${{{name}}}: range '{item}' has more than {MAX_LEVELS} "
                f"values; allowed: at most {MAX_LEVELS} levels per variable"
            )
        count = math.floor(span)
        texts.extend(_format_g(low + by * k) for k in range(count))
    if len(texts) > MAX_LEVELS:  # listed one by one
        raise IniError(
            f"{entry.where()}: ${{{name}}}: {len(texts)} levels; allowed: at most {MAX_LEVELS} "
            "levels per variable"
        )
    return texts


def _typed(entry: Entry, name: str, texts: list[str], quoted: bool) -> tuple[list, str | None, str]:
    """Levels as values of one type, their common unit and the type's name."""
    if quoted:  # "${x=a,b}": the levels are the text of string literals
        return [t.strip() for t in texts], None, "string"
    values, units, kinds = [], set(), set()
    for text in texts:
        if text in ("true", "false"):
            values.append(text == "true")
            kinds.add("bool")
            units.add(None)
        elif text.startswith('"') and text.endswith('"') and len(text) >= 2:
            try:
                values.append(json.loads(text))
            except ValueError:
                values.append(text[1:-1])
            kinds.add("string")
            units.add(None)
        elif number := _NUMBER.match(text):
            digits, unit = number.groups()
            is_int = re.fullmatch(r"[+-]?\d+", digits) is not None
            values.append(int(digits) if is_int else float(digits))
            kinds.add("int" if is_int else "float")
            units.add(unit)
        else:
            raise IniError(
                f"{entry.where()}: ${{{name}}}: level '{text}' is not a number, a quantity, "
                "true/false or a string literal; allowed: those (an expression cannot be a level)"
            )
    if kinds - {"int", "float"} and len(kinds) > 1:
        raise IniError(
            f"{entry.where()}: ${{{name}}}: levels of several types ({', '.join(sorted(kinds))}); "
            "allowed: one type per variable"
        )
    if len(units) > 1:
        shown = ", ".join(sorted(u or "none" for u in units))
        raise IniError(
            f"{entry.where()}: ${{{name}}}: levels in several units ({shown}); allowed: one "
            "unit per variable (the import does not convert units)"
        )
    kind = "float" if "float" in kinds else kinds.pop()
    if kind == "float":
        values = [float(v) for v in values]
    return values, units.pop(), kind


def read_study(ini: Path, config: str) -> Study:
    """The parameter study of configuration ``config`` of ``ini``; IniError names what the
    design cannot say."""
    ini = Path(ini)
    sections = read_ini(ini)
    chain = section_chain(sections, config, ini)
    entries = [e for name in chain for e in sections[name]]  # highest priority first
    first: dict[str, Entry] = {}
    for e in entries:
        first.setdefault(e.key, e)
    if "constraint" in first:
        raise IniError(
            f"{first['constraint'].where()}: constraints are not supported (they need explicit "
            "configurations, issue 36); allowed: a full factorial of the variables"
        )
    variables: list[Variable] = []
    references: list[tuple[Entry, str]] = []
    for e in entries:
        uses = _uses(e)
        for use in uses:
            if use.value is None:
                references.append((e, use.name))
                continue
            if use.parallel:
                raise IniError(
                    f"{e.where()}: parallel iteration ${{...!{use.parallel}}} is not supported "
                    "(it needs explicit configurations, issue 36); allowed: independent variables"
                )
            if use.name in PREDEFINED:
                raise IniError(f"{e.where()}: ${{{use.name}}} is predefined and cannot be set")
            if "$" in use.value:
                raise IniError(
                    f"{e.where()}: ${{{use.name or use.value}}}: its values use other variables; "
                    "allowed: values that stand alone (a full factorial)"
                )
            if len(uses) > 1:
                raise IniError(
                    f"{e.where()}: = {e.value}: several variables in one value; allowed: one "
                    "variable per key (a declared parameter fills one place)"
                )
            prefix, suffix = e.value[: use.start].strip(), e.value[use.end :].strip()
            quoted = prefix == '"' and suffix == '"'
            alone = quoted or (not prefix and (not suffix or _UNIT.match(suffix)))
            name = _factor_name(e, use.name, variables)
            texts = _levels(e, name, use.value)
            levels, unit, kind = _typed(e, name, texts, quoted)
            expression, attach = None, True
            if not alone:  # e.g. truncnormal(${m=1.5s,2.5s}, 1s): the value goes in its place
                expression = e.value[: use.start] + "${" + name + "}" + e.value[use.end :]
                after = re.match(r"[A-Za-z]+", e.value[use.end :])
                if unit is None and after and after.group() in OMNETPP_UNITS:
                    unit, attach = after.group(), False  # ${m=1,2}s: the unit is written there
            elif suffix and not quoted:
                if unit is not None or kind not in ("int", "float"):
                    raise IniError(f"{e.where()}: ${{{name}}}{suffix}: a unit after quantities")
                unit = suffix
            if len(set(map(repr, levels))) != len(levels):
                raise IniError(
                    f"{e.where()}: ${{{name}}}: a level twice ({use.value.strip()}); allowed: "
                    "distinct levels (a design runs each configuration once per replication)"
                )
            if unit is not None and unit not in OMNETPP_UNITS:
                raise IniError(
                    f"{e.where()}: ${{{name}}}: unit '{unit}' is not an OMNeT++ unit; allowed: "
                    + " ".join(OMNETPP_UNITS)
                )
            if e.key in ADAPTER_KEYS:
                raise IniError(
                    f"{e.where()}: the adapter sets this key itself on every run; allowed: "
                    "variables of other keys"
                )
            _check_not_shadowed(e, entries)
            variables.append(Variable(name, e, levels, unit, kind, expression, attach))
    defined = {v.name for v in variables}
    for e, name in references:
        if name in PREDEFINED or e.key in LABELS or first[e.key] is not e:
            continue  # a label, or an entry another one overrides: no run changes
        if name not in defined:
            raise IniError(f"{e.where()}: ${{{name}}}: no such variable")
        raise IniError(
            f"{e.where()}: = {e.value}: uses variable ${{{name}}} besides the key that "
            "defines it; allowed: each variable used by one key (a declared parameter sets "
            "one pattern)"
        )
    if not variables:
        raise IniError(
            f"{ini}: config: '{config}' has no iteration variables (${{...}}); allowed: a "
            "configuration with at least one"
        )
    return Study(ini, config, variables, _repeat(first.get("repeat")),
                 _warmup(first.get("warmup-period")))  # fmt: skip


#: OMNeT++'s time units in seconds, as ``warmup-period`` may write them
_SECONDS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12, "min": 60.0, "h": 3600.0}


def _warmup(entry: Entry | None) -> float | None:
    """``warmup-period`` in seconds (``20s``, ``500ms``, ``1min 30s``), None without one."""
    if entry is None:
        return None
    parts = re.findall(r"(\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+)\s*([a-z]*)", entry.value)
    joined = "".join(f"{n}{u}" for n, u in parts).replace(" ", "")
    if (
        not parts
        or joined != entry.value.replace(" ", "")
        or any(u not in _SECONDS for _, u in parts)
    ):
        raise IniError(f"{entry.where()}: = {entry.value}: allowed: a time such as 20s or 500ms")
    return sum(float(n) * _SECONDS[u] for n, u in parts)


def _factor_name(entry: Entry, name: str, variables: list[Variable]) -> str:
    """The factor of a variable: its name, which must be one a design allows, or for an unnamed
    one (OMNeT++ calls it $0, $1, ...) a name made of the key's last word."""
    taken = {v.name.lower() for v in variables}
    if name:
        if name.lower() in RESERVED_FACTORS or not re.match(NAME_PATTERN, name):
            raise IniError(
                f"{entry.where()}: ${{{name}}}: not a name a factor may take (reserved or not "
                f"{NAME_PATTERN}); allowed: another name (renaming it changes no run); "
                "reserved: " + ", ".join(RESERVED_FACTORS)
            )
        if name.lower() in taken:  # OMNeT++ tells case apart, a design does not
            raise IniError(f"{entry.where()}: ${{{name}}}: a second variable of that name")
        return name
    made = re.sub(r"\W", "_", entry.key.rsplit(".", 1)[-1]).strip("_") or "value"
    if made[0].isdigit() or made.lower() in RESERVED_FACTORS:
        made = f"v_{made}"
    while made.lower() in taken or made.lower() in RESERVED_FACTORS:
        made += "_"
    return made


def _check_not_shadowed(defining: Entry, entries: list[Entry]) -> None:
    """Refuses a variable's key when an entry OMNeT++ consults first assigns the same key, or
    a key the variable's pattern also covers: the adapter's command-line option would win over
    it, where the ini's own runs keep it."""
    pattern = _pattern(defining.key)
    for e in entries:
        if e is defining:
            return
        covers = "." in e.key and (pattern.match(e.key) or _pattern(e.key).match(defining.key))
        if e.key == defining.key or covers:
            raise IniError(
                f"{defining.where()}: its variable would set what {e.file.name}:{e.line} "
                f"({e.key}) sets first; allowed: a key no earlier entry of the configuration "
                "covers"
            )


def _repeat(entry: Entry | None) -> int:
    if entry is None:
        return 1
    try:
        count = int(entry.value)
    except ValueError:
        count = 0
    if count < 1:
        raise IniError(f"{entry.where()}: = {entry.value}: allowed: an integer >= 1")
    return count


def _quoted(value: object) -> str:
    """A YAML scalar: JSON is valid YAML, and quotes every string."""
    return json.dumps(value)


def design_text(study: Study, name: str, ini_from_design: str, tables: Sequence[str] = ()) -> str:
    """The design YAML of a study; with the ini's ``warmup-period``, a steady-state response
    per vector table of ``tables`` (its values' time average after that warm-up)."""
    lines = [
        f"# The parameter study of [Config {study.config}] of {study.ini.name}, imported by",
        "# `satsweep import`: the configurations and replications opp_runall would run.",
        f"study: {_quoted(name)}",
        f"program: {ENGINE}",
        f"ini: {_quoted(ini_from_design)}",
        f"config: {_quoted(study.config)}",
        "factors:",
    ]
    for v in study.variables:
        lines.append(f"  {v.name}: [{', '.join(_quoted(x) for x in v.levels)}]")
        lines[-1] += f"  # {v.entry.key} ({v.entry.file.name}:{v.entry.line})"
    lines.append(f"replications: {study.replications}")
    if study.warmup is not None and tables:
        lines += [
            "analysis:",
            f"  # the ini's warmup-period ({study.warmup:g} s): each vector's time average "
            "after it (docs/steady-state.md)",
            "  steady:",
            *(f"    - {{response: {t}_steady, table: {t}, y: value, warmup: {study.warmup:g}}}"
              for t in tables),
        ]  # fmt: skip
    return "\n".join(lines) + "\n"


def declaration_text(
    study: Study,
    name: str,
    found: Sequence[str],
    trial_note: str,
    libraries: Sequence[str] = (),
    tables: Sequence[str] = (),
) -> str:
    """The ``satsweep.yaml`` declaration of a study: its parameters, and the summary fields
    and tables the trial run found (:func:`selection`: some active, the rest commented)."""
    lines = [
        "# What satsweep needs beyond the ini file (docs/omnetpp.md), imported by",
        f"# `satsweep import` from [Config {study.config}]. Active: what the network module and",
        "# the application modules (app[*]) record, and the statistics of the model's own NED",
        "# files; the rest commented: pick yours (remove the '# ').",
        f"name: {_quoted(name)}",
        'version: "1.0"',
        "ned: [.]",
        f"libraries: [{', '.join(_quoted(lib) for lib in libraries)}]",
        "parameters:",
    ]
    for v in study.variables:
        lines += [
            f"  - name: {v.name}",
            f"    type: {v.type}",
            f"    default: {_quoted(v.levels[0])}",
            f"    set: {_quoted(v.entry.key)}",
        ]
        if v.unit:
            lines.append(f"    unit: {v.unit}")
        if not v.attach:
            lines.append("    attach: false")
        if v.expression is not None:
            lines.append(f"    expression: {_quoted(v.expression)}")
        where = f"{v.entry.key} of the ini ({study.ini.name}:{v.entry.line})"
        lines.append(f"    help: {_quoted(where)}")
    lines += ["summary:", f"  # {trial_note}", *found, *tables]
    return "\n".join(lines) + "\n"


#: The modules whose results the declaration selects besides the network's own: INET's
#: application layer, a host's ``app`` or ``app[i]`` (docs/omnetpp.md, "The default selection").
APPLICATION = re.compile(r"(?:^|\.)app(?:\[\d+\])?\Z")
#: A NED property declaring a statistic: ``@statistic[name](...)``.
NED_STATISTIC = re.compile(r"@statistic\[\s*([^\]\s]+)\s*\]")
#: The most NED files of the model's folder the import reads for its ``@statistic``s.
MAX_NED_FILES = 10_000
#: The units of INET's result filters, for a result recorded through one without an ``attr
#: unit`` of its own (``recordingmode sum(packetBytes)``: INET's statistics declare none).
FILTER_UNITS = {"packetBytes": "B", "packetBits": "b"}
#: OMNeT++'s recorders and filters whose result has the unit of what they are given.
UNIT_KEEPING = frozenset(
    "vector sum last min max mean timeavg histogram stats removeRepeats".split()
)
#: The width in seconds of the bins of the tables the import declares (a row per module and
#: second: a long run's vectors stay small).
TABLE_BIN = 1.0


def own_statistics(folder: Path) -> set[str]:
    """The statistics the model's own NED files (below ``folder``, the ini's) declare with
    ``@statistic[name]``; IniError past :data:`MAX_NED_FILES` files."""
    names: set[str] = set()
    for count, ned in enumerate(sorted(folder.rglob("*.ned"))):
        if count >= MAX_NED_FILES:
            raise IniError(
                f"{folder}: more than {MAX_NED_FILES} NED files; allowed: a model's folder of "
                f"at most {MAX_NED_FILES}"
            )
        try:
            names.update(NED_STATISTIC.findall(ned.read_text(encoding="utf-8", errors="replace")))
        except OSError:
            continue
    return names


def unit_of(item: Recorded) -> str | None:
    """A result's unit: its own ``attr unit``, else the unit of the filter its recording mode
    applies first (:data:`FILTER_UNITS`) when all after it keep it (:data:`UNIT_KEEPING`:
    ``sum(packetBytes)`` is in B, ``count(packetBytes)`` has none), else None."""
    if item.unit or not item.mode:
        return item.unit
    chain = re.fullmatch(r"((?:\w+\()*)(\w+)\)*", item.mode)
    if chain is None or not set(re.findall(r"\w+", chain.group(1))) <= UNIT_KEEPING:
        return None
    return FILTER_UNITS.get(chain.group(2))


def selected(item: Recorded, own: set[str]) -> bool:
    """Whether a result belongs to the declaration's default selection: recorded by the network
    module itself, by an application module (:data:`APPLICATION`), or a statistic the model's
    own NED files declare (``own``, :func:`own_statistics`)."""
    return (
        "." not in item.module
        or APPLICATION.search(item.module) is not None
        or item.name.split(":", 1)[0] in own
    )


def module_groups(modules: Sequence[str]) -> list[tuple[str, list[str]]]:
    """Modules that differ only in their indices, each group with the most specific pattern
    matching them all: an index where they differ as ``[*]``, kept where they agree
    (``net.host[*].app[0]``); a group of one module is its path. In order of first appearance."""
    groups: dict[str, list[str]] = {}
    for module in modules:
        groups.setdefault(re.sub(r"\[\d+\]", "[*]", module), []).append(module)
    found = []
    for members in groups.values():
        indices = [re.findall(r"\[(\d+)\]", m) for m in members]
        parts = re.split(r"\[\d+\]", members[0])
        pattern = parts[0]
        for i, part in enumerate(parts[1:]):
            same = {index[i] for index in indices}
            pattern += f"[{same.pop()}]" if len(same) == 1 else "[*]"
            pattern += part
        found.append((pattern, members))
    return found


def _name(pattern: str, name: str, taken: set[str], prefix: str) -> str:
    """A field's or table's name of a result of the modules ``pattern``: the pattern below the
    network, then the result's name, in lower case, ``_`` between words; made unique in
    ``taken`` (and added to it)."""
    below = pattern.split(".", 1)[1] if "." in pattern else ""
    text = re.sub(r"\[(\d+)\]", r"\1", below.replace("[*]", "")) + f"_{name}"
    made = re.sub(r"\W+", "_", text).strip("_").lower() or "value"
    if made[0].isdigit() or made in RESERVED_COLUMNS:
        made = f"{prefix}_{made}"
    while made in taken or made in RESERVED_COLUMNS:
        made += "_"
    taken.add(made)
    return made


@dataclass
class Selection:
    """What a trial run recorded, as declaration lines: the summary fields and tables of the
    default selection active (:func:`selected`), the rest commented."""

    summary: list[str]
    tables: list[str]
    active_tables: list[str] = field(default_factory=list)  # the active tables' names


def _flow(block: Sequence[str]) -> str:
    """A field's or table's declaration lines (:func:`selection`) as one line of the same
    indentation, its keys in a YAML flow mapping, comments left out."""
    head, *rest = (line.split("   #", 1)[0].rstrip() for line in block)
    if head.lstrip().startswith("- "):  # a summary field: an item of a list
        pairs = [head.strip()[2:], *(line.strip() for line in rest)]
        return f"  - {{{', '.join(pairs)}}}"
    return f"  {head.strip()} {{{', '.join(line.strip() for line in rest)}}}"


def selection(
    rows: Sequence[Recorded], own: set[str] = frozenset(), taken: Sequence[str] = ()
) -> Selection:
    """The declaration's summary fields and tables for a trial run's results (``own``: the
    model's own statistics, :func:`own_statistics`; ``taken``: names the declaration's
    parameters have). A field per result and group of modules (:func:`module_groups`): each
    scalar, and each statistic's mean; a table (binned, :data:`TABLE_BIN`) per vector and group.
    Units are the results' own (``attr unit``). A selected result that recorded nothing in the
    trial (a NaN scalar, a statistic of no values) stays commented. Without any active field
    the first scalar is active (a declaration needs one)."""
    results: dict[tuple[str, str], list[Recorded]] = {}
    for item in rows:
        results.setdefault((item.kind == "vector", item.name), []).append(item)
    used = set(taken)
    active: list[list[str]] = []
    rest: list[list[str]] = []
    table_lines: list[str] = []
    active_tables: list[str] = []
    commented_tables: list[str] = []
    for (vector, name), items in results.items():
        by_module = {item.module: item for item in items}
        for pattern, modules in module_groups(list(by_module)):
            first = by_module[modules[0]]
            several = len(modules) > 1
            recorded = f"   # recorded by {len(modules)} modules" if several else ""
            unit = [f"    unit: {_quoted(unit_of(first))}"] if unit_of(first) else []
            if vector:
                table = _name(pattern, name.split(":", 1)[0], used, "v")
                lines = [
                    f"  {table}:",
                    f"    vector: {_quoted(name)}",
                    f"    module: {_quoted(pattern)}{recorded}",
                    *unit,
                    f"    bin: {TABLE_BIN}   # seconds: a row per bin, the mean of its samples",
                ]
                if selected(first, own):
                    table_lines += lines
                    active_tables.append(table)
                else:
                    commented_tables.append(_flow(lines))
                continue
            statistic = first.kind != "scalar"
            field = _name(pattern, f"{name}_mean" if statistic else name, used, "s")
            source = (
                [f"    statistic: {_quoted(name)}", "    field: mean   # count sum stddev min max"]
                if statistic
                else [f"    scalar: {_quoted(name)}"]
            )
            reduce = "one" if not several else "mean" if statistic else "sum"
            block = [
                f"  - name: {field}",
                "    type: float",
                *unit,
                *source,
                f"    module: {_quoted(pattern)}",
                f"    reduce: {reduce}{recorded}",
            ]
            empty = any(
                (m := by_module[x]).value is not None
                and (math.isnan(m.value) or (statistic and m.value == 0))
                for x in modules
            )
            if selected(first, own) and not empty:
                active.append(block)
            else:
                rest.append(block)
    if not active:
        scalars = [b for b in rest if any(line.startswith("    scalar: ") for line in b)]
        if scalars:
            rest.remove(scalars[0])
            active = [scalars[0]]
        else:
            active = [[
                "  - name: result   # a placeholder: the trial run recorded no scalar to name here",
                "    type: float",
                '    scalar: "FILL-IN"',
            ]]  # fmt: skip
    summary = [line for block in active for line in block]
    summary += [f"# {_flow(block)}" for block in rest]  # a line each: the list stays short
    tables = ["tables:", *table_lines] if table_lines else []
    if commented_tables:
        tables += ["# tables:" if not table_lines else "# more tables:"]
        tables += [f"# {line}" for line in commented_tables]
    return Selection(summary, tables, active_tables)


def _study_name(config: str) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", config).strip("-._").lower()
    return name if re.match(STUDY_PATTERN, name) else "imported"


def import_config(
    ini: Path,
    config: str,
    out: Path | None = None,
    study_name: str | None = None,
    force: bool = False,
    trial_time: str | None = "1s",
    libraries: Sequence[Path] = (),
) -> tuple[Path, Path, str]:
    """Writes the design (``<out>/<study>.yaml``) and the declaration (``satsweep.yaml``
    beside the ini) of configuration ``config``; returns their paths and what the trial run
    found. ``libraries`` are the model's shared libraries as opp_run's ``-l`` takes them
    (without ``lib`` and ``.so``): declared, and loaded by the trial run. Nothing is written
    when the configuration cannot be imported or a file exists (without ``force``)."""
    if trial_time is not None and not re.fullmatch(
        r"(\d+\.?\d*|\.\d+)(s|ms|us|ns|min|h)", trial_time
    ):
        raise IniError(
            f"--trial-time: '{trial_time}': allowed: a simulated time such as 1s, 500ms, 2min"
        )
    ini = Path(ini).absolute()
    study = read_study(ini, config)
    name = study_name or _study_name(config)
    if not re.match(STUDY_PATTERN, name):
        raise IniError(f"--study: '{name}': allowed: letters, digits, '.', '_', '-'")
    out = (Path(out) if out is not None else ini.parent).absolute()
    design_path, declaration_path = out / f"{name}.yaml", ini.parent / DECLARATION
    if design_path == declaration_path:
        raise IniError(f"--study: '{name}': its design would be the declaration {DECLARATION}")
    for path in (design_path, declaration_path):
        if path.exists() and not force:
            raise IniError(f"{path}: exists; allowed: --force to overwrite it")
    libraries = [Path(lib).absolute() for lib in libraries]
    for lib in libraries:
        if not lib.with_name(f"lib{lib.name}.so").is_file():
            raise IniError(
                f"-l {lib}: no lib{lib.name}.so there; allowed: a built shared library, named "
                "as opp_run's -l takes it (without lib and .so)"
            )
    try:
        rows, note = (
            trial(ini, config, trial_time, libraries) if trial_time else ([], "no trial run")
        )
    except OmnetppError as e:
        raise IniError(f"{ini}: config: '{config}': {e}") from None
    declared = [os.path.relpath(lib, ini.parent) for lib in libraries]
    chosen = selection(rows, own_statistics(ini.parent), [v.name for v in study.variables])
    declaration = declaration_text(study, name, chosen.summary, note, declared, chosen.tables)
    try:
        Declaration.model_validate(yaml.safe_load(declaration))
    except ValidationError as e:
        raise IniError(f"{ini}: config: '{config}': {validation_message(e)}") from None
    design = design_text(study, name, os.path.relpath(ini, out), chosen.active_tables)
    out.mkdir(parents=True, exist_ok=True)
    for path, text in ((declaration_path, declaration), (design_path, design)):
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    return design_path, declaration_path, note


def _command(args: argparse.Namespace) -> int:
    try:
        design, declaration, summary = import_config(
            Path(args.ini),
            args.config,
            Path(args.out) if args.out else None,
            args.study,
            args.force,
            None if args.no_trial else args.trial_time,
            [Path(lib) for lib in args.library],
        )
    except IniError as e:
        print(f"satsweep import: error: {e}", file=sys.stderr)
        return USAGE_ERROR
    print(f"wrote {design} (the design) and {declaration} (the declaration)")
    print(f"summary fields: {summary}")
    return 0


def add_command(commands: argparse._SubParsersAction) -> None:
    """``satsweep import``: registered in the entry-point group ``satsweep.commands``, as a
    plug-in registers its commands."""
    p = commands.add_parser(
        "import",
        help="write a design and a declaration from an OMNeT++ ini configuration",
        description="Turn an OMNeT++ configuration's iteration variables and repeat into a "
        "design (OUT/STUDY.yaml) and its declaration (satsweep.yaml beside the ini): what a "
        "short trial run of run 0 records, with units, as summary fields and tables, the "
        "network's and the applications' active, the rest commented (docs/omnetpp.md).",
    )
    p.add_argument("ini", help="the OMNeT++ ini file")
    p.add_argument("--config", required=True, help="the configuration ([Config NAME])")
    p.add_argument("--out", help="the design's folder (default: the ini's)")
    p.add_argument("--study", help="the study's name (default: the configuration's)")
    p.add_argument(
        "--force", action="store_true", help="overwrite an existing design or declaration"
    )
    p.add_argument("--trial-time", default="1s", help="simulated time of the trial run")
    p.add_argument("--no-trial", action="store_true", help="no trial run (no scalars listed)")
    p.add_argument(
        "-l",
        "--library",
        action="append",
        default=[],
        metavar="LIB",
        help="a shared library of the model, as opp_run's -l takes it (without lib and .so; "
        "repeatable): declared in libraries: and loaded by the trial run",
    )
    p.set_defaults(func=_command)
