"""The analysis of a 2^(k-p) fraction (issue 36): a toy program of known effects
(tests/programs/effects.py) run as a 2^5 full factorial and as a 2^(5-2) fraction, through
`satsweep run`, into real stores; the fraction's estimates are the full design's alias sums.
A full design's numbers are today's, to the last bit."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from satsweep import report
from satsweep.analysis import AnalysisError, Dataset, format_markdown, to_json
from satsweep.analysis.precision import reached
from satsweep.design import load_design
from satsweep.workflow import run as sweep

PROGRAMS = Path(__file__).parent / "programs"
EFFECTS = PROGRAMS / "effects.py"
DATA = Path(__file__).parent / "data"
NAMES = "abcde"
FIVE = "factors: {a: [-1, 1], b: [-1, 1], c: [-1, 1], d: [-1, 1], e: [-1, 1]}\n"
GENERATORS = 'fraction: {generators: ["d = a:b", "e = -a:c"]}\n'


def _same(got: object, today: object) -> None:
    """The same structure, the same numbers to 1e-12 relative: DuckDB's parallel sums make
    today's own last bits differ from run to run (seen: se 0.9862823022435987 and ...6047)."""
    if isinstance(today, dict):
        assert isinstance(got, dict) and list(got) == list(today)
        for key in today:
            _same(got[key], today[key])
    elif isinstance(today, list):
        assert isinstance(got, list) and len(got) == len(today)
        for g, t in zip(got, today, strict=True):
            _same(g, t)
    elif isinstance(today, float):
        assert got == pytest.approx(today, rel=1e-12, abs=1e-12)
    else:
        assert got == today


def test_a_full_design_s_numbers_are_today_s() -> None:
    """effects-2x5-analysis.json is what satsweep printed before fractions existed (`analyze
    --json` of effects-2x5.csv, a 2^5 design with r = 2 and noise, both models)."""
    today = json.loads((DATA / "effects-2x5-analysis.json").read_text())
    with Dataset.open(DATA / "effects-2x5.csv") as data:
        for model in ("first-order", "full"):
            analysis = data.analyze("y", list(NAMES), model=model)
            assert analysis.defining_relation is None and analysis.aliases == {}
            document = json.loads(to_json(analysis))
            # interactions came later (41-interaction_intervals.sql), each with an interval
            interactions = document.pop("interactions")
            assert len(interactions) == 4 * 10 and all(i["ci"] for i in interactions)
            _same(document, today[model])


def _design(tmp_path: Path, study: str, body: str) -> Path:
    path = tmp_path / f"{study}.yaml"
    path.write_text(f"study: {study}\nprogram: {EFFECTS}\n{body}")
    return path


def _run(tmp_path: Path, study: str, body: str) -> Path:
    path = _design(tmp_path, study, body)
    result = sweep.run(
        load_design(path), cores=2, results=tmp_path / "results", warn=lambda _: None
    )
    assert result.ok
    return tmp_path / "results" / study / "runs.parquet"


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The same program, noiseless, as a 2^5 full factorial and as the 2^(5-2) fraction
    I = a:b:d = -a:c:e (r = 2: the fraction's error is the replications'), run by `satsweep
    run` (about a minute on two cores: the tests that use it are slow)."""
    tmp = tmp_path_factory.mktemp("fraction")
    return {
        "full": _run(tmp, "full", FIVE + "replications: 1\n"),
        "fraction": _run(tmp, "fraction", FIVE + GENERATORS + "replications: 2\n"),
    }


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The same runs as ``stores`` without the workflow: the program's function of the levels
    written to Parquet for the full factorial, and for the fraction the configurations its
    design gives (with sd = 0 a run is its configuration's mean)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("effects_program", EFFECTS)
    program = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(program)
    tmp = tmp_path_factory.mktemp("tables")
    design = tmp / "fraction.yaml"
    design.write_text(f"study: fraction\nprogram: {EFFECTS}\n{FIVE}{GENERATORS}replications: 2\n")
    fraction = [c.params for c in load_design(design).configurations]
    full = [dict(zip(NAMES, v, strict=True)) for v in itertools.product((-1, 1), repeat=5)]
    paths = {}
    for name, points, r in (("full", full, 1), ("fraction", fraction, 2)):
        rows = [{**p, "y": program.mean(p)} for p in points for _ in range(r)]
        paths[name] = tmp / f"{name}.parquet"
        pq.write_table(pa.Table.from_pylist(rows), paths[name])
    (tmp / "design.json").write_text(json.dumps({"design": load_design(design).resolved()}))
    return paths


def _sign_table(runs: Path) -> dict[frozenset[str], float]:
    """Every word's effect q = mean(y x its sign), from the runs (levels -1 and 1 as numbers)."""
    table = pq.read_table(runs).to_pydict()
    x = {n: np.array(table[n], dtype=float) for n in NAMES}
    y = np.array(table["y"])
    return {
        frozenset(word): float(np.mean(y * np.prod([x[n] for n in word], axis=0)))
        for size in range(1, 6)
        for word in itertools.combinations(NAMES, size)
    }


@pytest.mark.parametrize("source", ["tables", pytest.param("stores", marks=pytest.mark.slow)])
def test_the_fraction_s_estimates_are_the_full_design_s_alias_sums(source, request) -> None:
    runs = request.getfixturevalue(source)
    q = _sign_table(runs["full"])
    # the defining relation the design recorded: I = a:b:d = -a:c:e = -b:c:d:e
    recorded = json.loads((runs["fraction"].parent / "design.json").read_text())
    defining = recorded["design"]["fraction"]["defining_relation"]
    assert defining == ["I", "a:b:d", "-a:c:e", "-b:c:d:e"]
    words = [
        (frozenset(w.lstrip("-").split(":")), -1 if w.startswith("-") else 1) for w in defining[1:]
    ]

    def alias_sum(word: frozenset[str]) -> float:
        return q[word] + sum(s * q[word ^ d] for d, s in words if word ^ d)

    with Dataset.open(runs["fraction"]) as data:
        analysis = data.analyze("y", list(NAMES), model="full")
    assert analysis.n == 16 and analysis.error_dof == 8
    for factor in NAMES:  # the effect of level 1 (+1 in the file) is its set's sum
        effect = analysis.effects[factor]["1"].effect
        assert effect == pytest.approx(alias_sum(frozenset(factor)), abs=1e-9)
        assert analysis.effects[factor]["-1"].effect == pytest.approx(-effect, abs=1e-9)
    # seven alias sets, one term each (its word of fewest factors), SS = n x (alias sum)^2
    terms = {t.term: t for t in analysis.terms if t.order is not None}
    assert list(terms) == ["a", "b", "c", "d", "e", "b:c", "b:e"]
    for term, t in terms.items():
        assert t.dof == 1
        assert t.ss == pytest.approx(16 * alias_sum(frozenset(term.split(":"))) ** 2, rel=1e-9)
    assert analysis.error.ss == pytest.approx(0, abs=1e-9)  # no noise: replications agree
    # the alias sets the analysis lists are the design's (signs by the levels' order of
    # appearance in the runs, which the analysis states)
    assert analysis.alias_set("a").split(" = ")[0] == "a"
    for term in terms:
        listed = {w.lstrip("-") for w in analysis.alias_set(term).split(" = ")}
        word = frozenset(term.split(":"))
        expected = {word, *(word ^ d for d, _ in words)}
        assert {frozenset(w.split(":")) for w in listed} == expected
    assert {w.lstrip("-") for w in analysis.defining_relation.split(" = ")} == {
        "I", "a:b:d", "a:c:e", "b:c:d:e"
    }  # fmt: skip
    printed = json.loads(to_json(analysis))  # `analyze --json` says it too
    assert printed["defining_relation"] == analysis.defining_relation
    assert printed["aliases"]["b:c"] == analysis.alias_set("b:c")
    text = format_markdown(analysis)
    assert "defining relation I = " in text and "| estimates |" in text
    assert f"| {analysis.alias_set('b:c')} | " in text


@pytest.mark.slow
def test_the_full_design_s_effects_are_its_sign_table(stores) -> None:
    """The alias sums above are of the full design's own analysis: its main effects are the
    sign table's (an exact fit: every interaction of the model is there)."""
    q = _sign_table(stores["full"])
    with Dataset.open(stores["full"]) as data:
        analysis = data.analyze("y", list(NAMES))
    for factor in NAMES:
        assert analysis.effects[factor]["1"].effect == pytest.approx(q[frozenset(factor)])
    assert analysis.defining_relation is None
    assert [t.term for t in analysis.terms].count("a:b") == 1


@pytest.mark.slow
def test_the_report_lists_each_estimate_s_alias_set(stores) -> None:
    results = stores["fraction"].parent.parent
    index = report.write_report("fraction", results)
    text = (index.parent / "report.md").read_text()
    assert "defining relation I = " in text
    # the design as recorded: its generators, in the file's signs
    assert "| design | a 2^(5-2) fraction of resolution 3; generators d = a:b, e = -a:c;" in text
    with Dataset.open(stores["fraction"]) as data:
        analysis = data.analyze("y", list(NAMES))
    for term in ("a", "b:c"):
        assert analysis.alias_set(term) in text
    assert "·" in text  # the results table's combinations the fraction does not run


def _parquet(tmp_path: Path, rows: list[dict]) -> Path:
    path = tmp_path / "runs.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def test_aliased_factors_and_a_fraction_missing_a_cell_are_refused(tmp_path: Path) -> None:
    # a list of configurations where b always equals a: resolution II
    rows = [{"a": a, "b": a, "c": c, "y": float(a + c)} for a in (-1, 1) for c in (-1, 1)]
    with (
        Dataset.open(_parquet(tmp_path, rows)) as data,
        pytest.raises(AnalysisError, match=r"factors 'a' and 'b' are aliased \(I = a:b\)"),
    ):
        data.analyze("y", ["a", "b", "c"])
    # the half fraction I = a:b:c without one of its four cells
    rows = [{"a": a, "b": b, "c": a * b, "y": 1.0} for a, b in [(-1, -1), (-1, 1), (1, -1)]]
    rows += [{"a": -1, "b": -1, "c": -1, "y": 2.0}]  # and one outside it: no fraction at all
    with (
        Dataset.open(_parquet(tmp_path, rows)) as data,
        pytest.raises(AnalysisError, match=r"not a full factorial design: no runs for cell"),
    ):
        data.analyze("y", ["a", "b", "c"])
    rows = [
        {"a": a, "b": b, "c": a * b, "d": 1, "y": 1.0}
        for a, b in [(-1, -1), (-1, 1), (1, -1), (1, 1)]
        for _ in (1, 2)
    ] + [{"a": a, "b": b, "c": a * b, "d": -1, "y": 2.0} for a, b in [(-1, -1), (-1, 1), (1, -1)]]
    rows += [
        {"a": 1, "b": 1, "c": 1, "d": -1, "y": 2.0},
        {"a": 1, "b": 1, "c": 1, "d": -1, "y": 2.0},
    ]
    rows = [r for r in rows if not (r["a"] == -1 and r["b"] == 1 and r["d"] == -1)]
    with (
        Dataset.open(_parquet(tmp_path, rows)) as data,
        pytest.raises(
            AnalysisError, match=r"not a complete fraction \(I = .*a:b:c.*\): no runs for cell"
        ),
    ):
        data.analyze("y", ["a", "b", "c", "d"])


@pytest.mark.slow
def test_a_precision_campaign_on_a_fraction(tmp_path: Path) -> None:
    """`replications: {min, max, until}` over a fraction's effects: rounds of the fraction's 8
    configurations, until every effect's interval is as narrow as asked."""
    runs = _run(
        tmp_path,
        "campaign",
        FIVE + GENERATORS + "fixed: {sd: 1}\n"
        "replications: {min: 2, max: 20, until: {response: y, halfwidth: 0.22}}\n",
    )
    counts = duckdb.sql(f"SELECT count(*) FROM '{runs}' GROUP BY a, b, c, d, e").fetchall()
    assert len(counts) == 8 and len(set(counts)) == 1
    r = counts[0][0]
    assert 2 < r < 20
    design = load_design(tmp_path / "campaign.yaml").with_replications(r)
    (got,) = reached(str(runs), design)
    assert got.met and got.halfwidth <= 0.22
    with Dataset.open(runs) as data:
        analysis = data.analyze("y", list(NAMES))
    t = analysis.t_quantile
    assert analysis.defining_relation is not None
    for levels in analysis.effects.values():  # Jain's s_q = se / sqrt(n) for every estimate
        for e in levels.values():
            assert e.ci[1] - e.effect == pytest.approx(
                t * analysis.standard_error / math.sqrt(8 * r)
            )


@pytest.mark.slow
def test_exclude_and_a_list_run_their_configurations(tmp_path: Path) -> None:
    """`satsweep run` of a factorial less `exclude:` and of a list: the store holds those
    configurations, by the ids the full factorial gives them; an incomplete factorial is not
    analysed as if it were whole."""
    full = {
        c.config_id
        for c in load_design(_design(tmp_path, "all", FIVE + "replications: 1\n")).configurations
    }
    cut = _run(tmp_path, "cut", "factors: {a: [-1, 1], b: [-1, 1]}\nexclude: [{a: 1, b: 1}]\n"
               "fixed: {c: -1, d: -1, e: -1}\nreplications: 1\n")  # fmt: skip
    listed = _run(tmp_path, "listed", "configurations:\n  - {a: 1, b: -1, c: 1, d: 1, e: -1}\n"
                  "  - {a: -1, b: -1, c: -1, d: -1, e: -1}\nreplications: 1\n")  # fmt: skip
    stored = {
        name: duckdb.sql(f"SELECT config_id, a, b FROM '{runs}' ORDER BY a, b").fetchall()
        for name, runs in (("cut", cut), ("listed", listed))
    }
    assert [(a, b) for _, a, b in stored["cut"]] == [(-1, -1), (-1, 1), (1, -1)]
    assert {cid for cid, _, _ in stored["cut"] + stored["listed"]} <= full
    assert len(stored["listed"]) == 2
    with (
        Dataset.open(cut) as data,
        pytest.raises(
            AnalysisError, match=r"not a full factorial design: no runs for cell a=1, b=1"
        ),
    ):
        data.analyze("y", ["a", "b"])
