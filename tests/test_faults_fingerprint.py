"""Issue 52, item 4 (OMNeT++): a `verify` that finds a difference names whether the event
fingerprint diverged, and when. An ini that sets `fingerprint` makes each run record OMNeT++'s
fingerprint first in its summary (and `events`, `sim_time`); a declared `fingerprint_at` adds
the fingerprints of the events before each of those times (docs/omnetpp.md, "Fingerprints").
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from satsweep.engine.omnetpp import OmnetppError, OmnetppStudy, fingerprint_options
from satsweep.store import Store
from tests.support import REPO

SATSWEEP = Path(sys.prefix) / "bin" / "satsweep"

DECLARATION = """\
name: net
version: "1"
parameters:
  - {name: rate, type: float, default: 1.0}
summary:
  - {name: %s, type: float, scalar: "x"}
"""


def study(tmp_path: Path, ini: str, summary: str = "delay", extra: str = "") -> OmnetppStudy:
    """A study of config ``Run`` of the ini text ``ini``, its declaration's one summary field
    named ``summary``, ``extra`` appended to the declaration."""
    (tmp_path / "omnetpp.ini").write_text(ini)
    (tmp_path / "satsweep.yaml").write_text(DECLARATION % summary + extra)
    return OmnetppStudy(tmp_path / "omnetpp.ini", "Run")


def test_a_fingerprint_in_the_ini_puts_the_fingerprint_first_in_the_summary(tmp_path) -> None:
    plain = study(tmp_path, "[General]\nnetwork = Net\n[Config Run]\n")
    assert [c.name for c in plain.description().summary] == ["delay"]
    assert fingerprint_options(plain) == []
    # in any section, even another configuration's (documented: the run then fails saying so)
    found = study(tmp_path, "[General]\nnetwork = Net\n[Config Other]\nfingerprint = 0000\n"
                  "[Config Run]\n")  # fmt: skip
    summary = found.description().summary
    assert [c.name for c in summary] == ["fingerprint", "events", "sim_time", "delay"]
    assert summary[0].type == "string" and "ingredients" in summary[0].help
    assert fingerprint_options(found) == []  # the ini's own fingerprint, as it says it
    # an indented line continues the one before: not a fingerprint entry
    assert not study(tmp_path, "[General]\nnetwork = Net\n  fingerprint = 1\n[Config Run]\n"
                     ).fingerprinted  # fmt: skip


def test_a_declared_field_named_as_a_fingerprint_field_is_refused_in_one_line(tmp_path) -> None:
    for name in ("fingerprint", "events", "sim_time"):
        with pytest.raises(OmnetppError) as e:
            study(tmp_path, "[General]\nfingerprint = 0000\n[Config Run]\n", name)
        assert f"summary field '{name}'" in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(OmnetppError, match="'fingerprint_before_10'"):
        study(tmp_path, "[Config Run]\n", "fingerprint_before_10", "fingerprint_at: [10]\n")
    # without a fingerprint, the names are the study's own
    assert study(tmp_path, "[Config Run]\n", "events").description().summary[0].name == "events"


def test_fingerprint_at_adds_a_fingerprint_per_time_with_the_ini_s_ingredients(tmp_path) -> None:
    ini = ("[General]\nfingerprint-ingredients = tplx\nfingerprint-modules = \"**.host*\"\n"
           "[Config Base]\nfingerprint = 1234-abcd/tpv  # expected on Linux\n"
           "fingerprint-events = \"ack*\"\n[Config Run]\nextends = Base\n")  # fmt: skip
    found = study(tmp_path, ini, extra="fingerprint_at: [10, 25]\n")
    names = [c.name for c in found.description().summary]
    assert names == ["fingerprint", "fingerprint_before_10", "fingerprint_before_25", "events",
                     "sim_time", "delay"]  # fmt: skip
    assert fingerprint_options(found) == [
        "--fingerprint=0000/tpv,0000/tpv,0000/tpv",  # the fingerprint's suffix wins
        "--fingerprint-events=ack*,(ack*) and arrivalTime =~ {..9}**,"
        "(ack*) and arrivalTime =~ {..24}**",
        "--fingerprint-modules=**.host*,**.host*,**.host*",
        "--fingerprint-results=*,*,*",
    ]
    # no fingerprint in the ini: the default ingredients, every event
    alone = study(tmp_path, "[Config Run]\n", extra="fingerprint_at: [1]\n")
    assert fingerprint_options(alone)[:2] == [
        "--fingerprint=0000/tplx,0000/tplx",
        "--fingerprint-events=*,arrivalTime =~ {..0}**",
    ]


@pytest.mark.parametrize(
    ("ini", "extra", "said"),
    [
        ("[Config Run]\n", "fingerprint_at: [0]\n", "positive and increasing"),
        ("[Config Run]\n", "fingerprint_at: [20, 10]\n", "positive and increasing"),
        ("[Config Run]\n", "fingerprint_at: [1.5]\n", "fingerprint_at"),
        ("[Config Run]\nfingerprint = 1/t,2/t\n", "fingerprint_at: [5]\n", "several values"),
        ("include other.ini\n[Config Run]\n", "fingerprint_at: [5]\n", "includes other ini"),
        (
            "[Config A]\n[Config B]\n[Config Run]\nextends = A, B\n",
            "fingerprint_at: [5]\n",
            "several bases",
        ),
    ],
)
def test_a_fingerprint_at_omnetpp_cannot_compute_is_refused_in_one_line(
    tmp_path, ini, extra, said
) -> None:
    with pytest.raises(OmnetppError) as e:
        study(tmp_path, ini, extra=extra)
    assert said in str(e.value) and "\n" not in str(e.value)


def cli(cwd: Path, *args: object) -> subprocess.CompletedProcess:
    """The installed `satsweep` command, run in ``cwd``."""
    return subprocess.run([str(SATSWEEP), *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=900)  # fmt: skip


#: docs/omnetpp.md's walkthrough "Bring your own OMNeT++ study": its declaration's summary.
BYO = (REPO / "docs" / "omnetpp.md").read_text().split("## Bring your own OMNeT++ study")[1]
SUMMARY = re.findall(r"```yaml\n(.*?)```", BYO, flags=re.DOTALL)[0]


@pytest.mark.omnetpp
@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_verify_names_the_fingerprint_and_when_it_diverged(tmp_path: Path) -> None:
    """OMNeT++'s sample fifo with `fingerprint = 0000` added to its ini: each run's row has
    its fingerprint, a rerun has the same, and after a change of the model that acts from
    t = 100 s on, verify says "first in fingerprint", and only the fingerprint of the events
    before 150 s of those before 50, 100 and 150 s differs."""
    from satsweep.engine.omnetpp import installation

    omnetpp, _ = installation()
    shutil.copytree(omnetpp / "samples" / "fifo", tmp_path / "fifo")
    env = {**os.environ, "PATH": f"{omnetpp / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    for command in (["opp_makemake", "-f", "--make-so", "-o", "fifo"], ["make", "MODE=release"]):
        built = subprocess.run(command, cwd=tmp_path / "fifo", env=env, capture_output=True,
                               text=True, timeout=600)  # fmt: skip
        assert built.returncode == 0, built.stdout + built.stderr
    proc = cli(tmp_path, "import", "fifo/omnetpp.ini", "--config", "TandemQueueExperiment",
               "--study", "tandem", "-l", "fifo/fifo", "--trial-time", "200s", "--out", ".")  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ini = tmp_path / "fifo" / "omnetpp.ini"
    ini.write_text(ini.read_text().replace("[General]\n", "[General]\nfingerprint = 0000\n", 1))
    declaration = tmp_path / "fifo" / "satsweep.yaml"
    text = declaration.read_text()
    declaration.write_text(text[: text.index("summary:")] + SUMMARY
                           + "fingerprint_at: [50, 100, 150]\n")  # fmt: skip
    design = yaml.safe_load((tmp_path / "tandem.yaml").read_text())
    design["replications"] = 1  # two runs, one per serviceTimeMean
    (tmp_path / "tandem.yaml").write_text(yaml.safe_dump(design, sort_keys=False))

    proc = cli(tmp_path, "run", "tandem.yaml")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    table = pq.read_table(Store(tmp_path / "results" / "tandem").runs_table)
    rows = table.to_pylist()
    assert len(rows) == 2
    assert table.column_names.index("fingerprint") < table.column_names.index("lifetime")
    for row in rows:
        for name in ("fingerprint", *(f"fingerprint_before_{t}" for t in (50, 100, 150))):
            assert re.fullmatch(r"[0-9a-f]{4}-[0-9a-f]{4}/tplx", row[name]), (name, row)
        assert row["sim_time"] == 200.0 and row["events"] > 100
    assert rows[0]["fingerprint"] != rows[1]["fingerprint"]  # two service times

    proc = cli(tmp_path, "verify", "tandem")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 of 2 runs reproduce exactly" in proc.stdout

    # the model changes outside the declared parameters, from t = 100 s on
    before = "**.interarrivalTime = exponential(2s)\n**.serviceTime = truncnormal"
    assert before in ini.read_text()
    ini.write_text(ini.read_text().replace(before, "**.interarrivalTime = simTime() < 100s ? "
                   "exponential(2s) : exponential(3s)\n**.serviceTime = truncnormal"))  # fmt: skip
    proc = cli(tmp_path, "verify", "tandem")
    said = proc.stdout + proc.stderr
    assert proc.returncode == 1, said
    assert said.count("DIFFERS, first in fingerprint") == 2, said
    assert said.count("differs first in fingerprint") == 2, said
    assert said.count("fingerprint_before_150: stored") == 2, said
    assert "fingerprint_before_50:" not in said and "fingerprint_before_100:" not in said, said
