"""Issue 54, items 12 and 14: `satsweep archive` of a store or to a target that is not what it
seems (a link into the store, a folder that does not exist, a design file, a table or
compaction.json that is a link, tables stale or damaged), and the messages that were a
pydantic dump, a temporary folder's name, a raw OSError or a 50k-character echo: each one
line naming the field or file and what is allowed. On real stores of docs/examples/mm1.py;
the ns-3 builds need the wheel (``programs``) but compile nothing."""

from __future__ import annotations

import json
import os
import shutil
import tarfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from satsweep.store import archive
from tests.support.sweeps import MM1, mm1_design, stored_study
from tests.support.cli import run_cli as main

TOY = mm1_design()


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The toy study (2 runs) stored in <folder>/results/toy: the folder. Tests copy it."""
    folder = tmp_path_factory.mktemp("made")
    program = folder / "mm1.py"
    program.write_text(MM1.read_text())
    program.chmod(0o755)
    stored_study(folder, TOY)
    return folder


@pytest.fixture
def toy(made: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the made folder (toy.yaml, mm1.py, results/toy) to change; temporary files
    go to its tmp/, to be seen. The results folder is <toy>/results."""
    folder = tmp_path / "work"
    shutil.copytree(made, folder, symlinks=True)
    recorded = json.loads((folder / "results" / "toy" / "design.json").read_text())
    recorded["source"] = str(folder / "toy.yaml")  # the copy's design file
    (folder / "results" / "toy" / "design.json").write_text(json.dumps(recorded))
    (folder / "tmp").mkdir()
    monkeypatch.setenv("TMPDIR", str(folder / "tmp"))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # TMPDIR read again
    return folder


def files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (links as where they lead), by its relative path."""
    return {
        str(p.relative_to(folder)): os.readlink(p).encode() if p.is_symlink() else p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_symlink() or p.is_file()
    }


def archive_refused(capsys, toy: Path, target: Path) -> str:
    """`satsweep archive toy -o target`: exit 2, one line, nothing written: the line."""
    store = toy / "results" / "toy"
    before = files(store)
    code, out, err = main(capsys, "archive", "toy", "--results", toy / "results", "-o", target)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith("satsweep archive: error: "), err
    assert files(store) == before and not os.path.lexists(target)
    return err


# -- item 12: where archive writes, and what it archives ------------------------------------


def test_archive_through_a_link_into_the_store_is_refused(toy: Path, capsys) -> None:
    """The check compared the path as written: the archive went into the store before."""
    (toy / "into").symlink_to(toy / "results" / "toy")
    err = archive_refused(capsys, toy, toy / "into" / "x.tar.gz")
    assert "-o " in err and "inside the store" in err
    assert not (toy / "results" / "toy" / "x.tar.gz").exists()


def test_archive_into_a_folder_that_does_not_exist_is_refused(toy: Path, capsys) -> None:
    """The folders were made before."""
    target = toy / "no" / "such" / "x.tar.gz"
    err = archive_refused(capsys, toy, target)
    assert f"no folder {target.parent}; allowed: a file in a folder that exists" in err
    assert not (toy / "no").exists()


def test_a_design_file_that_is_a_link_is_archived_by_its_bytes(toy: Path, capsys) -> None:
    """design.yaml was archived as a link, which verify then refused."""
    (toy / "real.yaml").write_text((toy / "toy.yaml").read_text())
    (toy / "toy.yaml").unlink()
    (toy / "toy.yaml").symlink_to("real.yaml")
    target = toy / "toy.tar.gz"
    code, _, err = main(capsys, "archive", "toy", "--results", toy / "results", "-o", target)
    assert code == 0, err
    with tarfile.open(target) as tar:
        held = tar.getmember("toy/design.yaml")
        assert held.isreg() and tar.extractfile(held).read() == (toy / "real.yaml").read_bytes()
    with archive.open_archive(target) as store:  # refuses an archive with a link in it
        assert store.design() is not None


def _link_out(store: Path, name: str) -> None:
    """``name`` moved out of the store, a link to it left in its place."""
    outside = store.parent.parent / f"outside-{name}"
    (store / name).rename(outside)
    (store / name).symlink_to(outside)


def _rewritten_runs(store: Path) -> None:
    """runs.parquet with its first row only: not what compaction.json records."""
    table = pq.read_table(store / "runs.parquet")
    pq.write_table(table.slice(0, 1), store / "runs.parquet")


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda s: _link_out(s, "waits.parquet"), "waits.parquet: a link to "),
        (lambda s: _link_out(s, "runs.parquet"), "runs.parquet: a link to "),
        (lambda s: _link_out(s, "compaction.json"), "compaction.json: a link to "),
        (_rewritten_runs, "tables stale or damaged: runs.parquet holds 1 of 2 done runs"),
        (lambda s: (s / "compaction.json").write_text("{}"),
         "tables stale or damaged: compaction.json is unreadable"),
        (lambda s: (s / "compaction.json").unlink(),
         "tables stale or damaged: the 2 done runs are not compacted"),
    ],
    ids=["table-link", "runs-link", "compaction-link", "rewritten", "compaction-garbage",
         "no-compaction"],
)  # fmt: skip
def test_a_store_whose_tables_are_links_or_stale_is_not_archived(
    toy: Path, capsys, change, said
) -> None:
    """A table linked to a file outside the store was archived, exit 0, while `status` called
    the tables damaged."""
    change(toy / "results" / "toy")
    err = archive_refused(capsys, toy, toy / "toy.tar.gz")
    assert said in err, err
    assert "`satsweep run`" in err


# -- item 14: messages ---------------------------------------------------------------------


def _recorded(toy: Path, change) -> None:
    """design.json of the toy's store, ``change`` d."""
    path = toy / "results" / "toy" / "design.json"
    recorded = json.loads(path.read_text())
    change(recorded)
    path.write_text(json.dumps(recorded))


def test_a_recorded_design_out_of_range_is_one_line_naming_the_field(toy: Path, capsys) -> None:
    """A multi-line pydantic dump (its URL included) before."""
    _recorded(toy, lambda r: r["design"].update(replications=10**12))
    for command in ("archive", "report"):
        code, _, err = main(capsys, command, "toy", "--results", toy / "results")
        assert code == 2 and err.count("\n") == 1, err
        assert (
            f"{toy / 'results' / 'toy' / 'design.json'}: not a design satsweep wrote: "
            "design.replications: 1000000000000 is not allowed; allowed: an integer from 1 to "
            "32767"
        ) in err, err
        assert "pydantic" not in err
    _recorded(toy, lambda r: r["describe"]["parameters"][0].update(type="blob"))
    _recorded(toy, lambda r: r["design"].update(replications=1))
    code, _, err = main(capsys, "archive", "toy", "--results", toy / "results")
    assert code == 2 and err.count("\n") == 1, err
    assert "design.json: not a design satsweep wrote: describe.parameters.0.type: " in err


def test_an_archive_without_describe_is_named_not_its_temporary_folder(toy: Path, capsys) -> None:
    """ "no recorded design (design.json)" named the temporary folder it was unpacked to."""
    target = toy / "toy.tar.gz"
    code, _, err = main(capsys, "archive", "toy", "--results", toy / "results", "-o", target)
    assert code == 0, err
    unpacked = toy / "unpacked"
    with tarfile.open(target) as tar:
        tar.extractall(unpacked, filter="data")
    recorded = json.loads((unpacked / "toy" / "design.json").read_text())
    del recorded["describe"]
    (unpacked / "toy" / "design.json").write_text(json.dumps(recorded))
    changed = toy / "changed.tar.gz"
    with tarfile.open(changed, "w:gz") as tar:
        tar.add(unpacked / "toy", "toy")
    code, out, err = main(capsys, "verify", changed)
    assert code == 2 and out == "", err
    [said] = [line for line in err.splitlines() if "error" in line]
    assert said == (
        f"satsweep verify: error: {changed}: design.json: describe: missing; allowed: the "
        "program's --describe, as satsweep run records it"
    )
    assert "satsweep-archive-" not in err and not list((toy / "tmp").iterdir())


FRACTION = """\
study: frac
program: ./mm1.py
factors:
  load: [0.3, 0.6]
  service: [exp, det]
  customers: [10, 20]
fraction:
  generators: [GENERATOR]
replications: 1
"""


@pytest.mark.parametrize(
    ("generator", "said"),
    [
        ('"customers\\0 = load:service"',
         r"'customers\x00 = load:service': 'customers\x00' is not a factor; allowed: load, "),
        ('"' + "x" * 50_000 + ' = load:service"', "'" + "x" * 40 + "'...: '" + "x" * 40 + "'..."),
        ('"' + "y" * 50_000 + '"', "'" + "y" * 40 + "'... is not a generator; allowed: "),
        ('"customers = ' + "load:" * 10_000 + 'service"', "...: a factor twice; allowed: "),
    ],
    ids=["nul", "long-name", "no-generator", "long-word"],
)  # fmt: skip
def test_a_generator_is_shown_escaped_and_clipped(toy: Path, capsys, generator, said) -> None:
    """A name ending in NUL read "'customers' is not a factor"; 50k characters were echoed
    whole."""
    design = toy / "frac.yaml"
    design.write_text(FRACTION.replace("GENERATOR", generator))
    code, _, err = main(capsys, "plan", design, "--results", toy / "results")
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"satsweep plan: error: {design}: fraction: "), err
    assert said in err and len(err) < 400, err


def test_long_names_in_the_analysis_and_program_are_clipped(toy: Path, capsys) -> None:
    """Echoed whole before: 50k characters each."""
    long = "z" * 50_000
    design = toy / "long.yaml"
    design.write_text(TOY.replace("study: toy", "study: long")
                      + f"analysis:\n  factors: [{long}]\n  responses: [{long}]\n")  # fmt: skip
    code, _, err = main(capsys, "plan", design, "--results", toy / "results")
    assert code == 2 and len(err) < 600, err
    assert f"analysis.factors: '{'z' * 56}... is not a factor of the design" in err
    assert f"analysis.responses: '{'z' * 56}... is not a numeric summary field" in err
    design.write_text(TOY.replace("./mm1.py", "./" + long))
    code, _, err = main(capsys, "plan", design, "--results", toy / "results")
    assert code == 2 and len(err) < 400 and "program: cannot read './zzz" in err, err


NS3_DECLARATION = """\
name: x
version: "1"
summary:
  - name: value
    type: int
    stdout: "value ([0-9]+)"
"""
NS3_DESIGN = """\
study: x
program: ns3
script: model/x.cc
factors:
  n: [1, 2]
replications: 1
"""


@pytest.mark.programs
@pytest.mark.parametrize(
    ("cxx", "said"),
    [
        ("", "CXX is '', no command; allowed: a C++20 compiler's command"),
        ("   ", "CXX is '   ', no command; allowed: a C++20 compiler's command"),
        ("/no/such/c++", "CXX='/no/such/c++' does not run (No such file or directory); allowed: "),
        ("true", "CXX='true' exited 0 without writing the program (-o x); allowed: a C++20 "),
    ],
    ids=["empty", "blank", "missing", "writes-nothing"],
)  # fmt: skip
def test_a_compiler_that_is_none_is_one_line_naming_cxx(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch, cxx, said
) -> None:
    """ "No such file or directory: '-std=c++20'" for an empty CXX, a raw rename error for a
    compiler that exits 0 without its output (a traceback both)."""
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "x.cc").write_text("int main() { return 0; }\n")
    (tmp_path / "model" / "satsweep.yaml").write_text(NS3_DECLARATION)
    (tmp_path / "x.yaml").write_text(NS3_DESIGN)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CXX", cxx)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # no build cached
    code, _, err = main(capsys, "plan", "x.yaml", "--results", tmp_path / "results")
    assert code == 2, err
    [line] = [line for line in err.splitlines() if not line.startswith("building ")]
    assert line.startswith("satsweep plan: error: x.yaml: script: "), err
    assert said in line, line
