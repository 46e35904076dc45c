"""Shared fixtures and the markers' meaning: a test marked with what it needs (pyproject.toml's
markers: programs, omnetpp, root, cluster) is skipped when this machine lacks it, saying what
provides it, and fails instead under CI=true (.ci/run), where everything must run."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from satsweep.engine import Program
from tests.support import REPO, needs
from tests.support.slurm import (
    local_cluster,
    running_daemons,
    start_three_nodes,
    stop_and_check_nothing_left,
)

#: Markers of tests that start machine-wide daemons (pytest_collection_modifyitems).
DAEMONS = ("cluster", "ray")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before any fixture of the test is set up: its markers' needs, checked."""
    for marker in item.iter_markers():
        check = needs.MISSING.get(marker.name)
        missing = check() if check else ""
        if missing:
            said = f"needs {marker.name}: {missing}"
            if os.environ.get("CI") == "true":
                pytest.fail(f"{said} (CI=true: nothing may be skipped)", pytrace=False)
            pytest.skip(said)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own, which reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """How tests share pytest-xdist's workers under ``--dist loadgroup`` (.ci/run): the tests
    that start Slurm or Ray (markers ``cluster`` and ``ray``) all share one worker, since there
    is one Slurm on the machine and they check that nothing of theirs is left; the tests of a
    module that use its module-scoped fixtures (often a sweep) share one, so that each fixture
    runs once; every other test goes wherever a worker is free. The daemons' group runs first
    (its tests mostly wait, and the longest group must not start last), then the modules'
    groups, then the rest (``--no-loadscope-reorder`` keeps this order)."""
    order = {}
    for item in items:
        if any(item.get_closest_marker(m) for m in DAEMONS):
            group, order[item.nodeid] = "daemons", 0
        elif _uses_module_fixtures(item):
            group, order[item.nodeid] = item.nodeid.split("::")[0], 1
        else:
            order[item.nodeid] = 2
            continue
        item.add_marker(pytest.mark.xdist_group(group))
    items.sort(key=lambda item: order[item.nodeid])


def _uses_module_fixtures(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)  # pytest's: which fixture definitions it uses
    defs = info.name2fixturedefs.values() if info else ()
    return any(d[-1].scope in ("module", "package") for d in defs if d)


@pytest.fixture(scope="session")
def satnet() -> Program:
    """The satnet program, as a design naming it finds it."""
    return Program.find("satnet", REPO)


@pytest.fixture(scope="session")
def _slurm_session() -> Iterator[None]:
    """Stops the local Slurm (jobs cancelled) at the end of a session that used it, so a test
    run leaves no Slurm or munge daemon behind (also one started before the tests)."""
    yield
    stop = local_cluster("stop", "--cancel-jobs", timeout=120)
    assert stop.returncode == 0, f"exit {stop.returncode}\n{stop.stdout}\n{stop.stderr}"
    left = running_daemons()
    assert not left, f"left running after stop: {left}"


@pytest.fixture(scope="module")
def slurm(_slurm_session) -> Iterator[None]:
    """A running local single-node Slurm (local-cluster.sh) for each module that asks for it,
    stopped at the end of the session. Started per module (`start` is idempotent: ~0.2 s when
    it already runs), not once per session, because another module (`nodes3`) may stop it to
    run its 3-node cluster. Installing the packages from nothing takes ~13 s (plus apt-get
    update on a fresh machine)."""
    proc = local_cluster("start", timeout=300)
    if proc.returncode != 0:
        pytest.fail(
            f"local-cluster.sh start failed; these tests need it:\nexit {proc.returncode}\n"
            f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
        )
    yield


@pytest.fixture(scope="module")
def nodes3() -> Iterator[dict]:
    """Three Slurm nodes of this machine (local-cluster.sh start --nodes 3), after stopping the
    session's single-node cluster if it runs; at the end stopped, checking that none of their
    namespaces, links or daemons is left. Yields the namespaces and links there were before."""
    before = start_three_nodes()
    yield before
    seconds = stop_and_check_nothing_left(before["netns"], before["links"])
    print(f"stop (fixture): {seconds:.2f} s")
