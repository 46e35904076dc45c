"""`satsweep report`: a synthetic store with known numbers, a real one from the smoke sweep, and
real satnet stores for the curves over a numeric factor, a theory beside them, and traces."""

from __future__ import annotations

import itertools
import json
import math
import re
import shutil
import statistics
import struct
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
import scipy.stats
import yaml

from satsweep import analysis, cli, report
from satsweep.analysis.formatting import significant, with_bounds, with_interval
from satsweep.design import TraceSettings
from satsweep.report import tables as report_tables
from satsweep.report.tables import trace_mean_panels, trace_over_factor, trace_panels
from satsweep.store import Store
from satsweep.theory import Reference, theory
from tests.support import REPO


def shown(mean: float, half: float) -> str:
    """A cell as the one rule writes it (its digits by hand: tests/test_report_truth.py)."""
    return " ± ".join(with_interval(mean, half))


T_95_1 = 6.313751514675043  # scipy.stats.t.ppf(0.95, 1): 90% two-sided, one degree of freedom
T_975_1 = 12.706204736174696  # scipy.stats.t.ppf(0.975, 1): 95%

LINKS = {"wan": (0.0, 0.005, 531), "geo": (-0.2, 0.275, 23000)}  # offset, delay, cells at 1 RTT
FLAVORS = {"vanilla": -0.2, "reno": -0.05, "newreno": 0.1, "sack": 0.15}
DROPS = {"epd": -0.01, "sd": 0.01}
BUFFERS = {0.5: -0.1, 1.0: 0.0, 2.0: 0.1}
COMMIT = "0123456789abcdef0123456789abcdef01234567"
SHA = "f" * 64


def efficiency(link: str, flavor: str, drop: str, buffer: float) -> float:
    """The cell mean: additive effects, so the table and the effects are known by hand."""
    return 0.5 + LINKS[link][0] + FLAVORS[flavor] + DROPS[drop] + BUFFERS[buffer]


def synthetic_runs(replications: int = 2) -> pa.Table:
    """A store table (runs.parquet schema) of link x flavor x drop x bufferRtt, r runs per cell.

    Replication k of cell i deviates from the cell mean by -/+ delta_i = 0.001 (i + 1), so the
    cell's sample deviation is delta_i sqrt(2) and its 90% half-width t(0.95; 1) x delta_i.
    """
    rows = []
    cells = itertools.product(LINKS, FLAVORS, DROPS, BUFFERS)
    for i, (link, flavor, drop, buffer) in enumerate(cells):
        for k in range(1, replications + 1):
            sign = -1 if k % 2 else 1
            rows.append(
                {
                    "study": "synth",
                    "config_id": f"c{i:03d}",
                    "replication": k,
                    "seed": 1,
                    "run": 1000 * i + k,
                    "link": link,
                    "flavor": flavor,
                    "drop": drop,
                    "bufferRtt": buffer,
                    "clients": 5,
                    "simTime": 5.0,
                    "bufferCells": int(LINKS[link][2] * buffer),  # derived: not a factor
                    "delay": LINKS[link][1],  # derived from link
                    "efficiency": efficiency(link, flavor, drop, buffer) + sign * 0.001 * (i + 1),
                    "fairness": 0.9 + (0.05 if flavor == "sack" else 0.0) + sign * 0.002,
                    "program": "satnet",
                    "program_version": "0.1.0 (ns-3 3.44)",
                    "program_sha256": SHA,
                    "satsweep_version": "0.1.0",
                    "git_commit": COMMIT,
                    "git_dirty": False,
                    "host": "node-a" if i % 2 else "node-b",
                    "started_at": datetime(2025, 1, 2, 3, 4, 5 + (i % 50)),
                    "elapsed_seconds": 1.5,
                }
            )
    return pa.Table.from_pylist(rows)


#: The synthetic study's design as `satsweep run` records it (design.json), with the paper's
#: layout in its analysis section and a program description that declares units.
RECORDED = {
    "study": "synth",
    "design": {
        "study": "synth",
        "program": "/nowhere/synth-sim",
        "factors": {"link": list(LINKS), "flavor": list(FLAVORS), "drop": list(DROPS),
                    "bufferRtt": list(BUFFERS)},
        "fixed": {"clients": 5, "simTime": 5},
        "replications": 2,
        "analysis": {"responses": ["efficiency", "fairness"], "by": "link",
                     "factors": ["drop", "flavor", "bufferRtt"]},
    },
    "program": {"path": "/nowhere/synth-sim", "sha256": SHA},
    "describe": {
        "name": "synth-sim", "version": "1",
        "parameters": [
            {"name": "link", "type": "string", "help": ""},
            {"name": "flavor", "type": "string", "help": ""},
            {"name": "drop", "type": "string", "help": ""},
            {"name": "bufferRtt", "type": "float", "unit": "RTT x bandwidth", "help": ""},
            {"name": "clients", "type": "int", "help": ""},
            {"name": "simTime", "type": "float", "unit": "s", "help": ""},
        ],
        "summary": [
            {"name": "efficiency", "type": "float", "unit": "fraction of capacity", "help": ""},
            {"name": "fairness", "type": "float", "unit": "index, 0 to 1", "help": "",
             "minimum": 0, "maximum": 1},
            {"name": "label", "type": "string", "help": "not numeric: never a default response"},
        ],
    },
}  # fmt: skip


def write_store(
    results: Path, table: pa.Table, study: str = "synth", recorded: dict | None = RECORDED
) -> Path:
    (results / study).mkdir(parents=True, exist_ok=True)
    pq.write_table(table, results / study / "runs.parquet")
    if recorded is not None:
        (results / study / "design.json").write_text(json.dumps(recorded))
    return results / study


@pytest.fixture(scope="module")
def synth(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The synthetic study, reported once with the defaults through the CLI."""
    results = tmp_path_factory.mktemp("results")
    write_store(results, synthetic_runs())
    assert cli.main(["report", "synth", "--results", str(results)]) == 0
    return results


def section(markdown: str, group: str, response: str) -> str:
    """The Markdown of one group x response."""
    part = markdown.split(f"\n## link = {group}\n", 1)[1].split("\n## ", 1)[0]
    return part.split(f"\n### {response}\n", 1)[1].split("\n### ", 1)[0]


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert data.rstrip(b"\0").endswith(b"IEND\xaeB`\x82"), f"{path} is truncated"
    return width, height


def test_defaults_and_units_come_from_the_recorded_design(tmp_path: Path) -> None:
    store = Store(write_store(tmp_path, synthetic_runs()))
    study = analysis.study_design(store)
    assert study.factors == {
        "link": ["wan", "geo"], "flavor": list(FLAVORS), "drop": ["epd", "sd"],
        "bufferRtt": ["0.5", "1", "2"],
    }  # fmt: skip
    assert study.fixed == {"clients": "5", "simTime": "5"}
    assert (study.by, study.layout) == ("link", ["drop", "flavor", "bufferRtt"])
    assert study.responses == ["efficiency", "fairness"]
    assert study.label("bufferRtt") == "bufferRtt (RTT x bandwidth)"
    assert study.label("flavor") == "flavor"
    # without an analysis section: every numeric summary field, the design's factors
    bare = json.loads(json.dumps(RECORDED))
    del bare["design"]["analysis"]
    write_store(tmp_path, synthetic_runs(), recorded=bare)
    study = analysis.study_design(store)
    assert study.responses == ["efficiency", "fairness"] and study.by is None
    assert study.layout == ["link", "flavor", "drop", "bufferRtt"]


@pytest.mark.slow  # a sweep or a real report: several seconds
def test_a_store_without_a_recorded_design_needs_responses_and_factors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_store(tmp_path, synthetic_runs(), recorded=None)
    assert cli.main(["report", "synth", "--results", str(tmp_path)]) == 2
    assert "has no design.json" in capsys.readouterr().err
    argv = ["--responses", "efficiency", "--factors", "flavor,bufferRtt", "--by", "link"]
    assert cli.main(["report", "synth", "--results", str(tmp_path), *argv]) == 0
    markdown = (tmp_path / "synth" / "report" / "report.md").read_text()
    assert "#### Results: mean efficiency ± 90% CI" in markdown  # no unit known


@pytest.mark.slow  # a sweep or a real report: several seconds
def test_analyze_takes_a_study_s_defaults_and_units(
    synth: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert cli.main(["analyze", "synth", "--results", str(synth)]) == 0
    out = capsys.readouterr().out
    for group in LINKS:
        assert f"## efficiency (fraction of capacity) (link = {group})" in out
        assert f"## fairness (index, 0 to 1) (link = {group})" in out
    assert "| bufferRtt (RTT x bandwidth) | 0.5 |" in out
    assert cli.main(["analyze", "synth", "--results", str(synth), "--json", "--by", "none",
                     "--response", "efficiency", "--factors", "flavor,drop,bufferRtt,link"]) == 0  # fmt: skip
    assert json.loads(capsys.readouterr().out)["n"] == 96


def pooled_half(link: str, confidence: float) -> float:
    """The synthetic cells' pooled half-width by hand: the means are additive, so the first-order
    model's error is the within-cell spread, SSE = sum over the link's 24 cells of 2 delta_i^2,
    with 48 - 1 - (1 + 3 + 2) - (3 + 2 + 6) = 30 degrees of freedom; t(30) x s_e / sqrt(2)."""
    start = list(LINKS).index(link) * 24
    sse = sum(2 * (0.001 * (i + 1)) ** 2 for i in range(start, start + 24))
    t = scipy.stats.t.ppf(1 - (1 - confidence) / 2, 30)
    return t * math.sqrt(sse / 30) / math.sqrt(2)


def test_results_table_means_and_half_widths(synth: Path) -> None:
    """With error degrees of freedom (30 here) every cell's interval uses the pooled error, the
    same width in every cell; without (two factors, one replication in the analysis, two runs
    in the table's cells, as in a precision campaign's balanced part) each cell's own runs."""
    runs = synth / "synth" / "runs.parquet"
    factors = ["drop", "flavor", "bufferRtt"]
    with analysis.Dataset.open(runs) as data:
        for confidence in (0.90, 0.95):
            results = data.analyze_by("link", "efficiency", factors, confidence=confidence)
            assert results["geo"].error_dof == 30
            table = report.results_table(data, results["geo"])
            assert table.pooled
            assert table.row_factors == ("drop", "flavor")
            assert table.column_factor == "bufferRtt"
            assert table.column_levels == ("0.5", "1", "2")
            assert [levels for levels, _ in table.rows] == [(d, f) for d in DROPS for f in FLAVORS]
            cell_index = {
                c: i for i, c in enumerate(itertools.product(LINKS, FLAVORS, DROPS, BUFFERS))
            }
            for (drop, flavor), cells in table.rows:
                for buffer, cell in zip(BUFFERS, cells, strict=True):
                    i = cell_index[("geo", flavor, drop, buffer)]
                    assert cell.n == 2
                    assert cell.mean == pytest.approx(efficiency("geo", flavor, drop, buffer))
                    assert cell.half_width == pytest.approx(
                        pooled_half("geo", confidence), rel=1e-9
                    )
                    assert i  # the cell's own spread no longer matters
    # no error degrees of freedom: drop x flavor on one link and buffer, first-order, r = 1
    one = (pc.field("link") == "wan") & (pc.field("bufferRtt") == 1.0)
    table_runs = synthetic_runs().filter(one)
    with (
        analysis.Dataset.from_arrow(table_runs) as data,
        analysis.Dataset.from_arrow(synthetic_runs(replications=1).filter(one)) as single,
    ):
        result = single.analyze("efficiency", ["drop", "flavor"])
        assert result.error_dof == 0 and result.standard_error is None
        table = report.results_table(data, result)
        assert not table.pooled
        cell_index = {c: i for i, c in enumerate(itertools.product(LINKS, FLAVORS, DROPS, BUFFERS))}
        for (drop,), cells in table.rows:
            for flavor, cell in zip(FLAVORS, cells, strict=True):
                i = cell_index[("wan", flavor, drop, 1.0)]
                assert cell.half_width == pytest.approx(T_95_1 * 0.001 * (i + 1), rel=1e-9)
        # and one run per cell: no interval
        table = report.results_table(single, result)
        assert all(c.half_width is None for _, cells in table.rows for c in cells)


def test_markdown_tables_match_the_analysis(synth: Path) -> None:
    markdown = (synth / "synth" / "report" / "report.md").read_text()
    part = section(markdown, "geo", "efficiency")
    # a row of the results table by hand: drop sd, flavor newreno; cell index of (geo, newreno,
    # sd, b) is 24 + 2 * 6 + 3 + k = 39, 40, 41 for b = 0.5, 1, 2
    means = [0.5 - 0.2 + 0.1 + 0.01 + b for b in (-0.1, 0.0, 0.1)]
    half = pooled_half("geo", 0.90)
    cells = " | ".join(shown(m, half) for m in means)
    assert f"| sd | newreno | {cells} |" in part
    assert "| drop | flavor | bufferRtt = 0.5 | bufferRtt = 1 | bufferRtt = 2 |" in part
    assert (
        "#### Results: mean efficiency (fraction of capacity) ± 90% CI (pooled error, 30 dof)"
        in part
    )
    assert (
        "Intervals: each cell's 90% interval uses the pooled error of the first-order model "
        f"(the ANOVA's error term: standard error "
        f"{significant(half * math.sqrt(2) / scipy.stats.t.ppf(0.95, 30))}, "
        "30 degrees of freedom"
    ) in part

    result = analysis.analyze_by(
        synth / "synth" / "runs.parquet", "link", "efficiency", ["drop", "flavor", "bufferRtt"]
    )["geo"]
    allocation = part.split("#### Allocation of variation", 1)[1].split("####", 1)[0]
    rows = [line for line in allocation.splitlines() if line.startswith("| ") and "---" not in line]
    assert [r.split("|")[1].strip() for r in rows[1:]] == [
        *(t.term for t in result.terms),
        "total",
    ]
    for term, row in zip(result.terms, rows[1:], strict=False):
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert float(cells[1]) == pytest.approx(term.ss, rel=1e-5)
        assert int(cells[2]) == term.dof
        assert float(cells[3]) == pytest.approx(term.percent, abs=0.005)
    assert result.terms[-1].term == "error"
    for level, effect in result.effects["flavor"].items():
        mark = " * |" if effect.significant else "  |"
        value, ci = with_bounds(effect.effect, effect.ci)
        assert f"| flavor | {level} | {value} | {ci} |{mark}" in part
    assert result.effects["flavor"]["vanilla"].significant  # effects of 0.2 with a tiny error


def test_figures_and_html(synth: Path) -> None:
    directory = synth / "synth" / "report"
    html = (directory / "index.html").read_text()
    markdown = (directory / "report.md").read_text()
    pngs = sorted(p.name for p in directory.glob("*.png"))
    expected = sorted(
        f"{link}-{response}-{kind}.png"
        for link in LINKS
        for response in ("efficiency", "fairness")
        for kind in ("effects", "interactions", "curves")  # bufferRtt: 3 numeric levels
    )
    assert pngs == expected
    assert sorted(re.findall(r'<img src="([^"]+)"', html)) == expected
    assert sorted(re.findall(r"!\[[^]]*\]\(([^)]+)\)", markdown)) == expected
    for name in pngs:
        width, height = png_size(directory / name)
        assert width >= 600 and height >= 400, name
        assert (directory / name).stat().st_size > 15_000, name  # not an empty canvas
    # self-contained: no scripts, stylesheets or images from elsewhere
    assert not re.search(r"(src|href)=\"(https?:|//)", html)
    assert "<script" not in html and "<link" not in html
    for text in (COMMIT, "clean working tree", SHA, "satnet 0.1.0 (ns-3 3.44)",
                 "node-a", "node-b", "2025-01-02 03:04:05", "first-order", "90%"):  # fmt: skip
        assert text in html, text
        assert text in markdown, text
    facts = dict(re.findall(r"<tr><td class=\"l\">([^<]+)</td><td class=\"l\">([^<]+)</td>", html))
    assert facts["runs"] == "96"
    assert facts["configurations"] == "48"
    assert facts["replications per configuration"] == "2"
    assert facts["analysed per"] == "link: wan, geo"
    assert "--factors drop,flavor,bufferRtt --by link" in html
    # the sections: per link, per response
    assert markdown.index("## link = wan") < markdown.index("## link = geo")


def test_report_is_replaced_whole_and_kept_on_error(synth: Path, tmp_path: Path) -> None:
    results = tmp_path / "results"
    shutil.copytree(synth / "synth", results / "synth")
    target = results / "synth" / "report"
    old = (target / "index.html").read_text()
    (target / "stale.png").write_bytes(b"old")

    # a rerun replaces the directory: nothing of the old one survives
    index = report.write_report("synth", results, by=None, factors=["flavor", "bufferRtt"])
    assert index == target / "index.html"
    assert not (target / "stale.png").exists()
    assert sorted(p.name for p in target.glob("*.png")) == [
        f"{response}-{kind}.png"
        for response in ("efficiency", "fairness")
        for kind in ("curves", "effects", "interactions")
    ]
    assert "## All runs" in (target / "report.md").read_text()
    new = index.read_text()
    assert new != old

    # an unbalanced store: exit 2, one line, and the previous report untouched
    table = synthetic_runs()
    write_store(results, table.slice(1))
    code = cli.main(["report", "synth", "--results", str(results)])
    assert code == 2
    assert index.read_text() == new
    assert [p.name for p in (results / "synth").iterdir() if p.name.startswith(".")] == []


def test_errors_exit_2_and_write_nothing(
    synth: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert cli.main(["report", "nosuch", "--results", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("satsweep report: error: no file and no study named 'nosuch'")
    assert err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []

    results = tmp_path / "r"
    write_store(results, synthetic_runs().slice(1))  # a cell with one run, the others two
    assert cli.main(["report", "synth", "--results", str(results)]) == 2
    err = capsys.readouterr().err
    assert re.fullmatch(
        r"satsweep report: warning: 1 of 96 runs of study 'synth' are missing or failed "
        r"\(0 failed\): see `satsweep status synth`.*\n"  # first, what the error comes from
        r"satsweep report: error: link=wan: unbalanced design: cell .+\n",
        err,
    )
    assert sorted(p.name for p in (results / "synth").iterdir()) == ["design.json", "runs.parquet"]

    write_store(results, synthetic_runs().slice(0, 0))  # a store without runs
    assert cli.main(["report", "synth", "--results", str(results)]) == 2
    assert "study 'synth' has no finished runs" in capsys.readouterr().err

    write_store(results, synthetic_runs())
    assert cli.main(["report", "synth", "--results", str(results), "--responses", "nope"]) == 2
    assert "unknown response column 'nope'" in capsys.readouterr().err
    argv = ["report", "synth", "--results", str(results), "--factors", "flavor,link"]
    assert cli.main([*argv, "--by", "link"]) == 2
    assert "--by column 'link' cannot also be the response or a factor" in capsys.readouterr().err
    assert cli.main([*argv, "--model", "full", "--by", "drop", "--confidence", "1.5"]) == 2
    assert "confidence must be between 0 and 1" in capsys.readouterr().err
    assert sorted(p.name for p in (results / "synth").iterdir()) == ["design.json", "runs.parquet"]


@pytest.mark.programs
@pytest.mark.slow
def test_smoke_sweep_report(
    satnet: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A real store (real satnet, real Snakemake): the study's factors come from its design."""
    results = tmp_path / "results"
    assert cli.main(["run", str(REPO / "sweeps" / "smoke.yaml"), "--results", str(results),
                     "--cores", "2"]) == 0  # fmt: skip
    capsys.readouterr()
    assert cli.main(["report", "smoke", "--results", str(results)]) == 0
    out, err = capsys.readouterr()
    directory = results / "smoke" / "report"
    assert out.strip() == str(directory / "index.html")
    for name in ("report.md", "index.html", "efficiency-effects.png", "fairness-interactions.png"):
        assert f"wrote report/{name}" in err
        assert (directory / name).is_file()
    markdown = (directory / "report.md").read_text()
    # smoke: flavor x drop on one link (link fixed): no --by, rows flavor, columns drop
    assert "--factors flavor,drop --by none" in markdown
    assert "| flavor | drop = epd | drop = sd |" in markdown
    assert "| fixed parameters | link = wan, bufferRtt = 1, clients = 5, simTime = 5 |" in markdown
    assert "\n## All runs\n" in markdown
    assert "#### Results: mean efficiency (fraction of capacity) ±" in markdown  # satnet's unit
    commit = duckdb.sql(
        f"SELECT any_value(git_commit) FROM '{results / 'smoke' / 'runs.parquet'}'"
    ).fetchone()[0]
    assert commit and commit in markdown
    assert "| runs | 8 |" in markdown
    for name in directory.glob("*.png"):
        png_size(name)


@pytest.mark.slow  # a sweep or a real report: several seconds
def test_an_interval_past_a_declared_bound_is_flagged(tmp_path: Path) -> None:
    """fairness is an index in [0, 1] (the program declares it): sack's cells at 0.9975 (runs
    0.995 and 1.0), the others 0.9 +- 0.002; the pooled error of a link's 24 cells, SSE =
    2 (18 x 0.002^2 + 6 x 0.0025^2) over 30 dof, gives the half-width t(0.95; 30) x s_e /
    sqrt(2) = 0.0032, past 1."""
    table = synthetic_runs()
    near_one = [0.995 + 0.005 * (k % 2) if f == "sack" else v
                for f, k, v in zip(table.column("flavor").to_pylist(),
                                    table.column("replication").to_pylist(),
                                    table.column("fairness").to_pylist(), strict=True)]  # fmt: skip
    index = table.schema.get_field_index("fairness")
    write_store(tmp_path, table.set_column(index, "fairness", pa.array(near_one)))
    report.write_report("synth", tmp_path)
    markdown = (tmp_path / "synth" / "report" / "report.md").read_text()
    fairness = section(markdown, "wan", "fairness")
    half = scipy.stats.t.ppf(0.95, 30) * math.sqrt(2 * (18 * 0.002**2 + 6 * 0.0025**2) / 30)
    half /= math.sqrt(2)
    assert 0.9975 + half > 1
    assert f"{shown(0.9975, half)} †" in fairness
    assert "† The interval runs past 1, a bound fairness cannot cross" in fairness
    assert "†" not in section(markdown, "wan", "efficiency")  # no bound declared


@pytest.mark.slow  # a sweep or a real report: several seconds
def test_curves_only_over_a_numeric_column_factor(tmp_path: Path) -> None:
    """The curves follow the results table (its means and intervals, tested above): drawn over
    bufferRtt's 0.5, 1, 2, not over flavor's names."""
    write_store(tmp_path, synthetic_runs())
    argv = ["report", "synth", "--results", str(tmp_path), "--responses", "efficiency"]
    assert cli.main([*argv, "--factors", "bufferRtt,flavor"]) == 0
    directory = tmp_path / "synth" / "report"
    assert not list(directory.glob("*-curves.png"))
    assert cli.main([*argv, "--factors", "flavor,bufferRtt"]) == 0
    assert sorted(p.name for p in directory.glob("*-curves.png")) == [
        f"{link}-efficiency-curves.png" for link in sorted(LINKS)
    ]
    markdown = (directory / "report.md").read_text()
    assert "efficiency against bufferRtt" in markdown


# -- curves, theory and traces on real satnet stores ----------------------------------------


#: A theory of satnet's efficiency for these tests (satnet has none of its own), a file beside
#: the design as a study's own theory may be: real arithmetic on each cell's run; nothing for
#: reno's "halved" (a None to skip).
TOY_THEORY = """\
from satsweep.theory import Reference, Theory


def predictions(row):
    buffer = row["bufferRtt"]
    return {"share": buffer / (1 + buffer), "halved": None if row["flavor"] == "reno" else buffer}


def references(x, y, row):
    if x == "bufferRtt":
        return [Reference("x", 1.0, "one RTT")]  # the same for every series: drawn once
    return [Reference("x", row["clients"] - 1, "last pair")] if x == "id" else []


THEORY = Theory("toy", "a test theory", predictions, {"efficiency": ["share", "halved"]},
                references)
"""

SATNET_CURVES = """\
study: curves
program: satnet
factors:
  flavor: [reno, sack]
  bufferRtt: [0.5, 1, 2]
fixed: {link: wan, drop: epd, clients: 5, simTime: 5}
replications: 2
analysis:
  responses: [efficiency, fairness]
  theory: ./toy_theory.py
  traces:
    - {table: connections, x: id, y: [throughput_bps, fair_share_bps], title: "per pair"}
"""
#: r = 1; the last factor numeric with 3 levels, the first numeric with 2.
SATNET_SINGLE = """\
study: single
program: satnet
factors:
  clients: [5, 6]
  bufferRtt: [0.5, 1, 2]
fixed: {link: wan, flavor: reno, drop: epd, simTime: 5}
replications: 1
analysis: {responses: [efficiency]}
"""


def run_study(results: Path, text: str) -> Path:
    """Runs the design ``text`` with the real satnet into ``results``; its store."""
    design = results / "design.yaml"
    design.write_text(text)
    assert cli.main(["run", str(design), "--results", str(results), "--cores", "2"]) == 0
    return results / yaml.safe_load(text)["study"]


@pytest.fixture(scope="module")
def curves_store(satnet: object, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """flavor x bufferRtt (0.5, 1, 2), r = 2, with the toy theory (a file beside the design,
    which the store records) and a trace of connections, reported with the defaults."""
    results = tmp_path_factory.mktemp("results")
    (results / "toy_theory.py").write_text(TOY_THEORY)
    store = run_study(results, SATNET_CURVES)
    recorded = json.loads((store / "design.json").read_text())
    assert recorded["theory"] == {"path": str(results / "toy_theory.py")}
    assert cli.main(["report", "curves", "--results", str(results)]) == 0
    return store


@pytest.mark.programs
@pytest.mark.slow
def test_curves_over_a_numeric_factor_of_a_real_study(curves_store: Path) -> None:
    directory = curves_store / "report"
    html = (directory / "index.html").read_text()
    markdown = (directory / "report.md").read_text()
    for response in ("efficiency", "fairness"):
        png_size(directory / f"{response}-curves.png")
        assert f'<img src="{response}-curves.png" alt="{response} against bufferRtt">' in html
        assert f"![{response} against bufferRtt]({response}-curves.png)" in markdown
    assert "efficiency against bufferRtt: each point the mean of a cell over its 2 " in markdown
    # after the results table, before the allocation of variation
    part = markdown.split("\n### efficiency\n", 1)[1]
    assert part.index("#### Results") < part.index("-curves.png") < part.index("#### Allocation")


@pytest.mark.programs
def test_the_curve_table_s_interval_is_the_t_interval_of_the_cell(curves_store: Path) -> None:
    """A cell by hand from runs.parquet: its mean, and the pooled error of the first-order model
    (flavor x bufferRtt, r = 2: the model holds their interaction, so the error is the spread
    within the cells, 12 - 6 = 6 dof), scipy's t(0.95; 6) x s_e / sqrt(2); beside it the toy
    theory's predictions, "halved" left empty where it says nothing (reno)."""
    runs = pq.read_table(curves_store / "runs.parquet").to_pylist()
    cells: dict[tuple[str, float], list[float]] = {}
    for run in runs:
        cells.setdefault((run["flavor"], run["bufferRtt"]), []).append(run["efficiency"])
    (flavor, buffer), values = next((k, v) for k, v in cells.items() if len(set(v)) == 2)
    sse = sum((e - statistics.mean(v)) ** 2 for v in cells.values() for e in v)
    half = scipy.stats.t.ppf(0.95, 6) * math.sqrt(sse / 6) / math.sqrt(2)
    part = section_of(curves_store, "efficiency")
    table = part.split("#### efficiency: simulated and predicted (./toy_theory.py)\n\n", 1)[1]
    assert table.startswith("| series | bufferRtt | simulated | share | halved |")
    level = f"{buffer:g}"
    [row] = [r for r in table.splitlines() if r.startswith(f"| flavor={flavor} | {level} |")]
    simulated, share, halved = (c.strip() for c in row.strip("|").split("|")[2:])
    mean, shown_half = (float(v) for v in simulated.split(" ± "))
    # the interval to two significant digits, the mean to the same decimal place
    mean_text, half_text = simulated.split(" ± ")
    assert mean == pytest.approx(statistics.mean(values), abs=half / 10)
    assert len(mean_text.split(".")[1]) == len(half_text.split(".")[1])
    assert shown_half == pytest.approx(half, rel=0.1) and half > 0
    assert float(share) == pytest.approx(buffer / (1 + buffer), rel=1e-5)
    assert halved == ("" if flavor == "reno" else f"{buffer:g}")
    # the same interval as the results table's cell, and the theory's line listed once
    assert shown(statistics.mean(values), half) in part.split("#### Results", 1)[1]
    assert part.count("Theory (./toy_theory.py), dotted: one RTT at x = 1.") == 1
    assert "simulated and predicted" not in section_of(curves_store, "fairness")


def section_of(store: Path, response: str) -> str:
    """The Markdown of one response of a report without --by."""
    markdown = (store / "report" / "report.md").read_text()
    return markdown.split(f"\n### {response}\n", 1)[1].split("\n### ", 1)[0]


@pytest.mark.programs
def test_no_curves_over_strings_or_fewer_than_3_numbers(
    satnet: object, curves_store: Path, tmp_path: Path
) -> None:
    argv = ["report", "curves", "--results", str(curves_store.parent)]
    assert cli.main([*argv, "--factors", "bufferRtt,flavor"]) == 0  # flavor makes the columns
    directory = curves_store / "report"
    assert not list(directory.glob("*-curves.png"))
    assert "-curves.png" not in (directory / "index.html").read_text()
    markdown = (directory / "report.md").read_text()
    assert "-curves.png" not in markdown and "simulated and predicted" not in markdown

    single = run_study(tmp_path, SATNET_SINGLE)  # r = 1: points, no intervals
    assert cli.main(["report", "single", "--results", str(tmp_path)]) == 0
    markdown = (single / "report" / "report.md").read_text()
    assert "![efficiency against bufferRtt](efficiency-curves.png)" in markdown
    assert "efficiency against bufferRtt: one run per cell, its value a point" in markdown
    png_size(single / "report" / "efficiency-curves.png")
    assert cli.main(["report", "single", "--results", str(tmp_path), "--factors",
                     "bufferRtt,clients"]) == 0  # fmt: skip
    assert not list((single / "report").glob("*-curves.png"))  # clients: 5, 6


@pytest.mark.programs
def test_traces_of_a_real_study(curves_store: Path) -> None:
    """A panel per configuration in design order, the connections of its first replication."""
    markdown = (curves_store / "report" / "report.md").read_text()
    html = (curves_store / "report" / "index.html").read_text()
    assert (
        markdown.index("## Analysis")
        < markdown.index("\n## Traces\n")
        < markdown.index("\n## All runs\n")
    )
    assert "![per pair](trace-1-connections.png)" in markdown
    assert '<img src="trace-1-connections.png" alt="per pair">' in html
    assert "per pair: a panel per configuration, the rows of connections of its first " in markdown
    png_size(curves_store / "report" / "trace-1-connections.png")

    trace = TraceSettings(table="connections", x="id", y=["throughput_bps", "fair_share_bps"])
    runs = curves_store / "runs.parquet"
    toy = theory("./toy_theory.py", curves_store.parent)
    panels = trace_panels(runs, curves_store / "connections.parquet", trace,
                          ["flavor", "bufferRtt"], toy)  # fmt: skip
    assert [p.title for p in panels] == [
        f"flavor={f}, bufferRtt={b}" for f in ("reno", "sack") for b in ("0.5", "1", "2")
    ]  # the levels as the tables show them
    first = duckdb.sql(
        f"SELECT c.throughput_bps FROM '{curves_store / 'connections.parquet'}' c "
        f"JOIN '{runs}' r USING (config_id, replication) WHERE r.replication = 1 "
        "AND r.flavor = 'sack' AND r.bufferRtt = 2 ORDER BY c.id"
    ).fetchall()
    assert panels[5].series[""]["throughput_bps"] == [t for (t,) in first]
    assert panels[5].series[""]["id"] == [0, 1, 2, 3, 4]
    assert panels[5].references == [Reference("x", 4, "last pair")] * 2  # one per y column


@pytest.mark.programs
def test_traces_with_an_empty_or_missing_table(curves_store: Path, tmp_path: Path) -> None:
    store = tmp_path / "curves"
    shutil.copytree(curves_store, store)
    connections = pq.read_table(store / "connections.parquet")
    first = connections.column("config_id")[0].as_py()
    pq.write_table(connections.filter(pc.not_equal(connections["config_id"], first)),
                   store / "connections.parquet")  # fmt: skip
    assert cli.main(["report", "curves", "--results", str(tmp_path)]) == 0
    png_size(store / "report" / "trace-1-connections.png")
    trace = TraceSettings(table="connections", x="id", y=["throughput_bps"])
    panels = trace_panels(store / "runs.parquet", store / "connections.parquet", trace, [], None)
    assert [bool(p.series) for p in panels] == [False, True, True, True, True, True]

    (store / "connections.parquet").unlink()
    assert cli.main(["report", "curves", "--results", str(tmp_path)]) == 0
    markdown = (store / "report" / "report.md").read_text()
    assert "per pair: the store has no connections.parquet." in markdown
    assert not (store / "report" / "trace-1-connections.png").exists()


@pytest.mark.programs
def test_a_recorded_theory_that_is_gone_exits_2(
    curves_store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "curves"
    shutil.copytree(curves_store, store)
    recorded = json.loads((store / "design.json").read_text())
    recorded["theory"]["path"] = str(tmp_path / "gone.py")
    # the design file gone too: else its analysis section, when it differs, is the report's
    recorded["source"] = str(tmp_path / "gone.yaml")
    (store / "design.json").write_text(json.dumps(recorded))
    capsys.readouterr()
    assert cli.main(["report", "curves", "--results", str(tmp_path)]) == 2
    assert f"analysis.theory of the recorded design: no theory file {tmp_path / 'gone.py'}; " \
           "allowed: barakat (installed), " in capsys.readouterr().err  # fmt: skip
    recorded["design"]["analysis"]["theory"] = "gone"
    (store / "design.json").write_text(json.dumps(recorded))
    assert cli.main(["report", "curves", "--results", str(tmp_path)]) == 2
    assert "analysis.theory of the recorded design: no theory 'gone'; allowed: barakat " in (
        capsys.readouterr().err
    )


THEORIES_ALLOWED = (
    "barakat (installed), or a Python file defining THEORY, relative to the sweep file (e.g. "
    "./theory.py)"
)


@pytest.mark.programs
@pytest.mark.parametrize(
    ("analysis", "field", "allowed"),
    [
        ("theory: nope", "analysis.theory", f"no theory 'nope'; allowed: {THEORIES_ALLOWED}"),
        ("theory: 3", "analysis.theory", f"3 is not allowed; allowed: {THEORIES_ALLOWED}"),
        ("theroy: barakat", "analysis.theroy",
         "unknown field; allowed: responses, factors, by, theory, traces"),
        ("traces: [{table: nope, x: id, y: [vc]}]", "analysis.traces[0].table",
         "'nope' is not a table of satnet; allowed: connections"),
        ("traces: [{table: connections, x: when, y: [vc]}]", "analysis.traces[0].x",
         "'when' is not a numeric column of table connections; allowed: id, vc, throughput_bps"),
        ("traces: [{table: connections, x: id, y: [vc, speed]}]", "analysis.traces[0].y",
         "'speed' is not a numeric column of table connections; allowed: id, vc"),
        ("traces: [{table: connections, x: id, y: [vc], series: who}]",
         "analysis.traces[0].series", "'who' is not a column of table connections; allowed: id"),
        ("traces: [{table: connections, x: id, y: [vc], colour: red}]",
         "analysis.traces[0].colour", "unknown field; allowed: table, x, y, series, title"),
        ("traces: [{table: connections, x: id}]", "analysis.traces[0].y",
         "missing; allowed: a list of one or more numeric columns of the table"),
    ],
)  # fmt: skip
def test_bad_theory_or_traces_exit_2_naming_the_field(
    satnet: object,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    analysis: str,
    field: str,
    allowed: str,
) -> None:
    design = tmp_path / "d.yaml"
    design.write_text(
        "study: d\nprogram: satnet\nfactors:\n  bufferRtt: [0.5, 1, 2]\nreplications: 1\n"
        f"analysis:\n  {analysis}\n"
    )
    results = tmp_path / "results"
    assert cli.main(["run", str(design), "--results", str(results)]) == 2
    err = capsys.readouterr().err
    assert f"{design}: {field}: {allowed}" in err, err
    assert not results.exists()


# -- traces averaged over the replications: a synthetic store with known rows ---------------

MEAN_POOLS = (100, 200, 4000)


def mean_store(results: Path, lonely: bool = True) -> Path:
    """Study "means": algorithm (eq, sabt) x pool (100, 200, 4000), r = 3 (with ``lonely``, eq at
    pool 4000 has one run only): runs.parquet, timeline.parquet (time 0, 1, 2 x connection 1, 2
    per run; no throughput at time 0, as a first bin) and connections.parquet (run k has k rows
    per connection, so a run's mean is not the mean of the pooled rows), seeded random numbers,
    and the design recorded with three traces."""
    rng = np.random.default_rng(7)
    runs, timeline, connections = [], [], []
    for i, (algorithm, pool) in enumerate(itertools.product(("eq", "sabt"), MEAN_POOLS)):
        replications = 1 if lonely and (algorithm, pool) == ("eq", 4000) else 3
        for k in range(1, replications + 1):
            run = {"config_id": f"c{i}", "replication": k}
            runs.append({"study": "means", **run, "algorithm": algorithm, "pool": pool,
                         "throughput1": float(rng.normal(10, 1))})  # fmt: skip
            for time, connection in itertools.product((0.0, 1.0, 2.0), (1, 2)):
                throughput = None if time == 0 else float(rng.normal(1, 0.3))
                timeline.append({**run, "time": time, "connection": connection,
                                 "buffer": float(rng.uniform(0, pool)),
                                 "throughput": throughput})  # fmt: skip
            for connection in (1, 2) * k:
                connections.append({**run, "connection": connection,
                                    "throughput": float(rng.normal(pool / 100, 1))})  # fmt: skip
    store = write_store(results, pa.Table.from_pylist(runs), "means", MEANS_RECORDED)
    pq.write_table(pa.Table.from_pylist(timeline), store / "timeline.parquet")
    pq.write_table(pa.Table.from_pylist(connections), store / "connections.parquet")
    return store


MEANS_RECORDED = {
    "study": "means",
    "design": {
        "study": "means", "program": "/nowhere/means-sim",
        "factors": {"algorithm": ["eq", "sabt"], "pool": list(MEAN_POOLS)},
        "replications": 3,
        "analysis": {"responses": ["throughput1"], "traces": [
            {"table": "timeline", "x": "time", "y": ["buffer", "throughput"],
             "series": "connection", "replications": "mean"},
            {"table": "connections", "x": "pool", "y": ["throughput"], "series": "connection",
             "replications": "mean"},
            {"table": "timeline", "x": "time", "y": ["buffer"], "series": "connection"},
        ]},
    },
    "program": {"path": "/nowhere/means-sim", "sha256": SHA},
    "describe": {
        "name": "means-sim", "version": "1",
        "parameters": [{"name": "algorithm", "type": "string"}, {"name": "pool", "type": "int"}],
        "summary": [{"name": "throughput1", "type": "float"}],
        "tables": {
            "timeline": [{"name": "time", "type": "float"}, {"name": "connection", "type": "int"},
                         {"name": "buffer", "type": "float"},
                         {"name": "throughput", "type": "float"}],
            "connections": [{"name": "connection", "type": "int"},
                            {"name": "throughput", "type": "float"}],
        },
    },
}  # fmt: skip
TIMELINE_MEAN, CONNECTIONS_MEAN, TIMELINE_FIRST = (
    TraceSettings.model_validate(t) for t in MEANS_RECORDED["design"]["analysis"]["traces"]
)


def mean_and_half(values: list[float]) -> tuple[float, float | None]:
    """By hand: the mean and the half-width of its 95% t interval, t(0.975; n - 1) s / sqrt(n)."""
    n = len(values)
    if n < 2:
        return float(np.mean(values)), None
    return float(np.mean(values)), scipy.stats.t.ppf(0.975, n - 1) * np.std(values, ddof=1) / (
        math.sqrt(n)
    )


def test_trace_means_over_a_column_are_the_runs_mean_and_t_interval(tmp_path: Path) -> None:
    store = mean_store(tmp_path)
    panels = trace_mean_panels(store / "runs.parquet", store / "timeline.parquet",
                               TIMELINE_MEAN, ["algorithm", "pool"], 0.95)  # fmt: skip
    assert [p.title for p in panels] == [
        f"algorithm={a}, pool={p}" for a in ("eq", "sabt") for p in MEAN_POOLS
    ]
    runs = pq.read_table(store / "runs.parquet").to_pylist()
    rows = pq.read_table(store / "timeline.parquet").to_pylist()
    mine = {(r["config_id"], r["replication"]) for r in runs
            if r["algorithm"] == "sabt" and r["pool"] == 200}  # fmt: skip
    panel = panels[4]
    assert panel.title == "algorithm=sabt, pool=200" and panel.replications == 3
    points, halves = panel.series["2"], panel.halves["2"]
    assert points["time"] == [0.0, 1.0, 2.0]
    for y in ("buffer", "throughput"):
        values = [r[y] for r in rows if (r["config_id"], r["replication"]) in mine
                  and r["connection"] == 2 and r["time"] == 1.0]  # fmt: skip
        assert len(values) == 3
        mean, half = mean_and_half(values)
        assert points[y][1] == pytest.approx(mean)
        assert halves[y][1] == pytest.approx(half) and half > 0
    # no run has a throughput at time 0: no mean there, and the columns stay in line
    assert points["throughput"][0] is None and halves["throughput"][0] is None
    assert points["buffer"][0] is not None and halves["buffer"][0] is not None
    lonely = panels[2]
    assert lonely.title == "algorithm=eq, pool=4000" and lonely.replications == 1
    assert [h for series in lonely.halves.values() for y in series.values() for h in y] == [
        None
    ] * 12  # 2 connections x 3 times x 2 columns, one run each: no interval


def test_trace_means_over_a_factor_average_each_run_first(tmp_path: Path) -> None:
    store = mean_store(tmp_path)
    panels = trace_mean_panels(store / "runs.parquet", store / "connections.parquet",
                               CONNECTIONS_MEAN, ["algorithm", "pool"], 0.95)  # fmt: skip
    assert [p.title for p in panels] == ["algorithm=eq", "algorithm=sabt"]
    runs = {(r["config_id"], r["replication"]): r
            for r in pq.read_table(store / "runs.parquet").to_pylist()}  # fmt: skip
    per_run: dict[int, list[float]] = {}
    for row in pq.read_table(store / "connections.parquet").to_pylist():
        run = runs[(row["config_id"], row["replication"])]
        if run["algorithm"] == "sabt" and run["pool"] == 200 and row["connection"] == 1:
            per_run.setdefault(run["replication"], []).append(row["throughput"])
    assert sorted(len(v) for v in per_run.values()) == [1, 2, 3]
    mean, half = mean_and_half([float(np.mean(v)) for v in per_run.values()])
    sabt = panels[1]
    assert sabt.series["1"]["pool"] == [100.0, 200.0, 4000.0]
    assert sabt.series["1"]["throughput"][1] == pytest.approx(mean)
    assert sabt.halves["1"]["throughput"][1] == pytest.approx(half)
    pooled = float(np.mean([t for v in per_run.values() for t in v]))
    assert pooled != pytest.approx(mean, rel=1e-3)  # the order of averaging shows
    eq = panels[0].halves["1"]["throughput"]
    assert eq[1] is not None and eq[2] is None  # pool 4000 has one run


def test_a_column_of_the_table_wins_over_a_factor_of_that_name(tmp_path: Path) -> None:
    store = mean_store(tmp_path)
    timeline = pq.read_table(store / "timeline.parquet")
    pq.write_table(timeline.append_column("pool", pc.multiply(timeline["time"], 10.0)),
                   store / "timeline.parquet")  # fmt: skip
    trace = TIMELINE_MEAN.model_copy(update={"x": "pool", "y": ["buffer"]})
    assert not trace_over_factor(trace, ["algorithm", "pool"], store / "timeline.parquet")
    assert trace_over_factor(CONNECTIONS_MEAN, ["algorithm", "pool"],
                             store / "connections.parquet")  # fmt: skip
    panels = trace_mean_panels(store / "runs.parquet", store / "timeline.parquet", trace,
                               ["algorithm", "pool"], 0.95)  # fmt: skip
    assert len(panels) == 6 and panels[0].series["1"]["pool"] == [0.0, 10.0, 20.0]


@pytest.mark.slow  # a sweep or a real report: several seconds
def test_the_report_draws_means_with_bands_and_bars_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Per trace: steps for the first replication, a line and a band over a column, error bars
    over a factor; the captions name the replications and the confidence."""
    from matplotlib.axes import Axes

    calls: list[str] = []
    for method in ("step", "plot", "fill_between", "errorbar"):
        original = getattr(Axes, method)

        def spy(self: Axes, *args: Any, _name: str = method, _original: Any = original,
                **kwargs: Any) -> Any:  # fmt: skip
            calls.append(_name)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(Axes, method, spy)
    store = mean_store(tmp_path, lonely=False)
    assert cli.main(["report", "means", "--results", str(tmp_path), "--confidence", "0.95"]) == 0
    markdown = (store / "report" / "report.md").read_text()
    assert (
        "buffer, throughput against time (timeline): a panel per configuration; at each time, "
        "the mean of its rows of timeline over the 3 replications of each configuration, the "
        "band its 95% t confidence interval (none where a point has one run)."
    ) in markdown
    assert (
        "throughput against pool (connections): a panel per configuration of the factors but "
        "pool; each run's rows of connections averaged per connection, then at each level of "
        "pool the mean over the 3 replications of each configuration, the bar its 95% t "
        "confidence interval (none where a point has one run)."
    ) in markdown
    assert (
        "buffer against time (timeline): a panel per configuration, the rows of timeline of its "
        "first replication."
    ) in markdown
    for i, table in enumerate(("timeline", "connections", "timeline")):
        png_size(store / "report" / f"trace-{i + 1}-{table}.png")
    # the traces come first (the curves and effects draw error bars after them): 6 panels x 2
    # connections x 2 columns; 2 panels x 2 connections; 6 x 2 x 1
    traced = [c for c in calls if c in ("step", "fill_between", "errorbar")]
    assert traced[:40] == ["fill_between"] * 24 + ["errorbar"] * 4 + ["step"] * 12
    assert "step" not in traced[40:] and "fill_between" not in traced[40:]


# -- figures' axes, booleans, the table of contents -----------------------------------------


def test_a_numeric_factor_s_axis_has_its_levels_as_ticks_log_for_ratios() -> None:
    from matplotlib.figure import Figure

    from satsweep.report.figures import _level_axis

    for levels, scale in (([0.5, 1, 2], "log"), ([1, 2, 3, 4, 5], "linear"),
                          ([0.6, 0.8, 1.0], "linear"), ([1, 10, 100], "log")):  # fmt: skip
        ax = Figure().subplots()
        ax.plot(levels, [1] * len(levels))
        _level_axis(ax, levels)
        assert ax.get_xscale() == scale, levels
        assert list(ax.get_xticks()) == pytest.approx(levels)
        assert [t.get_text() for t in ax.get_xticklabels()] == [f"{v:g}" for v in levels]
        assert not list(ax.xaxis.get_minorticklocs())


def test_series_are_dodged_around_each_level() -> None:
    from satsweep.report.figures import _dodged

    levels = [0.5, 1.0, 2.0]
    for log in (False, True):
        moved = [_dodged(levels, i, 8, log) for i in range(8)]
        for j, level in enumerate(levels):
            xs = [m[j] for m in moved]
            assert len(set(xs)) == 8 and xs == sorted(xs)  # apart, in series order
            centre = math.exp(statistics.mean(map(math.log, xs))) if log else statistics.mean(xs)
            assert centre == pytest.approx(level)
            # within a quarter of the narrowest gap: never past a neighbouring level
            assert max(xs) / min(xs) < 2**0.25 + 1e-9 if log else max(xs) - min(xs) < 0.125 + 1e-9
    assert _dodged(levels, 0, 1, False) == levels


def test_a_response_s_axis_stops_at_its_declared_bound() -> None:
    from matplotlib.figure import Figure

    from satsweep.report.figures import _bounded_y

    study = analysis.StudyDesign(bounds={"fairness": (0.0, 1.0)})
    ax = Figure().subplots()
    ax.errorbar([1, 2], [0.9, 0.97], yerr=[0.2, 0.28])  # bars to 1.25
    assert ax.get_ylim()[1] > 1.2
    _bounded_y(ax, study, "fairness")
    low, high = ax.get_ylim()
    assert 1.0 < high <= 1.0 + 0.03 * (1.0 - low) + 1e-9
    ax = Figure().subplots()
    ax.plot([1, 2], [3, 40])
    before = ax.get_ylim()
    _bounded_y(ax, study, "efficiency")  # no bound declared: as matplotlib chose
    assert ax.get_ylim() == before


def test_booleans_are_true_false_everywhere_and_the_page_has_contents(tmp_path: Path) -> None:
    """A boolean factor (the store holds it as a boolean, the design as true/false) reads
    true/false in the tables, titles and legends' text; the page links every section and
    figure from its table of contents."""
    table = synthetic_runs()
    ecn = pa.array([d == "sd" for d in table.column("drop").to_pylist()])
    table = table.set_column(table.schema.get_field_index("drop"), "ecn", ecn)
    recorded = json.loads(json.dumps(RECORDED))
    design = recorded["design"]
    design["factors"] = {"ecn" if f == "drop" else f: [False, True] if f == "drop" else v
                         for f, v in design["factors"].items()}  # fmt: skip
    design["analysis"]["factors"] = ["ecn", "flavor", "bufferRtt"]
    recorded["describe"]["parameters"][2] = {"name": "ecn", "type": "bool", "help": ""}
    write_store(tmp_path, table, recorded=recorded)
    assert cli.main(["report", "synth", "--results", str(tmp_path)]) == 0
    directory = tmp_path / "synth" / "report"
    html = (directory / "index.html").read_text()
    markdown = (directory / "report.md").read_text()
    assert "| factor ecn | false, true |" in markdown
    assert "| false | vanilla |" in section(markdown, "wan", "efficiency")
    with analysis.Dataset.open(tmp_path / "synth" / "runs.parquet") as data:
        result = data.analyze_by("link", "efficiency", ["ecn", "flavor", "bufferRtt"])["wan"]
        lines, _ = report_tables.curves(report.results_table(data, result), [0.5, 1, 2], {},
                                        None, "efficiency")  # fmt: skip
    assert lines[0].label == "ecn=false, flavor=vanilla"  # the curves' legend
    for text in (html, markdown):
        assert not re.search(r"ecn ?=? ?(True|False|0|1)\b", text)
        assert "| factor ecn | 0, 1 |" not in text
    # the table of contents: after the title, a link to every section and figure
    contents = html.split('<nav id="contents">', 1)[1].split("</nav>", 1)[0]
    assert html.index("<h1") < html.index('<nav id="contents">') < html.index("Provenance</h2>")
    links = re.findall(r'<a href="#([^"]+)">([^<]+)</a>', contents)
    targets = dict(re.findall(r'<(?:h2|h3|p) id="([^"]+)">(?:<img src="([^"]+)")?', html))
    assert [i for i, _ in links] == list(targets)  # every anchor listed, in page order
    figures = re.findall(r'<img src="([^"]+)"', html)
    assert sorted(t for t in targets.values() if t) == sorted(figures)
    headings = re.findall(r"<h[23] id=[^>]+>([^<]+)</h[23]>", html)
    assert [t for _, t in links if not t.startswith("Figure: ")] == headings
    assert {"Provenance", "Analysis", "link = wan", "efficiency"} <= set(headings)


def test_trace_axes_keep_the_declared_units() -> None:
    from satsweep.report.figures import trace_labels

    study = analysis.StudyDesign(units={"t": "s", "cwnd": "segments", "ssthresh": "segments",
                                        "rtt": "s"})  # fmt: skip
    trace = TraceSettings(table="tcp", x="t", y=["cwnd", "ssthresh"])
    assert trace_labels(trace, study) == ("t (s)", "cwnd, ssthresh (segments)")
    trace = TraceSettings(table="tcp", x="t", y=["cwnd", "rtt", "lost"])
    assert trace_labels(trace, study) == ("t (s)", "cwnd (segments), rtt (s), lost")
    assert trace_labels(TraceSettings(table="tcp", x="id", y=["n"]), study) == ("id", "n")


def test_the_report_reads_the_edited_analysis_section_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The design file's analysis section as it is now, when it differs from the one recorded at
    run, by the study's name (the file the store recorded) or the file's path; its factors never
    (a level added since is not in the report); a bad section exits 2 naming the field."""
    sweep = tmp_path / "synth.yaml"
    recorded = json.loads(json.dumps(RECORDED))
    recorded["source"] = str(sweep)
    edited = {**RECORDED["design"], "analysis": {"responses": ["fairness"], "by": "link",
              "factors": ["flavor", "drop", "bufferRtt"]}}  # fmt: skip
    edited["factors"] = {**edited["factors"], "bufferRtt": [0.5, 1, 2, 4]}  # not run
    sweep.write_text(yaml.safe_dump(edited))
    results = tmp_path / "results"
    write_store(results, synthetic_runs(), recorded=recorded)
    for study in ("synth", str(sweep)):
        capsys.readouterr()
        assert cli.main(["report", study, "--results", str(results)]) == 0
        err = capsys.readouterr().err
        assert (
            f"satsweep report: the analysis section of {sweep} differs from the one recorded at "
            "run: the report uses the file's (the factors and runs stay as recorded)"
        ) in err
        markdown = (results / "synth" / "report" / "report.md").read_text()
        assert "\n### fairness\n" in markdown and "\n### efficiency\n" not in markdown
        assert "| flavor | drop | bufferRtt = 0.5 | bufferRtt = 1 | bufferRtt = 2 |" in markdown
        assert (
            f"| defaults from | the analysis section of {sweep}, edited since the run" in markdown
        )

    sweep.write_text(yaml.safe_dump(RECORDED["design"]))  # as recorded: nothing to say
    capsys.readouterr()
    assert cli.main(["report", "synth", "--results", str(results)]) == 0
    assert "differs" not in capsys.readouterr().err
    markdown = (results / "synth" / "report" / "report.md").read_text()
    assert "| defaults from | the recorded design (design.json) |" in markdown

    before = (results / "synth" / "report" / "report.md").read_text()
    for analysis_section, field in (({"responses": ["nosuch"]}, "analysis.responses"),
                                    ({"colour": "red"}, "analysis.colour")):  # fmt: skip
        sweep.write_text(yaml.safe_dump({**RECORDED["design"], "analysis": analysis_section}))
        capsys.readouterr()
        assert cli.main(["report", "synth", "--results", str(results)]) == 2
        err = capsys.readouterr().err
        assert f"satsweep report: error: {sweep}: {field}: " in err and "allowed" in err, err
        assert (results / "synth" / "report" / "report.md").read_text() == before
