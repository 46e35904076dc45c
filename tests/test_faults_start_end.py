"""A sweep's start and end (issue 53, item 3): `submit` with nothing to run, `status` of a
store a run holds, `sql`/`analyze`/`report` of a store whose runs are not compacted yet, and
the store's lock naming its holder (host, pid, Slurm job) where /proc does not show it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from satsweep.design import load_design
from satsweep.store import Store
from satsweep.store.holder import HOLDER_FILE
from satsweep.workflow.jobs import simulate_run
from tests.support import REPO
from tests.support.sweeps import MM1, stored_study
from tests.support.cli import run_cli as main

TOY = f"""\
study: toy
program: {MM1}
factors:
  load: [0.3, 0.6, 0.9]
fixed:
  customers: 20
replications: 2
"""

#: Holds the store's lock as `satsweep run` does (workflow/run.py's lock_store) until told.
HOLD = """\
import sys
import time
from pathlib import Path
from satsweep.workflow.run import lock_store
with lock_store(Path(sys.argv[1])):
    print("locked", flush=True)
    sys.stdin.readline()
"""


def uncompacted(folder: Path, done: int) -> tuple[Path, Path]:
    """TOY (6 runs) recorded in ``folder/results`` with its first ``done`` runs made as a
    workflow job makes them and never compacted: (the design file, the results folder)."""
    folder.mkdir(exist_ok=True)
    path = folder / "toy.yaml"
    path.write_text(TOY)
    results = folder / "results"
    design = load_design(path)
    store = Store.of(design, results)
    design = store.bind(design)
    store.record(design)
    for run in list(design.runs())[:done]:
        assert simulate_run(design, run, store) is None
    return path, results


@contextmanager
def held(store_dir: Path, slurm_job: str) -> Iterator[subprocess.Popen]:
    """A process holding ``store_dir``'s lock, in Slurm job ``slurm_job`` as its environment
    says; killed (SIGKILL: its holder file stays) at the end."""
    env = {**os.environ, "SLURM_JOB_ID": slurm_job}
    with subprocess.Popen(
        [sys.executable, "-c", HOLD, str(store_dir)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=REPO,
    ) as proc:  # fmt: skip
        try:
            assert proc.stdout.readline() == "locked\n"
            yield proc
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()


def test_submit_of_a_study_with_nothing_to_run_submits_nothing(tmp_path, capsys, monkeypatch):
    """A complete study: no job (which would start Ray only to stop it), exit 0, said; Slurm
    is not even asked (none on PATH here). A study with a run missing goes on to ask it."""
    bin_dir = tmp_path / "bin"  # a PATH without Slurm's commands, with the programs' python3
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    monkeypatch.setenv("PATH", str(bin_dir))

    (tmp_path / "compacted").mkdir()
    results = stored_study(tmp_path / "compacted", TOY)  # every run done and compacted
    design = tmp_path / "compacted" / "toy.yaml"
    code, out, err = main(capsys, "submit", str(design), "--results", str(results))
    assert code == 0 and out == "", err
    assert err.strip() == (
        "satsweep submit: nothing to run, no job submitted: study 'toy': 6/6 runs done, its "
        "tables current"
    )
    assert not (results / "toy" / "slurm").exists()

    design, results = uncompacted(tmp_path / "done", 6)  # every run done, none compacted
    code, out, err = main(capsys, "submit", "toy", "--results", str(results))
    assert code == 0 and out == "", err
    assert "nothing to run, no job submitted: study 'toy': 6/6 runs done; its tables are " in err
    assert "`satsweep run toy` compacts them here, without a job" in err
    assert not (results / "toy" / "slurm").exists()

    design, results = uncompacted(tmp_path / "missing", 5)  # one run to run: a job is wanted
    code, out, err = main(capsys, "submit", str(design), "--results", str(results))
    assert code == 2 and "satsweep submit: error: Slurm not found: no sbatch" in err, err


def test_status_of_a_store_being_run_names_its_holder_first(tmp_path, capsys):
    """While a run holds the store: its holder (host, pid, Slurm job) and the runs done come
    first; its tables are not called damaged nor its queue listed as missing. After a kill
    the holder file it left is not believed."""
    design, results = uncompacted(tmp_path, 4)
    store_dir = results / "toy"
    status = ("status", str(design), "--results", str(results))
    with held(store_dir, "4242") as holder:
        code, out, err = main(capsys, *status)
        lines = out.splitlines()
        assert code == 3, out + err
        first = f"being run by pid {holder.pid} on {socket.gethostname()} (Slurm job 4242) since "
        assert lines[0].startswith(first) and lines[0].endswith(": 4/6 runs done"), out
        assert lines[1].startswith("toy: 4 done, 0 damaged, 2 missing, 0 failed of 6 runs"), out
        assert "tables not compacted yet: the 4 done runs are not compacted" in out
        assert "stale or damaged" not in out
        assert not [line for line in lines if line.startswith(("missing ", "... and"))], out

    assert (store_dir / HOLDER_FILE).is_file()  # a SIGKILL left it: the lock says it is free
    code, out, _ = main(capsys, *status)
    assert code == 3 and "being run" not in out
    assert "tables stale or damaged: the 4 done runs are not compacted" in out
    assert len([line for line in out.splitlines() if line.startswith("missing ")]) == 2


def test_queries_of_runs_not_compacted_yet_say_so_never_no_study(tmp_path, capsys):
    """sql, analyze and report of a store with done runs and no runs.parquet: how many runs
    are done and who runs them (or what compacts them), never "no study" (exit 2)."""
    _, results = uncompacted(tmp_path, 4)
    commands = [
        ("sql", "--results", str(results), "--study", "toy", "SELECT 1"),
        ("analyze", "toy", "--results", str(results)),
        ("report", "toy", "--results", str(results)),
    ]
    said = "study 'toy' has 4 done runs, not compacted yet (no runs.parquet): "
    with held(results / "toy", "77") as holder:
        for command in commands:
            code, _, err = main(capsys, *command)
            assert code == 2, err
            assert f"satsweep {command[0]}: error: {said}being run by pid {holder.pid} " in err
            assert "(Slurm job 77)" in err and "which compacts them at its end" in err, err
            assert "no study" not in err and len(err.strip().splitlines()) == 1, err
    for command in commands:
        code, _, err = main(capsys, *command)
        assert code == 2 and f"{said}`satsweep run toy` compacts them" in err, err
        assert "no study" not in err, err
    assert not (results / "toy" / "report").exists()


@pytest.mark.root
def test_a_run_refused_where_proc_does_not_show_the_holder_names_it(tmp_path):
    """A run refused on another node (here: a PID namespace of its own, whose /proc shows no
    process of this one) names the holder by its lock's holder file: pid, host, Slurm job."""
    _, results = uncompacted(tmp_path, 1)
    store_dir = results / "toy"
    refused = (
        "import sys\nfrom pathlib import Path\nfrom satsweep.workflow import run\n"
        "run.RELEASE_GRACE_S = 0.5  # an unseen holder is not a lock being released\n"
        "try:\n    with run.lock_store(Path(sys.argv[1])):\n        print('taken')\n"
        "except run.SweepBusy as e:\n    print(e)\n"
    )
    with held(store_dir, "31337") as holder:
        said = subprocess.run(
            ["unshare", "--pid", "--fork", "--mount-proc", sys.executable, "-c", refused,
             str(store_dir)],
            capture_output=True, text=True, timeout=60, cwd=REPO,
        )  # fmt: skip
    assert said.returncode == 0, said.stderr
    assert said.stdout.startswith(f"another satsweep run is using {store_dir}; its lock names ")
    assert f"pid {holder.pid} on {socket.gethostname()} (Slurm job 31337) since " in said.stdout
    assert "held by" not in said.stdout  # /proc there shows no holder: the file alone names it


#: Holds a shared lock on the store's lock file, as `status` looks at it, for a while.
GLANCE = """\
import fcntl, sys, time
with open(sys.argv[1], "rb") as handle:
    fcntl.flock(handle, fcntl.LOCK_SH)
    print("looking", flush=True)
    time.sleep(float(sys.argv[2]))
    print(time.monotonic(), flush=True)  # an instant before the lock is let go
"""


def test_a_look_at_the_lock_by_another_command_does_not_refuse_a_run(tmp_path):
    """`status` and `sql` look whether the store is held with a shared lock for an instant: a
    `satsweep run` starting then waits for the look to end instead of being refused."""
    from satsweep.workflow.run import GLANCE_S, LOCK_FILE, lock_store

    store = tmp_path / "toy"
    store.mkdir()
    (store / LOCK_FILE).touch()
    look = subprocess.Popen(
        [sys.executable, "-c", GLANCE, str(store / LOCK_FILE), str(GLANCE_S / 4)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert look.stdout.readline() == "looking\n"
        with lock_store(store):  # refused before: the looking process held the file open
            taken = time.monotonic()
        # Linux's monotonic clock is one for all processes: the lock was taken after the look
        # ended, not during it (the look's own exit may lag on a busy machine, so not poll()).
        assert float(look.stdout.readline()) < taken
    finally:
        look.kill()
        look.wait()
