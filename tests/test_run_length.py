"""Run length as a lever (docs/steady-state.md): a precision campaign with
``replications.max_length`` grows its runs instead of its replications when that is the cheaper
way to a steady-state target, by the cost hint and the measured warm-up, or when replications
are at max; the store resumes it at the recorded length and keeps the shorter runs. On the
AR(1) toy (docs/examples/ar1.py), whose short runs are half warm-up."""

from __future__ import annotations

import json
import math
from pathlib import Path

import duckdb
import pytest
import yaml

from satsweep.analysis import precision
from satsweep.design import load_design
from satsweep.store import Store
from satsweep.workflow import run as sweep
from tests.support import REPO
from tests.support.cli import run_cli

SWEEP = REPO / "sweeps" / "ar1-run-length.yaml"
AR1 = REPO / "docs" / "examples" / "ar1.py"


def _design(folder: Path, study: str, **replications: object) -> Path:
    """sweeps/ar1-run-length.yaml as ``study`` in ``folder``, its ``replications`` settings
    changed by ``replications`` (None: left out)."""
    design = yaml.safe_load(SWEEP.read_text())
    design["study"], design["program"] = study, str(AR1)
    asked = {**design["replications"], **replications}
    design["replications"] = {k: v for k, v in asked.items() if v is not None}
    path = folder / f"{study}.yaml"
    path.write_text(yaml.safe_dump(design, sort_keys=False))
    return path


def _steps(results: Path, study: str) -> list[tuple]:
    runs = results / study / "runs.parquet"
    return duckdb.sql(f"SELECT steps, count(*) FROM '{runs}' GROUP BY ALL").fetchall()


def test_a_campaign_grows_its_runs_when_that_is_cheaper(tmp_path: Path, capsys) -> None:
    """After the pilot (3 x 60 steps, half-width 1.25 against 0.25) 75 more replications of 60
    steps cost more than 3 runs of w + (60 - w) x ratio^2 steps: the second round's runs are
    that long (the pilot's own lever, taken from a store of the pilot alone), the third adds a
    replication. The tables hold the last round's runs only, each of its length; the pilot's
    shorter runs stay in the store; a rerun resumes at the recorded round and runs nothing."""
    results = tmp_path / "results"
    pilot = _design(tmp_path, "pilot", max=3, max_length=60)  # the same first round, no more
    assert sweep.run(load_design(pilot), cores=2, results=results).ok
    store = Store(results / "pilot")
    first = store.round(store.design())
    (lever,) = precision.run_length(
        first, str(store.runs_table), precision.reached(str(store.runs_table), first)
    )
    assert lever.longer_is_cheaper and lever.replications > 40  # beyond max: replications fail

    report = sweep.run(load_design(_design(tmp_path, "grown")), cores=2, results=results)
    assert report.ok and report.rounds[-1].met
    steps = [step.design.run_length for step in report.rounds]
    grown = math.ceil(max(lever.longer, lever.warmup + (60 - lever.warmup) * 4 / 3))
    assert steps[0] == 60 and steps[1] == grown and set(steps[1:]) == {grown}
    assert [step.design.replications for step in report.rounds][:2] == [3, 3]
    last = report.rounds[-1].design
    assert _steps(results, "grown") == [(grown, last.n_runs)]
    made = len(list((results / "grown" / "runs").glob("*/r*.record.json")))
    assert made == 6 + 2 * 3 + sum(
        2 * (b.design.replications - a.design.replications)
        for a, b in zip(report.rounds[1:], report.rounds[2:], strict=False)
    )
    assert report.done_now == made and report.done_before == 0

    again = sweep.run(load_design(_design(tmp_path, "grown")), cores=2, results=results)
    assert again.done_now == 0 and [s.design.run_length for s in again.rounds] == [grown]
    code, out, _ = run_cli(capsys, "status", tmp_path / "grown.yaml", "--results", results)
    assert code == 0 and f"this round r = {last.replications}, steps = {grown}" in out
    assert "steps up to 5000" in out
    code, _, _ = run_cli(capsys, "verify", "grown", "--results", results)
    assert code == 0


def test_replications_grow_when_they_are_cheaper(tmp_path: Path) -> None:
    """Runs long beside their warm-up and a target near: more replications cost less than
    longer runs, so the campaign grows r and keeps the length."""
    path = _design(tmp_path, "near", max=12, until={"response": "x_steady", "halfwidth": 0.3})
    design = yaml.safe_load(path.read_text())
    design["fixed"]["steps"] = 600
    path.write_text(yaml.safe_dump(design, sort_keys=False))
    report = sweep.run(load_design(path), cores=2, results=tmp_path / "results")
    assert report.ok and len(report.rounds) >= 2
    assert {step.design.run_length for step in report.rounds} == {600}
    assert [step.design.replications for step in report.rounds][1] > 3


def test_replications_at_max_then_the_runs_grow_up_to_max_length(tmp_path: Path, capsys) -> None:
    """With r at max from the pilot on, the runs grow even where more replications would be
    cheaper, and stop at max_length: the campaign says both bounds."""
    path = _design(tmp_path, "bounded", max=3, max_length=90)
    code, _, err = run_cli(capsys, "run", path, "--results", tmp_path / "results", "--cores", 2)
    assert code == 0, err
    assert "round r = 3, steps = 60:" in err and "round r = 3, steps = 90:" in err
    assert "precision NOT met: stopped at max = 3 replications and max_length = 90 " in err
    assert "(r = 3, steps = 90, 6 runs)" in err
    assert _steps(tmp_path / "results", "bounded") == [(90, 6)]


def test_with_replications_at_a_large_max_each_round_grows_the_runs_by_a_quarter(
    tmp_path: Path,
) -> None:
    """r = 100 at max and a target 1% out of reach: the lever's T' (w + (T - w) 1.01^2) and one
    more replication's (r + 1)/r would add little each round, every run made again; the runs
    grow by LEAST_GROWTH of their time after the warm-up instead."""
    results = tmp_path / "results"
    path = _design(tmp_path, "quarter", max=3, max_length=60)
    assert sweep.run(load_design(path), cores=2, results=results).ok
    store = Store(results / "quarter")
    design = store.round(store.design())
    settings = design.precision.model_copy(update={"max_length": 10**6, "max": 100})
    design = design.model_copy(update={"precision": settings}).with_replications(100)
    (reached,) = precision.reached(str(store.runs_table), design)
    near = [precision.Reached(reached.target, 1.01, reached.halfwidth)]
    (lever,) = precision.run_length(design, str(store.runs_table), near)
    assert not lever.too_short and lever.longer < 60 * 1.05
    grown, used = precision.longer_round(design, str(store.runs_table), near)
    w = lever.warmup
    assert used == lever
    assert grown.run_length == math.ceil(w + (60 - w) * precision.LEAST_GROWTH)


def test_the_store_gives_the_recorded_length_within_max_length(tmp_path: Path, capsys) -> None:
    """`plan`, `status`, the Snakefile's jobs take a campaign up at design.json's length; a
    max_length lowered since bounds it (those runs are then to be made)."""
    results = tmp_path / "results"
    path = _design(tmp_path, "resumed", max=3, max_length=90)
    assert not sweep.run(load_design(path), cores=2, results=results).rounds[-1].met
    store = Store.of(load_design(path), results)
    assert store.round(store.bind(load_design(path))).run_length == 90
    lowered = _design(tmp_path, "resumed", max=3, max_length=75)
    design = store.round(store.bind(load_design(lowered)))
    assert design.run_length == 75 and design.fixed["steps"] == 75
    assert store.state(design).n_missing == 6
    code, out, _ = run_cli(capsys, "plan", lowered, "--results", results)
    assert code == 0 and "6 to run; fixed: --phi=0.9 --steps=75" in " ".join(out.split())
    assert "runs may grow to steps = 75" in " ".join(out.split())
    # a design.json edited by hand: a length past max_length is bounded, one that is no
    # number (or shorter than the design's own) is the design's own
    recorded = json.loads(store.design_file.read_text())
    for made, length in ((10**12, 75), ("long", 60), (True, 60), (-5, 60)):
        recorded["design"]["fixed"]["steps"] = made
        store.design_file.write_text(json.dumps(recorded))
        assert store.round(store.bind(load_design(lowered))).run_length == length, made


def test_a_round_over_configurations_keeps_each_configurations_replications() -> None:
    """Growing the runs gives each configuration another config_id: its own replications
    follow it, by its place in the design."""
    path = REPO / "sweeps" / "ar1-run-length.yaml"
    design = load_design(path)
    first, second = design.configurations
    uneven = design.with_replications(3, {second.config_id: 7})
    longer = uneven.with_length(500.2)
    one, two = longer.configurations
    assert longer.fixed["steps"] == 501 and isinstance(longer.fixed["steps"], int)
    assert {one.config_id, two.config_id}.isdisjoint({first.config_id, second.config_id})
    assert longer.replications_for(one.config_id) == 3
    assert longer.replications_for(two.config_id) == 7
    assert one.params["steps"] == 501 and design.configurations[0].params["steps"] == 60


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"max_length": 30}, "30 is shorter than the runs' steps 60; allowed: 60 or more"),
        ({"max_length": 100.5}, "100.5 is not allowed; allowed: an integer"),
        ({"max_length": 2000000}, "2000000 is not allowed; allowed: an integer"),
        ({"max_length": -1}, "greater than 0"),
        ({"max_length": "long"}, "valid number"),
    ],
)
def test_a_bad_max_length_exits_2_naming_the_field(tmp_path, capsys, change, said) -> None:
    path = _design(tmp_path, "bad", **change)
    code, out, err = run_cli(capsys, "plan", path, "--results", tmp_path / "results")
    assert code == 2 and "replications.max_length: " in err and said in err, err
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        # no steady response names a length
        (lambda d: d["analysis"]["steady"][0].pop("length"), "none names one"),
        # two that name two
        (lambda d: d["analysis"]["steady"].append(
            {"response": "x2", "table": "series", "y": "x", "length": "phi"}),
         "they name steps, phi"),
        # the length a factor
        (lambda d: d["factors"].update(steps=[60, 120]) or d["fixed"].pop("steps"),
         "the run length steps is a factor"),
    ],
)  # fmt: skip
def test_max_length_needs_one_fixed_length(tmp_path, capsys, edit, said) -> None:
    path = _design(tmp_path, "bad")
    design = yaml.safe_load(path.read_text())
    edit(design)
    path.write_text(yaml.safe_dump(design, sort_keys=False))
    code, _, err = run_cli(capsys, "plan", path, "--results", tmp_path / "results")
    assert code == 2 and "replications.max_length: " in err and said in err, err


def test_a_round_that_cannot_be_analysed_is_one_line_and_keeps_the_runs(tmp_path, capsys) -> None:
    """A campaign over effects whose exclusions leave a factor one level (the design check
    cannot know which levels the runs will take): exit 1, one line, the round's runs stored."""
    from tests.support.sweeps import NORMAL

    path = tmp_path / "ex.yaml"
    path.write_text(
        f"study: ex\nprogram: {NORMAL}\nfactors:\n  a: [lo, hi]\n  b: [1, 2]\nexclude:\n"
        "  - {a: hi}\nreplications: {min: 3, max: 4, until: {response: y, halfwidth: 0.25}}\n"
    )
    code, _, err = run_cli(capsys, "run", path, "--results", tmp_path / "results")
    assert code == 1 and "Traceback" not in err
    assert "error: the campaign's analysis after a round: factor 'a' has a single level" in err
    assert len(list((tmp_path / "results" / "ex" / "runs").glob("*/r*.record.json"))) == 6


def test_runs_too_short_to_leave_their_transient_grow_though_the_target_is_met(
    tmp_path, capsys
) -> None:
    """base_seed 2: the pilot's start=-40 runs of 60 steps have MSER-5's cut at the end of
    their first half (too short), while the loose target is met: the campaign doubles the runs
    (a bias no replication removes) and stops when they leave the transient; it says why."""
    path = _design(tmp_path, "short", until={"response": "x_steady", "halfwidth": 5})
    design = yaml.safe_load(path.read_text())
    design["base_seed"] = 2
    path.write_text(yaml.safe_dump(design, sort_keys=False))
    code, _, err = run_cli(capsys, "run", path, "--results", tmp_path / "results", "--cores", 2)
    assert code == 0, err
    assert (
        "round r = 3, steps = 60: x_steady: half-width 1.316, asked 5: met; then longer runs: "
        "too short to leave their transient" in err
    )
    assert "round r = 3, steps = 120: x_steady: half-width 0.6978, asked 5: met\n" in err
    store = Store(tmp_path / "results" / "short")
    last = store.round(store.design())
    levers = precision.run_length(
        last, str(store.runs_table), precision.reached(str(store.runs_table), last)
    )
    assert [lever.too_short for lever in levers] == [False] and last.run_length == 120
