"""Files an OMNeT++ model writes, kept with each run (docs/omnetpp.md, "Files a model writes"):
a declaration's `keep:` globs, relative to the run's working folder, make table `kept` of the
store, a row per file with its bytes. The globs' checks and the reading of a working folder need
no OMNeT++; a sweep of INET's tcpclientserver, copied out of INET's tree as it is, keeps each
run's own two pcap files, two runs at a time."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import struct
import subprocess
from pathlib import Path

import duckdb
import pytest
import yaml
from pydantic import ValidationError

from satsweep.engine.omnetpp import (
    KEPT_TABLE,
    MAX_KEPT_BYTES,
    Declaration,
    OmnetppAdapter,
    OmnetppError,
    WorkingFolder,
    installation,
    kept_rows,
)
from tests.support.cli import run_cli

MINIMAL = {
    "name": "m",
    "version": "1",
    "parameters": [{"name": "x", "type": "int", "default": 1}],
    "summary": [{"name": "y", "type": "float", "scalar": "y"}],
}


def test_kept_files_are_a_table_of_the_contract():
    declared = Declaration.model_validate({**MINIMAL, "keep": ["results/*.pcap"]})
    columns = declared.description().tables[KEPT_TABLE]
    assert [(c.name, c.type, c.unit) for c in columns] == [
        ("path", "string", None),
        ("size", "int", "bytes"),
        ("sha256", "string", None),
        ("content", "string", None),
    ]
    assert KEPT_TABLE not in Declaration.model_validate(MINIMAL).description().tables
    assert OmnetppAdapter().default_traces(declared.description()) == []  # no figure of files


@pytest.mark.parametrize(
    ("keep", "said"),
    [
        (["/tmp/x.pcap"], "keep: '/tmp/x.pcap': allowed: a glob relative to the run's working"),
        (["../x.pcap"], "keep: '../x.pcap': allowed: a glob relative"),
        ([""], "keep: '': allowed"),
    ],
)
def test_a_glob_outside_the_working_folder_is_refused(keep, said):
    with pytest.raises(ValidationError, match=said):
        Declaration.model_validate({**MINIMAL, "keep": keep})


def test_a_declared_table_named_kept_is_refused_beside_keep():
    tables = {KEPT_TABLE: {"vector": "v:vector"}}
    with pytest.raises(ValidationError, match="table 'kept' holds the files of keep:"):
        Declaration.model_validate({**MINIMAL, "keep": ["*.log"], "tables": tables})


def working_folder(tmp_path: Path) -> Path:
    """A run's working folder of a model whose folder holds a pcap of its own (linked)."""
    model = tmp_path / "model"
    (model / "data").mkdir(parents=True)
    (model / "omnetpp.ini").write_text("[General]\n")
    (model / "data" / "input.pcap").write_bytes(b"the model's own")
    (model / "old.pcap").write_bytes(b"the model's own")
    work = tmp_path / "work"
    WorkingFolder(model, work, [Path(".")], model / "omnetpp.ini")
    return work


def test_the_files_the_run_wrote_are_kept_not_the_model_s(tmp_path):
    work = working_folder(tmp_path)
    (work / "results" / "b.pcap").write_bytes(bytes(range(256)))
    (work / "results" / "a.pcap").write_bytes(b"")
    (work / "run.log").write_text("said\n")
    rows = kept_rows(work, ["results/*.pcap", "**/*.pcap", "*.log"])  # links skipped
    assert [(r["path"], r["size"]) for r in rows] == [
        ("results/a.pcap", 0),
        ("results/b.pcap", 256),
        ("run.log", 5),
    ]
    assert base64.b64decode(rows[1]["content"]) == bytes(range(256))
    assert rows[1]["sha256"] == hashlib.sha256(bytes(range(256))).hexdigest()


def test_a_glob_that_matches_nothing_the_run_wrote_fails_the_run_in_one_line(tmp_path):
    work = working_folder(tmp_path)
    with pytest.raises(OmnetppError, match=r"keep: '\*.pcap' matched no file the run wrote"):
        kept_rows(work, ["*.pcap"])  # old.pcap is the model's, linked


def test_more_than_the_bound_fails_the_run_in_one_line(tmp_path):
    work = working_folder(tmp_path)
    with (work / "results" / "big.pcap").open("wb") as big:
        big.truncate(MAX_KEPT_BYTES + 1)  # sparse: no 16 MiB written
    with pytest.raises(OmnetppError, match=r"have 16777217 bytes; allowed: at most 16777216"):
        kept_rows(work, ["results/*"])


# ---- a sweep of INET's tcpclientserver ------------------------------------------------------


def pcap_packets(data: bytes) -> int:
    """The packets of a whole pcapng file (INET's PcapRecorder writes pcapng): a section header
    first, then blocks, each with its length before and after it, to the last byte; the count
    of its enhanced packet blocks. AssertionError for a file cut or interleaved with another."""
    kind, _, order = struct.unpack("<III", data[:12])
    assert kind == 0x0A0D0D0A and order == 0x1A2B3C4D, (hex(kind), hex(order))
    at, count = 0, 0
    while at < len(data):
        kind, length = struct.unpack("<II", data[at : at + 8])
        assert length >= 12 and length % 4 == 0 and at + length <= len(data), (at, length)
        assert struct.unpack("<I", data[at + length - 4 : at + length])[0] == length
        at, count = at + length, count + (kind == 6)  # 6: an enhanced packet block
    assert at == len(data)
    return count


@pytest.mark.omnetpp
def test_two_runs_at_a_time_each_keep_their_own_intact_pcap(tmp_path, capsys):
    """tcpclientserver's runs write results/server.pcap and results/client1.pcap: declared in
    keep:, every run of a sweep on two cores keeps both, whole, and a run made again alone
    writes the same bytes as the store kept for it."""
    _, inet = installation()
    example = tmp_path / "tcpclientserver"
    shutil.copytree(inet / "examples" / "inet" / "tcpclientserver", example)
    config = "inet-reno"
    assert run_cli(capsys, "import", example / "omnetpp.ini", "--config", config)[0] == 0
    declaration = example / "satsweep.yaml"
    text = declaration.read_text()
    declaration.write_text(text + 'keep: ["results/*.pcap"]\n')
    results = tmp_path / "results"
    code, _, err = run_cli(capsys, "run", example / f"{config}.yaml", "--cores", "2",
                           "--results", results)  # fmt: skip
    assert code == 0, err
    kept = duckdb.sql(
        f"SELECT r.run, k.path, k.size, k.sha256, k.content "
        f"FROM '{results / config / 'kept.parquet'}' k "
        f"JOIN '{results / config / 'runs.parquet'}' r USING (config_id, replication) "
        "ORDER BY r.run, k.path"
    ).fetchall()
    assert [p for _, p, *_ in kept] == ["results/client1.pcap", "results/server.pcap"] * 7
    packets = set()
    for _, _, size, sha256, content in kept:
        data = base64.b64decode(content)
        assert len(data) == size and hashlib.sha256(data).hexdigest() == sha256
        packets.add(pcap_packets(data))
    assert len(packets) > 1  # the runs' packet error rates differ: so do their captures
    assert not (example / "results").exists()
    # the first run again, alone: the same bytes
    run, values = duckdb.sql(
        f"SELECT run, * EXCLUDE (run) FROM '{results / config / 'runs.parquet'}' ORDER BY run"
    ).fetchone()[:2]
    program = OmnetppAdapter.study(example / "omnetpp.ini", config)
    params = yaml.safe_load((example / f"{config}.yaml").read_text())["factors"]
    (factor,) = params
    level = duckdb.sql(
        f"SELECT {factor} FROM '{results / config / 'runs.parquet'}' WHERE run = {run}"
    ).fetchone()[0]
    out = tmp_path / "again.json"
    proc = subprocess.run(
        [str(program.path), *program.args, f"--{factor}={level}", f"--run={run}", f"--out={out}"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    again = {r["path"]: r["sha256"] for r in json.loads(out.read_text())[KEPT_TABLE]}
    assert again == {p: h for r, p, _, h, _ in kept if r == run}
