"""Bad input to the analysis gives a clear error naming the culprit, never a wrong number."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from satsweep import analysis
from satsweep.analysis import AnalysisError
from satsweep.cli import main

FIELDS = ["link", "drop", "flavor", "buffer", "efficiency"]


def design_rows(replications: int = 1) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for drop in ("EPD", "SD"):
        for flavor in ("Vanilla", "Reno", "SACK"):
            for buffer in (0.5, 1, 2):
                for k in range(replications):
                    y = 0.5 + 0.1 * buffer + (0.05 if drop == "SD" else 0) + 0.01 * k
                    rows.append(dict(zip(FIELDS, ["WAN", drop, flavor, buffer, y], strict=True)))
    return rows


def write(tmp_path: Path, rows: list[dict[str, object]], name: str = "runs.csv") -> Path:
    path = tmp_path / name
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def cli_error(capsys: pytest.CaptureFixture[str], source: Path | str, *options: str) -> str:
    """Run `satsweep analyze`, expect exit code 2 and one error line; return it."""
    argv = ["analyze", str(source), "--response", "efficiency", "--factors", "flavor,buffer,drop"]
    code = main([*argv, *options])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("satsweep analyze: error: ")
    return lines[0]


def test_missing_cell_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        r
        for r in design_rows()
        if not (r["flavor"] == "SACK" and r["buffer"] == 2 and r["drop"] == "SD")
    ]
    message = cli_error(capsys, write(tmp_path, rows))
    assert "no runs for cell flavor=SACK, buffer=2, drop=SD" in message


def test_unbalanced_cell_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = design_rows(replications=2)
    rows.remove(next(r for r in rows if r["flavor"] == "Reno" and r["buffer"] == 0.5))
    message = cli_error(capsys, write(tmp_path, rows))
    assert "unbalanced design: cell flavor=Reno, buffer=0.5, drop=EPD has 1 run(s)" in message
    assert "other cells have 2" in message


def test_duplicated_run_is_unbalanced(tmp_path: Path) -> None:
    rows = design_rows()
    rows.append(dict(rows[4]))
    with pytest.raises(AnalysisError, match=r"cell flavor=Reno, buffer=1, drop=EPD has 2 run\(s\)"):
        analysis.analyze(write(tmp_path, rows), "efficiency", ["flavor", "buffer", "drop"])


def test_factor_with_one_level(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [r for r in design_rows() if r["drop"] == "EPD"]
    message = cli_error(capsys, write(tmp_path, rows))
    assert "factor 'drop' has a single level ('EPD')" in message


def test_unknown_columns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write(tmp_path, design_rows())
    code = main(["analyze", str(source), "--response", "efficiency", "--factors", "flavor,bufer"])
    err = capsys.readouterr().err
    assert code == 2
    assert "unknown factor column 'bufer'" in err
    assert "the columns are: link, drop, flavor, buffer, efficiency" in err
    message = cli_error(capsys, source, "--by", "linc")
    assert "unknown --by column 'linc'" in message
    with pytest.raises(AnalysisError, match="unknown response column 'throughput'"):
        analysis.analyze(source, "throughput", ["flavor"])


def test_non_numeric_response(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write(tmp_path, design_rows())
    code = main(["analyze", str(source), "--response", "link", "--factors", "flavor,buffer"])
    assert code == 2
    assert "response column 'link' is not numeric (it is VARCHAR)" in capsys.readouterr().err


def test_full_model_needs_replications(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    message = cli_error(capsys, write(tmp_path, design_rows()), "--model", "full")
    assert "model 'full' needs replications" in message
    assert "r = 1" in message
    # with two runs per cell it works
    result = analysis.analyze(
        write(tmp_path, design_rows(replications=2), "r2.csv"),
        "efficiency",
        ["flavor", "buffer", "drop"],
        model="full",
    )
    assert result.error_dof == 36 - 18


def test_errors_within_a_group_name_the_group(tmp_path: Path) -> None:
    rows = design_rows() + [{**r, "link": "GEO"} for r in design_rows()[:-1]]
    with pytest.raises(AnalysisError, match=r"^link=GEO: not a full factorial design: no runs"):
        analysis.analyze_by(
            write(tmp_path, rows), "link", "efficiency", ["flavor", "buffer", "drop"]
        )


def test_missing_and_invalid_values(tmp_path: Path) -> None:
    rows = design_rows()
    rows[3]["efficiency"] = ""
    with pytest.raises(AnalysisError, match="column 'efficiency' has 1 missing value"):
        analysis.analyze(write(tmp_path, rows), "efficiency", ["flavor", "buffer", "drop"])
    rows = design_rows()
    rows[3]["flavor"] = ""
    with pytest.raises(AnalysisError, match="column 'flavor' has 1 missing value"):
        analysis.analyze(write(tmp_path, rows, "b.csv"), "efficiency", ["flavor", "buffer", "drop"])
    rows = design_rows()
    rows[3]["efficiency"] = "nan"
    with pytest.raises(AnalysisError, match="NaN or infinite"):
        analysis.analyze(write(tmp_path, rows, "c.csv"), "efficiency", ["flavor", "buffer", "drop"])


def test_bad_options_and_sources(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write(tmp_path, design_rows())
    assert "confidence must be between 0 and 1" in cli_error(capsys, source, "--confidence", "90")
    with pytest.raises(AnalysisError, match="'flavor' is given more than once"):
        analysis.analyze(source, "efficiency", ["flavor", "flavor"])
    with pytest.raises(AnalysisError, match="both the response and a factor"):
        analysis.analyze(source, "efficiency", ["flavor", "efficiency"])
    with pytest.raises(AnalysisError, match="unknown model 'second-order'"):
        analysis.analyze(source, "efficiency", ["flavor"], model="second-order")  # type: ignore[arg-type]
    assert "no such file" in cli_error(capsys, tmp_path / "nothere.csv")
    message = cli_error(capsys, "nostudy")
    assert "no file and no study named 'nostudy'" in message
    assert "allowed: a design's YAML file or a Parquet/CSV file of runs, or a study in" in message
    # argparse's own errors have the same shape and exit code
    with pytest.raises(SystemExit) as exit_info:
        main(
            [
                "analyze",
                str(source),
                "--response",
                "efficiency",
                "--factors",
                "flavor",
                "--model",
                "x",
            ]
        )
    assert exit_info.value.code == 2
    assert "satsweep analyze: error: argument --model" in capsys.readouterr().err
