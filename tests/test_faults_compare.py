"""`satsweep compare` given what it cannot compare: one line naming what is allowed, exit 2,
nothing written; and its --report never replacing a folder of other files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from satsweep import cli
from tests.support.compare import programs, study


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Small studies of normal.py (one replication each): ``b12`` (b: 1, 2), ``b3`` (b: 3),
    ``a`` (a: lo, hi: other factors) and ``wider`` (b: 1, 2 of normal 3.0, a parameter
    more), a file that is no archive, and a study recorded without runs: the results folder."""
    folder = tmp_path_factory.mktemp("faults")
    made = programs(folder)
    study(folder, "b12", made["same"], {"b": [1, 2]}, 1)
    study(folder, "b3", made["same"], {"b": [3]}, 1)
    study(folder, "a", made["same"], {"a": ["lo", "hi"]}, 1)
    found = study(folder, "wider", made["wider"], {"b": [1, 2]}, 1)
    (folder / "garbage.tar.gz").write_bytes(b"not a tar file")
    (found / "norun").mkdir()
    (found / "norun" / "design.json").write_text("{}")
    return found


def test_compare_refuses_an_ignore_naming_no_response_or_every_one(
    results: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for ignore, said in (("z", "--ignore z: z is not a response compared; allowed: y"),
                         ("y", "--ignore y: leaves no response to compare; allowed: fewer")):  # fmt: skip
        code = cli.main(["compare", "b12", "b12", "--results", str(results), "--ignore", ignore])
        out, err = capsys.readouterr()
        assert code == 2 and not out and err.count("\n") == 1
        assert err.startswith(f"satsweep compare: error: {said}"), err


@pytest.mark.parametrize(
    ("b", "said"),
    [
        ("nope", "no file and no study named 'nope' in "),
        ("a", "the factors differ: b12 has b, a has a; allowed: two studies of the same factors"),
        ("wider", "the programs' parameters differ (only in wider: c); allowed: two studies"),
        ("b3", "no configuration of b12 is in b3 (no common levels of b); allowed: two studies"),
        ("../garbage.tar.gz", "garbage.tar.gz: cannot read the archive"),
        ("norun", "norun: study 'norun' has no finished runs ("),
    ],
)
def test_compare_refuses_what_it_cannot_pair(
    results: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, b: str,
    said: str,
) -> None:  # fmt: skip
    monkeypatch.chdir(results)  # the archive by a relative path
    before = sorted(p.relative_to(results) for p in results.rglob("*"))
    code = cli.main(["compare", "b12", b, "--results", str(results), "--report", "out"])
    out, err = capsys.readouterr()
    assert code == 2 and not out
    assert err.startswith("satsweep compare: error: ") and err.count("\n") == 1, err
    assert said in err, err
    assert sorted(p.relative_to(results) for p in results.rglob("*")) == before  # no report


def test_compare_report_never_replaces_a_folder_of_other_files(
    results: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = results.parent / "kept"
    kept.mkdir()
    (kept / "notes.txt").write_text("mine")
    for target in (kept, kept / "notes.txt"):
        code = cli.main(
            ["compare", "b12", "b12", "--results", str(results), "--report", str(target)]
        )
        out, err = capsys.readouterr()
        assert code == 2 and not out
        assert err == (f"satsweep compare: error: --report {target}: exists and is not a "
                       "comparison satsweep wrote; allowed: a new folder, or one that `satsweep "
                       "compare --report` wrote\n")  # fmt: skip
    assert [p.name for p in results.parent.iterdir() if p.name.startswith(".")] == []
    assert [p.name for p in kept.iterdir()] == ["notes.txt"]
    assert (kept / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize(
    "expression", ["", "sometimes", "rel>", "rel>-1", "rel<0.1", "abs>1%", "significant,", "rel>x"]
)
def test_a_bad_fail_if_is_one_line_and_exit_2(
    results: Path, capsys: pytest.CaptureFixture[str], expression: str
) -> None:
    code = cli.main(["compare", "b12", "b12", "--results", str(results), "--fail-if", expression])
    out, err = capsys.readouterr()
    assert code == 2 and not out
    assert err.count("\n") == 1 and err.startswith(
        f"satsweep compare: error: --fail-if {expression!r}"
    )
    assert "allowed: any (" in err and "rel>X or abs>X" in err


def test_one_replication_gives_no_interval_and_says_so(
    results: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(["compare", "b12", "b12", "--results", str(results), "--json",
                     "--fail-if", "significant"])  # fmt: skip
    out, err = capsys.readouterr()
    (y,) = json.loads(out)["responses"]
    assert code == 0 and not err and y["tested"] == 0 and y["identical"] == 2
    assert {(c["ci"], c["p"], c["note"]) for c in y["configurations"]} == {
        (None, None, "one pair: no interval, not tested")
    }
    assert cli.main(["compare", "b12", "b12", "--results", str(results)]) == 0
    out = capsys.readouterr().out
    assert "y: 2 configurations with one pair: no interval, not tested" in out
    assert out.strip().endswith("all identical")
