"""Faults of programs that break the engine contract (issue 28, items 2, 6 and 9's results), run
through the real CLI into a temporary results folder: names that would take the store's or the
analysis' own columns or leave the store, a description changed under the same version, and
results that cannot be stored (integers beyond 64 bits, NaN, a missing field, a program that
sabotages its run's files, 100 MB of output)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from satsweep import cli
from satsweep.design import load_design
from tests.support.sweeps import MM1, mm1_design

#: The body of a hostile program; the test writes DESCRIBE, SUMMARIES (the summary of each
#: level, 1 first, as raw JSON text: NaN and 2^64 are not Python's to write), PRINT_MB, EXIT and
#: SABOTAGE above it.
BODY = r"""
import json
import os
import sys

if sys.argv[1:] == ["--describe"]:
    print(json.dumps(DESCRIBE))
    sys.exit(0)
given = dict(arg[2:].split("=", 1) for arg in sys.argv[1:])
kinds = {"int": int, "float": float, "string": str}
params = {
    p["name"]: kinds[p["type"]](given.get(p["name"], p["default"]))
    for p in DESCRIBE["parameters"]
}
block = "x" * 1023 + "\n"
for stream in (sys.stdout, sys.stderr):
    for _ in range(PRINT_MB * 1024):
        stream.write(block)
    stream.flush()
print("last words", file=sys.stderr)
if EXIT:
    sys.exit(EXIT)
out = given["out"]
if SABOTAGE:  # the run's file of a table becomes a folder: satsweep cannot store the run
    os.makedirs(os.path.join(os.path.dirname(out), "r1.samples.parquet"), exist_ok=True)
with open(out + ".tmp", "w") as f:
    f.write('{"params": %s, "summary": %s}' % (json.dumps(params), SUMMARIES[int(params.get("level", 1)) - 1]))
os.replace(out + ".tmp", out)
"""

SUMMARY = [
    {"name": "value", "type": "float", "help": "a value"},
    {"name": "count", "type": "int", "help": "a count"},
    {"name": "label", "type": "string", "help": "a label"},
]
DESCRIBE = {
    "name": "hostile",
    "version": "1.0",
    "parameters": [{"name": "level", "type": "int", "default": 1, "help": "a level"}],
    "summary": SUMMARY,
}
DESIGN = """\
study: hostile
program: ./hostile.py
factors:
  level: [1]
replications: 1
"""


def hostile(
    folder: Path,
    describe: dict | None = None,
    summary: str | list[str] = '{"value": 1.5, "count": 2, "label": "a"}',
    print_mb: int = 0,
    exit_code: int = 0,
    sabotage: bool = False,
) -> Path:
    """Writes the hostile program and a design of it into ``folder``; returns the design file.
    One run, or with a list of summaries one configuration per summary (level 1, 2, ...)."""
    summaries = [summary] if isinstance(summary, str) else summary
    program = folder / "hostile.py"
    program.write_text(
        "#!/usr/bin/env python3\n"
        f"DESCRIBE = {describe or DESCRIBE!r}\nSUMMARIES = {summaries!r}\n"
        f"PRINT_MB = {print_mb}\nEXIT = {exit_code}\nSABOTAGE = {sabotage}\n{BODY}"
    )
    program.chmod(0o755)
    design = folder / "hostile.yaml"
    levels = ", ".join(str(level) for level in range(1, len(summaries) + 1))
    design.write_text(DESIGN.replace("[1]", f"[{levels}]"))
    return design


def satsweep(command: str, design: Path, *args: str) -> int:
    return cli.main([command, str(design), "--results", str(design.parent / "results"), *args])


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def files(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (relative path -> sha256)."""
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): digest(p) for p in folder.rglob("*") if p.is_file()}


# -- item 2: names the store and the analysis use themselves -------------------------------

RESERVED = "reserved (satsweep uses it itself); reserved: study, config_id, replication, seed, run"


def _with(**changes: object) -> dict:
    return {**DESCRIBE, **changes}


def _parameter(name: str) -> dict:
    return _with(parameters=[{"name": name, "type": "int", "default": 1, "help": "p"}])


@pytest.mark.parametrize(
    ("describe", "said"),
    [
        (_parameter("config_id"), f"parameter 'config_id': the name is {RESERVED}"),
        (_parameter("replication"), f"parameter 'replication': the name is {RESERVED}"),
        (_parameter("host"), f"parameter 'host': the name is {RESERVED}"),
        (_parameter("Y"), "parameter 'Y': the name is reserved"),  # the analysis' response
        (_parameter("n_obs"), "parameter 'n_obs': the name is reserved"),
        (
            _with(summary=[*SUMMARY, {"name": "by_value", "type": "int", "help": "s"}]),
            f"summary field 'by_value': the name is {RESERVED}",
        ),
        (
            _with(summary=[*SUMMARY, {"name": "started_at", "type": "int", "help": "s"}]),
            "summary field 'started_at': the name is reserved",
        ),
        (
            _with(summary=[*SUMMARY, {"name": "LEVEL", "type": "int", "help": "s"}]),
            "summary field 'LEVEL' is also a parameter's name",
        ),
        (
            _with(tables={"t": [{"name": "replication", "type": "int", "help": "c"}]}),
            "column 'replication' of table 't': the name is reserved (satsweep uses it itself); "
            "reserved: study, config_id, replication, by_value, cell_id, position, row_id",
        ),
        (
            _with(tables={"../../escaped": [{"name": "c", "type": "int", "help": "c"}]}),
            "table '../../escaped' is not a table name; allowed: letters, digits and _",
        ),
        (_with(tables={"Runs": []}), "table 'Runs': the name is reserved"),
        (
            _with(tables={"t": [], "T": []}),
            "table 'T' is declared twice (case does not count)",
        ),
    ],
    ids=[
        "parameter config_id",
        "parameter replication",
        "parameter host",
        "parameter Y",
        "parameter n_obs",
        "summary by_value",
        "summary started_at",
        "summary like a parameter",
        "table column replication",
        "table name leaving the store",
        "table Runs",
        "tables t and T",
    ],
)
def test_a_description_taking_a_reserved_name_is_refused(tmp_path, capsys, describe, said):
    """A parameter named like a key or provenance column overwrote it (8 rows, 2 keys); a table
    named ../../x wrote its Parquet file outside the store. Now --describe is refused: exit 2,
    one line naming the field and the reserved names, nothing written anywhere."""
    design = hostile(tmp_path, describe)
    before = files(tmp_path)
    for command in ("plan", "status", "run"):
        assert satsweep(command, design) == 2, command
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1, err
        assert "allowed: one JSON object as docs/engine-contract.md describes" in err
    assert files(tmp_path) == before  # no results folder, no escaped.parquet beside it


# -- item 6: a changed description under the same version ----------------------------------

TOY = mm1_design()


@pytest.fixture(scope="module")
def stored_toy(tmp_path_factory) -> Path:
    """A folder with a copy of the M/M/1 example, a design of it and its store, run once."""
    folder = tmp_path_factory.mktemp("stored")
    (folder / "mm1.py").write_text(MM1.read_text())
    (folder / "mm1.py").chmod(0o755)
    (folder / "toy.yaml").write_text(TOY)
    assert satsweep("run", folder / "toy.yaml", "--cores", "2") == 0
    return folder


def edited_toy(stored: Path, tmp_path: Path, old: str, new: str) -> Path:
    """A copy of the stored toy study whose program's text has ``old`` replaced by ``new``."""
    subprocess.run(["cp", "-a", f"{stored}/.", str(tmp_path)], check=True)
    program = tmp_path / "mm1.py"
    text = program.read_text()
    assert text.count(old) == 1, old
    program.write_text(text.replace(old, new))
    return tmp_path / "toy.yaml"


SERVED = '{"name": "served", "type": "int"'
MEAN_WAIT = '{"name": "mean_wait", "type": "float", "unit": "s", '
CUSTOMERS = '"name": "customers",\n        "type": "int",'
WAIT = '{"name": "wait", "type": "float", "unit": "s", '


@pytest.mark.slow
@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        (SERVED, SERVED.replace("int", "string"), "summary field served: int -> string"),
        (MEAN_WAIT, MEAN_WAIT.replace('"s"', '"ms"'), "summary field mean_wait: unit s -> ms"),
        (
            '        {"name": "max_wait"',
            '        {"name": "min_wait", "type": "float", "help": "new"},\n'
            '        {"name": "max_wait"',
            "summary field min_wait added",
        ),
        (
            '        {"name": "max_wait", "type": "float", "unit": "s", "help": "longest '
            'waiting time"},\n',
            "",
            "summary field max_wait removed",
        ),
        (CUSTOMERS, CUSTOMERS.replace("int", "float"), "parameter customers: int -> float"),
        (WAIT, WAIT.replace("float", "int"), "column of table waits wait: float -> int"),
        ('"tables": {', '"tables": {"extra": [],', "table extra added"),
    ],
    ids=[
        "field retyped",
        "unit",
        "field added",
        "field removed",
        "parameter retyped",
        "table column retyped",
        "table added",
    ],
)
def test_a_changed_description_of_the_same_version_is_refused(
    stored_toy, tmp_path, capsys, old, new, said
):
    """A summary field turned int -> string made every compaction fail while status said all
    was well; an added or removed field became silent NULLs; design.json was overwritten.
    Now plan, status and run refuse it (exit 2) naming what changed, and nothing in the store
    changes; a change that stores no value is taken."""
    toy = edited_toy(stored_toy, tmp_path, old, new)
    store = tmp_path / "results" / "toy"
    before = files(store)
    for command in ("plan", "status", "run"):
        assert satsweep(command, toy) == 2, command
        err = capsys.readouterr().err
        assert (
            f"program: mm1 1.0's description changed since the runs in {store} were made ({said}"
        ) in err, err
        assert "allowed: a new version of the program (under another study name)" in err
        assert err.count("\n") == 1
    assert files(store) == before  # design.json and every table as they were
    # what stores no value (help, bounds, the cost hint) may change under one version
    program = tmp_path / "mm1.py"
    program.write_text(
        MM1.read_text()
        .replace('"help": "customers simulated"', '"help": "clients"')
        .replace('"maximum": 1000000,', '"maximum": 2000000,')
        .replace('"seconds": 2e-6', '"seconds": 3e-6')
    )
    assert satsweep("plan", toy) == 0


# -- item 9: results that cannot be stored --------------------------------------------------


#: Results that break the contract, each with the start of what its failed run's record says.
BROKEN = [
    (
        '{"value": 1.5, "count": 18446744073709551616, "label": "a"}',
        "summary: 'count' = an integer of 65 bits is too large; allowed: a 64-bit integer",
    ),
    (
        '{"value": 1' + "0" * 400 + ', "count": 2, "label": "a"}',
        "summary: 'value' = an integer of 1329 bits is too large; allowed: a 64-bit float",
    ),
    (
        '{"value": 1e999, "count": 2, "label": "a"}',
        "summary: 'value' = inf is too large; allowed: a 64-bit float, or null",
    ),
    (
        '{"value": NaN, "count": 2, "label": "a"}',
        "summary: 'value' is NaN, which JSON does not have; allowed: a number, or null",
    ),
    (
        '{"value": -Infinity, "count": 2, "label": "a"}',
        "summary: 'value' is -Infinity, which JSON does not have",
    ),
    (
        '{"value": 1.5, "label": "a"}',
        "summary: 'count' is missing; allowed: every declared field, null where it has no value",
    ),
    (
        '{"value": 1.5, "count": 2, "label": "\\ud800"}',
        "summary: 'label' = '\\ud800' is not Unicode text",
    ),
    (
        '{"value": 1.5, "count": 2, "label": "a", "x\\u0000": "' + "y" * 10**5 + '"}',
        "summary: 'x\\x00' is not declared by --describe",
    ),
    (
        '{"value": 1.5, "count": "' + "9" * 10**5 + '", "label": "a"}',
        "summary: 'count' = '" + "9" * 40 + "'... is not of type int",
    ),
]
BROKEN_NAMES = [
    "int beyond 2^64",
    "float beyond any float",
    "1e999",
    "NaN",
    "-Infinity",
    "missing field",
    "lone surrogate",
    "NUL in a name",
    "100 kB string for an int",
]


@pytest.mark.slow
def test_results_breaking_the_contract_are_failed_runs(tmp_path, capsys):
    """An integer beyond 2^63 crashed the job with no .failed.json (every rerun met it again as
    "missing"); NaN, Infinity and a missing field were stored as finished. Each is now a failed
    run whose record says which field and what class of value, in a few hundred characters;
    nothing of it is stored, and status counts it failed (not missing). One sweep, one
    configuration per broken result (level i prints the i-th)."""
    design = hostile(tmp_path, summary=[summary for summary, _ in BROKEN])
    assert satsweep("run", design, "--keep-going") == 1
    runs = tmp_path / "results" / "hostile" / "runs"
    for config in load_design(design).configurations:
        level = config.params["level"]
        (_, said), name = BROKEN[level - 1], BROKEN_NAMES[level - 1]
        record = json.loads((runs / config.config_id / "r1.failed.json").read_text())
        assert record["message"].startswith(f"result does not follow the contract: {said}"), name
        assert len(record["message"]) < 300, (name, record["message"])
    assert not list(runs.glob("*/r1.parquet")) and not list(runs.glob("*/r1.record.json"))
    capsys.readouterr()
    assert satsweep("status", design) == 1
    out = capsys.readouterr().out
    n = len(BROKEN)
    assert f"0 done, 0 damaged, 0 missing, {n} failed of {n} runs" in out


def test_a_nul_in_a_level_is_refused_before_anything_runs(tmp_path, capsys):
    """A NUL in a string level crashed the job ("embedded null byte"), leaving no .failed.json:
    no command line can pass it, so the design is refused."""
    describe = _with(parameters=[{"name": "level", "type": "string", "default": "a", "help": "l"}])
    design = hostile(tmp_path, describe)
    design.write_text(DESIGN.replace("[1]", '["a\\0b"]'))
    for command in ("plan", "run"):
        assert satsweep(command, design) == 2
        err = capsys.readouterr().err
        assert "factors.level: 'a\\x00b' holds a NUL character; allowed: a string without one" in (
            err
        ), err
    assert not (tmp_path / "results").exists()


@pytest.mark.slow
def test_a_run_satsweep_cannot_store_fails_with_its_reason(tmp_path, capsys):
    """Any error while a result becomes rows (here the program made the run's file of a table
    a folder) fails the run with a .failed.json naming it, instead of crashing the job."""
    samples = [{"name": "i", "type": "int", "help": "a sample"}]
    design = hostile(tmp_path, {**DESCRIBE, "tables": {"samples": samples}}, sabotage=True)
    for attempt in range(2):
        assert satsweep("run", design, "--keep-going") == 1, attempt
        [failed] = (tmp_path / "results" / "hostile" / "runs").glob("*/r1.failed.json")
        message = json.loads(failed.read_text())["message"]
        assert message.startswith("satsweep could not run or store it: IsADirectoryError: "), (
            message
        )
    capsys.readouterr()
    assert satsweep("status", design) == 1
    assert "0 missing, 1 failed of 1 runs" in capsys.readouterr().out


PEAK = """\
import resource, subprocess, sys
code = subprocess.run(sys.argv[1:]).returncode
print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def _peak_kb(design: Path) -> tuple[int, int]:
    """`satsweep run` of the design in a process of its own: its exit code and the largest
    peak RSS (kB) of it and every process under it (Snakemake, the job, the program)."""
    command = [sys.executable, "-m", "satsweep.cli", "run", str(design), "--keep-going"]
    command += ["--results", str(design.parent / "results")]
    proc = subprocess.run(
        [sys.executable, "-c", PEAK, *command], capture_output=True, text=True, timeout=600
    )
    code, peak = proc.stdout.split()[-2:]
    return int(code), int(peak)


@pytest.mark.slow
def test_a_program_printing_100_mb_costs_no_memory(tmp_path):
    """A program that printed 100 MB was held in memory (the job's peak: 621 MB, 160 MB
    without the output). Now stdout is dropped and only the tail of stderr is kept: the peak
    does not grow with the output, and the failed run still records stderr's last lines."""
    quiet, loud = tmp_path / "quiet", tmp_path / "loud"
    quiet.mkdir()
    loud.mkdir()
    code, baseline = _peak_kb(hostile(quiet, exit_code=3))
    assert code == 1
    code, peak = _peak_kb(hostile(loud, print_mb=100, exit_code=3))
    assert code == 1
    assert peak < baseline + 40_000, (baseline, peak)  # kB; 100 MB each way held: +460 MB
    [failed] = (loud / "results" / "hostile" / "runs").glob("*/r1.failed.json")
    record = json.loads(failed.read_text())
    assert record["returncode"] == 3
    lines = record["stderr_tail"].splitlines()
    assert lines[-1] == "last words" and lines[-2] == "x" * 1023 and len(lines) == 20
