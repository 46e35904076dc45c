"""Issue 29, items 1 and 4 (docs/omnetpp.md): an OMNeT++ study's units and random streams.

Units: a declared parameter's ``unit`` is attached to the value the adapter passes, a unit
OMNeT++ does not know is refused at ``--describe``, ``attach: false`` keeps a unit a label; a
mismatch only OMNeT++ sees fails the run with OMNeT++'s own message, which ``satsweep plan
--check`` (one trial run, any program) and ``satsweep status`` show in one line.

Seeds: ``omnetpp_seeds: run`` gives every run number its own Mersenne Twister states (distinct by
construction: a 10^6-run design's mapping is checked), OMNeT++ draws what :func:`mt_state` says,
and a store made with the hashed seed sets keeps them.

The tests of the first part need no OMNeT++; those marked ``omnetpp`` run the OMNeT++ sample
``fifo`` (a queue with ``volatile double serviceTime @unit(s)``), built from the OMNeT++ tree
of ``./setup.sh``, under the adapter.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import numpy as np
import pytest
import yaml

from satsweep.design import DesignError, load_design
from satsweep.engine import USAGE_ERROR
from satsweep.engine import omnetpp as adapter
from satsweep.engine.omnetpp import OmnetppParameter, mt_state, option_value, seed_set
from satsweep.store import Store
from tests.support import REPO
from tests.support.processes import mentioning, wait_until

SATSWEEP = Path(sys.prefix) / "bin" / "satsweep"
ADAPTER = Path(sys.prefix) / "bin" / adapter.COMMAND
DUMBBELL = REPO / "docs" / "examples" / "omnetpp-dumbbell"
GOYAL98 = REPO / "omnetpp" / "goyal98"


def cli(*args: str, cwd: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(SATSWEEP), *args], capture_output=True, text=True, cwd=cwd, timeout=timeout
    )


def study(folder: Path, parameters: list[dict], ini: str = "[General]\n") -> Path:
    """A study folder: an ini file and a declaration with ``parameters``; the ini's path."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "omnetpp.ini").write_text(ini)
    declaration = {
        "name": "units",
        "version": "1",
        "parameters": parameters,
        "summary": [{"name": "y", "type": "float", "scalar": "y"}],
    }
    (folder / adapter.DECLARATION).write_text(yaml.safe_dump(declaration))
    return folder / "omnetpp.ini"


def describe(ini: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(ADAPTER), f"--ini={ini}", "--config=General", "--describe"],
        capture_output=True,
        text=True,
    )


# ---- units, no OMNeT++ needed ----------------------------------------------------------------


def test_an_omnetpp_unit_is_attached_to_the_value_passed():
    seconds = OmnetppParameter(name="serviceTime", type="float", unit="s")
    assert option_value(seconds, 0.08) == "0.08s"
    assert option_value(seconds, 2.0) == "2s"
    assert option_value(seconds, 1e-5) == "1e-05s"
    assert option_value(OmnetppParameter(name="cap", type="int", unit="B"), 1500) == "1500B"
    label = OmnetppParameter(name="rate", type="float", unit="Mbit/s", attach=False)
    assert option_value(label, 10.0) == "10"
    assert option_value(OmnetppParameter(name="n", type="int"), 3) == "3"


def test_a_unit_omnetpp_does_not_know_is_refused_at_describe(tmp_path):
    ini = study(tmp_path, [{"name": "serviceTime", "type": "float", "unit": "sec"}])
    proc = describe(ini)
    assert proc.returncode == USAGE_ERROR, proc.stderr
    said = proc.stderr.strip()
    assert len(said.splitlines()) == 1 and proc.stdout == ""
    assert "parameter 'serviceTime': unit 'sec' is not an OMNeT++ unit; allowed: " in said
    assert " s ms us " in said and " Mbps " in said and " dBm " in said
    assert "attach: false" in said


def test_a_unit_cannot_be_attached_to_a_string(tmp_path):
    ini = study(tmp_path, [{"name": "algo", "type": "string", "default": "a", "unit": "s"}])
    proc = describe(ini)
    assert proc.returncode == USAGE_ERROR
    assert "parameter 'algo': unit 's' cannot be attached to a string value" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("expression", ["exponential(1s)", "uniform(${m}, ${other})"])
def test_an_expression_must_place_its_own_value_and_nothing_else(tmp_path, expression):
    ini = study(tmp_path, [{"name": "m", "type": "float", "unit": "s", "expression": expression}])
    proc = describe(ini)
    assert proc.returncode == USAGE_ERROR and proc.stdout == ""
    said = proc.stderr.strip()
    assert len(said.splitlines()) == 1
    assert f"parameters.0: parameter 'm': expression '{expression}' must use ${{m}}" in said


def test_an_expression_places_the_value_with_its_unit():
    mean = OmnetppParameter(name="m", type="float", unit="s", expression="exponential(${m})")
    assert option_value(mean, 0.2) == "exponential(0.2s)"
    label = OmnetppParameter(name="k", type="int", expression="${k}s + ${k}s", attach=False)
    assert option_value(label, 2) == "2s + 2s"


def test_attach_false_keeps_a_unit_a_label_in_the_description(tmp_path):
    ini = study(
        tmp_path, [{"name": "q", "type": "int", "default": 5, "unit": "packets", "attach": False}]
    )
    proc = describe(ini)
    assert proc.returncode == 0, proc.stderr
    said = json.loads(proc.stdout)["parameters"][0]
    assert said["unit"] == "packets" and "attach" not in said


@pytest.mark.parametrize(
    ("folder", "config", "units"),
    [
        (DUMBBELL, "Bulk", {"bottleneckMbps": "Mbit/s", "queuePackets": "packets"}),
        (GOYAL98, "General", {"bufferCells": "cells", "simTime": "s", "accessRate": "bit/s"}),
    ],
)
def test_the_shipped_declarations_keep_their_units_as_labels(folder, config, units):
    proc = subprocess.run(
        [str(ADAPTER), f"--ini={folder / 'omnetpp.ini'}", f"--config={config}", "--describe"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    described = {p["name"]: p for p in json.loads(proc.stdout)["parameters"]}
    assert {name: described[name]["unit"] for name in units} == units
    declared = adapter.OmnetppStudy(folder / "omnetpp.ini", config).declaration
    assert not any(p.attach for p in declared.parameters if p.unit)  # NED parameters unitless


def test_the_ned_path_keeps_its_separators_out_of_every_folder(tmp_path):
    """OMNeT++ splits -n at ';' and ':' with no escape: a run names each NED folder by a link
    of its working folder, which resolves to the folder; a command printed to run anywhere
    gives a folder holding one by its real path, and refuses one that holds it both ways."""
    study = tmp_path / "a;b" / "study"
    elsewhere = tmp_path / "x:y"
    for folder in (study / "ned", elsewhere / "inet", tmp_path / "inet"):
        folder.mkdir(parents=True)
    (study / "model.ned").write_text("network Net {}\n")
    (study / "results").mkdir()  # OMNeT++'s default result folder: not the run's
    (tmp_path / "in;et").symlink_to(tmp_path / "inet")
    ini = study / "omnetpp.ini"
    ini.touch()
    folders = [Path("."), Path("ned"), elsewhere / "inet"]
    work = adapter.WorkingFolder(study, tmp_path / "work", folders, ini)
    assert work.ned_path == ".satsweep-ned-0:.satsweep-ned-1:.satsweep-ned-2"
    assert [(work.path / f".satsweep-ned-{i}").resolve() for i in range(3)] == [
        study,
        study / "ned",
        elsewhere / "inet",
    ]
    assert sorted(p.name for p in work.path.iterdir() if not p.name.startswith(".")) == [
        "model.ned", "ned", "omnetpp.ini", "results"
    ]  # fmt: skip
    assert not any((work.path / "results").iterdir()) and work.ini == ini
    plain = [Path("ned"), tmp_path / "inet"]
    assert adapter.ned_path(plain, tmp_path) == f"{tmp_path / 'ned'}:{tmp_path / 'inet'}"
    assert adapter.ned_path([tmp_path / "in;et"], study) == str(tmp_path / "inet")
    with pytest.raises(adapter.OmnetppError, match=r"the NED folder .*x:y/inet holds ';' or ':'"):
        adapter.ned_path([elsewhere / "inet"], study)


def test_an_example_out_of_its_package_s_tree_gets_its_package_root(tmp_path):
    """INET's examples declare the package they had in INET's tree: copied out, the working
    folder is made that package's root (a package.ned of its own, the ini through it), and the
    example's folder is not written."""
    example = tmp_path / "ber"
    example.mkdir()
    (example / "Ber.ned").write_text(
        "// an example\npackage inet.examples.inet.ber;\n\nnetwork Ber {}\n"
    )
    ini = example / "omnetpp.ini"
    ini.write_text("[General]\nnetwork = Ber\n")
    work = adapter.WorkingFolder(example, tmp_path / "work", [Path(".")], ini)
    assert work.ned_path == "." and work.ini == work.path / "omnetpp.ini"
    assert (work.path / "package.ned").read_text() == "package inet.examples.inet.ber;\n"
    assert sorted(p.name for p in example.iterdir()) == ["Ber.ned", "omnetpp.ini"]
    (example / "package.ned").write_text("package inet.examples.inet.ber;\n")  # its own root
    own = adapter.WorkingFolder(example, tmp_path / "own", [Path(".")], ini)
    assert own.ned_path == ".satsweep-ned-0" and own.ini == ini


def test_a_parameter_may_not_take_an_option_of_the_adapter(tmp_path):
    ini = study(tmp_path, [{"name": "seeds", "type": "int", "default": 1}])
    proc = describe(ini)
    assert proc.returncode == USAGE_ERROR
    assert "parameter 'seeds' is an option of satsweep-omnetpp itself" in proc.stderr


# ---- plan --check, any program --------------------------------------------------------------

TRIAL = """#!{python}
import json, sys, time
if "--describe" in sys.argv:
    print(json.dumps({{"name": "trial", "version": "1",
        "parameters": [{{"name": "x", "type": "float", "default": 1}},
                       {{"name": "z", "type": "string", "default": "a"}}],
        "summary": [{{"name": "y", "type": "float"}}]}}))
    sys.exit(0)
args = dict(a[2:].split("=", 1) for a in sys.argv[1:])
x = float(args["x"])
if x < 0:
    print("setting up", file=sys.stderr)
    print("<!> Error: Cannot assign '-1' to parameter 'x': Cannot convert unit none to 's'",
          file=sys.stderr)
    print("End.", file=sys.stderr)
    sys.exit(1)
if x == 0:
    time.sleep(120)
with open(args["out"], "w") as f:
    json.dump({{"params": {{"x": x}}, "summary": {{"y": 2 * x}}}}, f)
"""


def trial_design(tmp_path: Path, levels: list[float], **factors: list) -> Path:
    program = tmp_path / "trial.py"
    program.write_text(TRIAL.format(python=sys.executable))
    program.chmod(0o755)
    design = tmp_path / "trial.yaml"
    design.write_text(
        yaml.safe_dump(
            {
                "study": "trial",
                "program": "./trial.py",
                "factors": {"x": levels, **factors},
                "replications": 2,
            }
        )
    )
    return design


def test_plan_check_reports_a_failing_level_in_one_line(tmp_path):
    design = trial_design(tmp_path, [-1, 1])
    results = tmp_path / "results"
    proc = cli("plan", str(design), "--results", str(results), "--check", timeout=120)
    assert proc.returncode == USAGE_ERROR, proc.stdout + proc.stderr
    said = proc.stderr.strip().splitlines()
    assert len(said) == 1
    assert said[0].startswith("satsweep plan: error: check: ")
    assert "--x=-1 failed (trial failed, exit code 1): <!> Error: Cannot assign" in said[0]
    assert "Cannot convert unit none to 's'" in said[0]
    assert not (results / "trial" / "runs").exists()  # a trial, not a run of the store


def test_plan_check_tries_every_level_of_every_factor_not_only_the_first_configuration(
    tmp_path,
):
    """x = -1 fails, and only the third configuration of x (1, 2, -1) x z (a, b) takes it:
    three trials take every level, two at a time; the failure is the one error line."""
    design = trial_design(tmp_path, [1, 2, -1], z=["a", "b"])
    results = tmp_path / "results"
    proc = cli("plan", str(design), "--results", str(results), "--check", "--cores", "2")
    assert proc.returncode == USAGE_ERROR, proc.stdout + proc.stderr
    assert "check: 3 configurations take every level of every factor; each once, 2 at a " \
        "time" in proc.stdout  # fmt: skip
    passed = [line for line in proc.stdout.splitlines() if line.endswith("ran without an error")]
    assert [line.split()[2:4] for line in sorted(passed)] == [
        ["--x=1", "--z=a"],
        ["--x=2", "--z=b"],
    ]
    said = proc.stderr.strip().splitlines()
    assert len(said) == 1 and "--x=-1 --z=a failed (trial failed, exit code 1)" in said[0], said
    assert not (results / "trial" / "runs").exists()
    proc = cli("plan", str(design), "--results", str(results), "--check", "--check-runs", "2")
    assert proc.returncode == 0, proc.stdout + proc.stderr  # the third, failing, is not run
    assert "check: 3 configurations take every level of every factor; the first 2 run " \
        "(--check-runs N for more), each once" in proc.stdout  # fmt: skip
    assert proc.stdout.count("ran without an error") == 2


@pytest.mark.slow  # a sweep or a real report: several seconds
def test_plan_check_passes_a_run_that_works_or_is_still_running(tmp_path):
    results = tmp_path / "results"
    proc = cli("plan", str(trial_design(tmp_path, [1, 2])), "--results", str(results), "--check")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("ran without an error") == 2
    assert not (results / "trial" / "runs").exists()
    slow = trial_design(tmp_path, [0])
    proc = cli("plan", str(slow), "--results", str(results), "--check", "--check-seconds", "2")
    assert proc.returncode == 0, proc.stderr
    assert "still running after 2 s, without an error so far" in proc.stdout
    proc = cli("plan", str(slow), "--results", str(results))  # no --check: nothing runs
    assert proc.returncode == 0 and "check:" not in proc.stdout


@pytest.mark.slow  # a few seconds
def test_ctrl_c_stops_plan_check_s_trials_at_once(tmp_path):
    """Ctrl-C reaches only the main thread: the trials, each in a process group of its own,
    are killed then, not waited for (x = 0 sleeps 120 s); exit 130, nothing left running."""
    design = trial_design(tmp_path, [0], z=["a", "b"])
    results = tmp_path / "results"
    command = [str(SATSWEEP), "plan", str(design), "--results", str(results), "--check"]
    proc = subprocess.Popen([*command, "--cores", "2"], stderr=subprocess.PIPE, text=True)
    trials = lambda: mentioning(str(tmp_path / "trial.py"))  # noqa: E731
    try:
        wait_until(lambda: len(trials()) == 2, 30, "both trials running")
        interrupted = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert time.monotonic() - interrupted < 10 and proc.returncode == 130, err
    assert err.strip() == "satsweep plan: error: interrupted: the trial runs were stopped", err
    assert not trials()


# ---- seeds, no OMNeT++ needed ---------------------------------------------------------------


def dumbbell_design(tmp_path: Path, replications: int, **more: object) -> Path:
    """A design of the dumbbell example: 50 x 20 = 1000 configurations."""
    design = tmp_path / "dumbbell.yaml"
    spec = {
        "study": "dumbbell-seeds",
        "program": "omnetpp",
        "ini": str(DUMBBELL / "omnetpp.ini"),
        "config": "Bulk",
        "factors": {
            "flows": list(range(1, 51)),
            "bottleneckMbps": [float(m) for m in range(1, 21)],
        },
        "replications": replications,
        **more,
    }
    design.write_text(yaml.safe_dump(spec))
    return design


@pytest.mark.slow
def test_a_million_runs_get_distinct_generator_states(tmp_path):
    design = load_design(dumbbell_design(tmp_path, 1000), max_runs=None)
    assert design.n_runs == 10**6
    assert "omnetpp_seeds" not in design.adapter_options
    assert design.resolved()["omnetpp_seeds"] == design.stream_option("omnetpp_seeds") == "run"
    assert design.executable.stream is None and "--seeds=run" in design.executable.args
    # words 1 and 2 of every generator's state are a bijection of the run number
    keys = {adapter._mix(run.run) for run in design.runs()}
    assert len(keys) == 10**6
    for number in (1, 2**62 + 5, 2**63 - 1):
        words = mt_state(number, rng=3)
        assert words[1] | words[2] << 32 == adapter._mix(number) and words[3] == 3


def test_the_hashed_seed_sets_clash_in_the_same_million_runs(tmp_path):
    with pytest.raises(DesignError, match="would get the same random stream of dumbbell"):
        load_design(dumbbell_design(tmp_path, 1000, omnetpp_seeds="seed-set"), max_runs=None)


def test_mix_is_a_bijection_and_unrelated_for_neighbours():
    # SplitMix64's finalizer is invertible: xorshifts and odd multipliers
    def unmix(z: int) -> int:
        mask = (1 << 64) - 1
        z ^= z >> 31 ^ z >> 62
        z = z * pow(0x94D049BB133111EB, -1, 1 << 64) & mask
        z ^= z >> 27 ^ z >> 54
        z = z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64) & mask
        return z ^ z >> 30 ^ z >> 60

    for number in (1, 2, 12345, 2**40 + 7, 2**63 - 1):
        assert unmix(adapter._mix(number)) == number


def draws(states: list[list[int]], n: int) -> np.ndarray:
    """The first ``n`` numbers in [0, 1) OMNeT++'s Mersenne Twister draws from each state."""
    out = np.empty((len(states), n))
    generator = np.random.MT19937()
    for i, words in enumerate(states):
        key = np.array(words, dtype=np.uint32)
        generator.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": 624}}
        out[i] = generator.random_raw(n) / 2**32
    return out


@pytest.mark.slow  # a sweep or a real report: several seconds
def test_neighbouring_runs_and_generators_draw_uncorrelated_numbers():
    numbers = [(0xABCDEF << 15) | k for k in range(1, 3001)]  # replications of one configuration
    u = draws([mt_state(r) for r in numbers], 50)
    other = draws([mt_state(r, rng=1) for r in numbers], 50)
    n = u[:-1].size
    bound = 4 / np.sqrt(n)  # four standard errors of a correlation of independent draws
    assert abs(np.corrcoef(u[:-1].ravel(), u[1:].ravel())[0, 1]) < bound
    assert abs(np.corrcoef(u.ravel(), other.ravel())[0, 1]) < 4 / np.sqrt(u.size)
    assert abs(u.mean() - 0.5) < 4 * np.sqrt(1 / 12 / u.size)


def test_an_old_store_keeps_its_hashed_seed_sets(tmp_path):
    results = tmp_path / "results"
    design = load_design(dumbbell_design(tmp_path, 2), max_runs=None)
    store = Store.of(design, results)
    store.record(design)
    assert store.recorded()["design"]["omnetpp_seeds"] == "run"
    # a store recorded before omnetpp_seeds existed: its design.json does not say it
    recorded = json.loads(store.design_file.read_text())
    del recorded["design"]["omnetpp_seeds"]
    store.design_file.write_text(json.dumps(recorded))
    bound = Store.of(design, results).bind(load_design(dumbbell_design(tmp_path, 2), None))
    assert bound.adapter_options["omnetpp_seeds"] == "seed-set"
    assert (
        "--seeds=seed-set" in bound.executable.args and "--seeds=run" not in bound.executable.args
    )
    assert bound.executable.stream is seed_set
    assert Store.of(design, results).design().stream_option("omnetpp_seeds") == "seed-set"
    # the same seed set for the same run number as before
    number = next(bound.runs()).run
    digest = hashlib.sha256(f"satsweep-omnetpp:{number}".encode()).digest()
    assert seed_set(number) == 1 + int.from_bytes(digest[:8], "big") % (2**31 - 1)
    asked = dumbbell_design(tmp_path, 2, omnetpp_seeds="run")
    with pytest.raises(DesignError, match="omnetpp_seeds: run differs from the omnetpp_seeds"):
        Store.of(design, results).bind(load_design(asked, max_runs=None))


def test_omnetpp_seeds_is_for_omnetpp_only(tmp_path):
    design = trial_design(tmp_path, [1])
    spec = yaml.safe_load(design.read_text())
    design.write_text(yaml.safe_dump({**spec, "omnetpp_seeds": "run"}))
    with pytest.raises(DesignError, match="omnetpp_seeds: for program: omnetpp only"):
        load_design(design)


# ---- with OMNeT++: the fifo sample under the adapter ----------------------------------------


@pytest.fixture(scope="module")
def omnetpp_root() -> Path:
    return adapter.installation()[0]


@pytest.fixture(scope="module")
def fifo(omnetpp_root, tmp_path_factory) -> Path:
    """OMNeT++'s sample fifo, unmodified, built as a library; its folder."""
    folder = tmp_path_factory.mktemp("fifo") / "fifo"
    shutil.copytree(omnetpp_root / "samples" / "fifo", folder)
    env = {**os.environ, "PATH": f"{omnetpp_root / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    for command in (["opp_makemake", "-f", "--make-so", "-o", "fifo"], ["make", "MODE=release"]):
        proc = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return folder


def fifo_study(fifo: Path, tmp_path: Path, **service: object) -> Path:
    """A study of the fifo sample from ``tmp_path``: its ini, a declaration setting the
    queue's serviceTime (declared with ``service``) and a design; the design's path."""
    (tmp_path / "omnetpp.ini").write_text(
        "[General]\nnetwork = SingleQueue\nsim-time-limit = 200s\n"
        "**.source.interarrivalTime = exponential(0.2s)\n"
    )
    declaration = {
        "name": "fifo",
        "version": "1",
        "ned": [str(fifo)],
        "libraries": [str(fifo / "fifo")],
        "parameters": [
            {"name": "serviceTime", "type": "float", "default": 0.1, **service}
            | {"set": "**.fifo.serviceTime"}
        ],
        "summary": [
            {"name": "queue", "type": "float", "scalar": "qlen:timeavg", "module": "**.fifo"},
            {"name": "busy", "type": "float", "scalar": "busy:timeavg", "module": "**.fifo"},
        ],
    }
    (tmp_path / adapter.DECLARATION).write_text(yaml.safe_dump(declaration))
    design = tmp_path / "fifo.yaml"
    design.write_text(
        yaml.safe_dump(
            {
                "study": "fifo",
                "program": "omnetpp",
                "ini": "omnetpp.ini",
                "factors": {"serviceTime": [0.08, 0.15]},
                "replications": 2,
            }
        )
    )
    return design


@pytest.mark.omnetpp
def test_a_unit_model_runs_unmodified_with_plain_numbers(fifo, tmp_path):
    design = fifo_study(fifo, tmp_path, unit="s")
    results = tmp_path / "results"
    proc = cli("plan", str(design), "--results", str(results), "--check")
    assert proc.returncode == 0 and "ran without an error" in proc.stdout, proc.stderr
    proc = cli("run", str(design), "--results", str(results), "--cores", "1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    runs = Store(results / "fifo").runs_table
    said = duckdb.sql(
        f"select serviceTime, avg(busy) b from '{runs}' group by 1 order by 1"
    ).fetchall()
    said = [{"serviceTime": t, "b": b} for t, b in said]
    # a server busy serviceTime / 0.2 s of the time: the value reached OMNeT++ in seconds
    assert [row["serviceTime"] for row in said] == [0.08, 0.15]
    assert abs(said[0]["b"] - 0.4) < 0.1 and abs(said[1]["b"] - 0.75) < 0.1
    recorded = Store(results / "fifo").recorded()
    assert recorded["describe"]["parameters"][0]["unit"] == "s"
    assert recorded["design"]["omnetpp_seeds"] == "run"


@pytest.mark.omnetpp
def test_a_unit_only_omnetpp_sees_is_wrong_fails_with_its_message(fifo, tmp_path):
    design = fifo_study(fifo, tmp_path, unit="s", attach=False)  # 0.08 reaches an @unit(s)
    results = tmp_path / "results"
    proc = cli("plan", str(design), "--results", str(results), "--check")
    assert proc.returncode == USAGE_ERROR
    said = proc.stderr.strip().splitlines()  # a line for each level: each fails
    assert sorted(line.split()[5] for line in said) == [
        "--serviceTime=0.08",
        "--serviceTime=0.15",
    ], said
    assert all("Cannot convert unit none to 's'" in line for line in said), said
    proc = cli("run", str(design), "--results", str(results), "--cores", "1")
    assert proc.returncode != 0
    status = cli("status", str(design), "--results", str(results))
    assert status.returncode == 1
    failed = [line for line in status.stdout.splitlines() if "Cannot convert unit" in line]
    assert (
        failed and "Cannot assign '0.08' to parameter 'SingleQueue.fifo.serviceTime'" in (failed[0])
    )
    records = list((results / "fifo" / "runs").rglob("*.failed.json"))
    assert records
    tail = json.loads(records[0].read_text())["stderr_tail"]
    assert "Cannot convert unit none to 's' (second)" in tail


@pytest.mark.omnetpp
def test_omnetpp_draws_what_mt_state_says(fifo, omnetpp_root, tmp_path):
    """The fifo's jobs arrive uniform(0s, 1s) apart and are served at once: the sink's
    lifetime vector is timed at the sums of the first draws of RNG 0."""
    number = (0x123456789AB << 15) | 7
    command = [
        str(omnetpp_root / "bin" / "opp_run"), "-u", "Cmdenv", "-c", "Fifo1", "-n", str(fifo),
        f"-l{fifo / 'fifo'}", f"--result-dir={tmp_path}", "--sim-time-limit=3s",
        "--**.fifo.serviceTime=0s", "--**.source.interarrivalTime=uniform(0s,1s)",
        *adapter.seed_options("run", number, omnetpp_root), str(fifo / "omnetpp.ini"),
    ]  # fmt: skip
    proc = subprocess.run(command, cwd=fifo, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    vec = next(tmp_path.glob("*.vec"))
    proc = subprocess.run(
        [str(omnetpp_root / "bin" / "opp_scavetool"), "export", "-T", "v", "-F", "CSV-R",
         "-o", "-", str(vec)],
        capture_output=True, text=True,
    )  # fmt: skip
    row = next(
        line
        for line in proc.stdout.splitlines()
        if ",vector," in line and "lifetime:vector" in line
    )
    times = [float(t) for t in row.split('"')[1].split()]
    expected = np.cumsum(draws([mt_state(number)], len(times) - 1)[0])
    assert times[0] == 0 and np.allclose(times[1:], expected, atol=1e-11)
