"""INET's own examples, copied out of INET's tree as they are (no file of theirs edited), come
in through `satsweep import` and run (docs/omnetpp.md): their NED package gets its root in each
run's working folder, a file the model writes (tcpclientserver's pcapFile
"results/server.pcap") lands in that folder, two runs at once, never in the example's, and an
example this INET build cannot run ends the import with OMNeT++'s error."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import duckdb
import pytest

from satsweep.engine.omnetpp import (
    OmnetppAdapter,
    OmnetppStudy,
    ini_run,
    installation,
    read_scalars,
    summarize,
)
from satsweep.engine.omnetpp_import import import_config
from satsweep.report import figures
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
    assert json.loads(out.read_text())["summary"]["server_app0_packetreceived_sum_packetbytes"] > 0
    fields = OmnetppStudy(ber / "omnetpp.ini", config).declaration.summary
    assert {f.name: f.unit for f in fields}["server_app0_packetreceived_sum_packetbytes"] == "B"
    assert all(".app[" in f.module for f in fields)  # the applications': no interface's count
    now = contents(ber)
    assert {k: now[k] for k in theirs} == theirs  # theirs as they were
    assert sorted(set(now) - set(theirs)) == [f"{config}.yaml", "satsweep.yaml"]


def test_tcpclientserver_s_sweep_stays_in_its_runs_folders_and_reports_with_units(
    tmp_path, capsys, monkeypatch
):
    """Every run of tcpclientserver records results/server.pcap and results/client1.pcap,
    relative to where it runs: a sweep on two cores writes them in each run's own working
    folder, and none into the example's folder. The import's declaration and design, unedited,
    give a report whose figures' axes carry the units the runs' result files declare: each
    summary field's, and the traces' of the declared vectors."""
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

    drawn: dict[str, list[str]] = {}  # each figure's y labels, as the report saves it
    save = figures._save

    def saved(fig, path):
        drawn[path.name] = [ax.get_ylabel() for ax in fig.axes if ax.get_ylabel()]
        return save(fig, path)

    monkeypatch.setattr(figures, "_save", saved)
    code, _, err = run_cli(capsys, "report", "inet-reno", "--results", results)
    assert code == 0, err
    declared = OmnetppStudy(example / "omnetpp.ini", "inet-reno").declaration
    units = {f.name: f.unit for f in declared.summary}
    assert {"B", "s"} <= set(units.values()), units  # from the .sca's attr unit lines
    for name, unit in units.items():
        figured = [labels for figure, labels in drawn.items() if figure.startswith(f"{name}-")]
        assert figured, (name, sorted(drawn))
        for labels in figured:
            assert all(label.endswith(f"{name} ({unit})" if unit else name) for label in labels)
    traced = {t: v.unit for t, v in declared.tables.items()}
    assert traced and all(traced.values())
    for i, (table, unit) in enumerate(traced.items(), start=1):
        assert drawn[f"trace-{i}-{table}.png"][0] == f"{table} ({unit})"


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


def test_the_printed_command_runs_from_any_folder_as_the_ini_s_own_run(tmp_path, capsys):
    """`--print-command` of a run of tcpclientserver (its NED package rooted, as the run's):
    run by a shell in another folder, it records the scalars the run recorded, in a folder of
    its own, and its -r is the ini's own run of that per (run 2: per = 0.01 * 0.2)."""
    example = copied(tmp_path, "tcpclientserver")
    config = "inet-reno"
    assert run_cli(capsys, "import", example / "omnetpp.ini", "--config", config)[0] == 0
    program = OmnetppAdapter.study(example / "omnetpp.ini", config)
    flags = [str(program.path), *program.args, "--per=0.2", f"--run={(4242 << 15) | 1}"]
    out = tmp_path / "r.json"
    proc = subprocess.run([*flags, f"--out={out}"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    printed = subprocess.run([*flags, "--print-command"], capture_output=True, text=True,
                             timeout=120, check=True).stdout  # fmt: skip
    words = shlex.split(printed)
    assert words[words.index("-r") + 1] == "2" and not printed.startswith("#"), printed
    elsewhere, temporary = tmp_path / "elsewhere", tmp_path / "tmp"
    elsewhere.mkdir()
    temporary.mkdir()
    proc = subprocess.run(
        ["sh", "-c", printed], cwd=elsewhere, env={**os.environ, "TMPDIR": str(temporary)},
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    (sca,) = temporary.glob("*/results/run.sca")
    omnetpp, _ = installation()
    declaration = OmnetppStudy(example / "omnetpp.ini", config).declaration
    scalars = read_scalars(sca, omnetpp / "bin" / "opp_scavetool")
    assert summarize(declaration, scalars) == json.loads(out.read_text())["summary"]
    assert sorted(p.name for p in sca.parent.glob("*.pcap")) == ["client1.pcap", "server.pcap"]
    assert not (example / "results").exists() and not list(elsewhere.iterdir())


def test_the_ini_s_run_number_is_its_configuration_s_values_and_repetition(tmp_path):
    """ber's ber-flavour-experiment runs flavour x ber x repeat = 3: as `opp_run -q rundetails`
    lists them, TcpNewReno at ber 1e-6 in its third repetition is run 53; values of no run of
    the ini have none (the printed command says so, and gives -r 0)."""
    ber = copied(tmp_path, "ber")
    config = "ber-flavour-experiment"
    import_config(ber / "omnetpp.ini", config, trial_time=None)
    study = OmnetppStudy(ber / "omnetpp.ini", config)
    omnetpp, _ = installation()
    assert ini_run(study, {"flavour": "TcpNewReno", "ber": 1e-06}, 3, omnetpp) == 53
    assert ini_run(study, {"flavour": "TcpReno", "ber": 0}, 1, omnetpp) == 0
    assert ini_run(study, {"flavour": "TcpNewReno", "ber": 3e-06}, 1, omnetpp) is None
    assert ini_run(study, {"flavour": "TcpNewReno", "ber": 1e-06}, 4, omnetpp) is None
    program = OmnetppAdapter.study(ber / "omnetpp.ini", config)
    printed = subprocess.run(
        [str(program.path), *program.args, "--ber=3e-06", f"--run={(7 << 15) | 1}",
         "--print-command"], capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    comment, command = printed.splitlines()
    assert comment.startswith("# no run of [Config ber-flavour-experiment] in omnetpp.ini")
    assert " -r 0 " in command
