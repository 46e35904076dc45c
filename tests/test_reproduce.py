"""`satsweep verify` and `satsweep archive` on real stores of docs/examples/mm1.py (its runs
made the way a workflow job makes them): reruns compared field by field, a changed program
named, the store never changed, the archive whole or absent."""

from __future__ import annotations

import re
import tarfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from satsweep.store import archive
from tests.support.sweeps import MM1, stored_study
from tests.support.cli import run_cli as main

TOY = """\
study: toy
program: {program}
factors:
  load: [0.3, 0.6]
  service: [exp, det]
fixed:
  customers: 20
replications: 2
"""


def stored(tmp_path: Path) -> Path:
    """The toy design (8 runs of a copy of mm1.py beside it) in tmp_path/toy.yaml, its runs
    made and compacted in tmp_path/results: the results folder."""
    program = tmp_path / "mm1.py"
    program.write_text(MM1.read_text())
    program.chmod(0o755)
    return stored_study(tmp_path, TOY.format(program="./mm1.py"))


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder``, its bytes by its relative path."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The toy's results folder; temporary files go to tmp_path/tmp, to be seen."""
    (tmp_path / "tmp").mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # TMPDIR read again
    return stored(tmp_path)


def test_verify_reruns_every_run_outside_the_store(toy: Path, capsys) -> None:
    before = snapshot(toy / "toy")
    code, out, err = main(capsys, "verify", "toy", "--results", toy)
    assert code == 0, out + err
    assert out.count(": reproduced") == 8 and "DIFFERS" not in out
    assert out.strip().endswith("8 of 8 runs reproduce exactly")
    assert "environment:" not in out  # the same program, satsweep, git state and host
    assert snapshot(toy / "toy") == before
    assert not list((toy.parent / "tmp").iterdir())  # its temporary store removed

    # a sample, chosen again by its seed
    code, out, err = main(capsys, "verify", toy.parent / "toy.yaml", "--results", toy,
                          "--sample", 3, "--seed", 11)  # fmt: skip
    assert code == 0 and out.count(": reproduced") == 3
    assert "sample chosen with --seed 11 (satsweep verify" in out
    first = [line for line in out.splitlines() if "reproduced" in line]
    code, again, _ = main(capsys, "verify", "toy", "--results", toy, "--sample", 3, "--seed", 11)
    assert [line for line in again.splitlines() if "reproduced" in line] == first
    code, out, _ = main(capsys, "verify", "toy", "--results", toy, "--sample", 2)
    assert code == 0 and "sample chosen with --seed " in out  # a new seed, said
    assert snapshot(toy / "toy") == before

    with pytest.raises(SystemExit) as exit_:
        main(capsys, "verify", "toy", "--results", toy, "--sample", 0)
    assert exit_.value.code == 2 and "allowed: an integer >= 1" in capsys.readouterr().err
    code, _, err = main(capsys, "verify", "nosuch", "--results", toy)
    assert code == 2 and "no file and no study named 'nosuch'" in err and "toy" in err


def test_verify_names_the_fields_and_the_binary_that_differ(toy: Path, capsys) -> None:
    """The program changed since the runs (every wait 1 s longer): every rerun differs, in its
    summary and in each of its table's 20 rows (the first 20 differences shown, the rest
    counted), and the program's sha256 is named beside the recorded one."""
    recorded = pq.read_table(toy / "toy" / "runs.parquet").column("program_sha256")[0].as_py()
    program = toy.parent / "mm1.py"
    changed = program.read_text().replace('"wait": wait}', '"wait": wait + 1.0}')
    assert changed != program.read_text()
    program.write_text(changed)
    before = snapshot(toy / "toy")
    code, out, err = main(capsys, "verify", "toy", "--results", toy)
    assert code == 1, out + err
    assert out.count(": DIFFERS") == 8
    assert "0 of 8 runs reproduce exactly" in out
    assert "mean_wait: stored " in out and ", rerun " in out
    assert re.search(
        r"\n[0-9a-f]{12}/r\d: waits\[\d+\]\.wait: stored \S+, rerun ", out
    )  # row by row
    assert out.count(": ... and 2 more differences\n") == 8  # mean_wait, max_wait, 20 waits
    [line] = [line for line in out.splitlines() if line.startswith("environment: program_sha256")]
    assert recorded in line and line.split("now ")[1] != recorded
    assert snapshot(toy / "toy") == before


def test_verify_of_a_program_declaring_more_compares_what_the_runs_have(toy: Path, capsys) -> None:
    """The program's next version declares a parameter and a table column more, whose
    defaults change nothing (as satnet 0.3.0's readings against 0.2.0's runs): the stored runs
    have no such columns, so they are named as not compared, not counted as differences, and
    every run reproduces; the new version is named in the environment."""
    program = toy.parent / "mm1.py"
    original = toy.parent / "v1"
    original.mkdir()
    (original / "mm1.py").write_text(program.read_text())
    program.write_text(
        "#!/usr/bin/env python3\nimport sys\n"
        f"sys.path.insert(0, {str(original)!r})\nimport mm1\n"
        "mm1.DESCRIPTION['version'] = '1.1'\n"
        "mm1.PARAMETERS.append({'name': 'trace', 'type': 'bool', 'default': False, "
        "'help': 'a reading added later'})\n"
        "mm1.DESCRIPTION['tables']['waits'].append({'name': 'server', 'type': 'int'})\n"
        "sys.exit(mm1.main(sys.argv[1:]))\n"
    )
    code, out, err = main(capsys, "verify", "toy", "--results", toy)
    assert code == 0, out + err
    assert out.count(": reproduced") == 8 and "DIFFERS" not in out
    assert "not compared: trace, waits.server (the stored runs have no such column" in out
    assert "environment: program_version: the runs record 1.0; now 1.1" in out


def test_archive_holds_the_study_and_verify_reruns_from_it(toy: Path, capsys) -> None:
    before = snapshot(toy / "toy")
    target = toy.parent / "out" / "toy-archive.tar.gz"
    target.parent.mkdir()  # archive makes no folder (test_faults_messages.py)
    code, out, err = main(capsys, "archive", "toy", "--results", toy, "-o", target)
    assert code == 0, err
    assert out.strip() == str(target)
    assert snapshot(toy / "toy") == before  # byte-identical
    assert [p.name for p in target.parent.iterdir()] == [target.name]  # no temporary left
    with tarfile.open(target) as tar:
        names = set(tar.getnames())
        environment = tar.extractfile("toy/environment.txt").read().decode()
        program = tar.extractfile("toy/program.json").read().decode()
    assert {"toy/design.json", "toy/runs.parquet", "toy/waits.parquet", "toy/compaction.json",
            "toy/design.yaml", "toy/program.json", "toy/environment.txt",
            "toy/source/toy.yaml", "toy/source/mm1.py"} == names  # fmt: skip
    assert "duckdb==" in environment and "pyarrow==" in environment
    sha = pq.read_table(toy / "toy" / "runs.parquet").column("program_sha256")[0].as_py()
    assert sha in program and '"mean_wait"' in program

    code, out, err = main(capsys, "verify", target)
    assert code == 0, out + err
    assert out.strip().endswith("8 of 8 runs reproduce exactly")
    assert not list((toy.parent / "tmp").iterdir())  # the unpacked archive removed

    # the default name, beside the store
    code, out, _ = main(capsys, "archive", toy.parent / "toy.yaml", "--results", toy)
    assert code == 0 and out.strip() == str(toy / "toy.tar.gz")
    assert snapshot(toy / "toy") == before


def test_archive_refuses_bad_targets_and_leaves_nothing_when_it_fails(
    toy: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = snapshot(toy / "toy")
    for target, said in ((toy.parent / "toy.zip", "allowed: a file name ending in .tar.gz, .tgz"),
                         (toy / "toy" / "x.tar.gz", "inside the store")):  # fmt: skip
        code, _, err = main(capsys, "archive", "toy", "--results", toy, "-o", target)
        assert code == 2 and said in err, err
        assert not target.exists()
    assert snapshot(toy / "toy") == before

    def broken() -> str:  # fails half-way, the store's files already in the archive
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(archive, "environment", broken)
    target = toy.parent / "out" / "toy.tar.gz"
    target.parent.mkdir()
    code, _, err = main(capsys, "archive", "toy", "--results", toy, "-o", target)
    assert code == 1 and "No space left on device" in err
    assert not target.exists() and list(target.parent.iterdir()) == []
    assert snapshot(toy / "toy") == before
