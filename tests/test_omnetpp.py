"""OMNeT++ studies under the engine contract (docs/omnetpp.md): the adapter on the example
dumbbell study (docs/examples/omnetpp-dumbbell/), with real OMNeT++/INET runs from the build of
`./setup.sh` (.ci/run builds it)."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from satsweep.design import DesignError, load_design
from satsweep.engine import USAGE_ERROR, Program
from satsweep.engine.omnetpp import OmnetppAdapter, installation
from tests.support import REPO

EXAMPLE = REPO / "docs" / "examples" / "omnetpp-dumbbell"
INI = EXAMPLE / "omnetpp.ini"
SATSWEEP = Path(sys.prefix) / "bin" / "satsweep"

pytestmark = pytest.mark.omnetpp


@pytest.fixture(scope="module")
def dumbbell() -> Program:
    return OmnetppAdapter.study(INI, "Bulk")


def adapter(program: Program, *flags: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(program.path), *program.args, *flags], capture_output=True, text=True, cwd=cwd
    )


def test_describe_gives_the_declared_parameters_and_summary(dumbbell):
    d = dumbbell.description
    assert d.name == "dumbbell"
    assert [p.name for p in d.parameters] == [
        "tcpAlgorithm",
        "sack",
        "flows",
        "bottleneckMbps",
        "queuePackets",
    ]
    assert d.parameter("tcpAlgorithm").choices == ["TcpTahoe", "TcpReno", "TcpNewReno"]
    assert [f.name for f in d.summary] == ["bytes_received", "packets_dropped"]
    said = json.loads(adapter(dumbbell, "--describe").stdout)
    assert "set" not in said["parameters"][0] and "scalar" not in said["summary"][0]


@pytest.mark.parametrize(
    ("flags", "allowed"),
    [
        ("--run=1 --bogus=3", "allowed: --tcpAlgorithm=VALUE"),
        ("--run=1 --tcpAlgorithm=TcpVegas", "allowed: TcpTahoe, TcpReno, TcpNewReno"),
        ("--run=1 --flows=0", "allowed: an integer >= 1"),
        ("--run=1 --flows=two", "allowed: an integer"),
    ],
)
def test_bad_input_exits_2_naming_the_flag_and_writes_nothing(dumbbell, tmp_path, flags, allowed):
    out = tmp_path / "r.json"
    proc = adapter(dumbbell, *flags.split(), f"--out={out}")
    assert proc.returncode == USAGE_ERROR
    line = proc.stderr.strip()
    assert "\n" not in line and flags.split()[-1].split("=")[0] in line and allowed in line, line
    assert list(tmp_path.iterdir()) == []


def test_a_run_is_the_seed_set_and_leaves_no_files_behind(dumbbell, tmp_path):
    before = sorted(EXAMPLE.rglob("*"))
    results = []
    for run, name in ((1, "a"), (1, "b"), (2, "c")):
        out = tmp_path / f"{name}.json"
        result = dumbbell.run({"tcpAlgorithm": "TcpNewReno", "flows": 3}, run, out)
        assert json.loads(out.read_text()) == result
        results.append(result)
    first, again, other = results
    assert first == again  # the same --run repeats the run
    assert first["summary"] != other["summary"]  # another seed set, another run
    assert first["params"] == {
        "tcpAlgorithm": "TcpNewReno",
        "sack": False,
        "flows": 3,
        "bottleneckMbps": 10,
        "queuePackets": 100,
    }
    received = first["summary"]["bytes_received"]
    # three bulk transfers keep a 10 Mbit/s link busy for most of the 10 s run, and no more
    assert 0.5 * 10e6 / 8 * 10 < received <= 10e6 / 8 * 10
    assert sorted(EXAMPLE.rglob("*")) == before  # no results where the NED loader scans
    assert not any(Path(d).name.startswith("satsweep-omnetpp-") for d in tmp_path.iterdir())


def test_two_runs_at_once_write_their_own_files_in_folders_of_their_own(tmp_path):
    """A model's relative output path (a NED parameter, here INET's pcapFile
    "results/receiver.pcap", as in INET's tcpclientserver example) lands in each run's working
    folder, not the study's: two runs at once never write the same file, and the study's
    folder stays as it was; its NED folder, '.', still loads."""
    study = tmp_path / "study"
    shutil.copytree(EXAMPLE, study)
    ini = study / "omnetpp.ini"
    ini.write_text(
        ini.read_text().replace(
            "[Config Bulk]\n",
            '[Config Bulk]\n**.crcMode = "computed"\n*.receiver[0].numPcapRecorders = 1\n'
            '*.receiver[0].pcapRecorder[0].pcapFile = "results/receiver.pcap"\n',
        )
    )
    before = sorted(study.rglob("*"))
    program = OmnetppAdapter.study(ini, "Bulk")
    runs = [
        subprocess.Popen(
            [str(program.path), *program.args, f"--run={k}", f"--out={tmp_path / f'{k}.json'}"],
            stderr=subprocess.PIPE,
            text=True,
        )
        for k in (1, 2)
    ]
    for proc in runs:
        assert proc.wait(timeout=300) == 0, proc.stderr.read()
    summaries = [json.loads((tmp_path / f"{k}.json").read_text())["summary"] for k in (1, 2)]
    assert summaries[0] != summaries[1]
    assert sorted(study.rglob("*")) == before  # no results/receiver.pcap in the study's


def test_a_failed_run_reports_what_omnetpp_said(tmp_path):
    study = tmp_path / "study"
    shutil.copytree(EXAMPLE, study)
    ini = study / "omnetpp.ini"
    ini.write_text(ini.read_text().replace('"TcpSessionApp"', '"NoSuchApp"'))
    program = OmnetppAdapter.study(ini, "Bulk")
    proc = adapter(program, "--run=1", f"--out={tmp_path / 'r.json'}")
    assert proc.returncode not in (0, USAGE_ERROR)
    assert "NoSuchApp" in proc.stderr
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("folder", ["a;b", "a:b", "it's here"])
def test_a_study_runs_in_a_folder_whose_path_holds_the_ned_path_s_separators(tmp_path, folder):
    """OMNeT++ splits its NED path (-n) at ';' and ':': the declared NED folders go to opp_run
    relative to the study's folder, where it runs, so any folder above it may hold them."""
    study = tmp_path / folder / "study"
    shutil.copytree(EXAMPLE, study)
    program = OmnetppAdapter.study(study / "omnetpp.ini", "Bulk")
    proc = adapter(program, "--run=1", "--flows=1", f"--out={tmp_path / 'r.json'}")
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "r.json").read_text())["summary"]["bytes_received"] > 0


@pytest.mark.parametrize(
    ("inet_link", "study_folder"),
    [("a;b/inet", "a;b/study"), ("in:et", "study")],
    ids=["above-both", "inet-s-own-name"],
)
def test_inet_in_a_folder_whose_path_holds_the_ned_path_s_separators(
    tmp_path, monkeypatch, inet_link, study_folder
):
    """INET's folder (INET_ROOT, or a home folder with ';') goes to opp_run relative to the
    study's folder when the separator is above both, else by its real path."""
    omnetpp, inet = installation()
    link = tmp_path / inet_link
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(inet)
    monkeypatch.setenv("OMNETPP_ROOT", str(omnetpp))
    monkeypatch.setenv("INET_ROOT", str(link))
    study = tmp_path / study_folder
    shutil.copytree(EXAMPLE, study)
    program = OmnetppAdapter.study(study / "omnetpp.ini", "Bulk")
    proc = adapter(program, "--run=1", "--flows=1", f"--out={tmp_path / 'r.json'}")
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "r.json").read_text())["summary"]["bytes_received"] > 0


def write_design(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "dumbbell.yaml"
    path.write_text(f"study: dumbbell\nprogram: omnetpp\n{body}")
    return path


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (
            "config: Bulk\nfactors: {flows: [1, 2]}\nreplications: 2\n",
            "program: 'omnetpp' needs ini:",
        ),
        (
            f"ini: {INI}\nconfig: Burst\nfactors: {{flows: [1, 2]}}\nreplications: 2\n",
            "config: 'Burst' is not a configuration of omnetpp.ini; allowed: General, Bulk",
        ),
        (
            f"ini: {INI}\nconfig: Bulk\nfactors: {{tcpAlgorithm: [TcpVegas]}}\nreplications: 2\n",
            "factors.tcpAlgorithm",
        ),
    ],
)
def test_a_bad_omnetpp_design_is_refused_naming_the_field(tmp_path, body, said):
    with pytest.raises(DesignError) as refused:
        load_design(write_design(tmp_path, body))
    assert said in str(refused.value)


def test_ini_is_only_for_omnetpp(tmp_path):
    path = tmp_path / "d.yaml"
    path.write_text(
        f"study: s\nprogram: satnet\nini: {INI}\nfactors: {{clients: [1]}}\nreplications: 1\n"
    )
    with pytest.raises(DesignError, match="ini: for program: omnetpp only"):
        load_design(path)


def test_a_study_runs_into_parquet_and_is_analysed(tmp_path):
    """A tiny OMNeT++ study end to end: `satsweep run` into the store, SQL over its Parquet,
    `satsweep analyze`."""
    design = write_design(
        tmp_path,
        f"ini: {INI}\nconfig: Bulk\n"
        "factors: {tcpAlgorithm: [TcpReno, TcpNewReno], queuePackets: [10, 100]}\n"
        "fixed: {flows: 2}\nreplications: 2\n"
        "analysis: {responses: [bytes_received, packets_dropped]}\n",
    )
    env_cwd = tmp_path
    proc = subprocess.run(
        [str(SATSWEEP), "run", str(design), "--results", str(tmp_path / "results"), "--cores", "2"],
        capture_output=True,
        text=True,
        cwd=env_cwd,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    runs = tmp_path / "results" / "dumbbell" / "runs.parquet"
    rows = duckdb.sql(
        f"SELECT tcpAlgorithm, queuePackets, replication, bytes_received, packets_dropped, "
        f"program, program_sha256 FROM '{runs}' ORDER BY ALL"
    ).fetchall()
    assert len(rows) == 8
    assert {r[5] for r in rows} == {"dumbbell"}
    assert {r[6] for r in rows} == {OmnetppAdapter.study(INI, "Bulk").sha256}
    # a queue of 10 packets drops more than one of 100, for each algorithm
    for algorithm in ("TcpReno", "TcpNewReno"):
        small = [r[4] for r in rows if r[0] == algorithm and r[1] == 10]
        large = [r[4] for r in rows if r[0] == algorithm and r[1] == 100]
        assert min(small) > max(large), rows
    analyzed = subprocess.run(
        [str(SATSWEEP), "analyze", "dumbbell", "--results", str(tmp_path / "results")],
        capture_output=True,
        text=True,
        cwd=env_cwd,
    )
    assert analyzed.returncode == 0, analyzed.stderr
    assert "queuePackets" in analyzed.stdout and "packets_dropped" in analyzed.stdout


def test_runs_that_would_share_a_seed_set_are_refused(tmp_path):
    """OMNeT++ has fewer seed sets than run numbers: the design checks its runs' seed sets
    (here a program whose every run number meets on one)."""
    design = load_design(
        write_design(
            tmp_path, f"ini: {INI}\nconfig: Bulk\nfactors: {{flows: [1, 2]}}\nreplications: 2\n"
        )
    )
    assert design.stream_clash() is None
    design._executable = dataclasses.replace(design.executable, stream=lambda run: 7)
    clash = design.stream_clash()
    assert clash is not None and "would get the same random stream of dumbbell" in clash
    assert "allowed: another base_seed" in clash
