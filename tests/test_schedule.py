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
from satsweep.workflow import schedule
from tests.support import REPO

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
    local = sweep.snakemake_command(QUICK, Path("/r"), Path("/r/q"), 2, False)
    assert local[local.index("--cores") + 1] == "2"
    assert not {"--executor", "--group-components", "--jobs"} & set(local)
    config = sweep.workflow_config(QUICK, Path("/r"), 2)
    assert config.pop("pass") != sweep.workflow_config(QUICK, Path("/r"), 2)["pass"]  # new each
    assert config == {"sweep": str(QUICK), "results": "/r"}  # locally: no slots, no groups

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
