"""Issue 57: the numbers, the traces and the messages tell the truth at a glance. The one rule
for a number's digits (by hand), a deterministic program's study (tests/programs/bulk.py,
noise 0) told "replications identical" by `run`, `analyze` and the report with no intervals,
traces of 2 replications drawn as runs and bands never past the runs' range, shared y scales,
series named by what they are, and the figures' cosmetics."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from satsweep import analysis, cli
from satsweep.analysis.formatting import (
    NO_INTERVALS_IDENTICAL,
    distinguishing_digits,
    significant,
    with_bounds,
    with_interval,
)
from satsweep.design import TraceSettings
from satsweep.report import figures
from satsweep.report.tables import BAND_LEAST_REPLICATIONS, TracePanel, trace_range
from tests.support import REPO
from tests.support.cli import run_cli
from tests.support.sweeps import stored_study

BULK = REPO / "tests" / "programs" / "bulk.py"
IDENTICAL = "replications identical: the program may ignore --run/--RngRun"


def bulk_design(study: str, replications: int, noise: float, traces: bool = False) -> str:
    """A design of bulk.py: flavor reno x cubic (-300, +300 bytes around 72647912)."""
    trace = (
        "analysis:\n  traces:\n    - {table: cwnd, x: time, y: [cwnd], replications: mean}\n"
        if traces
        else ""
    )
    return (
        f"study: {study}\nprogram: {BULK}\nfactors:\n  flavor: [reno, cubic]\n"
        f"fixed:\n  noise: {noise}\nreplications: {replications}\n{trace}"
    )


# -- the digits ----------------------------------------------------------------------------------


def test_a_value_shows_the_digits_its_interval_allows_and_no_exponent() -> None:
    # the interval to two significant digits, the value to the same place
    assert with_interval(72647912.3, 814.4962) == ("72647910", "810")
    assert with_interval(-0.0308, 0.0325) == ("-0.031", "0.033")
    assert with_interval(0.5012, 0.0996) == ("0.50", "0.10")  # 0.0996 rounds up a place
    assert with_interval(-0.0004, 0.02) == ("0.000", "0.020")  # no "-0.000"
    assert with_bounds(-0.0308, (-0.0633, 0.0016)) == ("-0.031", "[-0.063, 0.002]")
    # no interval (None or of no width): six significant digits, every digit of a whole part
    assert with_interval(599976.0, None) == ("599976", None)
    assert with_interval(100000.0, 0.0) == ("100000", None)
    assert significant(72647912.3) == "72647912"  # not 7.26479e+07, not 72647900
    assert significant(0.5) == "0.5" and significant(0.1 + 0.2) == "0.3"
    assert significant(1.5e-7) == "1.5e-07" and significant(None) == "n/a"
    # cells without intervals get the digits that tell them apart
    assert distinguishing_digits([72647912.3, 72647912.4]) == 9
    assert distinguishing_digits([0.5, 0.6]) == 6


def test_sql_prints_whole_numbers_and_full_precision_on_request(
    two_studies: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import pyarrow.parquet as pq

    monkeypatch.setenv("COLUMNS", "200")  # the table, not one record per block
    runs = pq.read_table(two_studies / "noisy" / "runs.parquet").to_pylist()
    stored = [r["bytes"] for r in sorted(runs, key=lambda r: (r["config_id"], r["replication"]))]
    query = "SELECT bytes FROM runs ORDER BY config_id, replication"
    code, out, _ = run_cli(capsys, "sql", "noisy", query, "--results", two_studies)
    assert code == 0 and "e+07" not in out
    shown = [line.strip("│ ") for line in out.splitlines() if line.startswith("│ 7")]
    assert shown == [significant(v) for v in stored] and all(len(v) == 8 for v in shown)
    code, out, _ = run_cli(capsys, "sql", "noisy", query, "--digits", "17", "--results",
                           two_studies)  # fmt: skip
    full = [float(line.strip("│ ")) for line in out.splitlines() if line.startswith("│ 7")]
    assert full == stored  # 17 significant digits: the double itself
    # --csv and --json: full precision always, whatever --digits says
    code, out, _ = run_cli(capsys, "sql", "noisy", query, "--csv", "--digits", "6",
                           "--results", two_studies)  # fmt: skip
    assert [float(v) for v in out.splitlines()[1:]] == stored
    code, out, _ = run_cli(capsys, "sql", "noisy", query, "--json", "--results", two_studies)
    assert [row["bytes"] for row in json.loads(out)] == stored
    for bad in ("0", "18", "six"):
        with pytest.raises(SystemExit) as exit_:
            cli.main(["sql", "noisy", query, "--digits", bad, "--results", str(two_studies)])
        assert exit_.value.code == 2
        assert "--digits: " in capsys.readouterr().err


# -- replications identical ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def two_studies(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The results folder of "same" (bulk.py ignoring --run: noise 0, r = 3) and "noisy" (noise
    50 bytes, r = 2, its cwnd trace of means)."""
    folder = tmp_path_factory.mktemp("bulk")
    stored_study(folder, bulk_design("same", 3, 0))
    return stored_study(folder, bulk_design("noisy", 2, 50, traces=True))


def test_analyze_says_replications_identical_and_gives_no_intervals(
    two_studies: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(capsys, "analyze", "same", "--results", two_studies)
    assert code == 0
    assert f"**{NO_INTERVALS_IDENTICAL}.**" in out and IDENTICAL in out
    assert "| flavor | reno | -300 | n/a |  |" in out  # no interval, no star
    assert "| flavor | cubic | 300 | n/a |  |" in out
    assert "±" not in out and " * |" not in out
    code, out, _ = run_cli(capsys, "analyze", "same", "--results", two_studies, "--json")
    data = json.loads(out)
    assert data["identical_replications"] is True
    assert [e["ci"] for e in data["effects"]["flavor"].values()] == [None, None]
    # a program that draws from its stream is not told so, and keeps its intervals
    code, out, _ = run_cli(capsys, "analyze", "noisy", "--results", two_studies, "--json")
    data = json.loads(out)
    assert "identical_replications" not in data
    assert all(e["ci"] is not None for e in data["effects"]["flavor"].values())


def test_the_report_says_replications_identical_and_gives_no_intervals(
    two_studies: Path,
) -> None:
    assert cli.main(["report", "same", "--results", str(two_studies)]) == 0
    markdown = (two_studies / "same" / "report" / "report.md").read_text()
    assert "Replications identical: the program may ignore --run/--RngRun" in markdown
    assert "#### Results: mean bytes (bytes) (replications identical)" in markdown
    assert "| mean | 72647612 | 72648212 |" in markdown  # every digit, no interval
    assert "±" not in markdown and " * |" not in markdown
    assert "Intervals: none (replications identical" in markdown


def test_identical_responses_are_found_per_configuration(two_studies: Path) -> None:
    assert analysis.identical_responses(two_studies / "same" / "runs.parquet", ["bytes"]) == [
        "bytes"
    ]
    assert analysis.identical_responses(two_studies / "noisy" / "runs.parquet", ["bytes"]) == []


@pytest.mark.slow  # a sweep: several seconds
def test_run_says_replications_identical_and_prints_progress_lines_in_a_log(
    tmp_path: Path,
) -> None:
    """`satsweep run` with its output to a file (not a terminal): progress lines now and then,
    the last one at the end, and the identical replications named at its end."""
    design = tmp_path / "same.yaml"
    design.write_text(bulk_design("same", 3, 0))
    log = tmp_path / "log"
    with log.open("w") as out:
        proc = subprocess.run(
            [sys.executable, "-m", "satsweep.cli", "run", str(design), "--results",
             str(tmp_path / "results"), "--cores", "2"],
            stdout=out, stderr=subprocess.STDOUT, check=False, timeout=300,
        )  # fmt: skip
    text = log.read_text()
    assert proc.returncode == 0, text
    lines = [line for line in text.splitlines() if line.startswith("sweep: ")]
    assert lines[0].startswith("sweep: 0/6 runs done") and lines[-1].startswith(
        "sweep: 6/6 runs done"
    ), text
    assert f"bytes: {IDENTICAL}" in text
    # the last line of a run that draws from its stream says nothing of the kind
    design.write_text(bulk_design("noisy", 2, 50))
    proc = subprocess.run(
        [sys.executable, "-m", "satsweep.cli", "run", str(design), "--results",
         str(tmp_path / "results"), "--cores", "2"],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0 and "identical" not in proc.stderr, proc.stderr


def test_progress_lines_come_at_the_first_count_every_tenth_or_half_minute_and_the_last() -> None:
    from satsweep.cli.notes import PROGRESS_EVERY, ProgressLines

    said: list[str] = []
    now = [0.0]
    lines = ProgressLines(said.append, clock=lambda: now[0])
    for done in range(101):
        now[0] = done * 0.1  # fast runs: a line at each tenth of them
        lines.update(done, 100)
    assert [s.split()[1] for s in said] == [f"{k}/100" for k in range(0, 101, 10)]
    said.clear()
    now[0] = 0.0
    slow = ProgressLines(said.append, clock=lambda: now[0])
    slow.update(0, 1000)
    now[0] = PROGRESS_EVERY  # half a minute, one run more: due
    slow.update(1, 1000)
    slow.update(1, 1000)  # the same count again: not repeated
    assert said == ["sweep: 0/1000 runs done, 0:00:00", "sweep: 1/1000 runs done, 0:00:30"]


# -- traces --------------------------------------------------------------------------------------


def test_two_replications_are_drawn_as_runs_with_no_band(two_studies: Path) -> None:
    assert cli.main(["report", "noisy", "--results", str(two_studies)]) == 0
    markdown = (two_studies / "noisy" / "report" / "report.md").read_text()
    assert (
        f"each run drawn thin beside it: fewer than {BAND_LEAST_REPLICATIONS} replications are "
        "too few for a t interval."
    ) in markdown
    assert "the band its" not in markdown


def panel(
    title: str, means: list[float], halves: list[float], low: float, high: float
) -> TracePanel:
    """A panel of one series "conn-4" of column value at x = 0, 1, 2, 3 runs behind each point,
    the runs reaching from ``low`` to ``high``."""
    return TracePanel(
        title,
        {"conn-4": {"time": [0.0, 1.0, 2.0], "value": means}},
        [],
        halves={"conn-4": {"value": halves}},
        replications=3,
        extremes={"conn-4": {"value": [(low, high)] * 3}},
        runs={"conn-4": {"value": {k: ([0.0, 1.0, 2.0], means) for k in (1, 2, 3)}}},
    )


def test_a_band_is_cut_at_the_runs_range_and_panels_share_y_and_name_series(
    tmp_path: Path,
) -> None:
    """A window trace (OMNeT++'s vector table: module, time, value): one panel around 1e7,
    one around 1e8; the band of the first would reach below 0, where no run went."""
    trace = TraceSettings(table="cwnd", x="time", y=["value"], series="module",
                          replications="mean")  # fmt: skip
    panels = [
        panel("a", [1e7, 2e7, 3e7], [4e7, 4e7, 4e7], 0.0, 2e8),
        panel("b", [1e8, 1.5e8, 1.9e8], [1e6, 1e6, 1e6], 0.0, 2e8),
    ]
    assert trace_range(panels, "value") == (0.0, 2e8)
    low, high, cut = panels[0].band("conn-4", "value", (0.0, 2e8))
    assert cut and low == [0.0, 0.0, 0.0] and high == [5e7, 6e7, 7e7]
    assert panels[1].band("conn-4", "value", (0.0, 2e8))[2] is False
    study = analysis.StudyDesign(units={"time": "s", "value": "bytes"})
    fig = figures.traces_figure("t", trace, panels, tmp_path / "t.png", study)
    first, second = fig.axes[:2]
    assert first.get_shared_y_axes().joined(first, second)
    assert first.get_ylim() == second.get_ylim()
    for ax in (first, second):
        for band in ax.collections:  # fill_between: never below 0 or above 2e8
            ys = [y for path in band.get_paths() for _, y in path.vertices]
            assert min(ys) >= 0.0 and max(ys) <= 2e8
        legend = ax.get_legend()
        assert [t.get_text() for t in legend.get_texts()] == ["conn-4"]
        assert legend.get_title().get_text() == "module"
    assert first.get_ylabel() == "cwnd (bytes)" and second.get_ylabel() == ""
    # the axes carry no offset: a 1e-5 relative change does not fill the axis under "+1e8"
    assert not first.yaxis.get_major_formatter().get_useOffset()


def test_few_replications_draw_each_run_and_no_band(tmp_path: Path) -> None:
    trace = TraceSettings(table="cwnd", x="time", y=["cwnd"], replications="mean")
    lonely = TracePanel("a", {"": {"time": [0.0, 1.0, 2.0], "cwnd": [1.0, 2.0, 3.0]}},
                        [], {"": {"cwnd": [9.0] * 3}}, 2, {"": {"cwnd": [(0.0, 4.0)] * 3}},
                        {"": {"cwnd": {1: ([0.0, 1.0, 2.0], [0.5, 1.5, 2.0]),
                                       2: ([0.0, 1.0, 2.0], [1.5, 2.5, 4.0])}}})  # fmt: skip
    assert not lonely.banded
    fig = figures.traces_figure("t", trace, [lonely], tmp_path / "t.png", analysis.StudyDesign())
    ax = fig.axes[0]
    assert len(ax.collections) == 0  # no band
    drawn = [list(line.get_ydata()) for line in ax.get_lines()]
    assert drawn == [[0.5, 1.5, 2.0], [1.5, 2.5, 4.0], [1.0, 2.0, 3.0]]  # the runs, the mean
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["cwnd"]


# -- cosmetics -----------------------------------------------------------------------------------


def test_tick_labels_that_would_overprint_are_left_blank(tmp_path: Path) -> None:
    """Levels 0, 0.1, 0.2 and 50 on a linear axis: 0, 0.1 and 0.2 fall on one spot."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(3, 2), layout="constrained")
    ax = figures._subplots(fig)
    ax.plot([0, 0.1, 0.2, 50], [1, 2, 3, 4])
    figures._level_axis(ax, [0, 0.1, 0.2, 50])
    figures._save(fig, tmp_path / "ticks.png")
    shown = [label.get_text() for label in ax.get_xticklabels()]
    assert shown[0] == "0" and shown[-1] == "50" and "" in shown[1:3]
    boxes = [lb.get_window_extent() for lb in ax.get_xticklabels() if lb.get_text()]
    assert all(a.x1 < b.x0 for a, b in zip(boxes, boxes[1:], strict=False))


def test_identical_interaction_lines_are_moved_apart_on_the_curves_numeric_axis(
    tmp_path: Path,
) -> None:
    """Two levels of a with the same means over b = 1, 2, 4 (numbers: placed as the curves
    place them, not evenly): both lines seen, a little apart."""
    rows = [{"a": a, "b": b, "y": float(b), "replication": k}
            for a in ("x", "z") for b in (1, 2, 4) for k in (1, 2)]  # fmt: skip
    with analysis.Dataset.from_arrow(pa.Table.from_pylist(rows)) as data:
        result = data.analyze("y", ["a", "b"])
        fig = figures.interactions_figure(data, "h", result, tmp_path / "i.png",
                                          analysis.StudyDesign())  # fmt: skip
    xs = [list(line.get_xdata()) for line in fig.axes[0].get_lines()]
    assert len(xs) == 2 and xs[0] != xs[1]
    assert all(math.isclose(a, b, rel_tol=0.2) for a, b in zip(*xs, strict=True))
    assert list(fig.axes[0].get_xticks()) == [1, 2, 4]
