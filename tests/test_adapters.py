"""Issue 30, item 1 (docs/engine-contract.md, "Engines as plug-ins"): an engine registered from
outside satsweep through the entry-point group ``satsweep.adapters``, as another distribution
registers one, runs a design with options of its own that the adapter validates; omnetpp is
registered the same way.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from satsweep.engine.adapters import GROUP, adapters
from satsweep.engine.omnetpp import OmnetppAdapter
from tests.support import REPO

SATSWEEP = Path(sys.prefix) / "bin" / "satsweep"

#: An outside package's adapter: the queue of docs/examples/mm1.py, run by a Python of the
#: design's choosing; its one option names the script.
ADAPTER = """
import sys
from pathlib import Path
from pydantic import BaseModel, ConfigDict, Field
from satsweep.engine import Program, ProgramError, file_sha256
from satsweep.engine.adapters import Adapter

class QueueOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    script: str = Field(description="the queue's script, relative to the sweep file")

class QueueAdapter(Adapter):
    name = "queue"
    options = QueueOptions

    def program(self, options, base):
        script = (base / options.script).absolute()
        if not script.is_file():
            raise ProgramError(f"no such script: {script}", "script")
        return Program.adapted(Path(sys.executable), file_sha256(script), (str(script),))
"""


@pytest.fixture
def outside(tmp_path: Path) -> dict[str, str]:
    """A folder outside the checkout holding the package ``queue_engine`` and its metadata
    (a dist-info with the entry point), as pip would install it; the environment that finds
    it."""
    site = tmp_path / "site"
    (site / "queue_engine").mkdir(parents=True)
    (site / "queue_engine" / "__init__.py").write_text(ADAPTER)
    info = site / "queue_engine-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: queue-engine\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{GROUP}]\nqueue = queue_engine:QueueAdapter\n")
    shutil.copy(REPO / "docs" / "examples" / "mm1.py", tmp_path / "mm1.py")
    return {**os.environ, "PYTHONPATH": str(site)}


def design(folder: Path, body: str) -> Path:
    path = folder / "q.yaml"
    path.write_text(
        f"study: q\n{body}factors: {{load: [0.3, 0.6]}}\nfixed: {{customers: 200}}\n"
        "replications: 2\n"
    )
    return path


def satsweep(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(SATSWEEP), *args], capture_output=True, text=True, env=env, timeout=600
    )


def test_omnetpp_is_registered_as_an_outside_adapter_would_be():
    assert isinstance(adapters()["omnetpp"], OmnetppAdapter)


@pytest.mark.slow
def test_an_outside_adapter_runs_a_design_with_its_own_options(outside, tmp_path):
    path = design(tmp_path, "program: queue\nscript: mm1.py\n")
    results = tmp_path / "results"
    proc = satsweep(outside, "run", str(path), "--results", str(results))
    assert proc.returncode == 0, proc.stderr
    recorded = json.loads((results / "q" / "design.json").read_text())
    assert recorded["design"]["program"] == "queue" and recorded["design"]["script"] == "mm1.py"
    proc = satsweep(
        outside, "sql", "--results", str(results), "--csv",
        "SELECT load, count(*) AS n FROM runs GROUP BY load ORDER BY load",
    )  # fmt: skip
    assert proc.stdout.split() == ["load,n", "0.3,2", "0.6,2"], proc.stderr


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("program: queue\n", "q.yaml: script: Field required; allowed: with program: queue, the"),
        ("program: queue\nscript: nosuch.py\n", "q.yaml: script: no such script: "),
        ("program: queue\nscript: mm1.py\nini: x.ini\n", "q.yaml: ini: for program: omnetpp only"),
        ("program: ./mm1.py\nscript: mm1.py\n", "q.yaml: script: for program: ns3 or queue only"),
    ],
)
def test_an_adapter_s_options_are_checked_by_it_naming_the_key(outside, tmp_path, body, said):
    proc = satsweep(outside, "plan", str(design(tmp_path, body)))
    assert proc.returncode == 2
    assert said in proc.stderr, proc.stderr
    assert not (tmp_path / "results").exists()


def test_an_omnetpp_declaration_may_give_the_contract_s_cost_hint(tmp_path):
    """`cost:` in a declaration is the contract's cost hint (docs/engine-contract.md): the jobs
    ordered longest first, `plan`'s estimate, a local sweep's head start. One naming no
    parameter of the study is refused, naming the file and the field."""
    import yaml

    from satsweep.engine.adapters import read_declaration
    from satsweep.engine.omnetpp import Declaration

    declared = yaml.safe_load((REPO / "docs/examples/omnetpp-dumbbell/satsweep.yaml").read_text())
    path = tmp_path / "satsweep.yaml"
    path.write_text(yaml.safe_dump({**declared, "cost": {"per": ["flows"], "seconds": 0.01}}))
    description = read_declaration(path, Declaration, "the ini", "docs/omnetpp.md").description()
    assert description.cost is not None and description.cost.per == ["flows"]
    assert description.estimated_seconds({"flows": 4}) == pytest.approx(0.04)
    path.write_text(yaml.safe_dump({**declared, "cost": {"per": ["nodes"], "seconds": 0.01}}))
    with pytest.raises(ValueError, match=f"^{path}: .*cost: 'nodes' is not a parameter"):
        read_declaration(path, Declaration, "the ini", "docs/omnetpp.md")
