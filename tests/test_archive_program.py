"""Issue 52, part 1: a self-contained archive. `satsweep archive` holds the design file and the
program (a contract program's file, an ns-3 script and its declaration, an OMNeT++ study's ini,
declaration, NED files and library sources with the steps that build the library), so that
`satsweep verify ARCHIVE` reruns the study where the model's folder does not exist: each test
archives a study, deletes the model's folder and verifies the archive from another directory.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from satsweep.cli import main as cli_main
from satsweep.store import Store
from tests.support import REPO
from tests.support.sweeps import MM1, stored_study

SATSWEEP = Path(sys.prefix) / "bin" / "satsweep"


def cli(cwd: Path, *args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """The installed `satsweep` command, run in ``cwd``."""
    return subprocess.run(
        [str(SATSWEEP), *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, **(env or {})},
    )


def members(archive: Path) -> dict[str, bytes]:
    """An archive's regular files, their bytes by name."""
    with tarfile.open(archive) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isreg()}


def verified_elsewhere(archive: Path, elsewhere: Path, runs: int, **env: str) -> str:
    """`satsweep verify ARCHIVE` from ``elsewhere``: every run reproduces, exit 0; its stderr."""
    elsewhere.mkdir(exist_ok=True)
    proc = cli(elsewhere, "verify", archive, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith(f"{runs} of {runs} runs reproduce exactly"), proc.stdout
    return proc.stderr


MM1_DESIGN = """\
study: queue
program: ./model/mm1.py
factors:
  load: [0.3, 0.6]
fixed:
  customers: 20
replications: 1
"""


def test_a_contract_program_s_archive_reruns_without_its_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """In this process (the fast tier: no interpreter started for the commands)."""
    work = tmp_path / "work"
    (work / "model").mkdir(parents=True)
    shutil.copy(MM1, work / "model" / "mm1.py")  # executable, as the example is
    results = stored_study(work, MM1_DESIGN)
    archive = tmp_path / "queue.tar.gz"
    assert cli_main(["archive", "queue", "--results", str(results), "-o", str(archive)]) == 0
    assert "warning" not in capsys.readouterr().err
    held = members(archive)
    assert held["queue/source/model/mm1.py"] == MM1.read_bytes()
    assert held["queue/source/queue.yaml"] == MM1_DESIGN.encode()
    program = json.loads(held["queue/program.json"])
    assert program["kind"] == "file" and program["design"] == "queue.yaml"
    assert [f["path"] for f in program["files"]] == ["queue.yaml", "model/mm1.py"]
    assert program["versions"]["satsweep"] and program["left_out"] == []

    shutil.rmtree(work)  # the model, the design and the store: only the archive is left
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    code = cli_main(["verify", str(archive)])
    out = capsys.readouterr().out
    assert code == 0 and out.strip().endswith("2 of 2 runs reproduce exactly"), out


#: A small ns-3 program in the style of ns-3's examples: a parameter, a random variable, a
#: line of output.
NS3_SCRIPT = r"""
#include "ns3/core-module.h"
#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    double mean = 1.0;
    CommandLine cmd(__FILE__);
    cmd.AddValue("mean", "the mean of the delays", mean);
    cmd.Parse(argc, argv);
    Ptr<ExponentialRandomVariable> delay = CreateObject<ExponentialRandomVariable>();
    delay->SetAttribute("Mean", DoubleValue(mean));
    double sum = 0;
    for (int i = 0; i < 10; ++i)
    {
        sum += delay->GetValue();
    }
    std::cout.precision(17);
    std::cout << "sum " << sum << std::endl;
    return 0;
}
"""

NS3_DECLARATION = """\
name: delays
version: "1.0"
parameters:
  - name: mean
    type: float
summary:
  - name: sum
    type: float
    stdout: "sum ([0-9.e+-]+)"
"""

NS3_DESIGN = """\
study: delays
program: ns3
script: model/delays.cc
factors:
  mean: [1.0, 2.0]
replications: 1
"""


@pytest.mark.programs
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_an_ns3_script_s_archive_rebuilds_and_reruns_without_its_folder(tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "model").mkdir(parents=True)
    (work / "model" / "delays.cc").write_text(NS3_SCRIPT)
    (work / "model" / "satsweep.yaml").write_text(NS3_DECLARATION)
    (work / "delays.yaml").write_text(NS3_DESIGN)
    proc = cli(work, "run", "delays.yaml")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    archive = tmp_path / "delays.tar.gz"
    proc = cli(work, "archive", "delays", "-o", archive)
    assert proc.returncode == 0 and "warning" not in proc.stderr, proc.stderr
    held = members(archive)
    assert held["delays/source/model/delays.cc"] == NS3_SCRIPT.encode()
    assert held["delays/source/model/satsweep.yaml"] == NS3_DECLARATION.encode()
    program = json.loads(held["delays/program.json"])
    assert program["kind"] == "ns3" and program["builds"] == []  # the adapter builds it
    assert (
        re.fullmatch(r"3\.\d+.*", program["versions"]["ns-3"]) and program["versions"]["compiler"]
    )

    shutil.rmtree(work)
    # an empty build cache, as on another machine: the unpacked script is built again
    said = verified_elsewhere(archive, tmp_path / "elsewhere", 2,
                              XDG_CACHE_HOME=str(tmp_path / "cache"))  # fmt: skip
    assert "building delays.cc against ns-3" in said
    assert list((tmp_path / "cache" / "satsweep" / "ns3-programs").glob("*/delays"))


OMNETPP_DECLARATION = """\
name: tandem
version: "1"
ned: [., ../queues]
libraries: [src/model]
parameters:
  - {name: mean, type: float, unit: s, set: "**.serviceTime"}
summary:
  - {name: lifetime, type: float, scalar: "lifetime:mean"}
"""


def test_an_omnetpp_study_names_its_ini_files_ned_files_and_library_sources(tmp_path):
    """What an OMNeT++ study's archive holds, read from its files alone (no OMNeT++ needed):
    the ini and the one it includes, the declaration, the NED folders' files and the library
    folder's sources, not what a build or a run made; the library's build steps from its
    Makefile's header."""
    from satsweep.engine.omnetpp import OmnetppAdapter, OmnetppOptions

    study, queues = tmp_path / "study", tmp_path / "queues"
    for folder in (study / "src" / "out" / "gcc-release", study / "results", queues):
        folder.mkdir(parents=True)
    (tmp_path / "common.ini").write_text("[General]\nsim-time-limit = 10s\n")
    (study / "omnetpp.ini").write_text("include ../common.ini\n[Config Run]\nnetwork = Net\n")
    (study / "satsweep.yaml").write_text(OMNETPP_DECLARATION)
    (study / "Net.ned").write_text("network Net {}\n")
    (study / "results" / "General-0.sca").write_text("version 3\n")
    (queues / "Queue.ned").write_text("simple Queue {}\n")
    (study / "src" / "Queue.cc").write_text("// the model\n")
    (study / "src" / "Makefile").write_text(
        "#\n# OMNeT++/OMNEST Makefile for $(LIB_PREFIX)model\n#\n# This file was generated "
        "with the command:\n#  opp_makemake -f --deep --make-so -o model\n#\n"
    )
    (study / "src" / "out" / "gcc-release" / "Queue.o").write_bytes(b"\x7fELF")
    (study / "src" / "libmodel.so").write_bytes(b"\x7fELF")
    (study / "src" / "model").write_bytes(b"\x7fELF an executable")

    options = OmnetppOptions(ini="study/omnetpp.ini", config="Run")
    found = OmnetppAdapter().archived(options, tmp_path)
    assert found.main == study / "omnetpp.ini"
    assert [p.relative_to(tmp_path).as_posix() for p in found.files] == [
        "study/omnetpp.ini", "common.ini", "study/satsweep.yaml", "study/Net.ned",
        "study/src/Makefile", "study/src/Queue.cc", "queues/Queue.ned",
    ]  # fmt: skip
    src = study / "src"
    assert [(b.folder, b.command, b.makes) for b in found.builds] == [
        (src, ("opp_makemake", "-f", "--deep", "--make-so", "-o", "model"), src / "Makefile"),
        (src, ("make", "MODE=release"), src / "libmodel.so"),
    ]
    assert found.notes == ()


def test_a_study_beside_the_design_s_folder_is_archived_not_left_out(tmp_path):
    """A design in sweeps/ naming ../study/omnetpp.ini (as sweeps/goyal98-quick.yaml names
    ../omnetpp/goyal98/omnetpp.ini): source/ is rooted at the folder above both, so the ini,
    its declaration and its sources are held, none left out (the adapter gives the ini's path
    through "..": compared as written, the design's folder had looked like their root)."""
    from satsweep.design import Design
    from satsweep.store.archive import _sources

    study = tmp_path / "study"
    (study / "src").mkdir(parents=True)
    (tmp_path / "sweeps").mkdir()
    (study / "omnetpp.ini").write_text("[Config Run]\nnetwork = Net\n")
    (study / "satsweep.yaml").write_text(OMNETPP_DECLARATION)
    (study / "Net.ned").write_text("network Net {}\n")
    (tmp_path / "sweeps" / "s.yaml").write_text("study: s\n")
    design = Design.model_validate({
        "study": "s", "program": "omnetpp", "factors": {"x": [1, 2]}, "replications": 1,
        "ini": "../study/omnetpp.ini", "config": "Run",
    })  # fmt: skip
    warned: list[str] = []
    held = _sources({"source": str(tmp_path / "sweeps" / "s.yaml")}, design, warned.append)
    names = sorted(name for name, _ in held.files)
    assert names == ["source/study/Net.ned", "source/study/omnetpp.ini",
                     "source/study/satsweep.yaml", "source/sweeps/s.yaml"], warned  # fmt: skip
    assert held.record["design"] == "sweeps/s.yaml" and held.record["left_out"] == []


#: docs/omnetpp.md's walkthrough "Bring your own OMNeT++ study": its declaration's summary.
BYO = (REPO / "docs" / "omnetpp.md").read_text().split("## Bring your own OMNeT++ study")[1]
SUMMARY = re.findall(r"```yaml\n(.*?)```", BYO, flags=re.DOTALL)[0]


@pytest.mark.omnetpp
@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_an_omnetpp_study_s_archive_rebuilds_its_library_and_reruns(tmp_path: Path) -> None:
    """OMNeT++'s sample fifo, built as a library and imported as the walkthrough does; its
    archive holds the sources and the steps that build libfifo.so, which verify runs."""
    from satsweep.engine.omnetpp import installation

    omnetpp, _ = installation()
    work = tmp_path / "work"
    work.mkdir()
    shutil.copytree(omnetpp / "samples" / "fifo", work / "fifo")
    env = {"PATH": f"{omnetpp / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    for command in (["opp_makemake", "-f", "--make-so", "-o", "fifo"], ["make", "MODE=release"]):
        built = subprocess.run(command, cwd=work / "fifo", env={**os.environ, **env},
                               capture_output=True, text=True, timeout=600)  # fmt: skip
        assert built.returncode == 0, built.stdout + built.stderr
    proc = cli(work, "import", "fifo/omnetpp.ini", "--config", "TandemQueueExperiment",
               "--study", "tandem", "-l", "fifo/fifo", "--trial-time", "200s", "--out", ".")  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    declaration = work / "fifo" / "satsweep.yaml"
    text = declaration.read_text()
    declaration.write_text(text[: text.index("summary:")] + SUMMARY)
    design = yaml.safe_load((work / "tandem.yaml").read_text())
    design["replications"] = 1  # two runs, one per serviceTimeMean
    (work / "tandem.yaml").write_text(yaml.safe_dump(design, sort_keys=False))
    proc = cli(work, "run", "tandem.yaml")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert pq.read_table(Store(work / "results" / "tandem").runs_table).num_rows == 2

    archive = tmp_path / "tandem.tar.gz"
    proc = cli(work, "archive", "tandem", "-o", archive)
    assert proc.returncode == 0 and "warning" not in proc.stderr, proc.stderr
    held = members(archive)
    program = json.loads(held["tandem/program.json"])
    assert program["kind"] == "omnetpp" and program["design"] == "tandem.yaml"
    names = {f["path"] for f in program["files"]}
    assert {"tandem.yaml", "fifo/omnetpp.ini", "fifo/satsweep.yaml", "fifo/Fifo.ned",
            "fifo/Fifo.cc", "fifo/Fifo.h", "fifo/Makefile"} <= names  # fmt: skip
    assert not [n for n in names if n.endswith(".so") or n.startswith("fifo/out/")]
    assert program["builds"] == [
        {"folder": "fifo", "command": ["opp_makemake", "-f", "--make-so", "-o", "fifo"],
         "makes": "fifo/Makefile"},
        {"folder": "fifo", "command": ["make", "MODE=release"], "makes": "fifo/libfifo.so"},
    ]  # fmt: skip
    assert set(program["versions"]) >= {"satsweep", "OMNeT++", "INET", "compiler"}

    shutil.rmtree(work)
    said = verified_elsewhere(archive, tmp_path / "elsewhere", 2)
    assert "building source/fifo/libfifo.so: make MODE=release" in said
