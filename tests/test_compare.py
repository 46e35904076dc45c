"""`satsweep compare A B` on real stores of tests/programs/normal.py and of a version of it
whose mean moved for one level of one factor (tests/support/compare.py): identical reruns
say so, the configurations that moved are named with their intervals, --fail-if sets the
exit code, archives compare as studies do, the statistics are SciPy's paired t test."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from satsweep import cli
from satsweep.analysis.compare import adjusted
from tests.support.compare import SHIFT, programs, study
from tests.support.cli import run_cli as main


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder``, its bytes by its relative path."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two small studies of one design (a: lo, hi; b = 2; 3 replications): ``base`` of
    normal.py and ``moved`` of normal 2.0 (a=hi moved by SHIFT sd), each archived beside its
    results folder: the folder (with the programs of tests/support/compare.py)."""
    folder = tmp_path_factory.mktemp("pair")
    made = programs(folder)
    for name, program in (("base", "same"), ("moved", "moved")):
        results = study(folder, name, made[program], {"a": ["lo", "hi"]}, 3, {"b": 2})
        assert cli.main(["archive", name, "--results", str(results),
                         "-o", str(folder / f"{name}.tar.gz")]) == 0  # fmt: skip
    return folder


@pytest.fixture(scope="module")
def shifted(pair: Path) -> Path:
    """``pair``'s folder with ``shifted``, the design's runs by normal 2.1 (a=hi moved by SHIFT
    sd, the same draws), and ``single``, its first replications by normal.py."""
    study(pair, "shifted", str(pair / "normal21.py"), {"a": ["lo", "hi"]}, 3, {"b": 2})
    study(pair, "single", str(pair / "normal.py"), {"a": ["lo", "hi"]}, 1, {"b": 2})
    return pair


def test_a_study_against_its_archive_is_all_identical(pair: Path, capsys) -> None:
    results = pair / "results"
    before = snapshot(results)
    code, out, err = main(capsys, "compare", "base", pair / "base.tar.gz", "--results", results,
                          "--fail-if", "any,significant,unpaired,rel>0,abs>0")  # fmt: skip
    assert code == 0 and not err  # none of them holds
    assert out.strip().endswith("all identical")
    assert (
        "6 pairs, paired by (config_id, replication): the same parameters and random streams" in out
    )  # noqa: E501
    code, out, _ = main(capsys, "compare", pair / "base.yaml", pair / "base.tar.gz", "--json",
                        "--results", results)  # fmt: skip
    data = json.loads(out)
    assert data["all_identical"] and data["pairs"] == 6 and data["shared_streams"] == 6
    (y,) = data["responses"]
    assert (y["response"], y["pairs"], y["identical"], y["significant"]) == ("y", 6, 6, [])
    assert all(c["note"] == "every pair identical" and c["ci"] is None for c in y["configurations"])
    assert snapshot(results) == before  # compare only reads


def test_two_archives_name_the_configuration_that_moved(pair: Path, capsys) -> None:
    a, b = pair / "base.tar.gz", pair / "moved.tar.gz"
    code, out, err = main(capsys, "compare", a, b)
    assert code == 0, err
    assert "all identical" not in out
    assert "B: " + str(b) + " (study moved, normal 2.0, 6 runs)" in out
    assert "Holm correction" in out
    moved = out[out.index("y: configurations beyond noise") :]
    assert "a=hi" in moved and "a=lo" not in moved.split("largest relative")[0]
    code, out, _ = main(capsys, "compare", a, b, "--json")
    (y,) = json.loads(out)["responses"]
    by_level = {c["levels"]["a"]: c for c in y["configurations"]}
    hi, lo = by_level["hi"], by_level["lo"]
    assert y["significant"] == [hi["config_id"]] and hi["significant"] and not lo["significant"]
    assert 0 < hi["ci"][0] < SHIFT < hi["ci"][1] and lo["ci"][0] < 0 < lo["ci"][1]
    assert y["identical"] == 0  # the new version draws its numbers otherwise: every pair moved
    # --fail-if: the exit code
    assert main(capsys, "compare", a, b, "--fail-if", "significant")[0] == 1
    assert main(capsys, "compare", a, b, "--fail-if", "any")[0] == 1
    assert main(capsys, "compare", a, b, "--fail-if", "unpaired")[0] == 0
    worst = y["max_relative"]
    assert main(capsys, "compare", a, b, "--fail-if", f"rel>{worst * 1.01}")[0] == 0
    code, _, err = main(capsys, "compare", a, b, "--fail-if", f"unpaired,rel>{worst * 0.99}")
    assert code == 1 and err.startswith("satsweep compare: --fail-if rel>") and "y: largest" in err
    assert main(capsys, "compare", a, b, "--fail-if", f"rel>{100 * worst * 1.01}%")[0] == 0


def test_the_intervals_and_p_values_are_a_paired_t_test(pair: Path, capsys) -> None:
    """Each configuration's interval and p-value are SciPy's paired t test of its runs, and
    the correction Holm's."""
    from scipy.stats import ttest_rel

    code, out, _ = main(capsys, "compare", "base", "moved", "--json", "--confidence", "0.8",
                        "--results", pair / "results")  # fmt: skip
    (y,) = json.loads(out)["responses"]
    rows = {}
    for name in ("base", "moved"):
        table = pq.read_table(pair / "results" / name / "runs.parquet").to_pylist()
        rows[name] = {(r["config_id"], r["replication"]): r["y"] for r in table}
    ps = []
    for c in y["configurations"]:
        keys = sorted(k for k in rows["base"] if k[0] == c["config_id"])
        test = ttest_rel([rows["moved"][k] for k in keys], [rows["base"][k] for k in keys])
        low, high = test.confidence_interval(0.8)
        assert c["ci"] == pytest.approx([low, high], rel=1e-9)
        assert c["p"] == pytest.approx(test.pvalue, rel=1e-9)
        ps.append(test.pvalue)
    assert [c["p_adjusted"] for c in y["configurations"]] == pytest.approx(adjusted(ps, "holm"))


@pytest.mark.slow
def test_a_shift_without_spread_and_a_single_replication_are_said(shifted: Path, capsys) -> None:
    """Common random numbers and a moved mean: every pair of a=hi differs by SHIFT (but for
    rounding), no interval, beyond noise; one replication: no interval, not tested, the other
    runs named."""
    results = shifted / "results"
    code, out, _ = main(capsys, "compare", "base", "shifted", "--results", results, "--json")
    (y,) = json.loads(out)["responses"]
    hi, lo = (next(c for c in y["configurations"] if c["levels"]["a"] == a) for a in ("hi", "lo"))
    assert hi["mean"] == pytest.approx(SHIFT) and hi["sd"] == pytest.approx(0, abs=1e-12)
    assert (hi["ci"], hi["p"], hi["significant"]) == (None, 0.0, True)
    assert hi["note"] == "every pair differs by the same amount: no spread, no interval"
    assert (lo["identical"], lo["significant"], lo["note"]) == (3, False, "every pair identical")
    code, out, _ = main(capsys, "compare", "base", "shifted", "--results", results)
    assert "y: 1 configurations differ by the same amount in every pair: no spread" in out
    code, out, _ = main(capsys, "compare", "base", "single", "--results", results)
    assert code == 0 and "all identical" in out and "2 pairs" in out
    assert "y: 2 configurations with one pair: no interval, not tested" in out
    assert re.search(r"4 runs only in base: \w{12}/r2, \w{12}/r3, \w{12}/r2, \w{12}/r3\n", out)
    code, out, _ = main(capsys, "compare", "base", "single", "--results", results, "--json")
    data = json.loads(out)
    assert data["responses"][0]["tested"] == 0 and data["only_b"] == []
    assert sorted(k["replication"] for k in data["only_a"]) == [2, 2, 3, 3]


def test_the_help_says_what_fail_if_takes(capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        cli.main(["compare", "--help"])
    out = capsys.readouterr().out
    assert stop.value.code == 0 and "--fail-if EXPR" in out and "rel>1%" in out


def test_holm_and_bonferroni_adjust_as_their_definitions_say() -> None:
    p = [0.01, 0.04, 0.03, 0.005]
    # Holm: sorted 0.005 x 4, 0.01 x 3, 0.03 x 2, 0.04 x 1, kept increasing
    assert adjusted(p, "holm") == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert adjusted(p, "bonferroni") == pytest.approx([0.04, 0.16, 0.12, 0.02])
    assert adjusted(p, "none") == p
    assert adjusted([0.5, 0.9], "holm") == [1.0, 1.0]
    assert adjusted([], "holm") == []


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2 x 3 design of 4 replications run three times: ``base`` and ``rerun`` by
    normal.py, ``moved`` by normal 2.0; and ``fixed`` (3 replications) with normal.py's
    default sd set in the design (other config_ids): the results folder."""
    folder = tmp_path_factory.mktemp("campaign")
    made = programs(folder)
    factors = {"a": ["lo", "hi"], "b": [1, 2, 3]}
    for name, program in (("base", "same"), ("rerun", "same"), ("moved", "moved")):
        results = study(folder, name, made[program], factors, 4)
    study(folder, "fixed", made["same"], factors, 3, {"sd": 1.0})
    return results


@pytest.mark.slow
def test_a_rerun_of_the_same_version_is_all_identical(campaign: Path, capsys) -> None:
    code, out, err = main(capsys, "compare", "base", "rerun", "--results", campaign,
                          "--fail-if", "any")  # fmt: skip
    assert code == 0 and not err
    assert "24 pairs" in out and out.strip().endswith("all identical")


@pytest.mark.slow
def test_a_moved_effect_is_named_with_its_intervals(campaign: Path, capsys) -> None:
    code, out, err = main(capsys, "compare", "base", "moved", "--results", campaign,
                          "--fail-if", "significant")  # fmt: skip
    assert (
        code == 1
        and err == "satsweep compare: --fail-if significant: y: 3 configurations beyond noise\n"
    )  # noqa: E501
    assert "A: base (study base, normal 1.0, 24 runs)" in out
    assert "B: moved (study moved, normal 2.0, 24 runs)" in out
    moved = out[out.index("y: configurations beyond noise") : out.index("largest relative")]
    named = re.findall(r"a=(\w+), b=(\d)", moved)
    assert sorted(named) == [("hi", "1"), ("hi", "2"), ("hi", "3")]
    intervals = re.findall(r"(-?\d+\.\d+) \[(-?\d+\.\d+),\s+(-?\d+\.\d+)\]", moved)
    assert len(intervals) == 3 and all(0 < float(lo) < float(m) < float(hi)
                                       for m, lo, hi in intervals)  # fmt: skip
    assert "3 of 6" in out
    code, out, _ = main(capsys, "compare", "base", "moved", "--results", campaign, "--json")
    (y,) = json.loads(out)["responses"]
    for c in y["configurations"]:
        assert c["significant"] == (c["levels"]["a"] == "hi"), c
        assert c["ci"] is not None and c["pairs"] == 4 and c["identical"] == 0
        assert (c["ci"][0] > 0) == c["significant"]
    # without a correction more may pass; Bonferroni never passes more than Holm
    code, out, _ = main(capsys, "compare", "base", "moved", "--results", campaign, "--json",
                        "--correction", "bonferroni")  # fmt: skip
    assert len(json.loads(out)["responses"][0]["significant"]) <= 3


@pytest.mark.slow
def test_the_report_draws_each_configurations_difference(campaign: Path, capsys) -> None:
    target = campaign.parent / "cmp"
    code, out, err = main(capsys, "compare", "base", "moved", "--results", campaign,
                          "--report", target, "--json")  # fmt: skip
    assert code == 0 and err == f"satsweep compare: wrote {target / 'index.html'}\n"
    page = (target / "index.html").read_text()
    assert '<img src="y-differences.png"' in page and "Every configuration" in page
    assert page.count('<td class="l">yes</td>') == 3
    assert (target / "y-differences.png").read_bytes().startswith(b"\x89PNG")
    assert json.loads((target / "comparison.json").read_text()) == {
        k: v for k, v in json.loads(out).items() if k != "fail_if"
    }
    # again into the same folder (a comparison's): replaced; the default folder
    assert (
        main(capsys, "compare", "base", "rerun", "--results", campaign, "--report", target)[0] == 0
    )
    assert "all identical" in (target / "report.md").read_text()
    code, _, err = main(capsys, "compare", "base", "rerun", "--results", campaign, "--report")
    assert code == 0 and (campaign / "compare-base-vs-rerun" / "index.html").is_file()


@pytest.mark.slow
def test_other_fixed_parameters_pair_by_the_factors_values(campaign: Path, capsys) -> None:
    code, out, err = main(capsys, "compare", "base", "fixed", "--results", campaign)
    assert code == 0, err
    assert "paired by the factors' values (a, b) and replication: the config_ids differ " \
           "(fixed: sd (default) -> 1), so the pairs do not share their random streams" in \
           out.replace("\n", " ").replace("  ", " ")  # fmt: skip
    assert "18 pairs" in out and "6 runs only in base: " in out
    assert main(capsys, "compare", "base", "fixed", "--results", campaign,
                "--fail-if", "unpaired")[0] == 1  # fmt: skip
