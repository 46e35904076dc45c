"""The order of a sweep's runs and, for remote executors, their batching into group jobs.

Both serve one aim: every job slot busy until the end of the sweep. The unit of work is a run
(a configuration's replication), not a configuration, locally and remotely: a design of few
configurations and many replications (a precision campaign's later rounds) spreads its
replications over every slot.

- **Order** (:class:`RunOrder`). The configurations by their runs' estimated length (the
  program's cost hint, ``Description.estimated_seconds``; every run costs the same for a
  program without one), longest first (longest-processing-time-first), each one's
  replications in a row: the sweep then ends on short runs, not on a long one while the other
  slots idle. A local pass's queue hands its runs out in this order.
- **Groups** (remote executors only, where each job is its own ``snakemake --mode remote``,
  which runs its group's runs in one ``python -m satsweep.workflow.jobs simulate``): the runs
  not done yet, in that order, are cut into groups whose estimated cost shrinks as the sweep
  goes on. Each group takes a ``1 / (FACTOR x slots)`` share of the work still left, but at
  least the executor's :func:`min_group_seconds` (guided self-scheduling, "factoring"): a few
  big groups first, which pay little start-up, and small ones at the end, which the free slots
  share out between them; their priorities decrease in that order. A wrong estimate costs
  efficiency, never results.

A group is a range of indices of the :class:`RunOrder` (:class:`RunGroups`): the plan of a
pass is a few numbers per group whatever the runs, and names its order by a digest, so that a
remote job, which evaluates the Snakefile again while runs get done, finds the same groups
and the same runs in them (its runs done before are skipped).
"""

from __future__ import annotations

import hashlib
import json
import math
from bisect import bisect_right
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from satsweep.design import Configuration, Design, Run

__all__ = [
    "FACTOR",
    "GROUP_PREFIX",
    "MIN_GROUP_SECONDS",
    "PLAN_FILE",
    "RunGroups",
    "RunOrder",
    "min_group_seconds",
    "plan",
    "run_seconds",
]

#: How a group's name (its rule's, its log's: ``sims01.log``, its marker's) starts.
GROUP_PREFIX = "sims"

#: The name of a remote pass's plan in its folder (``workers/<pass>/plan.json``), beside the
#: markers its group jobs write (``workers/<pass>/sims01.json``).
PLAN_FILE = "plan.json"

#: Each group takes 1 / (FACTOR x slots) of the estimated work left (2: the usual factoring).
FACTOR = 2

#: The smallest group, in estimated seconds of runs: about ten times a remote job's start-up,
#: so that start-up stays near a tenth of the last, smallest groups. A job started afresh costs
#: ~1.5 s of CPU; one that the Ray plugin forks from its worker's warm Snakemake, ~0.4 s.
MIN_GROUP_SECONDS = 12.0

#: The smallest group for executors whose jobs start warm: a job the Ray plugin forks from its
#: worker's warm Snakemake costs ~0.4 s of CPU, and its ``simulate`` process 0.6 s more (its
#: Python, the design; measured: 0.57-0.62 s), ten times that. Groups are runs, so a group can
#: be this small however few the configurations.
WARM_MIN_GROUP_SECONDS = {"ray": 10.0}

#: Relative slack of a group's estimated seconds against its target (sums of floats).
_SLACK = 1e-9


def run_seconds(design: Design, config: Configuration) -> float:
    """Estimated seconds of one of a configuration's runs (the program's cost hint)."""
    return design.executable.estimated_seconds(config.params)


class RunOrder:
    """A design's runs in the order a pass hands them out, by index: the configurations by
    their runs' estimated length, longest first (ties: more replications first, then design
    order), each one's replications one after the other, so that takes in a row spread a
    configuration over the workers. Keeps one offset a configuration, not a run."""

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
        #: one run's estimated seconds, of each configuration in that order
        self.seconds = [seconds[c.config_id] for c in self.configurations]
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

    def spans(self, start: int, end: int) -> Iterator[tuple[int, range]]:
        """The indices ``start`` to ``end`` (excluded), configuration by configuration: each
        one's position in :attr:`configurations` and its replications there."""
        position = bisect_right(self.starts, start) - 1
        while start < end:
            first = self.starts[position]
            last = min(end, self.starts[position + 1])
            yield position, range(start - first + 1, last - first + 1)
            start = last
            position += 1

    def digest(self) -> str:
        """sha256 of the order (each configuration's config_id and replications): a plan
        made over another order, by another design or round, is refused by it."""
        h = hashlib.sha256()
        for config in self.configurations:
            h.update(
                f"{config.config_id}:{self.design.replications_for(config.config_id)}\n".encode()
            )
        return h.hexdigest()


@dataclass(frozen=True)
class RunGroups:
    """A remote pass's groups: each a range ``[start, end)`` of indices of a
    :class:`RunOrder` (whose :meth:`RunOrder.digest` is ``order``), in the order they run."""

    order: str
    ranges: tuple[tuple[int, int], ...]

    @property
    def names(self) -> list[str]:
        """The groups' names (``sims01``, ...), in the order they run."""
        width = len(str(len(self.ranges)))
        return [f"{GROUP_PREFIX}{i + 1:0{width}d}" for i in range(len(self.ranges))]

    def priorities(self) -> dict[str, int]:
        """Each group's Snakemake priority, decreasing in the order they run."""
        return {name: len(self.ranges) - i for i, name in enumerate(self.names)}

    def range_of(self, name: str) -> tuple[int, int]:
        """The indices of group ``name`` (KeyError for a name not in the plan)."""
        return dict(zip(self.names, self.ranges, strict=True))[name]

    def to_json(self) -> str:
        return json.dumps({"order": self.order, "groups": [list(r) for r in self.ranges]})

    @classmethod
    def from_json(cls, text: str) -> RunGroups:
        data: Any = json.loads(text)
        return cls(data["order"], tuple((int(s), int(e)) for s, e in data["groups"]))


def min_group_seconds(executor: str | None) -> float:
    """The smallest group for jobs through ``executor`` (in estimated seconds of runs)."""
    return WARM_MIN_GROUP_SECONDS.get(str(executor), MIN_GROUP_SECONDS)


def plan(
    order: RunOrder,
    slots: int,
    group_size: int | None = None,
    min_group_seconds: float = MIN_GROUP_SECONDS,
    todo: Mapping[str, Sequence[int]] | None = None,
) -> RunGroups:
    """The groups of a remote pass over ``order``'s runs that are to be made: ``todo`` maps
    each configuration with runs to make to their replications, ascending (None: every run,
    for a Snakemake started by hand without a plan; its jobs skip the runs done). Groups of
    ``group_size`` runs each when given, else shrinking as the module's docstring says, over
    ``slots`` job slots. Only runs to make start and end a group; a group's range may hold
    done runs of its configurations between them."""
    design = order.design

    def to_make(position: int) -> Sequence[int]:
        config_id = order.configurations[position].config_id
        if todo is None:
            return range(1, design.replications_for(config_id) + 1)
        return todo.get(config_id, ())

    left = sum(len(to_make(p)) * s for p, s in enumerate(order.seconds))
    share = FACTOR * max(1, slots)
    target = max(left / share, min_group_seconds)
    ranges: list[tuple[int, int]] = []
    start = end = None
    runs, seconds = 0, 0.0  # in the group being filled
    for position, each in enumerate(order.seconds):
        replications = to_make(position)
        before = order.starts[position] - 1  # index of replication k: before + k
        taken = 0
        while taken < len(replications):
            if start is None:
                start = before + replications[taken]
            if group_size:
                need = group_size - runs
            elif each > 0:
                need = max(1, math.ceil((target - seconds) / each - _SLACK))
            else:  # runs of no estimated cost do not fill a group
                need = len(replications) - taken
            more = min(need, len(replications) - taken)
            taken += more
            runs += more
            seconds += more * each
            end = before + replications[taken - 1] + 1
            full = runs >= group_size if group_size else seconds >= target * (1 - _SLACK)
            if full:
                ranges.append((start, end))
                left -= seconds
                target = max(left / share, min_group_seconds)
                start, runs, seconds = None, 0, 0.0
    if start is not None:
        ranges.append((start, end))
    return RunGroups(order.digest(), tuple(ranges))
