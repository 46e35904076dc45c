"""The command line as a user meets it (issue 34, "The CLI"): one way to name a study, one
spelling per option, the studies of a results folder, what is said about missing runs,
--version, the cores a process may use, and `satsweep sql`'s output for shells and narrow
terminals. The stores are made by simulate_run (no Snakemake: the fast tier)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from satsweep import cli
from satsweep.cluster import submit
from satsweep.analysis import sql as analysis_sql
from satsweep.design import DesignError, load_design
from satsweep.store import Store
from satsweep.workflow import run as sweep
from satsweep.workflow import usable_cores
from satsweep.workflow.cores import cgroup_cpu_max_files
from satsweep.workflow.jobs import simulate_run
from tests.support import REPO
from tests.support.sweeps import MM1
from tests.support.cli import run_cli as main

TOY = """\
study: toy
program: {program}
factors:
  load: [0.3, 0.6]
fixed:
  customers: 20
replications: 1
"""


def stored_toy(tmp_path: Path, done: int, program: Path = MM1) -> tuple[Path, Path]:
    """The toy design (2 runs of mm1) in tmp_path, recorded in tmp_path/results with its
    first ``done`` runs made and compacted: the design file and the results folder."""
    toy = tmp_path / "toy.yaml"
    toy.write_text(TOY.format(program=program))
    results = tmp_path / "results"
    design = load_design(toy)
    store = Store.of(design, results)
    design = store.bind(design)
    store.record(design)
    for run in list(design.runs())[:done]:
        assert simulate_run(design, run, store) is None
    if done:
        store.collect(design)
    return toy, results


def help_of(command: str) -> str:
    """`satsweep COMMAND --help`, without its exit."""
    subparsers = next(
        a for a in cli.build_parser()._actions if isinstance(a, argparse._SubParsersAction)
    )
    return subparsers.choices[command].format_help()


# -- one way to name a study -------------------------------------------------------------------


def test_status_and_plan_take_the_study_name_or_its_design_file(tmp_path, capsys):
    toy, results = stored_toy(tmp_path, done=1)
    said = "toy: 1 done, 0 damaged, 1 missing, 0 failed of 2 runs"
    for study in (toy, "toy"):
        code, out, _ = main(capsys, "status", study, "--results", results)
        assert code == 3 and out.startswith(said), out
        code, out, _ = main(capsys, "plan", study, "--results", results)
        assert code == 0 and "2 runs; 1 done, 1 to run" in out.replace("\n", " "), out


def test_a_study_that_exists_nowhere_is_told_with_the_studies_that_do(tmp_path, capsys):
    _, results = stored_toy(tmp_path, done=1)
    listed = f"no file and no study named 'nosuch' in {results}; allowed: a "
    commands = [
        ("run", "nosuch"), ("plan", "nosuch"), ("status", "nosuch"), ("submit", "nosuch"),
        ("analyze", "nosuch"), ("report", "nosuch"), ("sql", "nosuch", "SELECT 1"),
        ("sql", "--study", "nosuch", "SELECT 1"),
    ]  # fmt: skip
    for command in commands:
        code, _, err = main(capsys, *command, "--results", results)
        assert code == 2, command
        assert listed in err and err.rstrip().endswith(": toy"), (command, err)
    empty = tmp_path / "empty"
    code, _, err = main(capsys, "status", "nosuch", "--results", empty)
    assert code == 2 and "(none yet: `satsweep run DESIGN.yaml` makes one)" in err


def test_run_by_name_reads_the_design_file_its_store_recorded(tmp_path, capsys):
    toy, results = stored_toy(tmp_path, done=1)
    assert json.loads((results / "toy" / "design.json").read_text())["source"] == str(toy)
    moved = tmp_path / "elsewhere.yaml"
    shutil.move(toy, moved)
    code, _, err = main(capsys, "run", "toy", "--results", results)
    assert code == 2 and f"study 'toy': its design file {toy} is gone" in err, err


def test_analyze_and_report_take_a_design_file_and_say_which_runs_are_missing(tmp_path, capsys):
    toy, results = stored_toy(tmp_path, done=1)
    warning = (
        "warning: 1 of 2 runs of study 'toy' are missing or failed (0 failed): see `satsweep "
        "status toy`"
    )
    for study in ("toy", toy):
        code, _, err = main(capsys, "analyze", study, "--results", results, "--factors", "load")
        assert code == 2 and err.startswith(f"satsweep analyze: {warning}"), err
        assert err.index(warning) < err.index("satsweep analyze: error:")
    code, _, err = main(capsys, "report", "toy", "--results", results)
    assert err.startswith(f"satsweep report: {warning}"), err


def test_analyze_and_report_spell_responses_alike(tmp_path, capsys):
    """--responses in both; analyze's old --response still works, and means the same."""
    table = tmp_path / "runs.csv"
    table.write_text("a,b,y\nlo,1,1.0\nhi,1,2.0\nlo,2,1.5\nhi,2,3.0\n")
    argv = ("analyze", table, "--factors", "a,b", "--json")
    code, new, _ = main(capsys, *argv, "--responses", "y")
    assert code == 0
    code, old, _ = main(capsys, *argv, "--response", "y")
    assert code == 0 and old == new
    for command in ("analyze", "report"):
        out = help_of(command)
        assert "--responses NAMES" in out and "--response " not in out, command


# -- satsweep studies --------------------------------------------------------------------------


def test_studies_lists_each_study_with_its_runs_size_and_last_change(tmp_path, capsys):
    _, results = stored_toy(tmp_path, done=1)
    (results / "old").mkdir()
    pq.write_table(pa.table({"y": [1.0]}), results / "old" / "runs.parquet")
    (results / "not-a-study").mkdir()
    code, out, _ = main(capsys, "studies", "--results", results)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == [
        "study", "program", "runs", "done", "failed", "missing", "size", "changed", "(UTC)",
    ]  # fmt: skip
    assert lines[1].split()[:6] == ["old", "(no", "design.json)", "?", "?", "?"]
    assert lines[2].split()[:6] == ["toy", "mm1", "2", "1", "0", "1"], lines
    assert len(lines) == 3
    code, out, _ = main(capsys, "studies", "--results", results, "--json")
    toy = json.loads(out)[1]
    assert (toy["study"], toy["runs"], toy["done"], toy["missing"]) == ("toy", 2, 1, 1)
    assert toy["bytes"] > 0 and toy["changed"].endswith("+00:00")


def test_list_is_studies_and_a_mistyped_command_is_told_the_nearest(tmp_path, capsys):
    _, results = stored_toy(tmp_path, done=1)
    code, studies, _ = main(capsys, "studies", "--results", results)
    assert code == 0
    code, listed, _ = main(capsys, "list", "--results", results)
    assert code == 0 and listed == studies and "toy" in listed
    for typed, near in (("lst", "list"), ("studes", "studies"), ("reprot", "report")):
        with pytest.raises(SystemExit) as exit_:
            cli.main([typed, "--results", str(results)])
        assert exit_.value.code == 2
        err = capsys.readouterr().err.splitlines()[-1]
        assert err.startswith(f"satsweep: error: unknown command '{typed}'; allowed: "), err
        assert f"did you mean `satsweep {near}`" in err
    with pytest.raises(SystemExit):
        cli.main(["xyzzy"])
    assert "did you mean" not in capsys.readouterr().err  # nothing near: the list alone


def test_plan_estimates_a_sweep_before_any_run_by_the_programs_cost_hint(tmp_path, capsys):
    """mm1 declares 2e-6 core-seconds per customer: 2 runs of 10^6 customers, 2 s each."""
    toy = tmp_path / "toy.yaml"
    toy.write_text(TOY.format(program=MM1).replace("customers: 20", "customers: 1000000"))
    code, out, _ = main(capsys, "plan", toy, "--results", tmp_path / "results", "--cores", "2")
    assert code == 0
    assert (
        "estimated cost: 0:00:02 on 2 cores (the program's cost hint; no finished run to "
        "measure yet)"
    ) in " ".join(out.split()), out


# -- a rebuilt program of the same version ------------------------------------------------------


def test_a_rebuilt_program_of_the_same_version_is_warned_of_with_both_hashes(
    tmp_path, capsys, monkeypatch
):
    program = tmp_path / "mm1.py"
    program.write_text(MM1.read_text())
    program.chmod(0o755)
    toy, results = stored_toy(tmp_path, done=1, program=program)
    design = load_design(toy)
    store = Store.of(design, results)
    old = design.executable.sha256
    assert store.other_builds(design) == {}
    program.write_text(MM1.read_text() + "\n# rebuilt\n")  # another binary, the same version
    design = store.bind(load_design(toy))
    new = design.executable.sha256
    assert store.other_builds(design) == {old: 1}
    said: list[str] = []
    sweep.warn_rebuilt(design, store, said.append)
    assert len(said) == 1 and f"has sha256 {new}" in said[0], said
    assert f"another build of the same version (sha256 {old})" in said[0]

    # submit warns as run does (Slurm refused here: nothing is submitted)
    def refused(*args, **kwargs):
        raise submit.SubmitError("no Slurm in this test")

    monkeypatch.setattr(submit, "submit", refused)
    code, _, err = main(capsys, "submit", "toy", "--results", results)
    assert code == 2 and "no Slurm in this test" in err
    assert f"has sha256 {new}" in err and f"(sha256 {old})" in err, err


# -- a program named without ./ -----------------------------------------------------------------


def test_a_program_beside_the_design_named_without_dot_slash_is_suggested(tmp_path):
    shutil.copy(MM1, tmp_path / "t1.py")
    design = tmp_path / "t1.yaml"
    design.write_text(TOY.format(program="t1.py"))
    with pytest.raises(DesignError, match=r"did you mean \./t1\.py\?"):
        load_design(design)


# -- --version and --cores ----------------------------------------------------------------------


def test_version_prints_satsweep_python_duckdb_snakemake_the_engines_and_the_compiler(
    capsys, monkeypatch, tmp_path
):
    from satsweep.engine.ns3 import ns3_version

    # an OMNeT++ and INET tree as their files say their versions, and a compiler that is not
    (tmp_path / "omnetpp").mkdir()
    (tmp_path / "omnetpp" / "Version").write_text("omnetpp-6.1\n")
    defs = tmp_path / "inet" / "src" / "inet" / "common" / "INETDefs.h"
    defs.parent.mkdir(parents=True)
    defs.write_text("#define INET_VERSION        0x0405\n#define INET_PATCH_LEVEL    0x04\n")
    monkeypatch.setenv("OMNETPP_ROOT", str(tmp_path / "omnetpp"))
    monkeypatch.setenv("INET_ROOT", str(tmp_path / "inet"))
    monkeypatch.setenv("CXX", str(tmp_path / "no-such-c++"))
    with pytest.raises(SystemExit) as stop:
        cli.main(["--version"])
    assert stop.value.code == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == [
        "satsweep", "Python", "DuckDB", "Snakemake", "ns-3", "OMNeT++", "INET", "C++",
    ]  # fmt: skip
    assert lines[4] == f"ns-3 {ns3_version() or 'not installed'}"
    assert lines[5:] == [
        "OMNeT++ 6.1",
        "INET 4.5.4",
        "C++ compiler not installed",
    ]


def test_cores_all_is_the_cores_this_process_may_use(tmp_path):
    parser = cli.build_parser()
    assert parser.parse_args(["plan", "x.yaml", "--cores", "all"]).cores == usable_cores()
    assert parser.parse_args(["run", "x.yaml"]).cores == usable_cores()
    assert parser.parse_args(["run", "x.yaml", "--cores", "3"]).cores == 3
    with pytest.raises(SystemExit):
        parser.parse_args(["run", "x.yaml", "--cores", "some"])


def test_usable_cores_follows_the_affinity_mask():
    """A child pinned to CPU 0 (as `taskset -c 0` does) may use one core."""
    script = (
        "import os; os.sched_setaffinity(0, {0}); from satsweep.workflow import usable_cores; "
        "print(usable_cores(cpu_max_files=[], environ={}))"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.strip() == "1"
    assert usable_cores(cpu_max_files=[], environ={}) == len(os.sched_getaffinity(0))


def test_usable_cores_keeps_to_the_cgroup_cpu_quota(tmp_path):
    affinity = len(os.sched_getaffinity(0))
    cpu_max = tmp_path / "cpu.max"
    for text, cores in (("max 100000", affinity), ("50000 100000", 1), ("100000 100000", 1),
                        ("150000 100000", min(affinity, 2)), ("garbage", affinity)):  # fmt: skip
        cpu_max.write_text(text + "\n")
        assert usable_cores(cpu_max_files=[cpu_max], environ={}) == cores, text
    # the quota of a cgroup above the process's counts too
    root = tmp_path / "cgroup"
    (root / "slice" / "job").mkdir(parents=True)
    (root / "slice" / "cpu.max").write_text("100000 100000\n")
    (root / "slice" / "job" / "cpu.max").write_text("max 100000\n")
    proc = tmp_path / "proc-cgroup"
    proc.write_text("0::/slice/job\n")
    files = cgroup_cpu_max_files(proc, root)
    assert files[:2] == [root / "slice" / "job" / "cpu.max", root / "slice" / "cpu.max"]
    assert usable_cores(cpu_max_files=files, environ={}) == 1
    proc.write_text("1:cpu:/\n")  # cgroup v1 only: no quota read
    assert cgroup_cpu_max_files(proc, root) == []


def test_usable_cores_keeps_to_the_slurm_allocation():
    affinity = len(os.sched_getaffinity(0))
    assert usable_cores(cpu_max_files=[], environ={"SLURM_CPUS_ON_NODE": "1"}) == 1
    assert usable_cores(cpu_max_files=[], environ={"SLURM_CPUS_PER_TASK": "1"}) == 1
    assert usable_cores(cpu_max_files=[], environ={"SLURM_CPUS_ON_NODE": "999"}) == affinity
    assert usable_cores(cpu_max_files=[], environ={"SLURM_CPUS_PER_TASK": "x"}) == affinity


# -- satsweep sql --------------------------------------------------------------------------------


def wide_store(results: Path, columns: int = 55) -> None:
    """A study 'wide' whose runs have ``columns`` columns (barakat's runs have 55)."""
    store = results / "wide"
    store.mkdir(parents=True)
    data = {"config_id": ["c1"], "replication": [1]}
    data |= {f"field_{i:02}": [float(i)] for i in range(columns - 2)}
    pq.write_table(pa.table(data), store / "runs.parquet")


def test_sql_takes_the_study_before_the_query_or_as_study(tmp_path, capsys):
    toy, results = stored_toy(tmp_path, done=1)
    wide_store(results)
    query = "SELECT count(*) AS n FROM runs"
    for study in (["toy"], ["--study", "toy"], [toy]):
        code, out, _ = main(capsys, "sql", "--results", results, "--csv", *study, query)
        assert (code, out) == (0, "n\n1\n"), study
    code, out, _ = main(capsys, "sql", "toy", "--csv", query, "--results", results)
    assert (code, out) == (0, "n\n1\n")  # options between STUDY and the query
    code, out, _ = main(capsys, "sql", "--results", results, "--csv", query)  # every study
    assert (code, out) == (0, "n\n2\n")
    code, _, err = main(capsys, "sql", "--results", results, "--study", "toy", "toy", query)
    assert code == 2 and "the study is given twice" in err


def test_sql_csv_rows_end_in_lf_for_shells(tmp_path):
    results = tmp_path / "results"
    wide_store(results)
    script = (
        '"$PY" -m satsweep.cli sql --results "$R" --csv "SELECT 8 AS n FROM runs" >out.csv\n'
        'n=$(tail -n 1 out.csv); [ "$n" = 8 ]'
    )
    env = {**os.environ, "PY": sys.executable, "R": str(results)}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out.csv").read_bytes() == b"n\n8\n"  # never "8\r"


def test_sql_prints_a_wide_result_in_a_narrow_terminal_one_record_per_block(
    tmp_path, capsys, monkeypatch
):
    results = tmp_path / "results"
    wide_store(results)
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = main(capsys, "sql", "--results", results, "wide", "SELECT * FROM runs")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "-[ RECORD 1 ]-"
    assert "config_id   | c1" in lines and "field_52    | 52" in lines, lines
    assert len(lines) == 1 + 55 and max(len(line) for line in lines) <= 80
    code, out, _ = main(capsys, "sql", "--results", results, "SELECT field_01, field_02 FROM runs")
    assert code == 0 and "┃ field_01 ┃ field_02 ┃" in out  # a narrow result stays a table


def test_sql_help_says_where_to_start():
    help_text = " ".join(help_of("sql").split())
    assert "SHOW TABLES" in help_text and "DESCRIBE runs" in help_text
    assert "t_quantile(p, df)" in help_text


def test_t_quantile_in_sql_for_an_interval_of_a_mean(tmp_path, capsys):
    results = tmp_path / "results"
    wide_store(results)
    query = "SELECT t_quantile(0.95, 4) AS t, t_quantile(0.95, 0) AS none, t_quantile(NULL, 3) AS n"
    code, out, _ = main(capsys, "sql", "--results", results, "--json", query)
    assert code == 0
    assert json.loads(out) == [{"t": pytest.approx(2.131846786326649), "none": None, "n": None}]
    con = analysis_sql.connect()  # the analysis's connection: the SQL files may use it too
    assert con.execute("SELECT t_quantile(0.975, 1)").fetchone()[0] == pytest.approx(12.7062047)


#: mm1.py's description, but every run fails.
BROKEN = f"""\
#!{sys.executable}
import os, sys
if "--describe" in sys.argv:
    os.execv(sys.executable, [sys.executable, {str(MM1)!r}, *sys.argv[1:]])
sys.exit("broken on purpose")
"""


@pytest.mark.slow
def test_run_names_keep_going_for_the_runs_a_failure_left_and_runs_a_study_by_name(
    tmp_path, capsys
):
    program = tmp_path / "broken.py"
    program.write_text(BROKEN)
    program.chmod(0o755)
    toy = tmp_path / "toy.yaml"
    toy.write_text(TOY.replace("[0.3, 0.6]", "[0.3, 0.6, 0.9]").format(program=program))
    results = tmp_path / "results"
    code, _, err = main(capsys, "run", toy, "--results", results, "--cores", "1")
    assert code == 1
    assert "toy: 0/3 runs done (0 now, 0 before), 1 failed, 2 not run" in err, err
    assert "the first failure stopped the sweep: --keep-going runs the 2 others despite it" in err
    code, _, err = main(capsys, "run", "toy", "--results", results, "--keep-going")  # by name
    assert code == 1
    assert "toy: 0/3 runs done (0 now, 0 before), 3 failed, 0 not run" in err, err
    assert "--keep-going runs" not in err


def test_run_and_plan_share_one_cores_option():
    """--cores is defined once (a parent parser): run's and plan's are the same argument."""
    subparsers = next(
        a for a in cli.build_parser()._actions if isinstance(a, argparse._SubParsersAction)
    )
    found = [
        [a for a in subparsers.choices[c]._actions if "--cores" in a.option_strings]
        for c in ("run", "plan")
    ]
    assert [len(f) for f in found] == [1, 1] and found[0][0] is found[1][0]
    assert "or all" in found[0][0].help


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_bash_completion_completes_commands_options_and_choices(tmp_path, capsys, monkeypatch):
    """`satsweep completion bash` is a script that, sourced in a real bash, completes a
    command (verify), an option of a command (--results), an option's choices and a STUDY by
    the studies' names."""
    assert cli.main(["completion", "bash"]) == 0
    script = tmp_path / "satsweep.bash"
    script.write_text(capsys.readouterr().out)

    def complete(*words: str) -> list[str]:
        line = " ".join(words)
        shell = (
            f"source {script}; COMP_WORDS=({' '.join(repr(w) for w in words)}); "
            f"COMP_CWORD={len(words) - 1}; COMP_LINE={line!r}; COMP_POINT={len(line)}; "
            '_shtab_satsweep; printf "%s\\n" "${COMPREPLY[@]}"'
        )
        out = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, check=True)
        return out.stdout.split()

    assert complete("satsweep", "ver") == ["verify"]
    assert complete("satsweep", "status", "--res") == ["--results"]
    assert complete("satsweep", "completion", "") == ["bash", "zsh", "tcsh"]

    # a STUDY: the studies of --results DIR (else $SATSWEEP_RESULTS, else ./results), then
    # design files and folders; a folder that is no study is offered as a folder only
    results = tmp_path / "res"
    for name in ("goyal98-quick", "barakat"):
        (results / name).mkdir(parents=True)
        (results / name / "design.json").write_text("{}")
    (results / "notes").mkdir()
    (tmp_path / "goyal98-full.yaml").write_text("")
    monkeypatch.chdir(tmp_path)
    assert complete("satsweep", "report", "--results", str(results), "goy") == [
        "goyal98-quick",
        "goyal98-full.yaml",
    ]
    for command in ("status", "analyze", "run", "sql"):
        assert "barakat" in complete("satsweep", command, "--results", str(results), ""), command
    assert "notes" not in complete("satsweep", "status", "--results", str(results), "")
    monkeypatch.setenv("SATSWEEP_RESULTS", str(results))
    assert complete("satsweep", "status", "bar") == ["barakat"]


def test_the_command_ends_with_its_exit_code_and_everything_it_printed(tmp_path):
    """The `satsweep` program ends without Python's teardown: its exit code is main's, and a
    pipe gets the whole of its output (a plan of 1000 runs, beyond the stream's buffer)."""
    design = tmp_path / "wide.yaml"
    design.write_text(
        TOY.format(program=MM1).replace("[0.3, 0.6]", str([k / 1001 for k in range(1, 1001)]))
    )
    results = str(tmp_path / "results")
    planned = subprocess.run(
        [sys.executable, "-m", "satsweep.cli", "plan", str(design), "--results", results],
        capture_output=True,
        text=True,
    )
    assert planned.returncode == 0, planned.stderr
    assert len(planned.stdout) > 1 << 14
    rows = [line for line in planned.stdout.splitlines() if line.startswith("│ ")]
    assert len(rows) == 1000 and rows[-1].startswith("│ 1000 ")
    assert "estimated cost:" in planned.stdout.split(rows[-1])[1]  # said after the table
    status = subprocess.run(
        [sys.executable, "-m", "satsweep.cli", "status", str(design), "--results", results],
        capture_output=True,
        text=True,
    )
    assert status.returncode == 3  # runs missing
    assert "0 done" in status.stdout and "1000 missing" in status.stdout
