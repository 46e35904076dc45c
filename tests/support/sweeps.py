"""Sweeps of the toy programs (docs/examples/mm1.py, tests/programs/normal.py) that tests run,
and running one on a disk that fills up."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from satsweep.design import load_design
from satsweep.store import Store
from satsweep.workflow.jobs import simulate_run
from tests.support import REPO

#: The contract's example program: an M/M/1 queue (its waits as a table).
MM1 = REPO / "docs" / "examples" / "mm1.py"
#: A synthetic program whose y is Normal(mean, sd) with known means, drawn from --run; its runs
#: last `delay` seconds.
NORMAL = REPO / "tests" / "programs" / "normal.py"


def mm1_design(program: str = "./mm1.py", study: str = "toy", replications: object = 1) -> str:
    """The text of a design of the M/M/1 example (load 0.3 and 0.6, 20 customers); a value
    given as ``"{name}"`` stays a placeholder for ``str.format``."""
    return (
        f"study: {study}\nprogram: {program}\nfactors:\n  load: [0.3, 0.6]\nfixed:\n"
        f"  customers: 20\nreplications: {replications}\n"
    )


def sweep_file(folder: Path, study: str, replications: int, delay: float) -> Path:
    """A design of normal.py (a: lo, hi x b: 1, 2, 3; base_seed 7) in ``folder``, named by its
    study and replications (one study may be written with several)."""
    design = {
        "study": study,
        "program": str(NORMAL),
        "factors": {"a": ["lo", "hi"], "b": [1, 2, 3]},
        "fixed": {"delay": delay},
        "replications": replications,
        "base_seed": 7,
    }
    path = folder / f"{study}-{replications}.yaml"
    path.write_text(yaml.safe_dump(design, sort_keys=False))
    return path


def stored_study(folder: Path, design: str) -> Path:
    """The design text ``design`` written to ``folder/<its study>.yaml``, recorded in
    ``folder/results``, its runs made as a workflow job makes them (without Snakemake) and
    compacted: the results folder."""
    path = folder / f"{yaml.safe_load(design)['study']}.yaml"
    path.write_text(design)
    results = folder / "results"
    loaded = load_design(path)
    store = Store.of(loaded, results)
    loaded = store.bind(loaded)
    store.record(loaded)
    for run in loaded.runs():
        assert simulate_run(loaded, run, store) is None
    store.collect(loaded)
    return results


#: What a full-disk script starts with: $DIR is a 16 MB tmpfs; `run` is `satsweep run` of
#: toy.yaml into $DIR/results (what it says in $DIR/out); `fill` takes all of $DIR but 200 kB.
FULL_DISK = """\
set -u
mount -t tmpfs -o size=16m tmpfs "$DIR"
run() { "$PY" -m satsweep.cli run toy.yaml --results "$DIR/results" --cores 2 >"$DIR/out" 2>&1; }
fill() {
  avail=$(df --output=avail -B1 "$DIR" | tail -n 1)
  dd if=/dev/zero of="$DIR/filler" bs=4096 count=$(( (avail - 200000) / 4096 )) 2>/dev/null
}
"""


def on_a_full_disk(
    folder: Path, design: str, script: str, timeout: float
) -> subprocess.CompletedProcess:
    """Runs the bash ``script`` (after FULL_DISK's lines) in ``folder``, which holds ``design``
    as toy.yaml, in a mount namespace of its own (unshare -m: root), so that the tmpfs is gone
    with it."""
    (folder / "mnt").mkdir()
    (folder / "toy.yaml").write_text(design)
    (folder / "full.sh").write_text(FULL_DISK + script)
    env = {**os.environ, "DIR": str(folder / "mnt"), "PY": sys.executable}
    return subprocess.run(
        ["unshare", "-m", "--propagation", "private", "bash", "full.sh"],
        capture_output=True, text=True, env=env, cwd=folder, timeout=timeout,
    )  # fmt: skip
