"""How many cores this process may use: the default of ``--cores`` (and ``--cores all``).

``os.cpu_count()`` counts the host's CPUs; a process is often given fewer: a CPU affinity mask
(``taskset``, a cpuset), a cgroup v2 CPU quota (a container, a systemd slice) or a Slurm
allocation. Running more simulations at once than that only makes each slower and the progress
bar's estimate wrong.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

__all__ = ["SLURM_VARIABLES", "cgroup_cpu_max_files", "usable_cores"]

#: The Slurm variables that cap the cores of a process in an allocation (each when set).
SLURM_VARIABLES = ("SLURM_CPUS_ON_NODE", "SLURM_CPUS_PER_TASK")
#: Where cgroup v2 is mounted.
CGROUP_ROOT = Path("/sys/fs/cgroup")


def usable_cores(
    cpu_max_files: Iterable[Path] | None = None, environ: Mapping[str, str] | None = None
) -> int:
    """The cores this process may use, at least 1: the CPUs of its affinity mask
    (``os.sched_getaffinity``), capped by the CPU quota of its cgroup v2 and of the cgroups
    above it (``cpu.max``: ``QUOTA PERIOD``, rounded up; ``max`` means none) and by
    SLURM_CPUS_ON_NODE and SLURM_CPUS_PER_TASK when set.

    ``cpu_max_files``: the ``cpu.max`` files to read (default :func:`cgroup_cpu_max_files`);
    ``environ``: the environment (default ``os.environ``); both for tests."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        cores = os.cpu_count() or 1
    files = cgroup_cpu_max_files() if cpu_max_files is None else cpu_max_files
    for path in files:
        quota = _quota(path)
        if quota is not None:
            cores = min(cores, quota)
    env = os.environ if environ is None else environ
    for name in SLURM_VARIABLES:
        text = env.get(name, "").strip()
        if text.isdigit() and int(text) > 0:  # a malformed value says nothing
            cores = min(cores, int(text))
    return max(1, cores)


def _quota(path: Path) -> int | None:
    """The cores a ``cpu.max`` file allows (its quota over its period, rounded up), or None
    without a quota (``max``) or a readable file."""
    try:
        quota, *period = path.read_text().split()
    except (OSError, ValueError):
        return None
    if quota == "max":
        return None
    try:
        allowed = int(quota) / int(period[0] if period else 100000)
    except (ValueError, ZeroDivisionError):
        return None
    return max(1, math.ceil(allowed)) if allowed > 0 else None


def cgroup_cpu_max_files(
    proc_cgroup: Path = Path("/proc/self/cgroup"), root: Path = CGROUP_ROOT
) -> list[Path]:
    """The ``cpu.max`` files of this process's cgroup v2 and of each cgroup above it (every
    one's quota applies), as ``/proc/self/cgroup``'s ``0::PATH`` line names it; none without
    cgroup v2."""
    try:
        lines = proc_cgroup.read_text().splitlines()
    except OSError:
        return []
    for line in lines:
        if line.startswith("0::"):
            group = root / line[3:].strip().lstrip("/")
            return [
                folder / "cpu.max"
                for folder in (group, *group.parents)
                if folder.is_relative_to(root)
            ]
    return []
