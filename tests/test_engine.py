"""The engine contract from satsweep's side (satsweep/engine): descriptions, finding a program,
the --describe cache, checking results. Small programs written here, no simulator."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from satsweep.engine import Description, Parameter, Program, ProgramError, SimulationError
from satsweep.engine import program as program_module

DESCRIBE = {
    "name": "toy",
    "version": "0.1",
    "parameters": [
        {"name": "rate", "type": "float", "default": 1.0, "exclusiveMinimum": 0, "unit": "1/s",
         "help": "h"},
        {"name": "n", "type": "int", "default": 10, "minimum": 1, "maximum": 100, "help": "h"},
        {"name": "mode", "type": "string", "default": "a", "choices": ["a", "b"], "help": "h"},
        {"name": "on", "type": "bool", "default": True, "help": "h"},
    ],
    "summary": [{"name": "mean", "type": "float", "unit": "s", "help": "h"},
                {"name": "count", "type": "int", "help": "h"}],
    "tables": {"samples": [{"name": "i", "type": "int", "help": "h"}]},
    "cost": {"per": ["n"], "by": "mode", "seconds": {"a": 2.0, "b": 3.0}},
}  # fmt: skip


def toy(directory: Path, describe: dict, result: dict | None = None, name: str = "toy") -> Path:
    """A program that prints ``describe`` and writes ``result`` (with the flags it got as
    params when None) to --out; every --describe call is counted in ``calls``."""
    path = directory / name
    path.write_text(
        textwrap.dedent(f"""\
        #!/usr/bin/env python3
        import json, sys
        args = sys.argv[1:]
        if args == ["--describe"]:
            with open({str(directory / "calls")!r}, "a") as f:
                f.write("x")
            print(json.dumps({describe!r}))
            sys.exit(0)
        flags = dict(a[2:].split("=", 1) for a in args)
        out = flags.pop("out")
        result = {result!r}
        if result is None:
            result = {{"params": {{}}, "summary": {{"mean": float(flags["run"]), "count": 1}},
                       "samples": [{{"i": 0}}], "argv": None}}
            result.pop("argv")
        with open(out, "w") as f:
            json.dump(result, f)
        """)
    )
    path.chmod(0o755)
    return path


@pytest.fixture(autouse=True)
def _fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    program_module._description.cache_clear()
    program_module._identity.cache_clear()


def test_description_is_read_and_typed(tmp_path):
    program = Program.at(toy(tmp_path, DESCRIBE))
    d = program.description
    assert d.name == "toy" and [p.name for p in d.parameters] == ["rate", "n", "mode", "on"]
    assert d.units() == {"rate": "1/s", "mean": "s"}
    assert d.estimated_seconds({"mode": "b"}) == 3.0 * 10  # n's default
    assert d.estimated_seconds({"n": 4}) == 2.0 * 4  # mode's default


def test_a_cost_hint_takes_the_defaults_a_choice_presets(tmp_path):
    """A program whose choice presets another default of a `per` parameter says so in the
    hint's `defaults` (sabt: e2's 10 s, not fig's 4000): a run that does not set it is
    estimated with the choice's value, one that sets it with its own."""
    described = json.loads(json.dumps(DESCRIBE))
    described["cost"]["defaults"] = {"a": {"n": 10}, "b": {"n": 2}}
    d = Program.at(toy(tmp_path, described)).description
    assert d.estimated_seconds({"mode": "b"}) == 3.0 * 2  # b presets n = 2, not n's 10
    assert d.estimated_seconds({"mode": "b", "n": 5}) == 3.0 * 5  # set by the run
    assert d.estimated_seconds({}) == 2.0 * 10  # mode's default, a's preset


@pytest.mark.parametrize(
    ("name", "value", "allowed"),
    [
        ("rate", 0, "allowed: a number > 0"),
        ("rate", "fast", "allowed: a number > 0"),
        ("n", 0, "allowed: an integer >= 1 and <= 100"),
        ("n", 2.5, "allowed: an integer"),
        ("n", True, "allowed: an integer"),
        ("mode", "c", "allowed: a, b"),
        ("on", 1, "allowed: true or false"),
    ],
)
def test_parameter_check_says_what_is_allowed(name, value, allowed):
    description = Description.model_validate(DESCRIBE)
    parameter = description.parameter(name)
    assert isinstance(parameter, Parameter)
    problem = parameter.check(value)
    assert problem is not None and allowed in problem, problem


def test_parameter_check_accepts_allowed_values():
    description = Description.model_validate(DESCRIBE)
    for name, value in (("rate", 2), ("rate", 0.5), ("n", 100), ("mode", "b"), ("on", False)):
        assert description.parameter(name).check(value) is None, (name, value)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"summary": None}, "summary"),
        ({"parameters": [{"name": "run", "type": "int", "help": ""}]}, "reserved"),
        ({"parameters": [{"name": "x", "type": "complex", "help": ""}]}, "parameters.0.type"),
        ({"parameters": [{"name": "x", "type": "int", "default": "a", "help": ""}]}, "default"),
        ({"tables": {"runs": []}}, "table 'runs': the name is reserved"),
        ({"tables": {"a/b": []}}, "table 'a/b' is not a table name"),
        ({"parameters": [{"name": "host", "type": "string", "help": ""}]}, "reserved: study,"),
        ({"cost": {"per": ["nope"], "seconds": 1}}, "cost: 'nope' is not a parameter"),
    ],
)
def test_a_describe_that_breaks_the_contract_is_refused(tmp_path, change, words):
    bad = {**DESCRIBE, **change}
    if bad.get("summary") is None:
        del bad["summary"]
    with pytest.raises(ProgramError) as error:
        Program.at(toy(tmp_path, bad))
    assert "--describe" in str(error.value) and words in str(error.value), str(error.value)


@pytest.mark.programs
def test_describe_is_asked_once_per_binary_and_once_per_process_of_a_script(tmp_path, satnet):
    """A binary's --describe is cached by its hash; a script's is not (a wrapper keeps its
    hash when the program it runs is rebuilt)."""
    binary = tmp_path / "satnet"
    shutil.copy2(satnet.path, binary)
    cache = tmp_path / "cache" / "satsweep" / "describe"
    first = Program.at(binary)
    cached = cache / f"{first.sha256}.json"
    assert cached.is_file()
    marked = first.description.model_copy(update={"version": "from the cache"})
    cached.write_text(marked.model_dump_json())
    program_module._description.cache_clear()  # a new process: only the file cache is left
    program_module._identity.cache_clear()
    assert Program.at(binary).description.version == "from the cache"

    script = toy(tmp_path, DESCRIBE)
    Program.at(script)
    Program.at(script)  # the same process: asked once
    assert (tmp_path / "calls").read_text() == "x"
    program_module._description.cache_clear()
    program_module._identity.cache_clear()
    Program.at(script)  # another process: asked again, nothing cached
    assert (tmp_path / "calls").read_text() == "xx"
    assert sorted(p.name for p in cache.iterdir()) == [cached.name]


def test_programs_are_found_by_name_or_by_path(tmp_path, monkeypatch):
    bin_dir = tmp_path / "programs"
    bin_dir.mkdir()
    toy(bin_dir, DESCRIBE)
    monkeypatch.setenv("SATSWEEP_PROGRAMS", str(bin_dir))
    assert Program.find("toy", tmp_path).path == bin_dir / "toy"
    assert Program.find("./programs/toy", tmp_path).path == bin_dir / "toy"
    with pytest.raises(ProgramError) as error:
        Program.find("nosuch", tmp_path)
    assert "'nosuch' is not a program built by this project" in str(error.value)
    assert "toy, or a path to an executable" in str(error.value)
    with pytest.raises(ProgramError, match="no such file"):
        Program.find("./nosuch", tmp_path)
    (tmp_path / "plain").write_text("x")
    with pytest.raises(ProgramError, match="is not executable"):
        Program.find("./plain", tmp_path)


def test_a_run_gets_its_parameters_run_and_out(tmp_path):
    program = Program.at(toy(tmp_path, DESCRIBE))
    assert program.command({"n": 3, "rate": 2.0, "on": True}, 7, Path("o.json")) == [
        str(program.path), "--n=3", "--rate=2", "--on=1", "--run=7", "--out=o.json",
    ]  # fmt: skip
    result = program.run({"n": 3}, 7)
    assert result["summary"] == {"mean": 7.0, "count": 1}


@pytest.mark.parametrize(
    ("result", "words"),
    [
        ({"params": {}, "summary": {"mean": 1, "extra": 2}}, "'extra' is not declared"),
        ({"params": {}, "summary": {"mean": "x"}}, "'mean' = 'x' is not of type float"),
        ({"params": {"n": 1.5}, "summary": {}}, "'n' = 1.5 is not of type int"),
        ({"params": {}, "summary": {"mean": 1, "count": 1}, "samples": [{"j": 1}]},
         "samples[0]: 'j'"),
        ({"params": {}, "summary": {"mean": 1, "count": 1}, "other": []},
         "'other' is not a part"),
        ({"params": {}, "summary": {"mean": 1}}, "summary: 'count' is missing"),
        ({"params": {}, "summary": {"mean": 1, "count": 2**64}},
         "summary: 'count' = an integer of 65 bits is too large"),
        ({"summary": {}}, "'params' is not an object"),
    ],
)  # fmt: skip
def test_a_result_that_breaks_the_contract_is_a_failed_run(tmp_path, result, words):
    program = Program.at(toy(tmp_path, DESCRIBE, result))
    with pytest.raises(SimulationError) as error:
        program.run({}, 1)
    assert "does not follow the contract" in str(error.value) and words in str(error.value)


def test_a_failing_program_reports_its_exit_code_and_stderr(tmp_path):
    path = tmp_path / "failing"
    path.write_text(
        "#!/bin/sh\n"
        f"[ \"$1\" = --describe ] && echo '{json.dumps(DESCRIBE)}' && exit 0\n"
        "echo 'bad: --n=0: allowed: an integer >= 1' >&2; exit 2\n"
    )
    path.chmod(0o755)
    with pytest.raises(SimulationError) as error:
        Program.at(path).run({"n": 0}, 1)
    assert error.value.returncode == 2 and "allowed: an integer >= 1" in error.value.stderr_tail


#: A job that runs one simulation of PROGRAM (argv[1]) the way argv[2] says: "launcher",
#: satsweep's own (setup.sh builds it), "setpriv" (without it), "preexec" (a host whose setpriv
#: cannot set the parent-death signal either).
JOB = """\
import shutil, sys
from pathlib import Path
from satsweep.engine import Program, program
if sys.argv[2] == "setpriv":
    program._dies_with_job = lambda: (shutil.which("setpriv"), "--pdeathsig", "KILL", "--")
if sys.argv[2] == "preexec":
    program._dies_with_job = lambda: ()
Program.at(Path(sys.argv[1])).run({}, 1)
"""


@pytest.mark.parametrize("way", ["launcher", "setpriv", "preexec"])
def test_a_program_dies_with_its_killed_job(tmp_path, way):
    """A job SIGKILLed (the OOM killer, a batch system's kill) takes its program along, though
    the program runs in a process group of its own: PR_SET_PDEATHSIG, set by satsweep's
    launcher or setpriv (no preexec_fn: a vfork, not a fork of the whole interpreter) or else
    in the child."""
    if (
        way == "setpriv"
        and subprocess.run(
            ["setpriv", "--pdeathsig", "KILL", "--", "true"], capture_output=True
        ).returncode
    ):
        pytest.skip("this host's setpriv cannot set the parent-death signal")
    if way == "launcher":  # what every run starts through, once setup.sh has built it
        assert program_module._dies_with_job() == (str(program_module.LAUNCHER),)
    path = tmp_path / "sleeper"
    path.write_text(
        "#!/bin/sh\n"
        f"[ \"$1\" = --describe ] && echo '{json.dumps(DESCRIBE)}' && exit 0\n"
        f"echo $$ > {tmp_path / 'pid'}; exec sleep 600\n"
    )
    path.chmod(0o755)
    job = subprocess.Popen([sys.executable, "-c", JOB, str(path), way])
    pid_file = tmp_path / "pid"
    deadline = time.monotonic() + 60
    while not (pid_file.is_file() and pid_file.read_text().strip()):
        assert job.poll() is None and time.monotonic() < deadline, "the program never started"
        time.sleep(0.05)
    pid = int(pid_file.read_text())
    assert Path(f"/proc/{pid}").exists()
    job.kill()
    job.wait()
    deadline = time.monotonic() + 10
    while _alive(pid):
        assert time.monotonic() < deadline, f"the program (pid {pid}) outlived its job"
        time.sleep(0.05)


def test_the_launcher_says_why_a_program_cannot_start(tmp_path):
    """A program that is not there, or not executable: the launcher's exit status is the
    shell's (127, 126) and its stderr names the program, which the run's failure keeps."""
    for path, status in [(tmp_path / "gone", 127), (tmp_path / "text", 126)]:
        path.parent.mkdir(exist_ok=True)
        if path.name == "text":
            path.write_text("not a program\n")
        proc = subprocess.run([program_module.LAUNCHER, path], capture_output=True, text=True)
        assert proc.returncode == status
        assert proc.stderr.startswith(f"satsweep-launch: cannot run {path}: ")
    usage = subprocess.run([program_module.LAUNCHER], capture_output=True, text=True)
    assert usage.returncode == 2 and usage.stderr.startswith("usage: satsweep-launch PROGRAM")


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] not in "ZX"
