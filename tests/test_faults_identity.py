"""Issue 52, part 3, "the identity is what ran": a program changed under its stored runs (the
same name and version, another sha256) is named by `plan`, `status` and `run`, also when
nothing is to run; every run's provenance names the engine it ran on (``engine``); a store
made before that column still works; an ns-3 script's identity is the binary that runs (one
replaced in the build cache is another), an OMNeT++ study's covers the ini files it includes
and its NED files (the last two with the ns-3 programs and OMNeT++ built: marked so)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from satsweep import cli
from satsweep.design import load_design
from satsweep.engine import Description, Program, file_sha256
from satsweep.engine.omnetpp import OmnetppStudy, inet_version, installation, omnetpp_version
from satsweep.engine.program import program_dirs
from satsweep.engine.wheel import ns3_version
from satsweep.store import Store
from satsweep.store.footer import column_range
from satsweep.store.layout import row_sha256
from satsweep.workflow.jobs import provenance, simulate_run
from tests.support import REPO
from tests.support.sweeps import MM1, mm1_design

TOY = mm1_design(replications="{r}")


def stored(folder: Path, replications: int = 1) -> tuple[Path, Path]:
    """A copy of the M/M/1 example and the toy design of it in ``folder``, its runs made as a
    workflow job makes them and compacted: the design file and the study's store."""
    (folder / "mm1.py").write_text(MM1.read_text())
    (folder / "mm1.py").chmod(0o755)
    toy = folder / "toy.yaml"
    toy.write_text(TOY.format(r=replications))
    store = Store.of(load_design(toy), folder / "results")
    design = store.bind(load_design(toy))
    store.record(design)
    for run in design.runs():
        assert simulate_run(design, run, store) is None
    store.collect(design)
    return toy, store.root


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    """A folder with the stored toy study (:func:`stored`), made once: each test copies it."""
    folder = tmp_path_factory.mktemp("identity")
    stored(folder)
    return folder


def copied(pristine: Path, folder: Path) -> tuple[Path, Path]:
    """The pristine study copied into ``folder``: its design file and its store."""
    shutil.copytree(pristine, folder, symlinks=True, dirs_exist_ok=True)
    return folder / "toy.yaml", folder / "results" / "toy"


def grown(toy: Path, root: Path) -> None:
    """The design's runs not made yet made as workflow jobs make them, and compacted."""
    store = Store(root)
    design = store.bind(load_design(toy))
    store.record(design)
    for run in design.runs():
        if not store.is_done(run):
            assert simulate_run(design, run, store) is None
    store.collect(design)


@pytest.fixture(autouse=True)
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    """A console wide enough that rich wraps no path (a wrapped one splits at any character)."""
    monkeypatch.setenv("COLUMNS", "100000")


def satsweep(capsys, *argv: object) -> tuple[int, str]:
    """`satsweep ARGV` in this process: its exit code and what it said (stdout and stderr),
    its lines joined (rich wraps a warning)."""
    capsys.readouterr()
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, " ".join((out + err).split())


def edited(program: Path, line: str) -> str:
    """The program edited in place (its version and description kept): its sha256 before."""
    before = file_sha256(program)
    program.write_text(program.read_text() + f"\n# {line}\n")
    return before


def test_a_program_edited_in_place_is_named_by_plan_status_and_run_with_nothing_to_run(
    pristine, tmp_path, capsys
):
    toy, store = copied(pristine, tmp_path)
    results = ["--results", store.parent]
    code, said = satsweep(capsys, "status", toy, *results)
    assert code == 0 and "made by" not in said, said  # the program as it made them: no word
    old = edited(tmp_path / "mm1.py", "edited")
    new = file_sha256(tmp_path / "mm1.py")
    others = f"2 runs in {store} were made by another build of the same version (sha256 {old})"
    for command in ("plan", "status"):
        code, said = satsweep(capsys, command, toy, *results)
        assert code == 0, said  # a notice: status's exit code is the runs'
        assert "note: program: mm1 " in said and f"has sha256 {new}, but {others}" in said
        assert "to make now" not in said and "satsweep verify toy --sample N" in said
    code, said = satsweep(capsys, "run", toy, *results)
    assert code == 0 and "2/2 runs done (0 now, 2 before)" in said
    assert "warning: program: mm1 " in said and others in said, said
    # design.json now records the new build, the runs are still the old one's
    assert json.loads((store / "design.json").read_text())["program"]["sha256"] == new
    code, said = satsweep(capsys, "status", toy, *results)
    assert code == 0 and others in said, said


def test_runs_to_add_by_another_build_are_said_and_each_build_counted(pristine, tmp_path, capsys):
    toy, store = copied(pristine, tmp_path)
    results = ["--results", store.parent]
    old = edited(tmp_path / "mm1.py", "rebuilt")
    toy.write_text(TOY.format(r=2))
    code, said = satsweep(capsys, "plan", toy, *results)
    made = f"2 runs in {store} were made by another build of the same version (sha256 {old})"
    assert code == 0 and made in said, said
    assert "the 2 runs to make now will come from this one" in said, said
    grown(toy, store)
    middle = edited(tmp_path / "mm1.py", "rebuilt again")
    code, said = satsweep(capsys, "status", toy, *results)
    assert code == 0, said
    # two other builds, each with its runs, read from runs.parquet (several: pyarrow counts)
    (a, _), (b, _) = sorted([(old, 2), (middle, 2)])
    both = f"4 runs in {store} were made by other builds of the same version (sha256 {a}: 2, "
    assert f"{both}sha256 {b}: 2)" in said, said


def test_runs_not_compacted_yet_count_under_the_program_design_json_records(pristine, tmp_path):
    toy, root = copied(pristine, tmp_path)
    store = Store(root)
    design = store.bind(load_design(toy))
    old = design.executable.sha256
    toy.write_text(TOY.format(r=2))
    design = store.bind(load_design(toy))
    for run in design.runs():
        if run.replication == 2:  # made, not compacted: runs.parquet holds the first two
            assert simulate_run(design, run, store) is None
    edited(tmp_path / "mm1.py", "rebuilt")
    design = store.bind(load_design(toy))
    assert store.other_builds(design, store.state(design)) == {old: 4}
    assert store.other_builds(design) == {old: 2}  # without the state: the table's alone


def test_one_build_s_runs_are_told_by_the_table_s_footer(pristine, tmp_path):
    """`status` of a complete store imports no pyarrow (tests/test_layers.py): the footer's
    statistics say that one build made every run; a table of several builds does not."""
    toy, root = copied(pristine, tmp_path)
    sha = Store(root).bind(load_design(toy)).executable.sha256
    found = column_range(root / "runs.parquet", "program_sha256")
    assert found is not None and (found.rows, found.nulls) == (2, 0)
    assert found.low == found.high == sha.encode()
    assert column_range(root / "runs.parquet", "no_such_column").nulls == 2
    (tmp_path / "broken.parquet").write_bytes(b"PAR1 not a table PAR1")
    assert column_range(tmp_path / "broken.parquet", "program_sha256") is None


def test_the_provenance_names_the_engine_of_this_project_s_programs_by_where_they_are(
    pristine, tmp_path
):
    described = Description.model_validate(
        {"name": "x", "version": "1", "parameters": [], "summary": [{"name": "y", "type": "int"}]}
    )
    ours = Program(program_dirs()[-1] / "any-name", "0" * 64, described)
    elsewhere = Program(tmp_path / "any-name", "0" * 64, described)
    version = ns3_version()
    assert ours.engine == (None if version is None else f"ns-3 {version}")
    assert elsewhere.engine is None
    toy, root = copied(pristine, tmp_path)
    facts = provenance(Store(root).bind(load_design(toy)))
    assert "engine" in facts and facts["engine"] is None  # the M/M/1 example: no engine
    table = pq.read_table(root / "runs.parquet")
    assert table.schema.names[-1] == "engine" and table.column("engine").null_count == 2


def test_a_store_made_before_the_engine_column_is_read_grown_and_verified(
    pristine, tmp_path, capsys
):
    toy, store = copied(pristine, tmp_path)
    results = ["--results", store.parent]
    # as satsweep stored them before: no engine in the records' rows nor in runs.parquet
    for path in store.glob("runs/*/r*.record.json"):
        record = json.loads(path.read_text())
        del record["row"]["engine"]
        record["row_sha256"] = row_sha256(record["row"])
        path.write_text(json.dumps(record))
    (store / "records-cache.json").unlink()
    table = pq.read_table(store / "runs.parquet")
    pq.write_table(table.drop_columns(["engine"]), store / "runs.parquet")
    compaction = json.loads((store / "compaction.json").read_text())
    stat = (store / "runs.parquet").stat()
    compaction["tables"]["runs"].update(
        bytes=stat.st_size, mtime_ns=stat.st_mtime_ns, sha256=file_sha256(store / "runs.parquet")
    )
    # the digest of the runs' rows as they were then
    compaction["digest"] = Store(store).state(Store(store).bind(load_design(toy))).digest
    (store / "compaction.json").write_text(json.dumps(compaction))
    code, said = satsweep(capsys, "status", toy, *results, "--verify")
    assert code == 0 and "2 done, 0 damaged, 0 missing, 0 failed" in said, said
    assert "stale" not in said and "made by" not in said, said
    toy.write_text(TOY.format(r=2))
    grown(toy, store)  # the old rows and the new compacted together
    table = pq.read_table(store / "runs.parquet")
    assert table.num_rows == 4 and table.column("engine").to_pylist() == [None] * 4
    code, said = satsweep(capsys, "status", toy, *results)
    assert code == 0 and "made by" not in said, said
    code, said = satsweep(capsys, "verify", "toy", *results, "--sample", "1")
    assert code == 0 and "environment:" not in said, said


def test_status_of_a_complete_store_stays_cheap_with_one_build(pristine, tmp_path):
    """The check of the runs' builds costs `status` no pyarrow: the footer tells (the process
    is a fresh one, as a user's)."""
    toy, store = copied(pristine, tmp_path)
    code = (
        "import sys\n"
        "from satsweep.cli import main\n"
        f"code = main(['status', {str(toy)!r}, '--results', {str(store.parent)!r}])\n"
        "print(code, 'pyarrow' in sys.modules)\n"
    )
    env = {**os.environ, "COLUMNS": "200"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert proc.stdout.splitlines()[-1] == "0 False", proc.stdout + proc.stderr


# -- an ns-3 script: the binary that runs is its identity ---------------------------------------

#: A small ns-3 program (one CommandLine value, a line of output).
NS3_SCRIPT = r"""
#include "ns3/core-module.h"
#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    double x = 1.0;
    CommandLine cmd(__FILE__);
    cmd.AddValue("x", "a value", x);
    cmd.Parse(argc, argv);
    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    std::cout << "y = " << x * u->GetValue() << std::endl;
    return 0;
}
"""
NS3_DECLARATION = """\
name: twice
version: "1"
summary:
  - {name: y, type: float, stdout: "y = (.*)"}
"""
NS3_DESIGN = """\
study: twice
program: ns3
script: model/twice.cc
factors: {x: [1, 2]}
replications: 1
"""


@pytest.mark.programs
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_an_ns3_binary_replaced_in_the_build_cache_is_another_identity(tmp_path):
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "twice.cc").write_text(NS3_SCRIPT)
    (tmp_path / "model" / "satsweep.yaml").write_text(NS3_DECLARATION)
    (tmp_path / "twice.yaml").write_text(NS3_DESIGN)
    # a build cache of its own: the test replaces a binary in it
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "COLUMNS": "300"}

    def satsweep_here(*argv: str) -> subprocess.CompletedProcess:
        command = [str(Path(sys.prefix) / "bin" / "satsweep"), *argv]
        return subprocess.run(
            command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900
        )

    proc = satsweep_here("run", "twice.yaml")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    store = tmp_path / "results" / "twice"
    table = pq.read_table(store / "runs.parquet")
    assert set(table.column("engine").to_pylist()) == {f"ns-3 {ns3_version()}"}
    [old] = set(table.column("program_sha256").to_pylist())
    [binary] = (tmp_path / "cache" / "satsweep" / "ns3-programs").glob("*/twice")
    with open(binary, "ab") as f:  # still the program that runs, another file
        f.write(b"\0")
    proc = satsweep_here("status", "twice.yaml")
    said = " ".join(proc.stdout.split())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    made = f"2 runs in {store} were made by another build of the same version (sha256 {old})"
    assert made in said and f"has sha256 {old}" not in said, said


# -- an OMNeT++ study: its ini files, included ones too, and its NED files ----------------------

DUMBBELL = REPO / "docs" / "examples" / "omnetpp-dumbbell"


def dumbbell_with_includes(folder: Path) -> Path:
    """The dumbbell example in ``folder``, its Bulk configuration's time limit in an included
    file that includes another, which includes the first back (a cycle) and one that is not
    there: the ini file."""
    shutil.copytree(DUMBBELL, folder)
    ini = folder / "omnetpp.ini"
    text = ini.read_text()
    assert text.count("sim-time-limit = 10s\n") == 1
    ini.write_text(text.replace("sim-time-limit = 10s\n", "include limits.ini  # the time\n"))
    (folder / "limits.ini").write_text("include common/more.ini\nsim-time-limit = 10s\n")
    (folder / "common").mkdir()
    (folder / "common" / "more.ini").write_text("include ../limits.ini\ninclude gone.ini\n")
    return ini


def test_an_omnetpp_study_s_identity_covers_included_ini_files_and_ned_files(tmp_path):
    ini = dumbbell_with_includes(tmp_path / "a")

    def identity() -> str:
        return OmnetppStudy(ini, "Bulk").sha256

    study = OmnetppStudy(ini, "Bulk")
    assert [p.relative_to(tmp_path / "a") for p in study.included()] == [
        Path("limits.ini"), Path("common/more.ini"), Path("common/gone.ini"),
    ]  # fmt: skip
    first = identity()
    # the names are relative to the ini's folder: the same study elsewhere is the same
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    assert OmnetppStudy(tmp_path / "b" / "omnetpp.ini", "Bulk").sha256 == first
    changes = [
        (tmp_path / "a" / "limits.ini", "sim-time-limit = 10s", "sim-time-limit = 5s"),
        (tmp_path / "a" / "common" / "more.ini", "include gone.ini", "include gone.ini\n#"),
        (tmp_path / "a" / "Dumbbell.ned", "//", "// edited:"),
    ]
    seen = {first}
    for path, old, new in changes:
        path.write_text(path.read_text().replace(old, new, 1))
        seen.add(identity())
    (tmp_path / "a" / "common" / "gone.ini").write_text("# here now\n")
    seen.add(identity())
    assert len(seen) == 5  # each change another identity


DUMBBELL_DESIGN = """\
study: dumbbell
program: omnetpp
ini: model/omnetpp.ini
config: Bulk
factors: {flows: [1, 2]}
replications: 1
"""


@pytest.mark.omnetpp
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_status_names_the_runs_of_an_omnetpp_study_before_its_ini_or_ned_was_edited(tmp_path):
    dumbbell_with_includes(tmp_path / "model")
    # what OMNeT++ runs: no cycle, no file missing (each refused)
    (tmp_path / "model" / "common" / "more.ini").write_text("# nothing more\n")
    (tmp_path / "dumbbell.yaml").write_text(DUMBBELL_DESIGN)
    env = {**os.environ, "COLUMNS": "300"}

    def satsweep_here(*argv: str) -> tuple[int, str]:
        command = [str(Path(sys.prefix) / "bin" / "satsweep"), *argv]
        proc = subprocess.run(
            command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900
        )
        return proc.returncode, " ".join((proc.stdout + proc.stderr).split())

    code, said = satsweep_here("run", "dumbbell.yaml", "--cores", "2")
    assert code == 0, said
    store = tmp_path / "results" / "dumbbell"
    table = pq.read_table(store / "runs.parquet")
    omnetpp, inet = installation()
    engine = f"OMNeT++ {omnetpp_version(omnetpp)}, INET {inet_version(inet)}"
    assert set(table.column("engine").to_pylist()) == {engine}
    assert omnetpp_version(omnetpp) == "6.1" and inet_version(inet) == "4.5.4"
    [made] = set(table.column("program_sha256").to_pylist())
    runs = f"2 runs in {store} were made by another build of the same version (sha256 {made})"
    for path, old, new in [
        (tmp_path / "model" / "limits.ini", "sim-time-limit = 10s", "sim-time-limit = 5s"),
        (tmp_path / "model" / "Dumbbell.ned", "//", "// edited:"),
    ]:
        text = path.read_text()
        path.write_text(text.replace(old, new, 1))
        code, said = satsweep_here("status", "dumbbell.yaml")
        assert code == 0 and "note: program: dumbbell 1.0 " in said and runs in said, said
        path.write_text(text)
    code, said = satsweep_here("status", "dumbbell.yaml")
    assert code == 0 and "made by" not in said, said  # as they were: the runs' own identity
