"""Two studies' runs compared, run by run (``satsweep compare A B``): a rerun, or a new
version of the program, against the runs it should reproduce or improve on.

Runs are paired by ``(config_id, replication)``: the same parameters and the same random
stream (a configuration's ``config_id`` hashes its factors' and fixed parameters' values,
not the program, so two versions of a program give the same ids). When the ids differ (the
two designs fix other parameters), runs are paired by the values of the design's factors and
the replication instead; those pairs do not share their random streams, and the comparison
says so.

Per response (each numeric summary field both programs declare): the pairs whose values are
equal (bit for bit but for a float's -0 and +0), the mean paired difference B - A over every
pair with its t interval, and per configuration the paired difference with its t interval at
the same level (default :data:`~satsweep.analysis.DEFAULT_CONFIDENCE`) and its two-sided
p-value; the configurations beyond noise are those whose p-value stays at or below
1 - level after a correction over the configurations tested (Holm's step-down by default).
A configuration with one pair has no interval and is not tested; one whose pairs all differ
by the same nonzero amount (common random numbers and a shifted mean) has no spread to compare
with and counts as moved (p = 0); differences within rounding (:data:`ROUNDING` of the
values) count as none.
The relative difference of a pair is ``|B - A| / max(|A|, |B|)`` (0 when both are 0), defined
for any values and close to ``|B - A| / |A|`` for small differences.

The pairing and the aggregates are DuckDB SQL over the two runs tables; the t quantile and the
p-values come from SciPy (:func:`satsweep.store.sql.t_quantile`), the correction is here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

from satsweep.analysis import sql
from satsweep.analysis.results import DEFAULT_CONFIDENCE
from satsweep.analysis.study import level_text
from satsweep.design import Design
from satsweep.store import Store, StoreError
from satsweep.store.sql import t_quantile

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "CORRECTIONS",
    "DEFAULT_CORRECTION",
    "FAIL_IF_ALLOWED",
    "MOST_RELATIVE",
    "ROUNDING",
    "CompareError",
    "Comparison",
    "Condition",
    "ConfigurationDifference",
    "ResponseComparison",
    "RunDifference",
    "Side",
    "adjusted",
    "compare",
    "parse_fail_if",
]

#: The corrections of the p-values over a response's configurations.
CORRECTIONS = ("holm", "bonferroni", "none")
DEFAULT_CORRECTION = "holm"
#: Differences of a configuration up to this fraction of its largest |value| are rounding (a
#: sum's last bits), not a spread or a shift: B - A of doubles is exact only when equal.
ROUNDING = 1e-12
#: The pairs with the largest relative differences listed per response.
MOST_RELATIVE = 10
#: What ``--fail-if`` takes (:func:`parse_fail_if`), for its error line and help.
FAIL_IF_ALLOWED = (
    "any (a pair not bit-identical, or a run without its pair), significant (a configuration "
    "beyond noise), unpaired (a run without its pair), rel>X or abs>X (a pair's relative or "
    "absolute difference above X, a number >= 0; rel also as a percentage, rel>1%), several "
    "joined by commas"
)


class CompareError(ValueError):
    """Two studies that cannot be compared; the message says why and what is allowed."""


@dataclass(frozen=True)
class Side:
    """One of the two studies: what it is and what made its runs."""

    label: str  # as the user named it
    study: str
    program: str
    version: str
    runs: int


@dataclass(frozen=True)
class ConfigurationDifference:
    """A configuration's paired difference B - A of one response."""

    config_id: str  # A's
    config_id_b: str  # B's: the same when paired by config_id
    levels: dict[str, str]  # factor -> level, as text
    pairs: int
    identical: int
    mean: float | None  # None when no pair has both values
    sd: float | None  # of the pairs' differences; None with one pair
    ci: tuple[float, float] | None  # None with one pair or no spread
    p: float | None  # two-sided; None when not tested (one pair)
    p_adjusted: float | None
    significant: bool  # beyond noise after the correction
    note: str | None = None  # why there is no interval

    @property
    def name(self) -> str:
        """The configuration as a person reads it: its levels, ``a=hi, b=3``."""
        return ", ".join(f"{k}={v}" for k, v in self.levels.items()) or self.config_id


@dataclass(frozen=True)
class RunDifference:
    """One pair's values and difference."""

    config_id: str
    replication: int
    levels: dict[str, str]
    a: float | None
    b: float | None
    difference: float | None
    relative: float | None


@dataclass(frozen=True)
class ResponseComparison:
    """One response compared over every pair."""

    response: str
    pairs: int  # pairs with a value on either side
    identical: int
    mean: float | None  # the mean paired difference B - A over every pair
    ci: tuple[float, float] | None
    max_absolute: float  # the largest |B - A| of a pair
    max_relative: float  # the largest relative difference of a pair
    tested: int  # configurations with a p-value: the correction's number of tests
    configurations: list[ConfigurationDifference]
    largest: list[RunDifference]  # the largest relative differences, at most MOST_RELATIVE

    @property
    def significant(self) -> list[ConfigurationDifference]:
        """The configurations beyond noise, largest |difference| first."""
        moved = [c for c in self.configurations if c.significant]
        return sorted(moved, key=lambda c: -abs(c.mean or 0.0))

    @property
    def all_identical(self) -> bool:
        return self.identical == self.pairs


@dataclass(frozen=True)
class Condition:
    """One condition of ``--fail-if`` (:func:`parse_fail_if`)."""

    kind: str  # any, significant, unpaired, rel, abs
    threshold: float | None = None
    text: str = ""


@dataclass(frozen=True)
class Comparison:
    """Study B's runs against study A's."""

    a: Side
    b: Side
    factors: list[str]
    paired_by: str  # "config_id" or "factors"
    pairing: str  # how the runs were paired, a sentence
    pairs: int
    shared_streams: int  # pairs made with the same --run
    only_a: list[tuple[str, int]]  # (config_id, replication) in A only
    only_b: list[tuple[str, int]]
    level: float
    correction: str
    responses: list[ResponseComparison]
    not_compared: list[str] = field(default_factory=list)  # summary fields left out, and why

    @property
    def all_identical(self) -> bool:
        """Every pair bit-identical in every response compared."""
        return all(r.all_identical for r in self.responses)

    def failures(self, conditions: Sequence[Condition]) -> list[str]:
        """What each condition that holds found, one line each (none: --fail-if passes)."""
        found: list[str] = []
        unpaired = len(self.only_a) + len(self.only_b)
        for c in conditions:
            if c.kind in ("any", "unpaired") and unpaired:
                found.append(f"{c.text}: {unpaired} runs without their pair")
            if c.kind == "any":
                for r in self.responses:
                    if not r.all_identical:
                        found.append(f"{c.text}: {r.response}: {r.pairs - r.identical} of "
                                     f"{r.pairs} pairs differ")  # fmt: skip
            elif c.kind == "significant":
                for r in self.responses:
                    if r.significant:
                        found.append(f"{c.text}: {r.response}: {len(r.significant)} "
                                     "configurations beyond noise")  # fmt: skip
            elif c.kind in ("rel", "abs"):
                for r in self.responses:
                    worst = r.max_relative if c.kind == "rel" else r.max_absolute
                    if c.threshold is not None and worst > c.threshold:
                        found.append(f"{c.text}: {r.response}: largest {c.kind} difference "
                                     f"{worst:.6g}")  # fmt: skip
        return found

    def to_json(self) -> dict[str, Any]:
        """Everything, as JSON-ready values (NaN and infinities never occur: None instead)."""
        out = asdict(self)
        out["only_a"] = [{"config_id": c, "replication": k} for c, k in self.only_a]
        out["only_b"] = [{"config_id": c, "replication": k} for c, k in self.only_b]
        out["all_identical"] = self.all_identical
        for response, data in zip(self.responses, out["responses"], strict=True):
            data["significant"] = [c.config_id for c in response.significant]
        return out


def parse_fail_if(text: str) -> list[Condition]:
    """The conditions of a ``--fail-if`` expression: ``any``, ``significant``, ``unpaired``,
    ``rel>X``, ``abs>X`` (X a number >= 0, ``rel`` also ``X%``), joined by commas; the whole
    fails when any holds. CompareError, naming what is allowed, otherwise."""
    conditions = []
    for part in text.split(","):
        word = part.strip().lower().replace(" ", "")
        match = re.fullmatch(r"(rel|abs)>(.+)", word)
        if word in ("any", "significant", "unpaired"):
            conditions.append(Condition(word, None, word))
            continue
        if match:
            number = match[2].removesuffix("%") if match[1] == "rel" else match[2]
            try:
                value = float(number)
            except ValueError:
                value = -1.0
            if 0 <= value < math.inf:
                scale = 100.0 if match[2].endswith("%") else 1.0
                conditions.append(Condition(match[1], value / scale, word))
                continue
        raise CompareError(f"--fail-if {text!r}: {part.strip()!r} is not a condition; allowed: "
                           f"{FAIL_IF_ALLOWED}")  # fmt: skip
    return conditions


def adjusted(p_values: Sequence[float], correction: str) -> list[float]:
    """The p-values adjusted for their number: Holm's step-down (the i-th smallest times
    m - i + 1, kept increasing), Bonferroni's (times m), or as they are (``none``); each at
    most 1, in the order given. A test rejects at family level alpha when its adjusted
    p-value is <= alpha."""
    m = len(p_values)
    if correction == "none":
        return list(p_values)
    if correction == "bonferroni":
        return [min(1.0, p * m) for p in p_values]
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(sorted(range(m), key=lambda i: p_values[i])):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        out[i] = running
    return out


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _design(store: Store, label: str) -> Design:
    """The recorded design of a store that has compacted runs."""
    if not store.runs_table.is_file():
        raise CompareError(f"{label}: study '{store.study}' has no finished runs "
                           f"({store.runs_table}); allowed: a study whose sweep has run")  # fmt: skip
    try:
        design = store.design()
    except StoreError as e:  # an archive's store names the archive itself
        raise CompareError(str(e) if store.unpacked_from else f"{label}: {e}") from None
    if design is None:
        raise CompareError(f"{label}: study '{store.study}' has no recorded design "
                           f"({store.design_file}); allowed: a store satsweep run wrote")  # fmt: skip
    return design


def _differences(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """The parameters set to other values in two designs' ``fixed``, as ``name A -> B``."""
    out = []
    for name in sorted(set(a) | set(b)):
        left = level_text(a[name]) if name in a else "(default)"
        right = level_text(b[name]) if name in b else "(default)"
        if left != right:
            out.append(f"{name} {left} -> {right}")
    return out


def compare(
    store_a: Store,
    store_b: Store,
    labels: tuple[str, str] = ("A", "B"),
    level: float = DEFAULT_CONFIDENCE,
    correction: str = DEFAULT_CORRECTION,
    responses: Sequence[str] | None = None,
    ignore: Sequence[str] = (),
) -> Comparison:
    """Study B's runs against study A's (see the module). ``labels``: how the user named
    them, for messages; ``responses``: the summary fields to compare (default: every numeric
    one both declare), but those of ``ignore`` (e.g. a run's own wall time, which no rerun
    reproduces; fields a program declares ``reproducible: false`` are left out unless named
    in ``responses``). CompareError when they cannot be compared: a store without runs or recorded
    design, other factors or parameters, no common run, an unknown response."""
    if not 0 < level < 1:
        raise CompareError(f"--confidence {level}: allowed: a level between 0 and 1")
    if correction not in CORRECTIONS:
        raise CompareError(f"--correction {correction}: allowed: {', '.join(CORRECTIONS)}")
    design_a, design_b = _design(store_a, labels[0]), _design(store_b, labels[1])
    factors = list(design_a.factors)
    if set(factors) != set(design_b.factors):
        raise CompareError(
            f"the factors differ: {labels[0]} has {', '.join(factors)}, {labels[1]} has "
            f"{', '.join(design_b.factors)}; allowed: two studies of the same factors"
        )
    params_a = {p.name for p in design_a.describe.parameters}
    params_b = {p.name for p in design_b.describe.parameters}
    if params_a != params_b:
        only = [f"only in {lab}: {', '.join(sorted(s))}"
                for lab, s in ((labels[0], params_a - params_b), (labels[1], params_b - params_a))
                if s]  # fmt: skip
        raise CompareError(
            f"the programs' parameters differ ({'; '.join(only)}); allowed: two studies of the "
            "same parameters (one design, or two versions of a program with the same parameters)"
        )
    numeric_a = [f.name for f in design_a.describe.summary if f.type in ("int", "float")]
    numeric_b = {f.name for f in design_b.describe.summary if f.type in ("int", "float")}
    common = [name for name in numeric_a if name in numeric_b]
    not_compared = [
        f"{f.name} (not numeric)"
        for f in design_a.describe.summary
        if f.type not in ("int", "float")
    ]
    not_compared += [f"{n} (only in {labels[0]})" for n in numeric_a if n not in numeric_b]
    not_compared += [f"{n} (only in {labels[1]})" for n in sorted(numeric_b - set(numeric_a))]
    # measurements of the machine differ on every rerun: compared only when named
    machine = {*design_a.describe.not_reproducible(), *design_b.describe.not_reproducible()}
    if not responses:
        not_compared += [
            f"{n} (reproducible: false: the machine's)" for n in common if n in machine
        ]
        common = [n for n in common if n not in machine]
    if responses:
        unknown = [r for r in responses if r not in common]
        if unknown:
            raise CompareError(f"--responses {','.join(responses)}: {unknown[0]} is not a numeric "
                               f"summary field of both; allowed: {', '.join(common)}")  # fmt: skip
        common = list(responses)
    unknown = [r for r in ignore if r not in common]
    if unknown:
        raise CompareError(f"--ignore {','.join(ignore)}: {unknown[0]} is not a response compared; "
                           f"allowed: {', '.join(common)}")  # fmt: skip
    not_compared += [f"{r} (ignored)" for r in ignore]
    common = [r for r in common if r not in ignore]
    if not common and ignore:
        raise CompareError(f"--ignore {','.join(ignore)}: leaves no response to compare; "
                           "allowed: fewer names")  # fmt: skip
    if not common:
        raise CompareError(f"no numeric summary field in both {labels[0]} and {labels[1]}; "
                           "allowed: two programs declaring the same summary fields")  # fmt: skip
    import duckdb

    con = sql.connect()
    try:
        for name, store in (("a", store_a), ("b", store_b)):
            con.execute(
                f"CREATE TEMP TABLE {name} AS FROM read_parquet(?)", [str(store.runs_table)]
            )
        return _compare(con, design_a, design_b, labels, factors, common, level, correction,
                        not_compared)  # fmt: skip
    except duckdb.Error as e:
        raise CompareError(f"cannot read the runs of {labels[0]} and {labels[1]}: {e}") from None
    finally:
        con.close()


def _compare(
    con: duckdb.DuckDBPyConnection,
    design_a: Design,
    design_b: Design,
    labels: tuple[str, str],
    factors: list[str],
    responses: list[str],
    level: float,
    correction: str,
    not_compared: list[str],
) -> Comparison:
    """:func:`compare` on the runs in the temporary tables ``a`` and ``b``."""
    for name, label in zip("ab", labels, strict=True):
        columns = {row[0] for row in con.execute(f"DESCRIBE {name}").fetchall()}
        missing = [c for c in ("config_id", "replication", "run", *factors, *responses)
                   if c not in columns]  # fmt: skip
        if missing:
            raise CompareError(f"{label}: runs.parquet lacks the columns {', '.join(missing)}; "
                               "allowed: a store satsweep compacted")  # fmt: skip
    # config_ids in both: the same parameters, paired by config_id; none (the designs fix other
    # parameters): by the factors' levels, which then must name one configuration each
    shared_ids = con.execute(
        "SELECT count(*) FROM (SELECT DISTINCT config_id FROM a) SEMI JOIN b USING (config_id)"
    ).fetchone()[0]
    paired_by = "config_id" if shared_ids else "factors"
    if paired_by == "factors":
        levels = ", ".join(f"level_text({_quoted(f)}) AS f{i}" for i, f in enumerate(factors))
        same = " AND ".join(f"x.f{i} = y.f{i}" for i in range(len(factors))) or "true"
        as_list = "[" + ", ".join(f"f{i}" for i in range(len(factors))) + "]"
        for name, label in zip("ab", labels, strict=True):
            repeated = con.execute(f"SELECT count(DISTINCT config_id) > count(DISTINCT {as_list}) "
                                   f"FROM (SELECT config_id, {levels} FROM {name})").fetchone()[0]  # fmt: skip
            if repeated:
                raise CompareError(f"{label}: several configurations have the same levels of "
                                   f"{', '.join(factors)} and no config_id is in both studies, "
                                   "so runs cannot be paired; allowed: two studies of one design")  # fmt: skip
        common = con.execute(f"""
            WITH x AS (SELECT DISTINCT {levels} FROM a), y AS (SELECT DISTINCT {levels} FROM b)
            SELECT count(*) FROM x JOIN y ON {same}""").fetchone()[0]  # fmt: skip
        if common == 0:
            raise CompareError(f"no configuration of {labels[0]} is in {labels[1]} (no common "
                               f"levels of {', '.join(factors)}); allowed: two studies of one "
                               "design")  # fmt: skip

    def key(x: str, y: str) -> str:
        """The join condition of a run of table ``x`` and its pair in table ``y``."""
        same = ["config_id"] if paired_by == "config_id" else []
        on = [f"{x}.{c} = {y}.{c}" for c in (*same, "replication")]
        if paired_by == "factors":
            on += [f"level_text({x}.{_quoted(f)}) = level_text({y}.{_quoted(f)})" for f in factors]
        return " AND ".join(on)

    if paired_by == "config_id":
        pairing = "paired by (config_id, replication): the same parameters"
    else:
        changed = _differences(design_a.fixed, design_b.fixed)
        why = f" (fixed: {', '.join(changed)})" if changed else ""
        pairing = (f"paired by the factors' values ({', '.join(factors)}) and replication: the "
                   f"config_ids differ{why}")  # fmt: skip
    a_values = ", ".join(f"a.{_quoted(r)} AS a{i}, b.{_quoted(r)} AS b{i}"
                         for i, r in enumerate(responses))  # fmt: skip
    a_levels = ", ".join(f"level_text(a.{_quoted(f)}) AS f{i}" for i, f in enumerate(factors))
    con.execute(f"""
        CREATE TEMP TABLE pairs AS
        SELECT a.rowid AS row_a, b.rowid AS row_b, a.config_id AS config_id,
               b.config_id AS config_id_b,
               a.replication AS replication, a.run = b.run AS same_stream,
               {a_levels + ", " if a_levels else ""}{a_values}
        FROM a JOIN b ON {key('a', 'b')}""")  # fmt: skip
    pairs, shared, once = con.execute(
        "SELECT count(*), count(*) FILTER (WHERE same_stream), "
        "count(DISTINCT row_a) = count(*) AND count(DISTINCT row_b) = count(*) FROM pairs"
    ).fetchone()
    if not once:  # a store holding a run twice, or two configurations of the same levels
        raise CompareError(f"a run of {labels[0]} or {labels[1]} has more than one pair (the same "
                           "configuration and replication twice); allowed: stores satsweep "
                           "compacted, of designs without repeated configurations")  # fmt: skip
    if pairs == 0:
        raise CompareError(f"no run of {labels[0]} has its pair in {labels[1]} (the same "
                           "configuration and replication); allowed: two studies of one design")  # fmt: skip
    if paired_by == "config_id":
        pairing += (" and random streams" if shared == pairs
                    else f"; {pairs - shared} of {pairs} pairs were made with other random "
                         "streams (--run): another base_seed or streams")  # fmt: skip
    else:
        pairing += (f"; {shared} of {pairs} pairs share their random stream" if shared
                    else ", so the pairs do not share their random streams")  # fmt: skip

    def unpaired(left: str, right: str) -> list[tuple[str, int]]:
        found = con.execute(f"SELECT l.config_id, l.replication FROM {left} AS l ANTI JOIN "
                            f"{right} AS r ON {key('l', 'r')} ORDER BY l.rowid").fetchall()  # fmt: skip
        return [(c, int(k)) for c, k in found]

    runs_a, runs_b = (con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in "ab")
    results = [
        _response(con, i, name, factors, level, correction) for i, name in enumerate(responses)
    ]
    return Comparison(
        a=Side(
            labels[0], design_a.study, design_a.describe.name, design_a.describe.version, runs_a
        ),
        b=Side(
            labels[1], design_b.study, design_b.describe.name, design_b.describe.version, runs_b
        ),
        factors=factors,
        paired_by=paired_by,
        pairing=pairing,
        pairs=pairs,
        shared_streams=shared,
        only_a=unpaired("a", "b"),
        only_b=unpaired("b", "a"),
        level=level,
        correction=correction,
        responses=results,
        not_compared=not_compared,
    )


def _test(
    mean: float | None, sd: float | None, n: int, scale: float | None
) -> tuple[float | None, float | None, str | None]:
    """A configuration's paired t test of mean 0 over its ``n`` differences: the two-sided
    p-value, the differences' sd and a note. Differences within rounding (ROUNDING of the
    largest |value|, ``scale``) count as none: no spread gives p = 1 for no difference and
    p = 0 for the same nonzero amount in every pair; one pair gives no test."""
    from scipy.stats import t

    if n < 2 or mean is None or sd is None:
        return None, sd, "one pair: no interval, not tested"
    rounding = ROUNDING * (scale or 0.0)
    if sd > rounding:
        return float(2 * t.sf(abs(mean) / (sd / math.sqrt(n)), n - 1)), sd, None
    if abs(mean) > rounding:
        return 0.0, 0.0, "every pair differs by the same amount: no spread, no interval"
    return 1.0, 0.0, "every pair identical" if mean == 0 and sd == 0 else "differs within rounding"


def _interval(
    mean: float | None, sd: float | None, n: int, level: float
) -> tuple[float, float] | None:
    """mean +- t((1 + level) / 2; n - 1) sd / sqrt(n); None with one value or no spread."""
    if mean is None or sd is None or not sd or n < 2:
        return None
    half = t_quantile((1 + level) / 2, n - 1) * sd / math.sqrt(n)
    return (mean - half, mean + half)


def _response(
    con: duckdb.DuckDBPyConnection,
    i: int,
    response: str,
    factors: list[str],
    level: float,
    correction: str,
) -> ResponseComparison:
    """One response's comparison from the table ``pairs`` (its columns a<i>, b<i>)."""
    a, b = f"a{i}", f"b{i}"
    d = f"(CAST({b} AS DOUBLE) - CAST({a} AS DOUBLE))"
    rel = (f"CASE WHEN {a} = {b} THEN 0.0 ELSE abs({d}) / greatest(abs(CAST({a} AS DOUBLE)), "
           f"abs(CAST({b} AS DOUBLE))) END")  # fmt: skip
    where = f"WHERE {a} IS NOT NULL OR {b} IS NOT NULL"
    levels = ", ".join(f"any_value(f{j})" for j in range(len(factors)))
    n, identical, mean, sd, worst_abs, worst_rel = con.execute(f"""
        SELECT count(*), count(*) FILTER (WHERE {a} IS NOT DISTINCT FROM {b}), avg({d}),
               stddev_samp({d}), coalesce(max(abs({d})), 0), coalesce(max({rel}), 0)
        FROM pairs {where}""").fetchone()  # fmt: skip
    n_values = con.execute(f"SELECT count({d}) FROM pairs").fetchone()[0]
    rows = con.execute(f"""
        SELECT config_id, any_value(config_id_b), count(*),
               count(*) FILTER (WHERE {a} IS NOT DISTINCT FROM {b}), count({d}), avg({d}),
               stddev_samp({d}), max(greatest(abs(CAST({a} AS DOUBLE)), abs(CAST({b} AS DOUBLE))))
               {", " + levels if levels else ""}
        FROM pairs {where} GROUP BY config_id ORDER BY min(row_a)""").fetchall()  # fmt: skip
    configurations = []
    tested: list[int] = []
    p_values: list[float] = []
    for row in rows:
        cid, cid_b, k, same, m, c_mean, c_sd, scale = row[:8]
        c_mean = _finite(c_mean)
        p, c_sd, note = _test(c_mean, _finite(c_sd), m, scale)
        if p is not None:
            tested.append(len(configurations))
            p_values.append(p)
        configurations.append(ConfigurationDifference(
            config_id=cid, config_id_b=cid_b,
            levels={f: str(v) for f, v in zip(factors, row[8:], strict=True)},
            pairs=k, identical=same, mean=c_mean, sd=c_sd,
            ci=_interval(c_mean, c_sd, m, level), p=p, p_adjusted=None, significant=False,
            note=note,
        ))  # fmt: skip
    alpha = 1 - level
    for index, q in zip(tested, adjusted(p_values, correction), strict=True):
        c = configurations[index]
        configurations[index] = replace(c, p_adjusted=q, significant=q <= alpha)
    largest = [
        RunDifference(cid, int(k), {f: str(v) for f, v in zip(factors, lv, strict=True)},
                      _finite(va), _finite(vb), _finite(dd), _finite(rr))
        for cid, k, va, vb, dd, rr, *lv in con.execute(f"""
            SELECT config_id, replication, {a}, {b}, {d}, {rel}
                   {", " + ", ".join(f"f{j}" for j in range(len(factors))) if factors else ""}
            FROM pairs WHERE {a} IS DISTINCT FROM {b}
            ORDER BY {rel} DESC NULLS FIRST, row_a LIMIT {MOST_RELATIVE}""").fetchall()
    ]  # fmt: skip
    mean, sd = _finite(mean), _finite(sd)
    return ResponseComparison(
        response=response,
        pairs=n,
        identical=identical,
        mean=mean,
        ci=_interval(mean, sd, n_values, level),
        max_absolute=float(worst_abs),
        max_relative=float(worst_rel),
        tested=len(tested),
        configurations=configurations,
        largest=largest,
    )
