"""Faults of a self-contained archive (issue 52, part 1): a program file that a link leads out
of the archive's root, a program over the size limit, an installed program archived under
another satsweep version, a file of the archive changed, a build step that fails or leads out
of the archive. Each is named in one line, never a traceback, and never silently."""

from __future__ import annotations

import io
import json
import shutil
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest

import satsweep
from satsweep.store import archive
from tests.support.sweeps import MM1, mm1_design, stored_study
from tests.support.cli import run_cli as main

DESIGN = mm1_design(program="{program}", study="queue")


def rewritten(path: Path, change: Callable[[str, bytes], bytes]) -> None:
    """The archive at ``path`` written again with each file's bytes through ``change``."""
    with tarfile.open(path) as tar:
        files = [(m, tar.extractfile(m).read() if m.isreg() else b"") for m in tar.getmembers()]
    with tarfile.open(path, "w:gz") as tar:
        for member, data in files:
            data = change(member.name, data)
            member.size = len(data)
            tar.addfile(member, io.BytesIO(data) if member.isreg() else None)


def program_json(change: Callable[[dict], None]) -> Callable[[str, bytes], bytes]:
    """A :func:`rewritten` change of program.json alone."""

    def changed(name: str, data: bytes) -> bytes:
        if not name.endswith("/program.json"):
            return data
        record = json.loads(data)
        change(record)
        return json.dumps(record).encode()

    return changed


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """tmp_path/work, for the study; the tests run from tmp_path/elsewhere."""
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    (tmp_path / "work" / "model").mkdir(parents=True)
    return tmp_path / "work"


def test_a_program_linked_from_outside_the_root_is_named_and_left_out(work: Path, capsys) -> None:
    outside = work.parent / "outside" / "mm1.py"
    outside.parent.mkdir()
    shutil.copy(MM1, outside)
    (work / "model" / "mm1.py").symlink_to(outside)
    results = stored_study(work, DESIGN.format(program="./model/mm1.py"))
    target = work.parent / "queue.tar.gz"
    code, out, err = main(capsys, "archive", "queue", "--results", results, "-o", target)
    assert code == 0, err
    [warning] = [line for line in err.splitlines() if "warning" in line]
    assert warning == (
        f"satsweep archive: warning: {work / 'model' / 'mm1.py'}: left out of the archive: a "
        f"link to {outside}, outside {work}"
    )
    with tarfile.open(target) as tar:
        assert "queue/source/queue.yaml" in tar.getnames()
        assert not [n for n in tar.getnames() if n.endswith("mm1.py")]  # nor its target's bytes
        record = json.loads(tar.extractfile("queue/program.json").read())
    assert record["left_out"] == [{"path": str(work / "model" / "mm1.py"),
                                   "why": f"a link to {outside}, outside {work}"}]  # fmt: skip

    shutil.rmtree(work.parent / "outside")
    code, out, err = main(capsys, "verify", target)
    assert code == 2 and "Traceback" not in err
    assert f"note: {work / 'model' / 'mm1.py'} was left out of the archive (a link to" in err
    assert (
        err.strip()
        .splitlines()[-1]
        .startswith(
            "satsweep verify: error: program (from the archive): './model/mm1.py': no such file"
        )
    )


def test_a_program_over_the_size_limit_is_named_and_left_out(
    work: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copy(MM1, work / "model" / "mm1.py")
    results = stored_study(work, DESIGN.format(program="./model/mm1.py"))
    monkeypatch.setattr(archive, "MAX_PROGRAM_BYTES", 100)
    target = work.parent / "queue.tar.gz"
    code, _, err = main(capsys, "archive", "queue", "--results", results, "-o", target)
    assert code == 0, err
    size = MM1.stat().st_size
    assert (f"satsweep archive: warning: {work / 'model' / 'mm1.py'}: left out of the archive "
            f"with its files: the program's 1 files are {size} bytes, over 100 "
            "(MAX_PROGRAM_BYTES)\n") in err  # fmt: skip
    with tarfile.open(target) as tar:
        assert [n for n in tar.getnames() if "/source/" in n] == ["queue/source/queue.yaml"]


def test_an_installed_program_is_refused_under_another_satsweep_version(
    work: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A program found by name (here in $SATSWEEP_PROGRAMS, as satnet is in satsweep's
    libexec folder) is archived by satsweep's version alone: verify reruns it under the same
    version, and refuses another in one line naming the version to install."""
    installed = work.parent / "installed"
    installed.mkdir()
    shutil.copy(MM1, installed / "mm1sim")
    monkeypatch.setenv("SATSWEEP_PROGRAMS", str(installed))
    results = stored_study(work, DESIGN.format(program="mm1sim"))
    target = work.parent / "queue.tar.gz"
    code, _, err = main(capsys, "archive", "queue", "--results", results, "-o", target)
    assert code == 0 and "warning" not in err, err
    with tarfile.open(target) as tar:
        assert [n for n in tar.getnames() if "/source/" in n] == ["queue/source/queue.yaml"]
        record = json.loads(tar.extractfile("queue/program.json").read())
    assert record["kind"] == "installed"
    assert record["versions"]["satsweep"] == satsweep.__version__
    code, out, err = main(capsys, "verify", target)
    assert code == 0 and out.strip().endswith("2 of 2 runs reproduce exactly"), out + err

    def older(record: dict) -> None:
        record["versions"].update(satsweep="0.0.1", satsweep_commit="0123abc")

    rewritten(target, program_json(older))
    code, out, err = main(capsys, "verify", target)
    assert code == 2 and out == ""
    [said] = [line for line in err.splitlines() if "error" in line]
    assert said.endswith(
        f"the program 'mm1sim' is the one satsweep 0.0.1 installs (git commit 0123abc), and "
        f"this is satsweep {satsweep.__version__}; allowed: verify where satsweep 0.0.1 is "
        "installed (./setup.sh in a checkout of 0123abc)"
    )


def test_a_changed_file_or_a_bad_build_step_is_refused_in_one_line(work: Path, capsys) -> None:
    shutil.copy(MM1, work / "model" / "mm1.py")
    results = stored_study(work, DESIGN.format(program="./model/mm1.py"))
    target = work.parent / "queue.tar.gz"
    code, _, err = main(capsys, "archive", "queue", "--results", results, "-o", target)
    assert code == 0, err
    shutil.rmtree(work)
    pristine = target.read_bytes()

    def refused(change: Callable[[str, bytes], bytes]) -> str:
        target.write_bytes(pristine)
        rewritten(target, change)
        code, out, err = main(capsys, "verify", target)
        assert code == 2 and "reproduce" not in out and "Traceback" not in err, out + err
        return err.strip().splitlines()[-1]

    def edited(name: str, data: bytes) -> bytes:
        return data.replace(b"random", b"random ") if name.endswith("mm1.py") else data

    assert refused(edited).endswith(
        "program.json: source/model/mm1.py: not the file archived (its size or sha256 "
        "differs): the archive was changed"
    )

    def failing(record: dict) -> None:
        record["builds"] = [{"folder": "model", "makes": "model/mm1",
                             "command": ["sh", "-c", "echo no compiler >&2; exit 3"]}]  # fmt: skip

    said = refused(program_json(failing))
    assert "build step 'sh -c echo no compiler >&2; exit 3' in " in said
    assert said.endswith("/source/model exited with 3: no compiler")

    def escaping(record: dict) -> None:
        record["builds"] = [{"folder": "../..", "makes": "x", "command": ["true"]}]

    assert refused(program_json(escaping)).endswith(
        "program.json: builds: '../..' leads out of source/; allowed: a path inside it"
    )
