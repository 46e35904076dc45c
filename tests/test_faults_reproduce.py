"""Faults of `satsweep verify` and of the archives it reads, on real stores of
docs/examples/mm1.py: a store that is not the whole study (runs lost, held twice or added,
compaction.json left as it was or made to agree), archives that would unpack too much, too
many members or out of their folder, plain tars of a store's folder, a tampered value, and
verify interrupted (SIGTERM, Ctrl-C): no temporary folder and no program left."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from satsweep.design import load_design
from satsweep.store import Store, archive
from satsweep.workflow import verify as verifying
from satsweep.workflow.jobs import simulate_run
from tests.support import REPO
from tests.support.sweeps import MM1, stored_study
from tests.support.cli import run_cli as main

TOY = """\
study: toy
program: ./mm1.py
factors:
  load: [0.3, 0.6]
  service: [exp, det]
fixed:
  customers: 20
replications: {replications}
"""


def program_beside(folder: Path, text: str | None = None) -> Path:
    """A copy of mm1.py (or ``text``) in ``folder``, executable."""
    program = folder / "mm1.py"
    program.write_text(text or MM1.read_text())
    program.chmod(0o755)
    return program


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The toy study (8 runs) stored in <folder>/results/toy and archived by `satsweep
    archive` as <folder>/toy.tar.gz: the folder. Tests only read it."""
    folder = tmp_path_factory.mktemp("made")
    program_beside(folder)
    results = stored_study(folder, TOY.format(replications=2))
    archive.write_archive(Store(results / "toy"), folder / "toy.tar.gz")
    return folder


@pytest.fixture
def tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """TMPDIR, where verify's temporary folders go, to be seen."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # TMPDIR read again
    return folder


def keys(table: Path) -> list[str]:
    """The runs of a runs.parquet, ``config_id/r<k>`` in its order."""
    rows = pq.read_table(table, columns=["config_id", "replication"]).to_pylist()
    return [f"{r['config_id']}/r{r['replication']}" for r in rows]


def repacked(made: Path, tmp_path: Path, change: Callable[[Path], None]) -> Path:
    """The toy's archive unpacked, ``change`` d (given its study folder) and packed again as
    `satsweep archive` packs it: the new archive."""
    folder = tmp_path / "unpacked"
    with tarfile.open(made / "toy.tar.gz") as tar:
        tar.extractall(folder, filter="data")
    change(folder / "toy")
    target = tmp_path / "changed.tar.gz"
    with tarfile.open(target, "w:gz") as tar:
        tar.add(folder / "toy", "toy")
    return target


def rewrite_runs(study: Path, rows: Callable[[list[dict]], list[dict]], agree: bool) -> None:
    """runs.parquet of ``study`` with ``rows`` of its rows; with ``agree``, compaction.json
    made to record the new file (its runs, rows, bytes and sha256), as a careful forger would."""
    path = study / "runs.parquet"
    table = pq.read_table(path)
    pq.write_table(pa.Table.from_pylist(rows(table.to_pylist()), schema=table.schema), path)
    if agree:
        compaction = json.loads((study / "compaction.json").read_text())
        written = pq.read_metadata(path).num_rows
        compaction["runs"] = written
        compaction["tables"]["runs"].update(
            rows=written,
            bytes=path.stat().st_size,
            sha256=hashlib.sha256(path.read_bytes()).hexdigest(),
        )
        (study / "compaction.json").write_text(json.dumps(compaction))


def replication_3(rows: list[dict]) -> list[dict]:
    """The rows and one more: the first run's row as a third replication."""
    return [*rows, {**rows[0], "replication": 3}]


@pytest.mark.parametrize(
    ("rows", "agree", "rerun", "said"),
    [
        (lambda rows: [rows[0], rows[5]], False, "2 of 2",
         ["runs.parquet has 2 rows, compaction.json records 8",
          "runs.parquet is not the file its compaction wrote",
          "compaction.json counts 8 runs, runs.parquet has 2 rows",
          "runs.parquet lacks 6 of the design's 8 runs (failed, not run or lost): "]),
        (lambda rows: [rows[0], rows[5]], True, "2 of 2",
         ["runs.parquet lacks 6 of the design's 8 runs (failed, not run or lost): "]),
        (lambda rows: rows + rows, True, "2 of 2",
         ["runs.parquet holds 8 run(s) more than once: "]),
        (replication_3, True, "of 2",  # the ninth may be sampled: it differs
         ["runs.parquet holds 1 run(s) the design does not have: "]),
    ],
    ids=["2 of 8 kept", "2 of 8 kept, compaction.json agreeing", "every row twice",
         "a ninth row"],
)  # fmt: skip
def test_an_archive_that_is_not_the_whole_study_fails_naming_its_runs(
    made: Path, tmp: Path, tmp_path: Path, capsys, rows, agree: bool, rerun: str, said: list
) -> None:
    """Before the fix each of these said "2 of 2 runs reproduce exactly" (or "16 of 16"),
    exit 0."""
    before = keys(made / "results" / "toy" / "runs.parquet")
    target = repacked(made, tmp_path, lambda study: rewrite_runs(study, rows, agree))
    code, out, err = main(capsys, "verify", target, "--sample", 2)  # every run checked, 2 rerun
    assert code == 1, out + err
    incomplete = [line.removeprefix("incomplete: ") for line in out.splitlines()
                  if line.startswith("incomplete: ")]  # fmt: skip
    assert len(incomplete) == len(said), out
    for line, start in zip(incomplete, said, strict=True):
        assert line.startswith(start), (line, start)
    named = incomplete[-1].split(": ", 1)[1].split(", ")
    if "lacks" in said[-1]:
        assert named == [k for k in before if k not in (before[0], before[5])]
    elif "more than once" in said[-1]:
        assert sorted(named) == sorted(before)
    else:
        assert named == [before[0].replace("/r1", "/r3")]
    assert out.strip().endswith(
        f"{rerun} stored runs reproduce exactly, but the store is not the whole study "
        "(incomplete: above)"
    )
    assert not list(tmp.iterdir())


def partly_stored(folder: Path, done: int) -> Path:
    """The toy design (8 runs) recorded in ``folder``/results, its first ``done`` runs made and
    compacted, the others never run: the results folder."""
    program_beside(folder)
    path = folder / "toy.yaml"
    path.write_text(TOY.format(replications=2))
    design = load_design(path)
    store = Store.of(design, folder / "results")
    design = store.bind(design)
    store.record(design)
    for run in list(design.runs())[:done]:
        assert simulate_run(design, run, store) is None
    store.collect(design)
    return folder / "results"


def test_an_incomplete_store_by_name_fails_naming_the_runs_not_made(
    tmp_path: Path, tmp: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store whose sweep made 5 of its 8 runs: its tables agree with compaction.json, and
    verify still says the store is not the whole study, naming the first MOST_NAMED runs."""
    results = partly_stored(tmp_path, 5)
    monkeypatch.setattr(verifying, "MOST_NAMED", 2)
    code, out, err = main(capsys, "verify", "toy", "--results", results, "--sample", 1)
    assert code == 1, out + err
    design = load_design(tmp_path / "toy.yaml")
    missing = [f"{r.config_id}/r{r.replication}" for r in list(design.runs())[5:]]
    assert (f"incomplete: runs.parquet lacks 3 of the design's 8 runs (failed, not run or "
            f"lost): {missing[0]}, {missing[1]} and 1 more\n") in out  # fmt: skip
    assert sum(line.startswith("incomplete: ") for line in out.splitlines()) == 1
    assert out.count(": reproduced") == 1  # the whole store checked, one run rerun
    assert "1 of 1 stored runs reproduce exactly, but the store is not the whole study" in out


def test_a_tampered_value_is_named_as_the_runs_first_differing_field(
    made: Path, tmp: Path, tmp_path: Path, capsys
) -> None:
    """One run's mean_wait and another's third wait changed in the archive (its tables and
    compaction.json agreeing): each run's block starts with its first differing field."""

    def tamper(study: Path) -> None:
        rewrite_runs(study, lambda rows: [{**rows[0], "mean_wait": 1e9}, *rows[1:]], True)
        path = study / "waits.parquet"
        table = pq.read_table(path)
        rows = table.to_pylist()
        first = [i for i, r in enumerate(rows) if r["config_id"] == rows[-1]["config_id"]
                 and r["replication"] == rows[-1]["replication"]][3]  # fmt: skip
        rows[first] = {**rows[first], "wait": -1.0}
        pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path)
        compaction = json.loads((study / "compaction.json").read_text())
        compaction["tables"]["waits"].update(
            bytes=path.stat().st_size, sha256=hashlib.sha256(path.read_bytes()).hexdigest()
        )
        (study / "compaction.json").write_text(json.dumps(compaction))

    runs = keys(made / "results" / "toy" / "runs.parquet")
    code, out, err = main(capsys, "verify", repacked(made, tmp_path, tamper))
    assert code == 1, out + err
    assert "incomplete" not in out
    assert f"{runs[0]}: differs first in mean_wait (1 difference)\n" in out
    assert f"{runs[0]}: mean_wait: stored 1000000000.0, rerun " in out
    assert f"{runs[-1]}: differs first in waits[3].wait (1 difference)\n" in out
    assert f"{runs[-1]}: waits[3].wait: stored -1.0, rerun " in out
    assert f"{runs[0]} (--run=" in out and "): DIFFERS, first in mean_wait\n" in out
    assert out.strip().endswith("6 of 8 runs reproduce exactly")


@pytest.mark.parametrize(
    "command",
    [
        ["tar", "-C", "{store}", "-czf", "{target}", "."],
        ["tar", "-czf", "{target}", "-C", "{results}", "toy"],
        ["tar", "-C", "{store}", "-czf", "{target}", "design.json", "runs.parquet",
         "waits.parquet", "compaction.json"],
    ],
    ids=["tar -C results/toy .", "tar -C results toy", "tar of the files"],
)  # fmt: skip
def test_a_plain_tar_of_a_stores_folder_is_verified(
    made: Path, tmp: Path, tmp_path: Path, capsys, command: list[str]
) -> None:
    """`tar -C results/study -czf x.tgz .` gave an IndexError traceback; the study's name is
    then design.json's."""
    results, target = made / "results", tmp_path / "x.tgz"
    where = {"store": results / "toy", "results": results, "target": target}
    subprocess.run([part.format(**where) for part in command], check=True)
    code, out, err = main(capsys, "verify", target, "--sample", 2)
    assert code == 0, out + err
    assert "study 'toy'" in err and out.strip().endswith("2 of 2 runs reproduce exactly")
    assert not list(tmp.iterdir())


def tar_of(target: Path, members: list[tuple[tarfile.TarInfo, bytes | None]]) -> Path:
    """A tar.gz of ``members`` (each a header and its data, None for none) at ``target``."""
    with tarfile.open(target, "w:gz", compresslevel=1) as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return target


def member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.mode = kind, link, 0o644
    return info


def refused(capsys, target: Path, tmp: Path) -> str:
    """`satsweep verify target`'s one line of refusal, exit 2, nothing left in TMPDIR."""
    code, out, err = main(capsys, "verify", target)
    assert code == 2, out + err
    assert err.startswith("satsweep verify: error: ") and err.count("\n") == 1, err
    assert not list(tmp.iterdir())
    return err


def test_a_tar_bomb_is_refused_before_it_is_unpacked(
    made: Path, tmp: Path, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 64 MiB member of zeros (an archive of 64 kB) past a limit of 16 MiB: refused from its
    header; the same archive cut short after that header is refused the same way (nothing
    of it was read: reading on would have met its end). And past MAX_RATIO times the
    archive's size (a 2 MB archive unpacked 1.9 GB before)."""
    monkeypatch.setattr(archive, "MAX_UNPACKED_BYTES", 16 * 2**20)
    design = (made / "results" / "toy" / "design.json").read_bytes()
    target = tar_of(tmp_path / "bomb.tar.gz", [(member("toy/design.json"), design),
                                              (member("toy/runs.parquet"), bytes(64 * 2**20))])  # fmt: skip
    assert target.stat().st_size < 2**20
    err = refused(capsys, target, tmp)
    assert (f"{target}: unpacks to more than {16 * 2**20} bytes (MAX_UNPACKED_BYTES) at member "
            "'toy/runs.parquet'") in err  # fmt: skip
    cut = tmp_path / "cut.tar.gz"
    with gzip.open(target) as whole:
        # design.json's header and its data in 512-byte blocks, then runs.parquet's header
        head = whole.read(512 + -(-len(design) // 512) * 512 + 512)
    cut.write_bytes(gzip.compress(head))
    assert "(MAX_UNPACKED_BYTES) at member 'toy/runs.parquet'" in refused(capsys, cut, tmp)
    # the absolute limit as it is, a ratio of 10: 10 MiB for an archive under 1 MiB
    monkeypatch.setattr(archive, "MAX_UNPACKED_BYTES", 4 * 2**30)
    monkeypatch.setattr(archive, "MAX_RATIO", 10)
    size = target.stat().st_size
    assert (f"unpacks to more than {10 * 2**20} bytes (MAX_RATIO: 10 times the archive's {size} "
            "bytes) at member 'toy/runs.parquet'") in refused(capsys, target, tmp)  # fmt: skip


def members_archive(path: Path, count: int, end: bool) -> Path:
    """A tar.gz of ``count`` empty members toy/x (one header repeated), with the archive's end
    or cut short after the last header."""
    header = member("toy/x").tobuf(tarfile.GNU_FORMAT)
    path.write_bytes(gzip.compress(header * count + (b"\0" * 1024 if end else b""), 1))
    return path


def test_an_archive_of_too_many_members_is_refused_without_reading_them_all(
    tmp: Path, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """200,000 empty members (49 s to unpack before the fix), the limit lowered to 1000: the
    count stops past it; cut short after its 20,000th header, the archive is refused the same
    way (its end never read)."""
    monkeypatch.setattr(archive, "MAX_MEMBERS", 1000)
    for count, end in ((200_000, True), (20_000, False)):
        target = members_archive(tmp_path / f"{count}.tar.gz", count, end)
        err = refused(capsys, target, tmp)
        assert "more than 1000 members (MAX_MEMBERS), 'toy/x' the first past it" in err


@pytest.mark.slow
def test_200000_members_are_refused_at_the_default_limit_in_seconds(
    tmp: Path, tmp_path: Path, capsys
) -> None:
    target = members_archive(tmp_path / "many.tar.gz", 200_000, True)
    start = time.perf_counter()
    err = refused(capsys, target, tmp)
    elapsed = time.perf_counter() - start
    assert f"more than {archive.MAX_MEMBERS} members (MAX_MEMBERS)" in err
    assert elapsed < 20, elapsed  # 3.5 s on 2 busy cores (a C++ build beside it)


def chardev(name: str) -> tarfile.TarInfo:
    info = member(name, tarfile.CHRTYPE)
    info.devmajor, info.devminor = 1, 3
    return info


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ([(member("toy/link", tarfile.SYMTYPE, "/etc/passwd"), None)],
         "member 'toy/link' is a link; allowed: regular files and folders inside the study's "
         "one folder"),
        ([(member("toy/hard", tarfile.LNKTYPE, "toy/design.json"), None)],
         "member 'toy/hard' is a link"),
        ([(chardev("toy/null"), None)], "member 'toy/null' is a device"),
        ([(member("toy/fifo", tarfile.FIFOTYPE), None)],
         "member 'toy/fifo' is a pipe"),
        ([(member("toy/../../evil"), b"x")], "member 'toy/../../evil' leads out of its folder"),
        ([(member("/etc/evil"), b"x")], "member '/etc/evil' leads out of its folder"),
        ([(member("other/x"), b"x")],
         "not a study's archive: 2 folders at its top (other, toy); allowed: one, the study's"),
        ([(member("runs.parquet"), b"x")], "not a study's archive (no design.json)"),
    ],
    ids=["symlink", "hard link", "device", "fifo", "..", "absolute", "two folders",
         "files at the top without design.json"],
)  # fmt: skip
def test_an_archive_member_out_of_bounds_is_one_line(
    made: Path, tmp: Path, tmp_path: Path, capsys, extra: list, said: str
) -> None:
    design = (made / "results" / "toy" / "design.json").read_bytes()
    target = tar_of(tmp_path / "bad.tar.gz", [(member("toy/design.json"), design), *extra])
    assert said in refused(capsys, target, tmp)


def test_archives_that_are_no_studys_are_one_line(
    made: Path, tmp: Path, tmp_path: Path, capsys
) -> None:
    """Empty, not gzip, or its files at the top with design.json naming no study."""
    assert "an empty archive" in refused(capsys, tar_of(tmp_path / "e.tar.gz", []), tmp)
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(b"not a gzip stream" * 100)
    assert f"{junk}: cannot read the archive: " in refused(capsys, junk, tmp)
    recorded = json.loads((made / "results" / "toy" / "design.json").read_text())
    for study in ("../evil", None):
        text = json.dumps({**recorded, "study": study}).encode()
        target = tar_of(tmp_path / "flat.tar.gz", [(member("./design.json"), text)])
        err = refused(capsys, target, tmp)
        assert f"design.json's study {study!r} is not a study's name; allowed: " in err


def reruns(scratch: Path) -> list[int]:
    """The pids of the programs rerunning a run into a temporary folder in ``scratch``."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            command = (proc / "cmdline").read_text() if proc.name.isdigit() else ""
        except OSError:  # ended meanwhile
            continue
        if f"\0--out={scratch}/" in command:
            found.append(int(proc.name))
    return found


@pytest.fixture(scope="module")
def sleepy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A toy study of 2 runs in <folder>/results/toy, archived as <folder>/toy.tar.gz, its
    program changed since to sleep a minute in every run: the folder."""
    folder = tmp_path_factory.mktemp("sleepy")
    program_beside(folder)
    results = stored_study(folder, TOY.format(replications=1).replace("[exp, det]", "[exp]"))
    program_beside(
        folder,
        MM1.read_text()
        .replace("def simulate(params, run):\n", "def simulate(params, run):\n    time.sleep(60)\n")
        .replace("import random\n", "import random\nimport time\n"),
    )
    archive.write_archive(Store(results / "toy"), folder / "toy.tar.gz")
    return folder


@pytest.mark.parametrize(
    ("signum", "of_archive"),
    [(signal.SIGTERM, True), (signal.SIGINT, False)],
    ids=["SIGTERM, an archive", "SIGINT, a store by name"],
)
def test_an_interrupted_verify_leaves_no_temporary_folder_and_no_program(
    sleepy: Path, tmp_path: Path, signum: int, of_archive: bool
) -> None:
    """`satsweep verify` stopped while its first rerun runs: exit 130, one line
    "interrupted", the unpacked archive's and the reruns' temporary folders removed, the
    program killed."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    study = [sleepy / "toy.tar.gz"] if of_archive else ["toy", "--results", sleepy / "results"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "satsweep.cli", "verify", *study],
        # faulthandler: a SIGABRT prints where every thread is, should the rerun never start
        env={
            **os.environ,
            "TMPDIR": str(scratch),
            "PYTHONPATH": str(REPO),
            "PYTHONFAULTHANDLER": "1",
        },
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # generous: beside the whole suite on 2 cores, the first rerun once took over 60 s
        deadline = time.monotonic() + 180
        while not reruns(scratch) and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        if not reruns(scratch):  # what it did meanwhile, and where it is, to see why
            proc.send_signal(signal.SIGABRT)
            raise AssertionError(f"the rerun never started: {proc.communicate(timeout=60)}")
        kinds = {p.name.split("-")[1] for p in scratch.iterdir()}
        assert kinds == ({"archive", "verify"} if of_archive else {"verify"})
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130, out + err
    assert err.splitlines()[-1].startswith("satsweep verify: error: interrupted")
    assert "Traceback" not in err
    assert not list(scratch.iterdir())
    assert not reruns(scratch)


#: mm1.py with a summary field that measures the machine (its wall-clock time), declared so.
MACHINE_FIELD = (
    (
        '{"name": "served", "type": "int", "unit": "customers", "help": "customers served"},',
        '{"name": "served", "type": "int", "unit": "customers", "help": "customers served"},\n'
        '        {"name": "wall", "type": "float", "unit": "s", "help": "wall-clock time",'
        ' "reproducible": False},',
    ),
    ('"served": len(waits),', '"served": len(waits), "wall": __import__("time").perf_counter(),'),
)


def test_a_field_declared_not_reproducible_is_left_out_of_verify_and_compare(
    tmp_path: Path, capsys
) -> None:
    """A program's wall-clock field differs on every rerun: without the declaration verify
    says DIFFERS on every run; declared ``reproducible: false``, verify and compare leave it
    out and say so, and still compare every other field."""
    text = MM1.read_text()
    for old, new in MACHINE_FIELD:
        assert old in text
        text = text.replace(old, new)
    for declared in (True, False):
        folder = tmp_path / ("declared" if declared else "undeclared")
        folder.mkdir()
        program_beside(folder, text if declared else text.replace(', "reproducible": False', ""))
        results = stored_study(folder, TOY.format(replications=2))
        code, out, err = main(capsys, "verify", "toy", "--results", results)
        if not declared:
            assert code == 1 and out.count("DIFFERS, first in wall") == 8, out + err
            continue
        assert code == 0, out + err
        assert "not compared: wall (measurements of the machine" in out
        assert out.strip().endswith("8 of 8 runs reproduce exactly")
        rerun = tmp_path / "rerun"  # the same study made again, elsewhere
        rerun.mkdir()
        program_beside(rerun, text)
        again = stored_study(rerun, TOY.format(replications=2)) / "toy"
        code, out, err = main(capsys, "compare", results / "toy", again)
        assert code == 0 and "all identical" in out, out + err
        assert "wall (reproducible: false" in out + err
        # named, it is compared: every pair differs
        code, out, err = main(capsys, "compare", results / "toy", again,
                              "--responses", "wall", "--fail-if", "any")  # fmt: skip
        assert code == 1 and "8 │         0 │" in out, out + err


def test_a_parameter_cannot_be_declared_not_reproducible() -> None:
    from satsweep.engine import Description

    described = json.loads(
        subprocess.run([sys.executable, str(MM1), "--describe"], capture_output=True).stdout
    )
    described["parameters"][0]["reproducible"] = False
    with pytest.raises(ValueError, match="reproducible: only a summary field or a table column"):
        Description.model_validate(described)


def test_an_archive_unpacked_into_results_is_archived_and_verified_again(
    made: Path, tmp: Path, tmp_path: Path, capsys
) -> None:
    """A store of tables alone (an archive a reviewer unpacked into results/, no run files):
    its tables are checked against compaction.json, not against run files it cannot have."""
    results = tmp_path / "results"
    results.mkdir()
    with tarfile.open(made / "toy.tar.gz") as tar:
        tar.extractall(results, filter="data")
    again = tmp_path / "again.tar.gz"
    code, out, err = main(capsys, "archive", "toy", "--results", results, "-o", again)
    assert code == 0, out + err
    code, out, err = main(capsys, "verify", again, "--sample", 1)
    assert code == 0 and out.strip().endswith("1 of 1 runs reproduce exactly"), out + err
    # a table changed there is refused, by compaction.json's sha256
    table = results / "toy" / "waits.parquet"
    data = bytearray(table.read_bytes())
    data[len(data) // 2] ^= 1
    table.write_bytes(bytes(data))
    code, out, err = main(capsys, "archive", "toy", "--results", results, "-o", again)
    assert code == 2 and "waits.parquet is not the file its compaction wrote" in err, err
