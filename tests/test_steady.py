"""Steady state (docs/steady-state.md): MSER-5, Welch's moving average, batch means and the ratio
estimator on series of known behaviour; the design's `analysis.steady` and its one-line errors;
a steady-state response of the AR(1) toy (docs/examples/ar1.py) through `analyze`, the report
and a precision campaign's run-length lever."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

from satsweep.analysis import Dataset, precision
from satsweep.analysis.steady import attach, welch_window
from satsweep.analysis.steady_stats import MAX_BATCHES, batch_means, mser, ratio_interval, welch
from satsweep.design import load_design
from satsweep.report.figures import warmup_figure
from satsweep.store import Store
from tests.support import REPO
from tests.support.cli import run_cli
from tests.support.sweeps import stored_study

AR1 = REPO / "docs" / "examples" / "ar1.py"


def _toy():
    spec = importlib.util.spec_from_file_location("ar1", AR1)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ar1 = _toy()


def _mean_series(start: float, runs: int, seed: int, steps: int = 500) -> np.ndarray:
    return np.mean([ar1.series(start, 10, 0.9, 1, steps, seed * 100 + k + 1) for k in range(runs)],
                   axis=0)  # fmt: skip


def test_mser_finds_the_ar1_transient_near_the_truth() -> None:
    """Started 50 below its mean with phi 0.9, the bias 50 x 0.9^t falls below the stationary
    deviation (2.29) at t = 29 and below a tenth of it at t = 51: over 20 seeded campaigns of 5
    replications the median truncation lies between, every one in the run's first half; a
    series started at its mean is cut at most a few batches in."""
    sd = ar1.stationary_sd(0.9, 1)
    early = math.log(sd / 50) / math.log(0.9)
    late = math.log(sd / 10 / 50) / math.log(0.9)
    assert 29 < early < 30 and 50 < late < 52
    cuts = [mser(_mean_series(-40, 5, seed)) for seed in range(20)]
    assert all(c.index % 5 == 0 and c.index <= 250 and not c.too_short for c in cuts)
    assert early - 5 <= float(np.median([c.index for c in cuts])) <= late + 10
    at_mean = [mser(_mean_series(10, 5, seed)).index for seed in range(20)]
    assert float(np.median(at_mean)) <= 25


def test_mser_says_a_run_too_short_to_leave_its_transient() -> None:
    """A series still climbing at its end (a slow AR(1), phi 0.999, started far below) has its
    least standard error in its last half: too short, the truncation kept in the first half."""
    slow = np.array([10 - 50 * 0.995**t for t in range(400)]) + np.random.default_rng(1).normal(
        0, 0.2, 400
    )
    cut = mser(slow)
    assert cut.too_short and cut.index <= 200
    assert not mser(np.random.default_rng(2).normal(0, 1, 400)).too_short


def test_mser_of_a_short_series_truncates_nothing() -> None:
    assert mser([1.0, 2.0, 3.0]).index == 0


def test_welch_keeps_a_line_and_centres_its_first_points() -> None:
    """A centred moving average of a straight line is the line; the first points' windows
    shrink (point i averages 2i + 1 points) and the last w points are left out."""
    line = np.arange(50, dtype=float) * 2 + 1
    moving = welch(line, 4)
    assert len(moving) == 46
    assert np.allclose(moving, line[:46])
    assert welch([1.0, 2.0], 5).size == 0
    assert welch_window(100) == 5 and welch_window(10) == 1


def test_batch_means_of_independent_values_keeps_the_first_batches() -> None:
    """400 independent values: 40 batches of 10 (MAX_BATCHES), uncorrelated at once; the t
    interval of their means."""
    rng = np.random.default_rng(3)
    values = rng.normal(5, 1, 400)
    got = batch_means(values, 0.9)
    assert got.size == 10 and got.batches == MAX_BATCHES == 40
    means = values.reshape(40, 10).mean(axis=1)
    assert got.halfwidth == pytest.approx(1.6849 * means.std(ddof=1) / math.sqrt(40), rel=1e-4)
    low, high = got.interval  # t(0.95; 39) = 1.6849
    assert low < 5 < high


def test_batch_means_grows_the_batches_of_a_correlated_run() -> None:
    """An AR(1) run with phi 0.9 (lag-1 correlation 0.9): batches of 1 would be correlated,
    the batches' means are not (below 2/sqrt(k)); the interval is wider than the naive one of
    the values, which takes them as independent."""
    run = np.array(ar1.series(10, 10, 0.9, 1, 4000, 5))
    got = batch_means(run, 0.9)
    naive = 1.645 * run.std(ddof=1) / math.sqrt(len(run))
    assert got.size >= 100 and got.lag1 < 2 / math.sqrt(got.batches)
    assert got.halfwidth > 2 * naive
    assert batch_means(run, 0.9, threshold=-1).halfwidth is None  # never small enough


def test_batch_means_of_a_run_too_short_gives_no_interval() -> None:
    got = batch_means(np.array(ar1.series(10, 10, 0.99, 1, 60, 5)), 0.9)
    assert got.halfwidth is None and got.interval is None and "longer run" in got.reason


def test_ratio_interval_by_the_delta_method() -> None:
    """R = sum y / sum x and half-width t s_d / (sqrt(n) xbar), s_d the deviation of y - R x,
    as computed here by hand; no interval of one run, NaN when sum x = 0."""
    x = np.array([10.0, 12.0, 9.0, 11.0, 8.0])
    y = np.array([21.0, 23.0, 19.5, 22.5, 15.0])
    ratio, half = ratio_interval(y, x, 0.9)
    r = y.sum() / x.sum()
    s = np.std(y - r * x, ddof=1)
    assert ratio == pytest.approx(r)
    assert half == pytest.approx(2.1318 * s / (math.sqrt(5) * x.mean()), rel=1e-4)
    assert ratio_interval([3.0], [2.0], 0.9) == (1.5, None)
    assert math.isnan(ratio_interval([1.0, 2.0], [0.0, 0.0], 0.9)[0])
    with pytest.raises(ValueError, match="2 numerators but 1 denominators"):
        ratio_interval([1.0, 2.0], [1.0], 0.9)


def _design(study: str = "ar1-steady", steady: str = "", replications: object = 3) -> str:
    responses = "[mean_all]" if steady else "[mean_all, x_steady]"
    steady = steady or (
        "    - {response: x_steady, table: series, y: x, warmup: auto, length: steps}\n"
        "    - {response: x_ratio, table: series, y: x, per: time, warmup: 100}\n"
    )
    return (
        f"study: {study}\nprogram: {AR1}\nfactors:\n  start: [-40, 10]\nfixed:\n  steps: 400\n"
        f"replications: {replications}\nbase_seed: 3\nanalysis:\n"
        f"  responses: {responses}\n  steady:\n{steady}"
    )


@pytest.mark.parametrize(
    ("steady", "field", "said"),
    [
        ("    - {response: s, table: cells, y: x}\n", "analysis.steady[0].table",
         "'cells' is not a table of ar1; allowed: series"),
        ("    - {response: s, table: series, y: z}\n", "analysis.steady[0].y",
         "'z' is not a numeric column of table series; allowed: time, x"),
        ("    - {response: mean_all, table: series, y: x}\n", "analysis.steady[0].response",
         "'mean_all' is already a summary field, a factor or a steady response"),
        ("    - {response: s, table: series, y: x, warmup: -1}\n", "analysis.steady[0].warmup",
         "-1"),
        ("    - {response: s, table: series, y: x, warmup: soon}\n", "analysis.steady[0].warmup",
         "soon"),
        ("    - {response: s, table: series, y: x, length: simTime}\n",
         "analysis.steady[0].length", "'simTime' is not a numeric parameter of ar1"),
        ("    - {response: s, table: series, y: x}\n    - {response: s, table: series, y: x}\n",
         "analysis.steady[1].response", "already a summary field, a factor or a steady response"),
    ],
)  # fmt: skip
def test_a_bad_steady_response_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], steady: str, field: str, said: str
) -> None:
    path = tmp_path / "d.yaml"
    path.write_text(_design(steady=steady))
    code, out, err = run_cli(capsys, "plan", path, "--results", tmp_path / "results")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert f"{field}: " in err and said in err
    assert not (tmp_path / "results").exists()


def test_a_steady_response_may_be_a_precision_target(tmp_path: Path) -> None:
    path = tmp_path / "d.yaml"
    path.write_text(
        _design(replications="{min: 2, max: 4, until: {response: x_steady, halfwidth: 0.1}}")
    )
    assert load_design(path).precision.until[0].response == "x_steady"
    path.write_text(_design(replications="{min: 2, max: 4, until: {response: nope, halfwidth: 1}}"))
    with pytest.raises(Exception, match=r"'nope' is not a numeric summary field of ar1; allowed: "
                       r"mean_all, x_steady, x_ratio"):  # fmt: skip
        load_design(path)


@pytest.fixture(scope="module")
def toy_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The AR(1) toy, start -40 (50 below its mean) and 10 (at it), 400 steps, r = 3."""
    return stored_study(tmp_path_factory.mktemp("ar1"), _design())


def test_steady_values_are_the_runs_time_averages_after_the_warm_up(toy_store: Path) -> None:
    """x_steady of each run is the mean of its x from its configuration's MSER warm-up on (as
    numpy computes it from the stored table), x_ratio sum(x) / sum(time) from time 100; the
    runs keep their order and their other columns."""
    import pyarrow.parquet as pq

    store = Store(toy_store / "ar1-steady")
    table = pq.read_table(store.table("series")).to_pandas()
    with Dataset.open(store.runs_table) as data:
        before = data.connection.execute("SELECT config_id, replication FROM source").fetchall()
        measured = attach(data, store.root, store.design().analysis.steady, 0.9)
        rows = data.connection.execute(
            "SELECT config_id, replication, start, x_steady, x_ratio FROM source"
        ).fetchall()
    assert [r[:2] for r in rows] == before
    warmups = {c.config_id: c.warmup for c in measured[0].configurations}
    assert {c.warmup for c in measured[1].configurations} == {100.0}
    for cid, rep, start, x_steady, x_ratio in rows:
        run = table[(table.config_id == cid) & (table.replication == rep)]
        kept = run[run.time >= warmups[cid]]
        assert x_steady == pytest.approx(kept.x.mean(), rel=1e-12)
        late = run[run.time >= 100]
        assert x_ratio == pytest.approx(late.x.sum() / late.time.sum(), rel=1e-12)
    far = [c for c in measured[0].configurations if c.mean_series[0] == -40.0]
    assert len(far) == 1 and 10 <= far[0].warmup <= 200
    # the warm-up removed, each run started 50 below its mean gains about that bias back: the
    # whole run's mean lies 50 x sum(0.9^t) / 400 = 1.25 below, the truncated one near the mean
    with Dataset.open(store.runs_table) as data:
        attach(data, store.root, store.design().analysis.steady, 0.9)
        gains = data.connection.execute(
            "SELECT start, avg(x_steady - mean_all), avg(x_steady) FROM source GROUP BY start"
        ).fetchall()
    gained = {start: (gain, level) for start, gain, level in gains}
    assert 0.9 < gained[-40.0][0] < 1.4 and abs(gained[10.0][0]) < 0.3
    assert abs(gained[-40.0][1] - 10) < 0.6


def test_analyze_says_the_warm_up_and_analyses_the_steady_response(
    toy_store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The steady response is analysed like a summary field (effects, intervals), and a section
    gives each configuration's warm-up and intervals."""
    code, out, err = run_cli(capsys, "analyze", "ar1-steady", "--results", toy_store)
    assert code == 0, err
    assert "## Steady state: x_steady = time average of x of table series after the warm-up" in out
    assert "| start=-40 |" in out and "| start=10 |" in out
    assert "batch means (run 1)" in out
    code, out, _ = run_cli(capsys, "analyze", "ar1-steady", "--results", toy_store, "--json",
                           "--response", "mean_all,x_steady")  # fmt: skip
    assert code == 0
    import json

    got = json.loads(out)
    assert set(got) == {"mean_all", "x_steady"}
    assert got["x_steady"]["effects"]["start"]["-40"]["ci"] is not None


def test_the_report_draws_the_warm_up_per_configuration(toy_store: Path, tmp_path: Path) -> None:
    """The report's steady-state section: a table per response and a figure with a panel per
    configuration: the mean series, Welch's average, the warm-up as a vertical line."""
    from satsweep.report import write_report

    index = write_report("ar1-steady", results=toy_store)
    markdown = (index.parent / "report.md").read_text()
    assert "## Steady state" in markdown and "### x_steady = time average of x" in markdown
    assert "![x_steady: warm-up](warmup-1-x_steady.png)" in markdown
    assert (index.parent / "warmup-2-x_ratio.png").is_file()
    store = Store(toy_store / "ar1-steady")
    with Dataset.open(store.runs_table) as data:
        measured = attach(data, store.root, store.design().analysis.steady, 0.9)
    labels = {c.config_id: c.config_id[:6] for c in measured[0].configurations}
    fig = warmup_figure("t", measured[0], labels, tmp_path / "w.png", "x")
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == 2
    for ax, c in zip(panels, measured[0].configurations, strict=True):
        vertical = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
        assert len(vertical) == 1 and vertical[0].get_xdata()[0] == c.warmup


def test_run_length_lever_weighs_replications_against_longer_runs(tmp_path: Path) -> None:
    """An unmet target on x_steady: r' = ceil(r ratio^2) more replications of 400 steps against
    r runs of w + (400 - w) ratio^2 steps, each at the toy's cost hint (2e-6 s a step); with a
    warm-up of w steps a longer run pays it once."""
    design_text = _design(
        "ar1-lever", replications="{min: 2, max: 3, until: {response: x_steady, halfwidth: 0.01}}"
    )
    results = stored_study(tmp_path, design_text)
    store = Store(results / "ar1-lever")
    design = store.round(store.design())
    now = precision.reached(str(store.runs_table), design)
    assert not now[0].met and now[0].ratio > 1
    (lever,) = precision.run_length(design, str(store.runs_table), now)
    rho, r, w = now[0].ratio, 2, lever.warmup
    assert lever.parameter == "steps" and lever.length == 400 and w > 0
    assert lever.replications == max(r + 1, math.ceil(r * rho**2))
    assert lever.longer == pytest.approx(w + (400 - w) * rho**2)
    assert lever.cost_replications == pytest.approx((lever.replications - r) * 2 * 400 * 2e-6)
    assert lever.cost_longer == pytest.approx(r * 2 * lever.longer * 2e-6)
    assert lever.longer_is_cheaper == (lever.cost_longer < lever.cost_replications)


def test_omnetpp_warmup_period_becomes_the_steady_responses_warm_up(tmp_path: Path) -> None:
    """`satsweep import` reads the ini's warmup-period (in any of OMNeT++'s time units) and
    gives the design a steady-state response per active vector table, its warm-up that
    period; without one, no analysis section; a period it cannot read is one line."""
    from satsweep.engine.omnetpp_import import IniError, design_text, read_study

    ini = tmp_path / "omnetpp.ini"
    ini.write_text("[General]\nnetwork = Net\nwarmup-period = 1min 30s\n[Config Study]\n"
                   "**.rate = ${rate=1, 2}\n")  # fmt: skip
    study = read_study(ini, "Study")
    assert study.warmup == 90.0
    text = design_text(study, "s", "omnetpp.ini", ["queue_length", "delay"])
    import yaml

    steady = yaml.safe_load(text)["analysis"]["steady"]
    assert steady == [
        {"response": "queue_length_steady", "table": "queue_length", "y": "value", "warmup": 90},
        {"response": "delay_steady", "table": "delay", "y": "value", "warmup": 90},
    ]
    ini.write_text(ini.read_text().replace("1min 30s", "500ms"))
    assert read_study(ini, "Study").warmup == 0.5
    ini.write_text(ini.read_text().replace("warmup-period = 500ms\n", ""))
    assert "analysis" not in yaml.safe_load(design_text(read_study(ini, "Study"), "s", "o", ["q"]))
    ini.write_text(
        ini.read_text().replace("network = Net\n", "network = Net\nwarmup-period = soon\n")
    )
    with pytest.raises(
        IniError, match=r"omnetpp.ini:3: warmup-period: = soon: allowed: a time such as 20s"
    ):
        read_study(ini, "Study")
