"""INET's own examples, copied out of INET's tree as they are (no file of theirs edited), come
in through `satsweep import` and run (docs/omnetpp.md): their NED package gets its root in each
run's working folder, a file the model writes (tcpclientserver's pcapFile
"results/server.pcap") lands in that folder, two runs at once, never in the example's, and an
example this INET build cannot run ends the import with OMNeT++'s error."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import duckdb
import pytest

from satsweep.engine.omnetpp import OmnetppAdapter, installation
from tests.support.cli import run_cli

pytestmark = pytest.mark.omnetpp


def copied(tmp_path: Path, name: str) -> Path:
    """INET's examples/inet/NAME copied into ``tmp_path``."""
    _, inet = installation()
    folder = tmp_path / name
    shutil.copytree(inet / "examples" / "inet" / name, folder)
    return folder


def contents(folder: Path) -> dict[str, str]:
    """Each file below ``folder`` by its relative name, with its sha256."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_ber_comes_in_with_its_package_and_runs(tmp_path, capsys):
    """ber's NED file declares `package inet.examples.inet.ber;`: out of INET's tree, the trial
    run and a run of the imported declaration load it as they would in the tree."""
    ber = copied(tmp_path, "ber")
    theirs = contents(ber)
    config = "ber-flavour-experiment"
    assert run_cli(capsys, "import", ber / "omnetpp.ini", "--config", config)[0] == 0
    assert "what run 0 recorded in a 1s trial run" in (ber / "satsweep.yaml").read_text()
    program = OmnetppAdapter.study(ber / "omnetpp.ini", config)
    out = tmp_path / "r.json"
    proc = subprocess.run(
        [str(program.path), *program.args, "--flavour=TcpNewReno", "--ber=1e-06", "--run=3",
         f"--out={out}"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text())["summary"]["rcvdpkfromhl_count"] > 0
    now = contents(ber)
    assert {k: now[k] for k in theirs} == theirs  # theirs as they were
    assert sorted(set(now) - set(theirs)) == [f"{config}.yaml", "satsweep.yaml"]


def test_tcpclientserver_s_pcap_files_stay_in_each_run_s_folder(tmp_path, capsys):
    """Every run of tcpclientserver records results/server.pcap and results/client1.pcap,
    relative to where it runs: a sweep on two cores writes them in each run's own working
    folder, and none into the example's folder."""
    example = copied(tmp_path, "tcpclientserver")
    theirs = contents(example)
    assert run_cli(capsys, "import", example / "omnetpp.ini", "--config", "inet-reno")[0] == 0
    design = example / "inet-reno.yaml"
    results = tmp_path / "results"
    code, _, err = run_cli(capsys, "run", design, "--cores", "2", "--results", results)
    assert code == 0, err
    runs = duckdb.sql(f"SELECT count(*) FROM '{results / 'inet-reno' / 'runs.parquet'}'")
    assert runs.fetchone() == (7,)  # *.per = 0.01 * ${0, 0.1, 0.2, 0.5, 1, 2, 5}
    now = contents(example)
    assert {k: now[k] for k in theirs} == theirs
    assert sorted(set(now) - set(theirs)) == ["inet-reno.yaml", "satsweep.yaml"]
    assert not (example / "results").exists()


def test_an_example_this_build_cannot_run_ends_the_import_with_omnetpp_s_error(tmp_path, capsys):
    """tcp_eth_reconnect needs INET's visualizer, which satsweep's INET build leaves out: the
    import says OMNeT++'s error in one line, exit 2, and writes nothing."""
    example = copied(tmp_path, "tcp_eth_reconnect")
    theirs = contents(example)
    code, _, err = run_cli(
        capsys, "import", example / "omnetpp.ini", "--config", "with_EtherMACFullDuplex"
    )
    assert code == 2
    err = err.strip()
    assert "\n" not in err and "trial run of run 0 failed" in err and "Visualizer" in err, err
    assert contents(example) == theirs
