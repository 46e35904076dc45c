"""Faults of `satsweep run` itself (issue 28, items 3, 4, 8 and 10): paths that Snakemake would
parse again, an orphaned worker or job writing beside a new run, a stop that is said before
it happened, a program that hangs, a manifest dated in the future, and a full disk whose cause
was shown nowhere. Real runs of docs/examples/mm1.py (behind small wrappers), real processes and
signals."""

from __future__ import annotations

import collections
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from satsweep import cli
from satsweep.workflow import jobs
from satsweep.workflow.jobs import proc_stat
from tests.support.processes import processes
from tests.support.sweeps import MM1, on_a_full_disk, sweep_file

TOY = """\
study: toy
program: {program}
factors:
  load: {loads}
fixed:
  customers: 20
replications: 1
"""

#: mm1.py behind a gate: each simulation leaves a marker (one file per invocation) in calls/
#: beside this file, then waits until the file gate exists.
GATED = f"""\
#!{sys.executable}
import os, sys, time
from pathlib import Path

here = Path(__file__).resolve().parent
args = sys.argv[1:]
if "--describe" not in args:
    run = next(a for a in args if a.startswith("--run="))[len("--run="):]
    (here / "calls").mkdir(exist_ok=True)
    (here / "calls" / f"{{run}}.{{os.getpid()}}").write_text("")
    while not (here / "gate").exists():
        time.sleep(0.05)
os.execv(sys.executable, [sys.executable, {str(MM1)!r}, *args])
"""


def write_program(folder: Path, name: str, text: str) -> Path:
    program = folder / name
    program.write_text(text)
    program.chmod(0o755)
    return program


def satsweep(*args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """`satsweep ARGS` as its own process (a run that hangs fails the test, not the suite)."""
    return subprocess.run(
        [sys.executable, "-m", "satsweep.cli", *args], capture_output=True, text=True,
        timeout=timeout,
    )  # fmt: skip


def start_run(design: Path, results: Path, background: bool = False) -> subprocess.Popen:
    """`satsweep run` in a session of its own, what it says in ``<results>.err``;
    ``background``: SIGINT ignored, as a shell's `cmd &` or nohup starts it."""
    ignore = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if background else None
    with open(f"{results}.err", "w") as err:
        return subprocess.Popen(
            [sys.executable, "-m", "satsweep.cli", "run", str(design), "--results",
             str(results), "--cores", "2"],
            stdout=subprocess.DEVNULL, stderr=err, start_new_session=True, preexec_fn=ignore,
        )  # fmt: skip


def parent_of(call: Path) -> int | None:
    """The parent's pid of the program that left ``call`` (``calls/<run>.<pid>``), while it
    runs."""
    fields = proc_stat(call.name.split(".")[1])
    return None if fields is None else int(fields[1])


def processes_under(folder: Path) -> dict[int, str]:
    """Live processes (pid -> command line) that work in ``folder`` or name it: a sweep's
    Snakemake, jobs and programs, in whatever session or process group they are."""
    found = {}
    for process in processes():
        try:
            cwd = os.readlink(f"/proc/{process.pid}/cwd")
        except OSError:
            continue
        named = str(folder) in process.cmdline or cwd == str(folder) or cwd.startswith(f"{folder}/")
        if named and process.state != "Z":
            found[process.pid] = process.cmdline
    return found


def wait_until(condition: Callable[[], bool], what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        time.sleep(0.05)


@pytest.fixture
def leftovers(tmp_path):
    """Kills what a failing test leaves running under tmp_path."""
    yield
    (tmp_path / "gate").touch()
    for pid in processes_under(tmp_path):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


# -- item 3: paths are taken as they are -------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    ["r #1", "a: b", 'it\'s "quoted"', "{x} $HOME `id` é 雪"],
    ids=["hash", "colon", "quotes", "braces-dollar-unicode"],
)
def test_paths_reach_the_workers_as_they_are(tmp_path, capsys, name):
    """Snakemake's `--config key=value` parsed each path again as YAML: `#` cut it (the store
    landed in `r/`, unlocked, "0 runs done"), quotes vanished, `: ` failed; `{x}` in a file
    pattern is a wildcard. The results folder and the design's folder both carry the name."""
    folder = tmp_path / f"design {name}"
    folder.mkdir()
    design = folder / "toy.yaml"
    design.write_text(TOY.format(program=MM1, loads="[0.3, 0.6]"))
    results = tmp_path / f"results {name}"
    assert cli.main(["run", str(design), "--results", str(results), "--cores", "2"]) == 0
    assert "toy: 2/2 runs done (2 now, 0 before)" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([folder.name, results.name])
    assert pq.read_metadata(results / "toy" / "runs.parquet").num_rows == 2
    assert cli.main(["status", str(design), "--results", str(results)]) == 0
    assert f"toy: 2 done, 0 damaged, 0 missing, 0 failed of 2 runs ({results / 'toy'})" in (
        capsys.readouterr().out
    )


# -- item 4: the lock is held by whatever writes to the store -----------------------------------


@pytest.mark.slow
def test_kill_9_of_satsweep_alone_takes_its_workers_and_programs_along(tmp_path, leftovers):
    """The OOM killer or a lost login takes satsweep alone: its workers, and their programs,
    end with it (none is left writing beside a new run, though their programs would wait
    forever), and the next run makes again exactly the runs that were killed."""
    program = write_program(tmp_path, "gated.py", GATED)
    design = tmp_path / "toy.yaml"
    design.write_text(TOY.format(program=program, loads="[0.3, 0.5, 0.7, 0.9]"))
    results = tmp_path / "results"
    calls = tmp_path / "calls"
    first = start_run(design, results)
    # the first configuration by satsweep itself while its workers start, the next by each
    wait_until(lambda: len(list(calls.glob("*"))) == 3, "three programs run")
    killed = {p.name.split(".")[0] for p in calls.iterdir()}
    first.kill()  # SIGKILL to satsweep alone
    first.wait(timeout=30)
    wait_until(lambda: not processes_under(tmp_path), "its workers and programs end", 30)

    (tmp_path / "gate").touch()
    last = satsweep("run", str(design), "--results", str(results), "--cores", "2")
    assert last.returncode == 0, last.stderr
    assert "toy: 4/4 runs done (4 now, 0 before)" in last.stderr
    invocations = collections.Counter(p.name.split(".")[0] for p in calls.iterdir())
    assert len(invocations) == 4
    assert {run for run, n in invocations.items() if n == 2} == killed  # made again
    assert sum(invocations.values()) == 4 + len(killed)  # the fourth run once


@pytest.mark.slow
def test_a_job_of_an_earlier_run_still_writing_keeps_a_new_run_out(tmp_path, leftovers):
    """A job orphaned by a killed Snakemake (a remote executor's, or a Snakemake started by
    hand) still writes to the store: a new run is refused (exit 1), naming the job's pid and
    command, until it ends; then the new run finds its runs done, each made once."""
    program = write_program(tmp_path, "gated.py", GATED)
    design = tmp_path / "toy.yaml"
    design.write_text(TOY.format(program=program, loads="[0.3, 0.5]"))
    results = tmp_path / "results"
    assert satsweep("plan", str(design), "--results", str(results)).returncode == 0
    store = results / "toy"
    (store / "workers" / "by-hand").mkdir(parents=True)
    worker = store / "workers" / "by-hand" / "worker-1.json"
    # a worker of a local pass started by hand: the Snakefile's `work` job
    job = subprocess.Popen(
        jobs.work_command(str(design), str(worker), False, os.getpid()), cwd=store,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    wait_until(lambda: len(list((tmp_path / "calls").glob("*"))) == 1, "the job's program runs")
    args = ["run", str(design), "--results", str(results), "--cores", "2"]
    refused = satsweep(*args)
    assert refused.returncode == 1, refused.stderr
    assert f"jobs of an earlier satsweep run still write to {store}" in refused.stderr
    assert f"(held by pid {job.pid}: " in refused.stderr
    assert "satsweep.workflow.jobs work" in refused.stderr

    (tmp_path / "gate").touch()
    assert job.wait(timeout=120) == 0
    last = satsweep(*args)
    assert last.returncode == 0, last.stderr
    assert "toy: 2/2 runs done (0 now, 2 before)" in last.stderr
    assert len(list((tmp_path / "calls").glob("*"))) == 2  # each run once


@pytest.mark.slow
def test_sigterm_to_a_background_run_says_stopped_only_when_nothing_of_it_runs(tmp_path, leftovers):
    """SIGTERM to a run started with `cmd &`: before, Snakemake waited for its running jobs
    (which nobody had stopped) and satsweep with it, or said "stopped" while they went on; its
    workers, started with SIGINT ignored, must still stop."""
    program = write_program(tmp_path, "gated.py", GATED)
    design = tmp_path / "toy.yaml"
    design.write_text(TOY.format(program=program, loads="[0.3, 0.5, 0.7, 0.9]"))
    results = tmp_path / "results"
    proc = start_run(design, results, background=True)
    # satsweep's head start and the two workers
    wait_until(lambda: len(list((tmp_path / "calls").glob("*"))) == 3, "three programs run")
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=120)  # the gate stays shut: the programs would wait forever
    err = Path(f"{results}.err").read_text()
    assert proc.returncode == 130, err
    assert "satsweep run: error: interrupted: the sweep stopped; finished runs are kept" in err
    assert processes_under(tmp_path) == {}  # at once: no worker or program left


# -- item 8: a per-run time limit ---------------------------------------------------------------

#: mm1.py, but the configuration load=0.5 hangs, with a child of its own that hangs too.
HANGING = f"""\
#!{sys.executable}
import os, subprocess, sys, time
from pathlib import Path

args = sys.argv[1:]
if "--load=0.5" in args:
    child = subprocess.Popen(["sleep", "1000"])
    (Path(__file__).resolve().parent / "child").write_text(str(child.pid))
    while True:
        time.sleep(1)
os.execv(sys.executable, [sys.executable, {str(MM1)!r}, *args])
"""


@pytest.mark.slow
def test_a_hanging_program_times_out_and_keep_going_finishes_the_others(
    tmp_path, capsys, leftovers
):
    program = write_program(tmp_path, "hanging.py", HANGING)
    design = tmp_path / "toy.yaml"
    design.write_text(
        TOY.format(program=program, loads="[0.3, 0.5, 0.7]") + "resources: {timeout_s: 2}\n"
    )
    results = tmp_path / "results"
    args = [str(design), "--results", str(results)]
    proc = satsweep("run", *args, "--cores", "2", "--keep-going", timeout=300)
    assert proc.returncode == 1, proc.stderr
    assert "toy: 2/3 runs done (2 now, 0 before), 1 failed, 0 not run" in proc.stderr
    assert "--load=0.5 --customers=20 (timed out after 2 s)" in proc.stderr
    child = int((tmp_path / "child").read_text())
    assert child not in processes_under(tmp_path)  # the program's tree was killed whole
    assert processes_under(tmp_path) == {}
    assert cli.main(["status", *args]) == 1
    assert "(timed out after 2 s)" in capsys.readouterr().out
    assert pq.read_metadata(results / "toy" / "runs.parquet").num_rows == 2


def test_a_time_limit_must_be_positive_seconds(tmp_path, capsys):
    design = tmp_path / "toy.yaml"
    for value in ("0", "-1", "true", "'5'", ".nan"):
        design.write_text(
            TOY.format(program=MM1, loads="[0.3]") + f"resources: {{timeout_s: {value}}}\n"
        )
        assert cli.main(["run", str(design), "--results", str(tmp_path / "results")]) == 2
        err = capsys.readouterr().err
        assert "resources.timeout_s: " in err and err.count("\n") == 1, err
        assert "timeout_s (seconds > 0, each run's time limit)" in err
    assert not (tmp_path / "results").exists()


# -- item 10: clock skew and a full disk -------------------------------------------------------


@pytest.mark.slow
def test_files_dated_in_the_future_do_not_fail_later_runs(tmp_path, capsys):
    """Snakemake refused a compaction older than its newest input ("clock skew"), and every
    later run exited 1 until the manifest was touched: here every file of the store is dated
    an hour ahead (a clock set back, files from a skewed host) and a run is to be redone."""
    design = tmp_path / "toy.yaml"
    design.write_text(TOY.format(program=MM1, loads="[0.3, 0.6]"))
    args = ["run", str(design), "--results", str(tmp_path / "results"), "--cores", "2"]
    assert cli.main(args) == 0
    store = tmp_path / "results" / "toy"
    future = time.time() + 3600
    for path in store.rglob("*"):
        os.utime(path, (future, future))
    for path in sorted(store.glob("runs/*"))[0].glob("r1.*"):
        path.unlink()
    capsys.readouterr()
    assert cli.main(args) == 0, capsys.readouterr().err
    assert "toy: 2/2 runs done (1 now, 1 before)" in capsys.readouterr().err
    assert cli.main(args) == 0, capsys.readouterr().err
    assert "toy: 2/2 runs done (0 now, 2 before)" in capsys.readouterr().err


#: After tests/support/sweeps.py's FULL_DISK (run, fill).
FULL_DISK = """\
run; echo "first $?"
fill
rm "$DIR/results/toy/compaction.json"  # the compaction is then due, nothing else
run; echo "full $?"
tr '\\n' ' ' <"$DIR/out"; echo
"$PY" -m satsweep.cli status toy.yaml --results "$DIR/results" | tr '\\n' ' '; echo
"""


@pytest.mark.root
@pytest.mark.slow
def test_a_full_disk_is_named_by_run_and_status(tmp_path):
    """As test_a_disk_filling_up_during_compaction_keeps_the_tables (a 16 MB tmpfs of a mount
    namespace of its own): the cause was only in logs/collect.log."""
    design = TOY.format(program=MM1, loads="[0.3, 0.6]").replace(
        "customers: 20", "customers: 20000"
    )
    proc = on_a_full_disk(tmp_path, design, FULL_DISK, timeout=240)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0 and lines[:2] == ["first 0", "full 1"], proc.stdout + proc.stderr
    said = "store not written: compaction failed, the previous tables are kept: "
    summary = " ".join(lines[2].split())  # the run's summary, wrapped by rich
    reason = summary.split(said, 1)[1].split("(logs/collect.log)")[0]
    assert "No space left on device" in reason, lines[2]
    assert f"{said}{reason}(logs/collect.log)" in lines[3], lines[3]  # status: one line


@pytest.mark.slow
def test_a_home_that_cannot_be_written_does_not_stop_a_sweep(tmp_path, capsys, monkeypatch):
    """A cluster node's HOME may be read-only or missing: Snakemake's cache under it cannot be
    made there (it died with a traceback), so the sweep's Snakemake gets a private one."""
    monkeypatch.setenv("HOME", "/proc/no-such-home")  # not even root can make it
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    design = sweep_file(tmp_path, "home", 1, 0)
    assert cli.main(["run", str(design), "--results", str(tmp_path / "results")]) == 0
    assert "home: 6/6 runs done (6 now, 0 before)" in capsys.readouterr().err


#: A program whose configuration `bad` fails at once; the others take 4 s. `bad` is the most
#: costly by its hint, so the local workers' queue gives it out first.
ONE_BAD = f"""\
#!{sys.executable}
import json, sys, time
args = dict(a[2:].split("=", 1) for a in sys.argv[1:] if "=" in a)
if sys.argv[1:] == ["--describe"]:
    print(json.dumps({{
        "name": "onebad", "version": "1",
        "parameters": [{{"name": "case", "type": "string", "default": "ok1",
                        "choices": ["bad", "ok1", "ok2", "ok3", "ok4", "ok5"], "help": "h"}}],
        "summary": [{{"name": "y", "type": "float", "help": "h"}}],
        "cost": {{"by": "case", "seconds": {{"bad": 10, "ok1": 1, "ok2": 1, "ok3": 1, "ok4": 1,
                                           "ok5": 1}}}},
    }}))
    sys.exit(0)
if args["case"] == "bad":
    sys.exit("bad on purpose")
time.sleep(4)
json.dump({{"params": {{}}, "summary": {{"y": 1.0}}}}, open(args["out"], "w"))
"""


@pytest.mark.slow
def test_a_failure_stops_every_local_worker_unless_keep_going(tmp_path):
    """Without --keep-going, a failed run keeps the pass's workers from taking more
    configurations (the run going on beside it finishes); with it, every run is tried."""
    program = write_program(tmp_path, "onebad.py", ONE_BAD)
    design = tmp_path / "toy.yaml"
    design.write_text(
        f"study: toy\nprogram: {program}\nfactors:\n  case: [ok1, ok2, bad, ok3, ok4, ok5]\n"
        "replications: 1\n"
    )
    args = ["run", str(design), "--results", str(tmp_path / "results"), "--cores", "2"]
    stopped = satsweep(*args)
    assert stopped.returncode == 1, stopped.stderr
    said = " ".join(stopped.stderr.split())
    done = int(said.split("toy: ")[1].split("/6")[0])
    assert done <= 1 and "1 failed" in said, said  # the other worker's first run at most
    assert f"1 failed, {5 - done} not run" in said, said
    finished = satsweep(*args, "--keep-going")
    assert finished.returncode == 1, finished.stderr
    assert "toy: 5/6 runs done" in " ".join(finished.stderr.split()), finished.stderr
