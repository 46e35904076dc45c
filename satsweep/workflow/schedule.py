"""The order of a sweep's jobs and, for remote executors, their batching into group jobs.

Both serve one aim: every job slot busy until the end of the sweep.

- **Order.** Each configuration's job gets a Snakemake priority that ranks the configurations
  by their estimated cost (the program's cost hint, ``Description.estimated_seconds``, x
  replications; every run costs the same for a program without one), longest
  first: the sweep then ends on short jobs, not on a long one while the other slots idle
  (longest-processing-time-first). Every executor honours it. A local pass's queue hands out
  runs, not configurations (:class:`RunOrder`): the longest runs first, a configuration's
  replications in a row, so that they spread over the workers.
- **Batches** (remote executors only, where each job is its own ``snakemake --mode remote``,
  which runs its group's configurations in one ``python -m satsweep.workflow.jobs simulate``):
  the configurations, in that order, are cut into groups whose estimated cost shrinks as the
  sweep goes on. Each group takes a ``1 / (FACTOR x slots)`` share of the work still left,
  but at least the executor's :func:`min_group_seconds` (guided self-scheduling,
  "factoring"): a few big groups first, which pay little start-up, and small ones at the end,
  which the free slots share out between them. A wrong estimate costs efficiency, never
  results.

The Snakefile calls :func:`plan` with the settings ``satsweep run`` passes it (``slots``,
``group_size``, ``min_group_seconds``) and makes one rule of each group.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, field
from itertools import accumulate

from satsweep.design import Configuration, Design, Run

__all__ = [
    "FACTOR",
    "GROUP_PREFIX",
    "MIN_GROUP_SECONDS",
    "RunOrder",
    "Schedule",
    "min_group_seconds",
    "plan",
    "ranked",
    "run_seconds",
]

#: How a group's name (its rule's, its log's: ``sims01.log``) starts.
GROUP_PREFIX = "sims"

#: Each group takes 1 / (FACTOR x slots) of the estimated work left (2: the usual factoring).
FACTOR = 2

#: The smallest group, in estimated seconds of runs: about ten times a remote job's start-up,
#: so that start-up stays near a tenth of the last, smallest groups. A job started afresh costs
#: ~1.5 s of CPU; one that the Ray plugin forks from its worker's warm Snakemake, ~0.4 s.
MIN_GROUP_SECONDS = 12.0

#: The smallest group for executors whose jobs start warm.
WARM_MIN_GROUP_SECONDS = {"ray": 4.0}


@dataclass(frozen=True)
class Schedule:
    """Priorities of the configurations' jobs and their groups (empty: no groups)."""

    priority: dict[str, int]  # config_id -> Snakemake priority, the longest highest
    group: dict[str, str] = field(default_factory=dict)  # config_id -> group name

    def group_sizes(self) -> dict[str, int]:
        """Configurations per group, in the order the groups run."""
        return dict(Counter(self.group.values()))

    def members(self) -> dict[str, list[str]]:
        """Each group's configurations (config_ids), longest first, in the order the groups
        run: a remote job each (workflow/rules/sweep.smk)."""
        members: dict[str, list[str]] = {}
        for config_id, name in self.group.items():
            members.setdefault(name, []).append(config_id)
        return members


def configuration_seconds(design: Design, config: Configuration) -> float:
    """Estimated seconds of a configuration's job: its replications, one after the other."""
    return design.replications_for(config.config_id) * design.describe.estimated_seconds(
        config.params
    )


def ranked(design: Design) -> list[Configuration]:
    """The design's configurations, longest estimated job first (ties: design order): the
    order of the priorities, of the groups and of the local workers' queue."""
    costs = {c.config_id: configuration_seconds(design, c) for c in design.configurations}
    return sorted(design.configurations, key=lambda c: (-costs[c.config_id], c.index))


def run_seconds(design: Design, config: Configuration) -> float:
    """Estimated seconds of one of a configuration's runs (the program's cost hint)."""
    return design.describe.estimated_seconds(config.params)


class RunOrder:
    """A local pass's runs in the order its queue hands them out, by index: the
    configurations by their runs' estimated length, longest first (ties: more replications
    first, then design order), each one's replications one after the other, so that takes in
    a row spread a configuration over the workers. Keeps one offset a configuration, not a
    run."""

    def __init__(self, design: Design) -> None:
        self.design = design
        seconds = {c.config_id: run_seconds(design, c) for c in design.configurations}
        self.configurations = sorted(
            design.configurations,
            key=lambda c: (
                -seconds[c.config_id],
                -design.replications_for(c.config_id),
                c.index,
            ),
        )
        counts = (design.replications_for(c.config_id) for c in self.configurations)
        self.starts = list(accumulate(counts, initial=0))  # first index of each configuration

    def __len__(self) -> int:
        return self.starts[-1]

    def at(self, index: int) -> tuple[int, Run]:
        """The position of the run at ``index``'s configuration in :attr:`configurations`,
        and the run (0 <= index < len)."""
        position = bisect_right(self.starts, index) - 1
        config = self.configurations[position]
        return position, config.run(self.design, index - self.starts[position] + 1)


def min_group_seconds(executor: str | None) -> float:
    """The smallest group for jobs through ``executor`` (in estimated seconds of runs)."""
    return WARM_MIN_GROUP_SECONDS.get(str(executor), MIN_GROUP_SECONDS)


def plan(
    design: Design,
    slots: int | None = None,
    group_size: int | None = None,
    min_group_seconds: float = MIN_GROUP_SECONDS,
) -> Schedule:
    """The schedule of a design's configuration jobs.

    ``slots=None``: priorities only (local execution). With ``slots`` (the remote executor's
    job slots): groups too, of ``group_size`` configurations each when given, else shrinking
    as described in the module's docstring.
    """
    order = ranked(design)
    priority = {c.config_id: len(order) - rank for rank, c in enumerate(order)}
    if slots is None:
        return Schedule(priority)

    costs = {c.config_id: configuration_seconds(design, c) for c in order}

    groups: list[list[str]] = []
    group: list[str] = []
    left = sum(costs.values())
    share = FACTOR * max(1, slots)
    target = max(left / share, min_group_seconds)
    in_group = 0.0
    for config in order:
        group.append(config.config_id)
        in_group += costs[config.config_id]
        full = len(group) >= group_size if group_size else in_group >= target
        if full:
            groups.append(group)
            left -= in_group
            target = max(left / share, min_group_seconds)
            group, in_group = [], 0.0
    if group:
        groups.append(group)
    width = len(str(len(groups)))
    return Schedule(
        priority,
        {
            cid: f"{GROUP_PREFIX}{i + 1:0{width}d}"
            for i, members in enumerate(groups)
            for cid in members
        },
    )
