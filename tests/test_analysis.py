"""Tests of the factorial-design analysis (satsweep.analysis, analysis/*.sql, `satsweep analyze`)."""

from __future__ import annotations

import csv
import datetime as dt
import json
import math
import os
import random
import re
import subprocess
import sys
from itertools import product
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from scipy.stats import t as student_t

from satsweep import analysis, report
from satsweep.analysis import Dataset, sql
from satsweep.cli import main
from satsweep.engine import KEY_COLUMNS, PROVENANCE_COLUMNS
from tests.support import REPO

ROOT = Path(__file__).resolve().parents[1]
# the paper's WAN table (its Table 4, kept beside the SQL that compares with it) and the paper's
# analysis of it (Tables 5 and 6): docs/studies/goyal98.md, "The paper's WAN results (Table 4)"
# and the section after it
WAN_CSV = ROOT / "analysis" / "goyal98" / "goyal98-wan.csv"
WAN_ANOVA = ROOT / "tests" / "data" / "goyal98-wan-anova.json"
FACTORS = ["flavor", "buffer", "drop"]


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def read_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def write_rows(path: Path, rows: list[dict[str, object]]) -> Path:
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def assert_matches(actual: object, expected: object, path: str = "") -> None:
    """Same structure and key order; numbers within 1e-4, percentages within 0.01."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), path
        assert list(actual) == list(expected), f"{path}: keys {list(actual)} != {list(expected)}"
        for key in expected:
            assert_matches(actual[key], expected[key], f"{path}/{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), path
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            assert_matches(a, e, f"{path}[{i}]")
    elif isinstance(expected, int | float):
        tolerance = 0.01 if "/allocation_percent/" in path else 1e-4
        assert isinstance(actual, int | float), path
        assert abs(actual - expected) <= tolerance, f"{path}: {actual} != {expected}"
    else:
        assert actual == expected, path


# -- the paper's numbers --------------------------------------------------------------------


def the_paper_s_part(document: dict) -> dict:
    """An analysis' JSON without its interactions, which the paper's tables do not give: each
    pair of levels of each pair of the three factors (4 x 2 + 4 x 3 + 2 x 3), with an interval."""
    interactions = document.pop("interactions")
    assert len(interactions) == 26
    assert all(len(i["ci"]) == 2 and i["ci"][0] <= i["interaction"] for i in interactions)
    return document


@pytest.mark.parametrize("response", ["efficiency", "fairness"])
def test_reproduces_the_paper(response: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["analyze", str(WAN_CSV), "--response", response, "--factors", ",".join(FACTORS)]
    code, out, err = run_cli([*argv, "--json"], capsys)
    assert code == 0, err
    expected = json.loads(WAN_ANOVA.read_text())[response]
    assert_matches(the_paper_s_part(json.loads(out)), expected)


def test_paper_by_link_and_as_a_subprocess(tmp_path: Path) -> None:
    """`python -m satsweep.cli` with --by on a Parquet copy of the reference data."""
    parquet = tmp_path / "wan.parquet"
    duckdb.sql(f"COPY (FROM read_csv('{WAN_CSV}')) TO '{parquet}' (FORMAT parquet)")
    proc = subprocess.run(
        [sys.executable, "-m", "satsweep.cli", "analyze", str(parquet), "--response", "efficiency"]
        + ["--factors", "flavor,buffer,drop", "--by", "link", "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert list(result) == ["WAN"]
    assert_matches(the_paper_s_part(result["WAN"]), json.loads(WAN_ANOVA.read_text())["efficiency"])


def test_markdown_output(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["analyze", str(WAN_CSV), "--response", "fairness", "--factors", "flavor,buffer,drop"]
    code, out, _ = run_cli([*argv, "--markdown"], capsys)
    assert code == 0
    assert "| flavor:buffer | 0.0424525 | 6 | 17.33 |" in out
    # fairness: Vanilla's interval [-0.0633, 0.0016] holds 0, NewReno's does not; the
    # intervals to two significant digits, the effects to the same place
    assert "| flavor | Vanilla | -0.031 | [-0.063, 0.002] |  |" in out
    assert "| flavor | NewReno | 0.057 | [0.025, 0.090] | * |" in out
    assert "mean = 0.875 ± 0.019, SST = 0.245016" in out
    code, default_out, _ = run_cli(argv, capsys)
    assert default_out == out


def run_shell(con: duckdb.DuckDBPyConnection, script: str) -> list[tuple[list[str], list[tuple]]]:
    """What the duckdb shell does with ``script``: its SQL statements in order, and a line
    ``.read FILE`` (relative to the working directory), between statements, reads FILE the same
    way. Returns the columns and rows of every query, as the shell would print them."""
    printed: list[tuple[list[str], list[tuple]]] = []
    pending: list[str] = []

    def flush() -> None:
        for statement in con.extract_statements("\n".join(pending)):
            result = con.execute(statement)
            if statement.type == duckdb.StatementType.SELECT:
                printed.append(([d[0] for d in result.description], result.fetchall()))
        pending.clear()

    for line in script.splitlines():
        if line.startswith("."):
            before = " ".join(text.split("--", 1)[0] for text in pending).strip()
            assert not before or before.endswith(";"), f"{line!r} inside a statement: {before!r}"
            flush()
            command, path = line.split(maxsplit=1)
            assert command == ".read", f"the emulated shell knows only .read, not {line!r}"
            printed += run_shell(con, Path(path).read_text())
        else:
            pending.append(line)
    flush()
    return printed


def test_sql_files_run_by_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    """What analysis/README.md tells a person to do in the duckdb shell gives the same numbers."""
    monkeypatch.chdir(ROOT)  # the shell's working directory: .read paths are relative to it
    con = duckdb.connect()
    script = [
        f"SET VARIABLE source = '{WAN_CSV.relative_to(ROOT)}';",
        "SET VARIABLE response = 'efficiency';",
        "SET VARIABLE factors = ['flavor', 'buffer', 'drop'];",
        ".read analysis/analyze.sql",
    ]
    run_shell(con, "\n".join(script))
    assert con.execute("SELECT count(*) FROM design_problems").fetchone() == (0,)
    (dof,) = con.execute("SELECT dof FROM error_term WHERE model = 'first-order'").fetchone()
    con.execute("SET VARIABLE error_model = 'first-order'")
    con.execute(f"SET VARIABLE t_quantile = {float(student_t.ppf(0.95, dof))!r}")
    run_shell(con, ".read analysis/40-confidence_intervals.sql")
    low, high = con.execute(
        "SELECT ci_low, ci_high FROM confidence_intervals WHERE level = 'Vanilla'"
    ).fetchone()
    assert low == pytest.approx(-0.173381, abs=1e-6)
    assert high == pytest.approx(-0.15201, abs=1e-6)


def test_sql_files_are_numbered_in_run_order() -> None:
    """The runner's stages are the numbered files in number order, each once; analyze.sql reads
    the analysis' ones (up to the intervals) in that order, and analysis/README.md lists them all
    in it, analyze.sql's span named right."""
    numbered = tuple(sorted(p.stem for p in (ROOT / "analysis").glob("[0-9][0-9]-*.sql")))
    assert sql.FILES == numbered
    stages = [
        sql.MACROS,
        sql.SOURCE,
        sql.SOURCE_COLUMNS,
        sql.GROUPS,
        sql.DESIGN,
        sql.VALUE_CHECKS,
        *sql.DESIGN_TABLES,
        sql.DESIGN_CHECKS,
        sql.CELL_RUNS,
        *sql.STATISTICS,
        *sql.INTERVALS,
        sql.PROVENANCE,
        sql.FIRST_RUNS,
        sql.TRACE_ROWS,
        sql.TRACE_MEANS,
        sql.STEADY_SERIES,
        sql.STEADY_VALUES,
        sql.ADDED_COLUMNS,
    ]
    assert stages == list(numbered)
    analysis_files = numbered[: numbered.index(sql.INTERVALS[-1]) + 1]
    reads = [
        line.split()[1]
        for line in (ROOT / "analysis" / "analyze.sql").read_text().splitlines()
        if line.startswith(".read")
    ]
    assert reads == [f"analysis/{name}.sql" for name in analysis_files]
    readme = (ROOT / "analysis" / "README.md").read_text()
    assert re.findall(r"^\| `(\d\d-\w+)\.sql` \|", readme, flags=re.MULTILINE) == list(numbered)
    span = f"runs `{analysis_files[0][:2]}` to `{analysis_files[-1][:2]}` in order"
    assert f"| `analyze.sql` | | {span}" in readme


def test_the_provenance_shows_every_provenance_column() -> None:
    """50-provenance.sql reads the store's provenance columns as the engine lists them: on runs
    with just the key and provenance columns no fact is 'not recorded', and runs without any
    one of the provenance columns show less."""
    samples = {
        "string": "x",
        "int": 1,
        "float": 1.5,
        "bool": False,
        "timestamp": dt.datetime(2025, 1, 2),
    }
    columns = {**KEY_COLUMNS, **PROVENANCE_COLUMNS}
    runs = pa.table({name: [samples[kind]] * 2 for name, kind in columns.items()})

    def shown(table: pa.Table) -> dict[str, str]:
        con = sql.connect()
        con.register("runs", table)
        sql.load(con, "runs")
        return report.provenance(con)

    everything = shown(runs)
    assert "not recorded" not in everything.values()
    assert everything["runs"] == "2"
    for name in PROVENANCE_COLUMNS:
        assert shown(runs.drop_columns([name])) != everything, name


def readme_recipe() -> str:
    """The SQL block of analysis/README.md's "Running it by hand in the duckdb shell"."""
    text = (ROOT / "analysis" / "README.md").read_text()
    section = text.split("## Running it by hand in the duckdb shell", 1)[1]
    return section.split("```sql\n", 1)[1].split("```", 1)[0]


@pytest.fixture(scope="module")
def smoke_results(satnet: object, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real store: the smoke sweep (real satnet, real Snakemake), 2 flavors x 2 drops, r = 2."""
    results = tmp_path_factory.mktemp("results")
    argv = ["run", str(ROOT / "sweeps" / "smoke.yaml"), "--results", str(results), "--cores", "2"]
    assert main(argv) == 0
    return results


@pytest.mark.programs
@pytest.mark.slow
def test_satnet_runs_reproduce_but_for_the_machine_s_own_measurements(
    smoke_results: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """satnet's wall_seconds and peak_rss_mb measure the machine (reproducible: false in its
    --describe): verify leaves them out and finds every other field of the reruns the same."""
    capsys.readouterr()
    code = main(["verify", "smoke", "--results", str(smoke_results), "--sample", "2"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "not compared: wall_seconds, peak_rss_mb (measurements of the machine" in out
    assert out.strip().endswith("2 of 2 runs reproduce exactly")


@pytest.mark.programs
@pytest.mark.slow
def test_readme_recipe_on_a_real_store(
    smoke_results: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's recipe, exactly as written, from a directory laid out like the repository
    root (analysis/, results/smoke/), gives the runner's numbers."""
    (tmp_path / "analysis").symlink_to(ROOT / "analysis")
    (tmp_path / "results").symlink_to(smoke_results)
    monkeypatch.chdir(tmp_path)
    con = duckdb.connect()
    value_checks, design_checks, summary, allocation, intervals = run_shell(con, readme_recipe())
    with Dataset.open(smoke_results / "smoke" / "runs.parquet") as data:
        expected = data.analyze("efficiency", ["flavor", "drop"])
    assert value_checks[1] == [] and design_checks[1] == []
    # the README's t quantile is the one for this design's error dof (as 40-*.sql reads it)
    t_quantile = con.execute("SELECT CAST(getvariable('t_quantile') AS DOUBLE)").fetchone()
    assert t_quantile == (expected.t_quantile,)

    def same(output: tuple[list[str], list[tuple]], columns: str, rows: list[tuple]) -> None:
        """The output's columns hold ``rows``; numbers up to DuckDB's summation order."""
        names, values = output
        got = [tuple(row[names.index(c)] for c in columns.split()) for row in values]
        assert len(got) == len(rows), got
        for got_row, row in zip(got, rows, strict=True):
            for a, b in zip(got_row, row, strict=True):
                assert a == (pytest.approx(b, rel=1e-9, abs=1e-12) if isinstance(b, float) else b)

    totals = "n mean sum_squares_total_values sum_squares_mean total_variation replications"
    same(summary, totals, [tuple(getattr(expected, name) for name in totals.split())])
    same(
        allocation,
        "term ss dof percent",
        [(t.term, t.ss, t.dof, t.percent) for t in expected.terms],
    )
    same(
        intervals,
        "factor level effect ci_low ci_high significant",
        [
            (factor, level, e.effect, *e.ci, e.significant)  # type: ignore[misc]
            for factor, levels in expected.effects.items()
            for level, e in levels.items()
        ],
    )


# -- hand-checkable designs -----------------------------------------------------------------


def two_by_two(replications: int) -> pa.Table:
    """y = 10 + a + b + ab (+ -0.25/+0.25 with 2 replications): a = -+2, b = -+1, ab = -+0.5."""
    rows = []
    for a, a_effect in (("a1", -2.0), ("a2", 2.0)):
        for b, b_effect in (("b1", -1.0), ("b2", 1.0)):
            ab = 0.5 if (a == "a1") == (b == "b1") else -0.5
            for k in range(replications):
                noise = 0.0 if replications == 1 else (-0.25 if k % 2 == 0 else 0.25)
                rows.append({"A": a, "B": b, "y_": 10 + a_effect + b_effect + ab + noise})
    return pa.Table.from_pylist(rows)


def test_two_by_two_known_effects() -> None:
    with Dataset.from_arrow(two_by_two(replications=2)) as data:
        r = data.analyze("y_", ["A", "B"])
    assert r.n == 8 and r.replications == 2
    assert r.mean == pytest.approx(10)
    assert {lv: e.effect for lv, e in r.effects["A"].items()} == pytest.approx({"a1": -2, "a2": 2})
    assert {lv: e.effect for lv, e in r.effects["B"].items()} == pytest.approx({"b1": -1, "b2": 1})
    interactions = {(i.levels): i.value for i in r.interactions}
    assert interactions == pytest.approx(
        {("a1", "b1"): 0.5, ("a1", "b2"): -0.5, ("a2", "b1"): -0.5, ("a2", "b2"): 0.5}
    )
    # SS_A = 4 runs/level x (4 + 4) = 32, SS_B = 4 x 2 = 8, SS_AB = 2 runs/cell x 4 x 0.25 = 2,
    # SSE = 8 x 0.0625 = 0.5, SST = 42.5
    ss = {t.term: t.ss for t in r.terms}
    assert ss == pytest.approx({"A": 32, "B": 8, "A:B": 2, "error": 0.5})
    assert r.total_variation == pytest.approx(42.5)
    assert r.allocation_percent == pytest.approx(
        {"A": 3200 / 42.5, "B": 800 / 42.5, "A:B": 200 / 42.5}
    )
    assert r.error_dof == 4  # 8 - 1 - 1 - 1 - 1
    assert r.standard_error == pytest.approx(math.sqrt(0.5 / 4))
    half_width = student_t.ppf(0.95, 4) * math.sqrt(0.5 / 4) * math.sqrt(1 / 8)
    assert r.effects["A"]["a2"].ci == pytest.approx((2 - half_width, 2 + half_width))
    assert r.effects["A"]["a2"].significant is True


def test_two_by_two_without_replications_has_no_error_dof() -> None:
    """One run per cell of a 2 x 2: the first-order model is saturated, no interval is defined."""
    with Dataset.from_arrow(two_by_two(replications=1)) as data:
        r = data.analyze("y_", ["A", "B"])
    assert r.error_dof == 0 and r.standard_error is None
    assert r.effects["B"]["b2"].effect == pytest.approx(1)
    assert r.effects["B"]["b2"].ci is None and r.effects["B"]["b2"].significant is None
    document = json.loads(analysis.to_json(r))
    assert document["standard_error"] is None
    assert document["effects"]["A"]["a1"] == {"effect": pytest.approx(-2), "ci": None}
    assert "n/a" in analysis.format_markdown(r)


def random_design(levels: list[int], replications: int, seed: int) -> list[dict[str, object]]:
    rng = random.Random(seed)
    rows = []
    for cell in product(*(range(n) for n in levels)):
        base = sum((i + 1) * (level - 1) ** 2 for i, level in enumerate(cell))
        base += cell[0] * cell[-1] + (cell[0] * cell[1] * (cell[-1] + 1) if len(cell) > 2 else 0)
        for _ in range(replications):
            row: dict[str, object] = {f"f{i}": f"L{level}" for i, level in enumerate(cell)}
            row["y"] = base + rng.gauss(0, 1)
            rows.append(row)
    rng.shuffle(rows)
    return rows


def numpy_reference(rows: list[dict[str, object]], factors: list[str]) -> dict[str, object]:
    """Jain's formulas (docs/studies/goyal98.md, "The design and its analysis") in NumPy."""
    y = np.array([r["y"] for r in rows], dtype=float)
    n, mean = len(y), y.mean()
    levels = {f: sorted({r[f] for r in rows}) for f in factors}
    col = {f: np.array([r[f] for r in rows]) for f in factors}
    effects = {f: {lv: y[col[f] == lv].mean() - mean for lv in levels[f]} for f in factors}
    ss = {f: n / len(levels[f]) * sum(e**2 for e in effects[f].values()) for f in factors}
    interactions = {}
    for i, a in enumerate(factors):
        for b in factors[i + 1 :]:
            for la, lb in product(levels[a], levels[b]):
                at = (col[a] == la) & (col[b] == lb)
                interactions[a, b, la, lb] = y[at].mean() - mean - effects[a][la] - effects[b][lb]
            inter = [g for (fa, fb, _, _), g in interactions.items() if (fa, fb) == (a, b)]
            ss[f"{a}:{b}"] = n / (len(levels[a]) * len(levels[b])) * sum(g**2 for g in inter)
    sst = ((y - mean) ** 2).sum()
    cells: dict[tuple[object, ...], list[float]] = {}
    for r in rows:
        cells.setdefault(tuple(r[f] for f in factors), []).append(float(r["y"]))  # type: ignore[arg-type]
    within = sum(((np.array(v) - np.mean(v)) ** 2).sum() for v in cells.values())
    pooled_variance = float(np.mean([np.var(v, ddof=1) for v in cells.values()]))
    return {
        "mean": mean,
        "sst": sst,
        "effects": effects,
        "ss": ss,
        "interactions": interactions,
        "within": within,
        "n_cells": len(cells),
        "pooled_variance": pooled_variance,
    }


def test_against_numpy_and_full_model_error_is_within_cell_variance() -> None:
    factors = ["f0", "f1", "f2"]
    rows = random_design([4, 3, 2], replications=3, seed=1)
    ref = numpy_reference(rows, factors)
    with Dataset.from_arrow(pa.Table.from_pylist(rows)) as data:
        first = data.analyze("y", factors, model="first-order")
        full = data.analyze("y", factors, model="full", confidence=0.95)
    for r in (first, full):
        assert r.mean == pytest.approx(ref["mean"])
        assert r.total_variation == pytest.approx(ref["sst"])
        for f in factors:
            got = {lv: e.effect for lv, e in r.effects[f].items()}
            assert got == pytest.approx(ref["effects"][f])  # type: ignore[index]
        for term, ss in ref["ss"].items():  # type: ignore[attr-defined]
            assert r.allocation_percent[term] == pytest.approx(100 * ss / ref["sst"])
        got_interactions = {(*i.factors, *i.levels): i.value for i in r.interactions}
        assert got_interactions == pytest.approx(ref["interactions"])
        # each interaction's interval: +- t x se x sqrt((N_a - 1)(N_b - 1) / n) (Jain)
        n_levels = {"f0": 4, "f1": 3, "f2": 2}
        for i in r.interactions:
            a, b = i.factors
            half = (
                r.t_quantile
                * r.standard_error
                * np.sqrt((n_levels[a] - 1) * (n_levels[b] - 1) / 72)
            )
            assert i.ci == pytest.approx((i.value - half, i.value + half))
            assert i.significant == (abs(i.value) > half)
        # f0 x f2 is built into y (cell[0] x cell[-1]): some pair of its levels interacts
        assert any(i.significant for i in r.interactions if i.factors == ("f0", "f2"))
    # full model: error = replication error, se^2 = the (pooled) within-cell variance
    assert full.error.ss == pytest.approx(ref["within"])
    assert full.error_dof == 72 - ref["n_cells"]
    assert full.standard_error**2 == pytest.approx(ref["pooled_variance"])
    assert full.t_quantile == pytest.approx(student_t.ppf(0.975, 48))
    assert list(full.allocation_percent)[-1] == "f0:f1:f2"
    assert sum(t.percent for t in full.terms) == pytest.approx(100)
    # first-order: the three-factor interaction is error
    assert first.error.ss == pytest.approx(ref["within"] + full.terms[-2].ss)
    assert first.error_dof == 72 - 1 - (3 + 2 + 1) - (6 + 3 + 2)
    assert "f0:f1:f2" not in first.allocation_percent
    assert sum(t.percent for t in first.terms) == pytest.approx(100)


def test_four_factors_one_level_order_and_keys() -> None:
    """Levels appear in order of first appearance; pairs in factor order; numbers as text."""
    rows = []
    for d, c, b, a in product([1, 2, 3], [0.5, 1.0], ["x", "y"], [True, False]):
        rows.append({"a": a, "b": b, "c": c, "d": d, "resp": d * 2 + c + (a * 3)})
    with Dataset.from_arrow(pa.Table.from_pylist(rows)) as data:
        r = data.analyze("resp", ["d", "c", "a", "b"])
    assert list(r.effects) == ["d", "c", "a", "b"]
    assert list(r.effects["c"]) == ["0.5", "1"]
    assert list(r.effects["d"]) == ["1", "2", "3"]
    assert list(r.effects["a"]) == ["true", "false"]
    assert list(r.allocation_percent) == [
        "d",
        "c",
        "a",
        "b",
        "d:c",
        "d:a",
        "d:b",
        "c:a",
        "c:b",
        "a:b",
    ]
    assert r.allocation_percent["b"] == pytest.approx(0)
    assert r.effects["a"]["true"].effect == pytest.approx(1.5)


def test_invariant_to_row_order(tmp_path: Path) -> None:
    rows = read_rows(WAN_CSV)
    random.Random(7).shuffle(rows)
    shuffled = write_rows(tmp_path / "shuffled.csv", rows)  # type: ignore[arg-type]
    a = analysis.analyze(WAN_CSV, "efficiency", FACTORS).to_dict()
    b = analysis.analyze(shuffled, "efficiency", FACTORS).to_dict()
    for factor in FACTORS:
        assert set(a["effects"][factor]) == set(b["effects"][factor])
        b["effects"][factor] = {lv: b["effects"][factor][lv] for lv in a["effects"][factor]}
    for document in (a, b):  # listed in the levels' order of appearance
        document["interactions"].sort(key=lambda i: (i["factors"], i["levels"]))
    assert_matches(b, json.loads(json.dumps(a)))
    assert b["mean"] == pytest.approx(a["mean"], abs=1e-12)


def test_by_groups_and_study_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows: list[dict[str, object]] = list(read_rows(WAN_CSV))
    rows += [{**r, "link": "GEO", "efficiency": float(r["efficiency"]) + 0.1} for r in rows]
    store = tmp_path / "results" / "goyal98" / "runs.parquet"
    store.parent.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(read_csv_typed(rows)), store)
    monkeypatch.setenv("SATSWEEP_RESULTS", str(tmp_path / "results"))
    results = analysis.analyze_by("goyal98", "link", "efficiency", FACTORS)
    assert list(results) == ["WAN", "GEO"]
    assert results["GEO"].mean == pytest.approx(results["WAN"].mean + 0.1)
    assert results["GEO"].group == "GEO" and results["GEO"].by == "link"
    for factor in FACTORS:
        for level, e in results["WAN"].effects[factor].items():
            assert results["GEO"].effects[factor][level].effect == pytest.approx(e.effect)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SATSWEEP_RESULTS")
    assert analysis.resolve_source("goyal98") == Path("results/goyal98/runs.parquet")


def read_csv_typed(rows: list[dict[str, object]]) -> list[dict[str, object]]:
    numeric = ("buffer", "efficiency", "fairness")
    return [{k: float(v) if k in numeric else v for k, v in r.items()} for r in rows]  # type: ignore[arg-type]


def test_goyal98_wan_sql_compares_the_wan_cells_with_the_paper(tmp_path, capsys):
    """analysis/goyal98/goyal98-wan.sql (issue 11's target): each WAN cell's mean beside the paper's,
    and the summary row: mean, RMS and largest gap, cells within 0.10. A store whose WAN cells
    are the paper's + 0.05 (one cell + 0.20), two replications each, and MEO runs the query
    must leave out."""
    with open(WAN_CSV) as f:
        paper = list(csv.DictReader(f))
    rows = []
    for p in paper:
        shift = 0.20 if (p["drop"], p["flavor"], p["buffer"]) == ("EPD", "Vanilla", "0.5") else 0.05
        for link, spread in (("wan", 0.01), ("wan", -0.01), ("meo", 0.3)):
            rows.append({"link": link, "drop": p["drop"].lower(), "flavor": p["flavor"].lower(),
                         "bufferRtt": float(p["buffer"]),
                         "efficiency": float(p["efficiency"]) + shift + spread,
                         "fairness": float(p["fairness"])})  # fmt: skip
    store = tmp_path / "results" / "g"
    store.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows), store / "runs.parquet")
    query = (ROOT / "analysis" / "goyal98" / "goyal98-wan.sql").read_text()
    argv = ["sql", "--results", str(tmp_path / "results"), "--study", "g", "--csv",
            "--table", f"paper={WAN_CSV}", query]  # fmt: skip
    code, out, err = run_cli(argv, capsys)
    assert code == 0, err
    table = list(csv.DictReader(out.splitlines()))
    assert len(table) == 25
    cell = next(
        r for r in table if (r["drop"], r["flavor"], r["bufferRtt"]) == ("sd", "reno", "1.0")
    )
    assert (cell["runs"], cell["efficiency_gap"], cell["fairness_gap"]) == ("2", "0.05", "0.0")
    assert math.isclose(float(cell["efficiency_sd"]), 0.014, abs_tol=0.0005)
    every = table[-1]
    paper_mean = sum(float(p["efficiency"]) for p in paper) / 24
    assert every["drop"] == "all" and every["runs"] == "48"
    assert math.isclose(
        float(every["efficiency"]), paper_mean + (23 * 0.05 + 0.20) / 24, abs_tol=6e-4
    )
    assert math.isclose(
        float(every["rms_efficiency_gap"]), math.sqrt((23 * 0.05**2 + 0.20**2) / 24), abs_tol=6e-4
    )
    assert (every["efficiency_gap"], every["cells_within_0_10"]) == ("0.2", "23")


def test_goyal98_load_sql_counts_the_backlogged_connections_of_each_wan_cell(tmp_path, capsys):
    """analysis/goyal98/goyal98-load.sql: per WAN cell, offered load and goodput in units of C and the
    connections whose requested bytes are not all received at the end, averaged over the
    replications; MEO runs are left out. Two replications of one cell with 3 and 1 of 4
    connections backlogged, and a MEO run with all 4."""
    runs, connections = [], []
    for config, link, backlogged_per_rep in (("w", "wan", (3, 1)), ("m", "meo", (4,))):
        for rep, backlogged in enumerate(backlogged_per_rep, start=1):
            runs.append({"config_id": config, "replication": rep, "link": link, "drop": "epd",
                         "flavor": "reno", "bufferRtt": 0.5, "capacity_bps": 40e6,
                         "offered_bps": 50e6 + rep * 2e6, "goodput_bps": 36e6})  # fmt: skip
            for vc in range(4):
                received = 1000 if vc < backlogged else 2000
                connections.append({"config_id": config, "replication": rep, "vc": vc,
                                    "bytes_received": received, "bytes_requested": 2000})  # fmt: skip
    store = tmp_path / "results" / "g"
    store.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(runs), store / "runs.parquet")
    pq.write_table(pa.Table.from_pylist(connections), store / "connections.parquet")
    query = (ROOT / "analysis" / "goyal98" / "goyal98-load.sql").read_text()
    argv = ["sql", "--results", str(tmp_path / "results"), "--study", "g", "--csv", query]
    code, out, err = run_cli(argv, capsys)
    assert code == 0, err
    assert list(csv.DictReader(out.splitlines())) == [
        {
            "drop": "epd",
            "flavor": "reno",
            "bufferRtt": "0.5",
            "runs": "2",
            "offered_per_c": "1.325",
            "goodput_per_c": "0.9",
            "backlogged": "2.0",
            "connections": "4.0",
        }
    ]


def test_the_run_table_s_own_columns_in_workflow_readme_are_the_engine_s() -> None:
    """workflow/README.md's table of runs.parquet names each key and provenance column with its
    type as DuckDB shows it: the same names and types as the engine's lists (their one home)."""
    duckdb_type = {"string": "VARCHAR", "int": "BIGINT", "float": "DOUBLE", "bool": "BOOLEAN",
                   "timestamp": "TIMESTAMP"}  # fmt: skip
    text = (REPO / "workflow" / "README.md").read_text()
    section = text.split("### `runs.parquet`: one row per run", 1)[1].split("\n### ", 1)[0]
    documented = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        names = re.findall(r"`([a-z_0-9]+)`", cells[0]) if len(cells) == 3 else []
        if names and cells[0].replace("`", "").replace(",", " ").split() == names:
            types = [t.strip() for t in cells[1].split(",")]
            types = types if len(types) == len(names) else types * len(names)
            documented.update(zip(names, types))
    expected = {
        name: duckdb_type[kind] for name, kind in {**KEY_COLUMNS, **PROVENANCE_COLUMNS}.items()
    }
    assert documented == expected
