"""The order and batching of a sweep's jobs (satsweep/workflow/schedule.py, by the program's
cost hint), and that Snakemake follows them."""

from __future__ import annotations

import json
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

QUICK = REPO / "sweeps" / "goyal98-quick-ns3.yaml"


def two_configurations(folder: Path, replications: int, delay: float = 1.0) -> Path:
    """normal.py's a: lo, hi, each ``replications`` runs of ``delay`` s (its cost hint)."""
    path = folder / "few.yaml"
    path.write_text(
        f"study: few\nprogram: {NORMAL}\nfactors:\n  a: [lo, hi]\nfixed:\n  delay: {delay}\n"
        f"replications: {replications}\nbase_seed: 5\n"
    )
    return path


def group_runs(order: schedule.RunOrder, groups: schedule.RunGroups) -> list[list[tuple]]:
    """Each group's runs (config_id, replication), in the order they run."""
    return [
        [
            (order.configurations[position].config_id, k)
            for position, replications in order.spans(start, end)
            for k in replications
        ]
        for start, end in groups.ranges
    ]


def test_runs_rank_the_longest_configurations_first_each_one_s_replications_in_a_row():
    design = load_design(QUICK)
    order = schedule.RunOrder(design)
    assert len(order) == design.n_runs
    assert order.seconds == sorted(order.seconds, reverse=True)
    links = [c.params["link"] for c in order.configurations]
    assert set(links[:24]) == {"wan"}  # WAN's runs cost ~6x MEO's and GEO's
    # equal estimates keep the order of the file
    assert [c.index for c in order.configurations[:24]] == sorted(
        c.index for c in order.configurations[:24]
    )
    runs = [order.at(i)[1] for i in range(len(order))]
    assert [(r.config_id, r.replication) for r in runs] == [
        (c.config_id, k) for c in order.configurations for k in (1, 2)
    ]


def test_run_groups_shrink_spread_a_configuration_and_cover_every_run_once(tmp_path):
    """2 configurations x 30 runs of 1 s on 3 slots: the groups are runs, not
    configurations, so a configuration's replications spread over many groups (and slots);
    their estimated seconds shrink, and their priorities decrease, in the order they run."""
    design = load_design(two_configurations(tmp_path, replications=30))
    order = schedule.RunOrder(design)
    groups = schedule.plan(order, slots=3, min_group_seconds=4.0)
    runs = group_runs(order, groups)
    everything = [run for group in runs for run in group]
    assert sorted(everything) == sorted((r.config_id, r.replication) for r in design.runs())
    sizes = [len(group) for group in runs]  # 1 s a run: seconds
    assert sizes[0] == 60 / (schedule.FACTOR * 3)  # the first takes its share of the work
    assert sizes == sorted(sizes, reverse=True) and min(sizes[:-1]) >= 4
    assert len(groups.ranges) > 6  # far more jobs than configurations, or slots
    for config in design.configurations:
        holding = [g for g in runs if any(cid == config.config_id for cid, _ in g)]
        assert len(holding) >= 4
    priorities = list(groups.priorities().values())
    assert priorities == sorted(priorities, reverse=True) == list(range(len(sizes), 0, -1))
    assert list(groups.priorities()) == groups.names
    # --group-size K: K runs a job
    fixed = schedule.plan(order, slots=3, group_size=7)
    assert [len(g) for g in group_runs(order, fixed)] == [7] * 8 + [4]


def test_run_groups_hold_only_the_runs_to_make_and_are_the_same_from_their_plan(tmp_path):
    """Runs done are left out of the groups' count and estimate: a group starts and ends at
    runs to make (its jobs skip done runs between them). The plan read back is the plan."""
    design = load_design(two_configurations(tmp_path, replications=12))
    order = schedule.RunOrder(design)
    first, second = (c.config_id for c in order.configurations)
    todo = {first: [2, 3, 9, 12], second: range(1, 13)}
    groups = schedule.plan(order, slots=2, min_group_seconds=4.0, todo=todo)
    wanted = [(cid, k) for cid in (first, second) for k in todo[cid]]
    to_make = [[run for run in group if run in wanted] for group in group_runs(order, groups)]
    assert [run for group in to_make for run in group] == wanted  # each once, in order
    for group in group_runs(order, groups):
        assert group[0] in wanted and group[-1] in wanted
    assert [len(g) for g in to_make] == [4, 4, 4, 4]  # 16 s over 2 x 2 shares, at least 4
    assert schedule.RunGroups.from_json(groups.to_json()) == groups
    assert schedule.plan(order, slots=2, todo={}).ranges == ()  # nothing to make: no group


def test_a_plan_of_a_million_runs_is_a_small_file(tmp_path):
    """1000 configurations x 1000 replications: the plan holds a few numbers per group,
    never the runs; its groups stay few on many slots."""
    path = tmp_path / "big.yaml"
    levels = ", ".join(f"{i / 1000:g}" for i in range(1000))
    path.write_text(
        f"study: big\nprogram: {NORMAL}\nfactors:\n  sd: [{levels}]\nfixed:\n  delay: 1\n"
        "replications: 1000\n"
    )
    design = load_design(path, max_runs=None)
    order = schedule.RunOrder(design)
    assert len(order) == 10**6
    for slots, most in ((2, 100), (64, 2000)):
        groups = schedule.plan(order, slots, None, schedule.min_group_seconds("ray"))
        assert len(groups.ranges) <= most
        assert len(groups.to_json()) <= 20 * most + 100
        assert groups.ranges[0][0] == 0 and groups.ranges[-1][1] == 10**6


def test_remote_command_passes_the_slots_and_the_pass_s_plan(tmp_path):
    remote = sweep.snakemake_command(
        QUICK, Path("/r"), Path("/r/q"), 2, False, sweep.Execution("ray", jobs=4)
    )
    assert remote[remote.index("--executor") + 1] == "ray"
    assert remote[remote.index("--cores") + 1] == "1"  # a group job asks for one CPU
    assert remote[remote.index("--jobs") + 1] == str(4 * (1 + sweep.QUEUED_PER_SLOT))
    plan = tmp_path / "plan.json"
    config = sweep.workflow_config(QUICK, Path("/r"), 2, sweep.Execution("ray", jobs=4), plan)
    assert config["slots"] == 4 and config["plan"] == str(plan)
    # Ray jobs start warm, so its groups may shrink further than other executors'.
    assert config["min_group_seconds"] == 10
    slurm = sweep.workflow_config(QUICK, Path("/r"), 2, sweep.Execution("slurm", jobs=4))
    assert slurm["min_group_seconds"] == schedule.MIN_GROUP_SECONDS and "plan" not in slurm


def dry_run(store: Store, config: dict) -> list[list[str]]:
    """The simulate commands of a dry run of the remote workflow with ``config``."""
    (store.root / sweep.CONFIG_FILE).write_text(json.dumps(config))
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "--snakefile", str(sweep.SNAKEFILE),
         "--directory", str(store.root), "--configfile", str(store.root / sweep.CONFIG_FILE),
         "--cores", "1", "--dry-run", "--printshellcmds", "runs"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return [line.split() for line in proc.stdout.splitlines() if "jobs simulate" in line]


@pytest.mark.slow
def test_the_workflow_runs_each_group_of_the_pass_s_plan_as_one_job(tmp_path):
    """Through a remote executor the Snakefile makes one job of each group of the plan
    `satsweep run` wrote, whose command names only the design and the group's marker (never
    its runs), and finds the same groups again after runs got done (as a remote job, which
    evaluates it again, does). A Snakemake started by hand, without a plan, plans every run
    itself, the same way each time."""
    path = two_configurations(tmp_path, replications=20)
    design = load_design(path)
    store = Store.of(design, tmp_path)
    design = store.bind(design)
    store.record(design)
    execution = sweep.Execution("ray", jobs=3)
    plan = sweep.write_plan(design, store.state(design), store, "0a1b2c", 1, execution)
    config = sweep.workflow_config(path, tmp_path, 1, execution, plan)
    commands = dry_run(store, config)
    groups = schedule.RunGroups.from_json(plan.read_text())
    assert len(commands) == len(groups.ranges) > 2
    markers = sorted(c[c.index("simulate") + 2] for c in commands)
    here = plan.parent.relative_to(store.root)  # the store is the working directory
    assert markers == sorted(str(here / f"{name}.json") for name in groups.names)
    assert all(c[c.index("simulate") + 3] == ">" for c in commands)  # nothing more
    order = schedule.RunOrder(design)
    for run in (order.at(i)[1] for i in range(5)):  # runs done meanwhile
        assert jobs.simulate_run(design, run, store) is None
    assert sorted(c[c.index("simulate") + 2] for c in dry_run(store, config)) == markers

    del config["plan"]
    by_hand = sorted(dry_run(store, config))
    assert sorted(dry_run(store, config)) == by_hand and len(by_hand) > 2
    planned = {Path(c[c.index("simulate") + 2]).parent for c in by_hand}
    assert len(planned) == 1  # every group's marker beside the plan of every run
    planned_file = store.root / planned.pop() / schedule.PLAN_FILE
    everything = schedule.RunGroups.from_json(planned_file.read_text())
    assert everything.ranges[0][0] == 0 and everything.ranges[-1][1] == 40


@pytest.mark.slow
def test_a_snakemake_started_by_hand_with_slots_runs_the_groups_of_every_run(tmp_path):
    """`snakemake --config slots=2` by hand (here with Snakemake's local executor): no plan,
    so the Snakefile plans every run itself; its group jobs make every run once, write every
    configuration's manifest and their markers beside that plan, and the store is compacted."""
    path = two_configurations(tmp_path, replications=12, delay=0.1)
    design = load_design(path)
    store = Store.of(design, tmp_path / "results")
    store.root.mkdir(parents=True)
    config = {"sweep": str(path), "results": str(tmp_path / "results"), "slots": 2}
    config["min_group_seconds"] = 0.5  # groups of a few runs of 0.1 s
    config_file = tmp_path / "config.json"
    config_file.write_text(json.dumps(config))
    command = [sys.executable, "-m", "snakemake", "--snakefile", str(sweep.SNAKEFILE),
               "--configfile", str(config_file), "--cores", "2"]  # fmt: skip
    proc = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    keys = duckdb.execute(
        "SELECT config_id, replication FROM read_parquet(?)", [str(store.runs_table)]
    ).fetchall()
    assert len(keys) == len(set(keys)) == 24
    (folder,) = store.workers.glob("plan-*")
    groups = schedule.RunGroups.from_json((folder / schedule.PLAN_FILE).read_text())
    assert len(groups.ranges) > 2
    assert sorted(p.stem for p in folder.glob(f"{schedule.GROUP_PREFIX}*.json")) == groups.names
    assert all(store.manifest_file(c.config_id, 12).is_file() for c in design.configurations)


def simulate(path: Path, marker: Path) -> subprocess.CompletedProcess:
    """A remote job as Snakemake starts it, without Snakemake."""
    return subprocess.run(
        [sys.executable, "-m", "satsweep.workflow.jobs", "simulate", str(path), str(marker)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


@pytest.mark.slow
def test_jobs_sharing_a_configuration_leave_each_other_s_temporaries_and_the_later_writes_its_manifest(
    tmp_path,
):
    """Two configurations of 3 runs in groups of 2, so the first one's r3 is the second
    group's: the first job removes the temporary its own killed attempt left, not that of the
    other job's run (being written in the same folder);
    the configuration's manifest comes when its last replication lands, from the job that
    finds every one done; each job writes its marker."""
    path = two_configurations(tmp_path, replications=3, delay=0.0)
    design = load_design(path)
    store = Store.of(design, tmp_path)
    design = store.bind(design)
    store.record(design)
    execution = sweep.Execution("ray", jobs=2, group_size=2)
    plan = sweep.write_plan(design, store.state(design), store, "0a1b2c", 1, execution)
    groups = schedule.RunGroups.from_json(plan.read_text())
    order = schedule.RunOrder(design)
    assert group_runs(order, groups)[1][0][0] == group_runs(order, groups)[0][0][0]
    config = order.configurations[0]
    folder = store.run_dir(config.config_id)
    folder.mkdir(parents=True)
    killed = folder / ".r2.record.json.tmp.999999"  # the first group's r2, a killed attempt
    writing = folder / ".r3.json.tmp.123"  # the second group's r3, being written
    for temporary in (killed, writing):
        temporary.write_text("half")
    first, second, third = (plan.with_name(f"{name}.json") for name in groups.names)
    assert simulate(path, first).returncode == 0
    assert not killed.exists() and writing.exists()
    assert json.loads(first.read_text()) == {"runs": 2}
    assert not store.manifest_file(config.config_id, 3).exists()  # r3 not done yet
    assert simulate(path, second).returncode == 0
    assert not writing.exists()  # its own now
    assert store.manifest_file(config.config_id, 3).is_file()
    assert simulate(path, third).returncode == 0
    assert all(store.manifest_file(c.config_id, 3).is_file() for c in design.configurations)
    assert len(store.state(design).done) == 6


@pytest.mark.slow
def test_a_remote_pass_with_no_run_to_make_starts_no_snakemake(tmp_path):
    """Every run done, only the compaction due: `satsweep run --executor ray` plans no group,
    starts no Snakemake (and needs no Ray cluster), and compacts the store itself."""
    path = two_configurations(tmp_path, replications=2, delay=0.0)
    results = tmp_path / "results"
    assert sweep.run(path, cores=2, results=results).ok
    store = Store(results / "few")
    store.compaction_file.unlink()
    report = sweep.run(path, results=results, execution=sweep.Execution("ray", jobs=2))
    assert report.ok and report.done_now == 0 and report.done_before == 4
    assert store.compaction_file.is_file()
    assert not (store.logs / "snakemake.log").exists()
    assert not list(store.workers.glob(f"*/{schedule.PLAN_FILE}"))


def test_a_job_refuses_a_plan_of_another_design(tmp_path):
    """A plan names its runs by their order: a design changed since (r raised) is refused
    with one line, no run made."""
    path = two_configurations(tmp_path, replications=2, delay=0.0)
    design = load_design(path)
    store = Store.of(design, tmp_path)
    design = store.bind(design)
    store.record(design)
    plan = sweep.write_plan(
        design, store.state(design), store, "0a1b2c", 1, sweep.Execution("ray", jobs=1)
    )
    two_configurations(tmp_path, replications=3, delay=0.0)
    store.record(store.bind(load_design(path)))
    job = simulate(path, plan.with_name("sims1.json"))
    assert job.returncode == 1
    assert (
        job.stdout.strip() == f"{path} has changed since this pass was planned: run the sweep again"
    )
    assert not store.state(load_design(path)).done


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
    first = schedule.RunOrder(design).configurations[0]
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
