"""Inputs that made satsweep use memory or time without bound, or end in a traceback (issue 54,
items 4, 5, 6, 8, 9, 10, 11, 13 and 15): fractions of many factors, an ini's iteration
variable of 10^9 levels or an endless ini file, long `configurations:` and `exclude:` lists, a
damaged design.json, a STUDY argument of random bytes, the report of a saturated fraction and
a forged records' cache. Memory under an RLIMIT_AS in a subprocess, times as generous bounds."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from satsweep import cli
from satsweep.design import Design
from satsweep.design.fraction import MAX_FACTORS, Fraction, FractionError
from satsweep.engine.omnetpp_import import MAX_INI_BYTES, MAX_LEVELS
from tests.support import REPO
from tests.support.sweeps import MM1, stored_study

CLI = "import sys; from satsweep import cli; sys.exit(cli.main(sys.argv[1:]))"
EFFECTS = REPO / "tests" / "programs" / "effects.py"

#: A contract program of 40 integer parameters p0..p39: designs of many factors.
MANY = REPO / "tests" / "programs" / "many.py"


def _limit_memory() -> None:  # in the child: 1 GiB of address space, enough for satsweep
    resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))


def satsweep(
    *argv: str, cwd: Path, timeout: float = 120
) -> tuple[subprocess.CompletedProcess, float]:
    """`satsweep ARGV` in a child under a 1 GiB memory limit, and its wall time."""
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-c", CLI, *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        preexec_fn=_limit_memory,
    )
    return proc, time.monotonic() - start


def one_line(proc: subprocess.CompletedProcess, command: str) -> str:
    """The error of a child `satsweep COMMAND`: exit code 2, one line, no traceback."""
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.startswith(f"satsweep {command}: error: "), proc.stderr[-2000:]
    assert proc.stderr.count("\n") == 1, proc.stderr[-2000:]
    return proc.stderr


@pytest.fixture
def many() -> Path:
    return MANY


def _factors(k: int) -> str:
    return "factors:\n" + "".join(f"  p{i}: [0, 1]\n" for i in range(k))


# -- item 4: fractions of many factors ----------------------------------------------------


@pytest.mark.parametrize(
    "fraction",
    [
        "fraction: {resolution: 3}\n",
        "fraction: {resolution: 4}\n",
        # 2^(40-34): each generated factor from a word of the six base factors
        "fraction:\n  generators:\n"
        + "".join(f"    - 'p{6 + j} = p0:p{1 + j % 5}'\n" for j in range(34)),
    ],
)
def test_a_fraction_of_40_factors_is_refused_in_one_line_within_a_memory_limit(
    tmp_path, many, fraction
):
    """It reached 3.7-4 GB in 11-14 s: the defining relation (2^p words) was built whole."""
    design = tmp_path / "big.yaml"
    design.write_text(f"study: big\nprogram: {many}\nreplications: 1\n{_factors(40)}{fraction}")
    proc, took = satsweep("plan", str(design), "--results", str(tmp_path / "r"), cwd=tmp_path)
    err = one_line(proc, "plan")
    assert f"fraction: 40 factors; allowed: at most {MAX_FACTORS} two-level factors" in err
    assert took < 30


def test_generators_of_the_largest_fraction_are_checked_word_by_word(tmp_path, many):
    """19 generators of 20 factors, each aliasing two main effects: their 2^19 products are
    looked at one by one, and the message names their count, not each word."""
    gens = "".join(f"    - 'p{j} = p0'\n" for j in range(1, MAX_FACTORS))
    design = tmp_path / "aliased.yaml"
    design.write_text(
        f"study: aliased\nprogram: {many}\nreplications: 1\n{_factors(MAX_FACTORS)}"
        f"fraction:\n  generators:\n{gens}"
    )
    proc, took = satsweep("plan", str(design), "--results", str(tmp_path / "r"), cwd=tmp_path)
    err = one_line(proc, "plan")
    assert "give resolution 2 (defining relation of 524288 words)" in err and len(err) < 400
    assert took < 30


@pytest.mark.slow
def test_the_search_for_generators_is_bounded_up_to_the_largest_fraction():
    """Every resolution of 20 factors is found (or the full factorial taken) in bounded time:
    the slowest, resolution 6, took 6 s before the search checked words one by one."""
    names = [f"p{i}" for i in range(MAX_FACTORS)]
    from satsweep.design.fraction import choose_generators

    for resolution in (3, 4, 5, 6, 8, 12):
        start = time.process_time()
        fraction = choose_generators(names, resolution)
        assert fraction.resolution is None or fraction.resolution >= resolution
        assert time.process_time() - start < 20, resolution
    with pytest.raises(FractionError, match=f"at most {MAX_FACTORS} two-level factors"):
        Fraction.from_text([*names, "p20"], ["p20 = p0:p1:p2"])


# -- item 6: configurations: and exclude: ------------------------------------------------


def test_a_list_of_20000_configurations_is_read_in_linear_time():
    """`configurations:` of 20k entries took 114 s (each level looked up in a list)."""
    listed = [{"p0": i, "p1": i % 7, "p2": f"s{i % 1000}"} for i in range(20_000)]
    start = time.process_time()
    design = Design.model_validate(
        {"study": "listed", "program": "x", "replications": 1, "configurations": listed}
    )
    assert time.process_time() - start < 10
    assert [len(v) for v in design.factors.values()] == [20_000, 7, 1000]
    assert design.factors["p1"] == list(range(7)) and design.n_configurations == 20_000


def _exclusions(k: int, n: int) -> list[dict[str, object]]:
    """``n`` entries of ``exclude``, each a level of 8 of the ``k`` factors (a list of one for
    the first): each leaves out 1/256 of the configurations."""
    return [
        {f"p{(i + 2 * j) % k}": [i >> j & 1] if j == 0 else i >> j & 1 for j in range(8)}
        for i in range(n)
    ]


def test_exclude_costs_no_look_at_every_entry_per_configuration():
    """2^18 configurations less 340 entries are counted with one AND per named factor each
    (2^19 with 340 entries took more than 100 s)."""
    factors = {f"p{i}": [0, 1] for i in range(18)}
    start = time.process_time()
    design = Design.model_validate(
        {"study": "x", "program": "x", "replications": 1, "factors": factors,
         "exclude": _exclusions(18, 340)}
    )  # fmt: skip
    assert 0 < design.n_configurations < 2**18
    assert time.process_time() - start < 15


def test_exclude_leaves_what_no_entry_matches():
    factors = {f"p{i}": [0, 1] for i in range(10)}
    exclude = _exclusions(10, 40)
    design = Design.model_validate(
        {"study": "x", "program": "x", "replications": 1, "factors": factors, "exclude": exclude}
    )

    def excluded(point: dict[str, int]) -> bool:
        return any(
            all(point[n] in (v if isinstance(v, list) else [v]) for n, v in e.items())
            for e in exclude
        )

    bits = [[i >> (9 - j) & 1 for j in range(10)] for i in range(2**10)]
    every = [dict(zip(factors, b, strict=True)) for b in bits]
    kept = [{n: c.params[n] for n in factors} for c in design.iter_configurations()]
    assert kept == [p for p in every if not excluded(p)] and design.n_configurations == len(kept)


# -- items 5 and 9: satsweep import --------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "said"),
    ids=["1e9 levels", "a range of inf values", "a step away from the end", "levels listed"],
    argvalues=[
        ("${x=1..1000000000}", f"has more than {MAX_LEVELS} values"),
        ("${x=0..1e308 step 1e-300}", f"has more than {MAX_LEVELS} values"),
        ("${x=1..10 step -1}", "range '1..10 step -1' has no value"),
        ("${x=" + ",".join(map(str, range(MAX_LEVELS + 1))) + "}", f"{MAX_LEVELS + 1} levels"),
    ],
)
def test_an_iteration_variable_has_bounded_levels(tmp_path, value, said):
    """10^9 levels ran 40 s to a 3.9 GB MemoryError; a range that goes away from its end was
    a KeyError ('pop from an empty set')."""
    ini = tmp_path / "omnetpp.ini"
    ini.write_text(f"[Config S]\n**.x = {value}\n")
    proc, took = satsweep("import", str(ini), "--config", "S", "--no-trial", cwd=tmp_path)
    assert said in one_line(proc, "import")
    assert took < 30


def test_an_endless_ini_file_is_read_only_up_to_its_limit(tmp_path):
    """`import /dev/zero` reached 9.7 GB."""
    proc, took = satsweep("import", "/dev/zero", "--config", "S", "--no-trial", cwd=tmp_path)
    assert f"more than {MAX_INI_BYTES} bytes" in one_line(proc, "import")
    assert took < 30


def test_a_line_of_many_references_is_read_in_linear_time(tmp_path):
    """Each `${` scanned the rest of its line: 2 * 10^5 of them did not end in 100 s."""
    ini = tmp_path / "omnetpp.ini"
    ini.write_text("[Config S]\n**.x = " + "${a}" * 200_000 + "\n")
    assert ini.stat().st_size < MAX_INI_BYTES
    proc, took = satsweep("import", str(ini), "--config", "S", "--no-trial", cwd=tmp_path)
    assert "${a}: no such variable" in one_line(proc, "import")
    assert took < 30


# -- item 10: a STUDY argument that is no text --------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["report"],
        ["analyze", "{}", "--response", "y", "--factors", "a"],
        ["sql", "{}", "select 1"],
        ["archive", "-o", "{out}"],
        ["verify"],
    ],
)
@pytest.mark.parametrize("name", ["random.bin", "study.tar.gz"])
def test_a_study_argument_of_random_bytes_is_one_line(tmp_path, capsys, argv, name):
    """A UnicodeDecodeError traceback before."""
    path = tmp_path / name
    path.write_bytes(bytes([0x1F, 0x8B, 0x08, 0x00, 0xC9, 0xFF]) + os.urandom(3000))
    command, *rest = argv
    args = [a.format(path, out=tmp_path / "out.tar.gz") for a in rest]
    if not rest or command == "archive":
        args.insert(0, str(path))
    code = cli.main([command, *args, "--results", str(tmp_path / "results")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"satsweep {command}: error: {path}: "), err
    assert not (tmp_path / "out.tar.gz").exists()


# -- item 8: a design.json of another shape -------------------------------------------------


@pytest.fixture
def two_studies(tmp_path: Path) -> Path:
    """Two stored studies of mm1.py (toy and other, 2 runs each): the results folder."""
    for study in ("toy", "other"):
        results = stored_study(
            tmp_path,
            f"study: {study}\nprogram: {MM1}\nfactors: {{load: [0.3, 0.6]}}\n"
            "fixed: {customers: 20}\nreplications: 1\n",
        )
    return results


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        ({"design": "garbage"}, 'design is "garbage"; allowed: a mapping'),
        ({"program": "x"}, 'program is "x"; allowed: a mapping'),
        ({"design": {"program": ["x"]}}, 'design.program is ["x"]; allowed: a string'),
        ({"describe": 5}, "describe is 5; allowed: a mapping"),
        ([1, 2], "(top level) is [1, 2]; allowed: a mapping"),
    ],
)
def test_a_design_json_of_another_shape_is_left_out_or_one_line(two_studies, capsys, edit, said):
    """`studies` crashed for the whole folder (AttributeError: 'str' object has no attribute
    'get'), `plan`, `status`, `verify` and `report` of the study the same."""
    path = two_studies / "toy" / "design.json"
    recorded = json.loads(path.read_text())
    if isinstance(edit, dict):
        for key, value in edit.items():
            recorded[key] = {**recorded[key], **value} if isinstance(value, dict) else value
    else:
        recorded = edit
    path.write_text(json.dumps(recorded))
    results = ["--results", str(two_studies)]
    assert cli.main(["studies", "--json", *results]) == 0
    listed = {s["study"]: s for s in json.loads(capsys.readouterr().out)}
    assert listed["other"]["done"] == 2 and listed["other"]["problem"] is None
    assert listed["toy"]["done"] is None and said in listed["toy"]["problem"]
    for command in ("plan", "status", "verify", "report", "run"):
        assert cli.main([command, "toy", *results]) == 2, command
        err = capsys.readouterr().err  # verify says first what it does
        last = err.splitlines()[-1]
        assert last.startswith(f"satsweep {command}: error: {path}: ") and said in last, err
        assert err.count("error") == 1 and "Traceback" not in err, err


# -- item 13: what the records' cache trusts -----------------------------------------------


def test_a_record_replaced_and_its_cache_entry_forged_is_found_by_verify(two_studies, capsys):
    """The records' cache trusts its entries as satsweep wrote them (workflow/README.md,
    "Integrity"): a garbage record whose identity an edited cache gives is taken as its entry
    says by the quick look, and `status --verify` finds it, as it finds any forged file."""
    store = two_studies / "toy"
    cache = json.loads((store / "records-cache.json").read_text())
    key = sorted(cache["records"])[0]
    record = store / "runs" / key.split("/")[0] / f"{key.split('/')[1]}.record.json"
    record.write_text("garbage " * 20)
    stat = record.stat()
    cache["records"][key][:4] = [stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns]
    (store / "records-cache.json").write_text(json.dumps(cache))
    results = ["--results", str(two_studies)]
    assert cli.main(["status", "toy", "--verify", *results]) == 3
    assert f"damaged {key}: {record.name} is unreadable" in capsys.readouterr().out
    # the cache itself, unedited, is not fooled by the same record: its change time moved
    cache["records"][key][:4] = [stat.st_ino, stat.st_size, stat.st_mtime_ns, 0]
    (store / "records-cache.json").write_text(json.dumps(cache))
    assert cli.main(["status", "toy", *results]) == 3
    assert f"damaged {key}" in capsys.readouterr().out


# -- item 11: the report of a saturated fraction --------------------------------------------


@pytest.mark.slow
def test_the_report_of_a_saturated_fraction_has_no_intervals(tmp_path, capsys):
    """2^(4-1) with r = 1 leaves no error degree of freedom: the report ended in
    AttributeError ('NoneType' object has no attribute 'half_width')."""
    results = stored_study(
        tmp_path,
        f"study: sat\nprogram: {EFFECTS}\nreplications: 1\n"
        "factors: {a: [-1, 1], b: [-1, 1], c: [-1, 1], d: [-1, 1]}\n"
        "fraction: {generators: ['d = abc']}\n",
    )
    assert cli.main(["report", "sat", "--results", str(results)]) == 0, capsys.readouterr().err
    text = (results / "sat" / "report" / "report.md").read_text()
    assert "Intervals: none (one run per cell" in text
    assert "| a | 1 | 2 | n/a |  | a = b:c:d |" in text  # 2.0 exactly: no digits to show


@pytest.mark.parametrize("command", ["plan", "status", "verify", "compare"])
def test_an_endless_design_file_is_read_only_up_to_its_limit(command, capsys):
    """/dev/zero given as a design (`verify` was killed by the kernel, having read it whole):
    read up to MAX_DESIGN_BYTES, then one line, exit 2."""
    from satsweep.design.loading import MAX_DESIGN_BYTES
    from tests.support.cli import run_cli

    argv = [command, "/dev/zero", *(["/dev/zero"] if command == "compare" else [])]
    code, out, err = run_cli(capsys, *argv)
    assert code == 2, out + err
    assert f"more than {MAX_DESIGN_BYTES >> 20} MiB; allowed: a design file of at most" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
