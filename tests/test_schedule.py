"""The order and batching of a sweep's jobs (satsweep/workflow/schedule.py, by the program's
cost hint), and that Snakemake follows them."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from satsweep import cli
from satsweep.design import load_design
from satsweep.store import Store
from satsweep.workflow import run as sweep
from satsweep.workflow import jobs, schedule
from tests.support import REPO
from tests.support.sweeps import NORMAL

#: A program without a cost hint.
EFFECTS = REPO / "tests" / "programs" / "effects.py"

# every test plans or runs a design of satnet
pytestmark = pytest.mark.programs

QUICK = REPO / "sweeps" / "goyal98-quick.yaml"


def group_costs(design, plan: schedule.Schedule) -> list[float]:
    costs: dict[str, float] = {}
    for config in design.configurations:
        name = plan.group[config.config_id]
        costs[name] = costs.get(name, 0.0) + schedule.configuration_seconds(design, config)
    return [costs[name] for name in plan.group_sizes()]


def test_priorities_rank_the_longest_configurations_first():
    design = load_design(QUICK)
    plan = schedule.plan(design)
    assert sorted(plan.priority.values()) == list(range(1, 73))
    assert not plan.group  # no slots: no groups (local execution)
    by_link: dict[str, list[int]] = {}
    for config in design.configurations:
        by_link.setdefault(config.params["link"], []).append(plan.priority[config.config_id])
    assert min(by_link["wan"]) > max(by_link["meo"] + by_link["geo"])
    # equal estimates keep the order of the file
    wan = [c for c in design.configurations if c.params["link"] == "wan"]
    assert [plan.priority[c.config_id] for c in wan] == list(range(72, 48, -1))


def test_groups_shrink_and_cover_every_configuration_once():
    design = load_design(QUICK)
    plan = schedule.plan(design, slots=2)
    assert set(plan.group) == {c.config_id for c in design.configurations}
    sizes = plan.group_sizes()
    assert sum(sizes.values()) == 72
    costs = group_costs(design, plan)
    assert costs == sorted(costs, reverse=True)  # big groups first, small ones at the end
    total = sum(costs)
    assert costs[0] >= total / (schedule.FACTOR * 2)  # the first takes its share of the work
    assert all(c >= schedule.MIN_GROUP_SECONDS for c in costs[:-1])  # the last takes the rest
    # groups run in the order of their members' priorities: group 1 holds the longest
    first = [cid for cid, name in plan.group.items() if name == next(iter(sizes))]
    assert {plan.priority[cid] for cid in first} == set(range(72, 72 - len(first), -1))


def test_more_slots_make_smaller_groups_and_fixed_size_is_honoured():
    design = load_design(QUICK)
    assert len(schedule.plan(design, slots=8).group_sizes()) > len(
        schedule.plan(design, slots=2).group_sizes()
    )
    wide = schedule.plan(design, slots=64)
    assert max(group_costs(design, wide)) == pytest.approx(
        max(schedule.configuration_seconds(design, c) for c in design.configurations)
    )  # with slots to spare, the longest configurations run alone
    fixed = schedule.plan(design, slots=2, group_size=5)
    assert list(fixed.group_sizes().values()) == [5] * 14 + [2]
    assert len(fixed.group_sizes()) == math.ceil(72 / 5)


def test_remote_command_passes_the_slots_the_workflow_plans_groups_with():
    design = load_design(QUICK)
    remote = sweep.snakemake_command(
        QUICK, Path("/r"), Path("/r/q"), 2, False, sweep.Execution("ray", jobs=4)
    )
    assert remote[remote.index("--executor") + 1] == "ray"
    assert remote[remote.index("--cores") + 1] == "1"  # a group job asks for one CPU
    assert remote[remote.index("--jobs") + 1] == str(4 * (1 + sweep.QUEUED_PER_SLOT))
    config = sweep.workflow_config(QUICK, Path("/r"), 2, sweep.Execution("ray", jobs=4))
    assert config["slots"] == 4
    # Ray jobs start warm, so its groups may shrink further than other executors'.
    assert config["min_group_seconds"] == 4
    expected = schedule.plan(design, 4, None, schedule.min_group_seconds("ray")).group_sizes()
    assert len(expected) > len(schedule.plan(design, slots=4).group_sizes())

    slurm = sweep.workflow_config(QUICK, Path("/r"), 2, sweep.Execution("slurm", jobs=4))
    assert slurm["min_group_seconds"] == schedule.MIN_GROUP_SECONDS


def test_the_workflow_runs_each_group_as_one_job_of_one_process(tmp_path):
    """Through a remote executor the Snakefile makes one job of each group of the plan, whose
    one command runs all of the group's configurations (their manifests, in the plan's order):
    a dry run of the workflow with the configuration `satsweep run --executor ray` writes."""
    design = load_design(QUICK)
    store = Store.of(design, tmp_path)
    store.root.mkdir(parents=True)
    config = sweep.workflow_config(QUICK, tmp_path, 2, sweep.Execution("ray", jobs=4))
    (store.root / sweep.CONFIG_FILE).write_text(json.dumps(config))
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "--snakefile", str(sweep.SNAKEFILE),
         "--directory", str(store.root), "--configfile", str(store.root / sweep.CONFIG_FILE),
         "--cores", "1", "--dry-run", "--printshellcmds", "runs"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    commands = [line.split() for line in proc.stdout.splitlines() if "jobs simulate" in line]
    ran = [[Path(word).parent.name for word in c[c.index("simulate") + 2 : -3]] for c in commands]
    members = schedule.plan(design, 4, None, schedule.min_group_seconds("ray")).members()
    assert len(members) > 1 and sorted(ran) == sorted(members.values())


@pytest.mark.slow
def test_local_sweep_runs_the_longest_configuration_first(satnet, tmp_path):
    """One core, two configurations: the WAN one (second in the file, ~7x the estimate of the
    GEO one) starts first because of its priority, as its start time in the store shows."""
    design = tmp_path / "order.yaml"
    design.write_text(
        "study: order\nprogram: satnet\nfactors:\n  link: [geo, wan]\n"
        "fixed:\n  clients: 5\n  simTime: 5\nreplications: 1\n"
    )
    results = tmp_path / "results"
    assert cli.main(["run", str(design), "--results", str(results), "--cores", "1"]) == 0
    started = (
        duckdb.connect()
        .execute(
            "SELECT link FROM read_parquet(?) ORDER BY started_at",
            [str(results / "order" / "runs.parquet")],
        )
        .fetchall()
    )
    assert [link for (link,) in started] == ["wan", "geo"]


def test_snakemake_lists_the_environments_modules_once_per_sys_path(monkeypatch):
    """Each of Snakemake's plug-in registries lists every module on sys.path; through
    satsweep's entry point to Snakemake the listing is made once, and made again only if
    sys.path changes. Listings of given folders or prefixes are not kept."""
    from satsweep.workflow.snakemake_cli import _list_once

    calls = []

    def iter_modules(path=None, prefix=""):
        calls.append((path, prefix))
        return iter([f"{len(calls)}:{prefix}"])

    listing = _list_once(iter_modules)
    assert list(listing()) == ["1:"] and list(listing()) == ["1:"]
    assert list(listing(["somewhere"])) == ["2:"] and list(listing(prefix="p.")) == ["3:p."]
    monkeypatch.setattr(sys, "path", [*sys.path, "elsewhere"])
    assert list(listing()) == ["4:"] and list(listing()) == ["4:"]
    assert calls == [(None, ""), (["somewhere"], ""), (None, "p."), (None, "")]


@pytest.mark.parametrize("argv", [[], ["--report", "report.html"], ["--reporte", "html"]])
def test_snakemake_imports_its_html_report_only_when_asked_for_one(argv):
    """Snakemake's built-in HTML report (docutils and more) is registered, and imported, when
    the command line asks for a report, abbreviated or not; else it is left out."""
    probe = (
        "import sys\n"
        "from satsweep.workflow.snakemake_cli import _report_only_when_asked\n"
        f"_report_only_when_asked({argv!r})\n"
        "from snakemake.cli import get_argument_parser\n"
        f"args = get_argument_parser().parse_args([*{argv!r}, '--cores', '1'])\n"
        "from snakemake_interface_report_plugins.registry import ReportPluginRegistry\n"
        "print('snakemake.report' in sys.modules, ReportPluginRegistry().get_registered_plugins())\n"
    )
    said = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split(maxsplit=1)
    asked = bool(argv)
    assert said[0] == str(asked)
    assert ("'html'" in said[1]) == asked


def normal_design(folder: Path, replications: int, delay: float, program: Path = NORMAL) -> Path:
    """normal.py's 6 configurations (a: lo, hi x b: 1, 2, 3), each ``replications`` runs of
    ``delay`` seconds (its cost hint: the delay)."""
    path = folder / "head.yaml"
    path.write_text(
        f"study: head\nprogram: {program}\nfactors:\n  a: [lo, hi]\n  b: [1, 2, 3]\n"
        f"fixed:\n  delay: {delay}\nreplications: {replications}\nbase_seed: 7\n"
    )
    return path


def made_by(logs: Path) -> dict[str, list[str]]:
    """The runs each job's log says it stored: {log name: [config_id/r<k>, ...]}."""
    return {
        log.name: [line.split(":")[0] for line in log.read_text().splitlines() if jobs.DONE in line]
        for log in sorted(logs.glob("*.log"))
        if log.name == jobs.HEAD_START_LOG or log.name.startswith("worker-")
    }


@pytest.mark.slow
def test_satsweep_run_runs_runs_itself_until_its_workers_start(tmp_path):
    """While its workers start, `satsweep run` takes the first runs of the pass's queue
    itself (logs/head-start.log) and the workers the rest: every run is made once."""
    design = normal_design(tmp_path, replications=8, delay=0.05)  # 0.4 s a configuration
    report = sweep.run(design, cores=2, results=tmp_path / "results")
    assert report.ok and report.done_now == 48
    made = made_by(report.store.logs)
    everything = [run for runs in made.values() for run in runs]
    assert sorted(everything) == sorted(
        f"{r.config_id}/r{r.replication}" for r in report.design.runs()
    )
    assert made[jobs.HEAD_START_LOG]  # claimed before the workers start
    order = schedule.RunOrder(report.design)
    queue = [f"{run.config_id}/r{run.replication}" for run in (order.at(i)[1] for i in range(48))]
    ahead = made[jobs.HEAD_START_LOG]
    assert ahead == queue[: len(ahead)]  # the head of the queue, in its order


def test_the_head_start_takes_nothing_once_a_worker_has_taken_a_configuration(tmp_path):
    """The head start takes a configuration only while the queue's count is its own: after
    a worker's first take it stops for good, with no run of the worker's made."""
    design = load_design(normal_design(tmp_path, replications=1, delay=0.0))
    store = Store.of(design, tmp_path / "results")
    design = store.bind(design)
    store.record(design)
    head = jobs.HeadStart.of_pass(design, store, "0a1b2c", cores=2, keep_going=False)
    assert head is not None and head.step()
    with jobs._Queue(store.worker_file("0a1b2c", 1).parent / "next") as worker:
        assert worker.take() == 1
    assert not head.step() and not head.step()
    first = schedule.ranked(design)[0]
    assert [run.config_id for run in store.state(design).done] == [first.config_id]
    assert made_by(store.logs)[jobs.HEAD_START_LOG] == [f"{first.config_id}/r1"]


def short_program(folder: Path, name: str, summary: str, run: str) -> Path:
    """A program ``name`` under the contract, of one int parameter x and a string summary
    field ``summary``, whose runs do the Python ``run`` (``out``: the result's path), by its
    cost hint 0.01 s each; and a design ``<name>.yaml`` of it beside it (x = 1..4, r = 2),
    which is returned."""
    program = folder / f"{name}.py"
    program.write_text(
        f"#!{sys.executable}\nimport json, os, sys\n"
        'if sys.argv[1:] == ["--describe"]:\n'
        "    print(json.dumps({"
        f'"name": "{name}", "version": "1", '
        '"parameters": [{"name": "x", "type": "int", "default": 0, "help": "h"}], '
        f'"summary": [{{"name": "{summary}", "type": "string", "help": "h"}}], '
        '"cost": {"per": [], "seconds": 0.01}}))\n'
        "    sys.exit(0)\n"
        'out = next(a for a in sys.argv[1:] if a.startswith("--out="))[len("--out="):]\n'
        f"{run}\n"
    )
    program.chmod(0o755)
    design = folder / f"{name}.yaml"
    design.write_text(
        f"study: {name}\nprogram: {program}\nfactors:\n  x: [1, 2, 3, 4]\nreplications: 2\n"
    )
    return design


def test_the_head_start_stops_the_pass_at_a_failure_unless_keep_going(tmp_path):
    """A failed run in the head start stops the pass as a worker's does (its stop file):
    the workers take nothing; with keep_going the head start goes on."""
    design = load_design(short_program(tmp_path, "failing", "y", 'sys.exit("on purpose")'))
    store = Store.of(design, tmp_path / "results")
    design = store.bind(design)
    store.record(design)
    head = jobs.HeadStart.of_pass(design, store, "0a1b2c", cores=2, keep_going=False)
    assert head is not None and head.step() and not head.step()
    assert (store.worker_file("0a1b2c", 1).parent / "stop").exists()
    assert len(store.state(design).failed) == 1  # the queue's first run
    going = jobs.HeadStart.of_pass(design, store, "3d4e5f", cores=2, keep_going=True)
    assert going is not None and all(going.step() for _ in range(8))  # each run
    assert not going.step()  # the queue is empty
    assert len(store.state(design).failed) == 8


@pytest.mark.parametrize(
    ("cores", "replications", "delay", "program", "gets"),
    [
        (2, 3, 0.1, NORMAL, True),  # 0.1 s a run
        (2, 8, 0.5, NORMAL, True),  # 0.5 s a run (4 s a configuration)
        (1, 3, 0.1, NORMAL, False),  # no core left beside a worker's
        (2, 1, 1.5, NORMAL, False),  # 1.5 s: it would run beside the workers that long
        (2, 1, 0.0, EFFECTS, False),  # no cost hint: its runs' length is unknown
    ],
)
def test_a_head_start_only_on_two_cores_or_more_for_short_known_runs(
    tmp_path, cores, replications, delay, program, gets
):
    if program is EFFECTS:
        path = tmp_path / "effects.yaml"
        path.write_text(f"study: fx\nprogram: {EFFECTS}\nfactors:\n  a: [-1, 1]\nreplications: 1\n")
    else:
        path = normal_design(tmp_path, replications, delay)
    design = load_design(path)
    store = Store.of(design, tmp_path / "results")
    head = jobs.HeadStart.of_pass(design, store, "0a1b2c", cores=cores, keep_going=False)
    assert (head is not None) == gets
    if head is not None:
        head.close()


def test_every_run_works_in_the_store_whoever_runs_it(tmp_path, monkeypatch):
    """The head start runs its programs where the workers run theirs, in the study's store,
    not in the working directory `satsweep run` was started from."""
    path = short_program(
        tmp_path,
        "where",
        "cwd",
        'json.dump({"params": {}, "summary": {"cwd": os.getcwd()}}, open(out, "w"))',
    )
    monkeypatch.chdir(tmp_path)
    report = sweep.run(path, cores=2, results=tmp_path / "results")
    assert report.ok and made_by(report.store.logs)[jobs.HEAD_START_LOG]
    places = duckdb.execute(
        "SELECT DISTINCT cwd FROM read_parquet(?)", [str(report.store.runs_table)]
    ).fetchall()
    assert places == [(str(report.store.root),)]
