"""The ns-3 of satsweep's environment, the ``ns3`` wheel from PyPI: its version, asked in one
place (:mod:`satsweep.engine.ns3` builds scripts against it and names it ``ns3_version``; this
project's own programs are built against it, :class:`~satsweep.engine.program.Program`), in a
module of its own that imports nothing of satsweep's, so that both can."""

from __future__ import annotations

import importlib.metadata
from functools import cache

__all__ = ["ns3_version"]


@cache
def ns3_version() -> str | None:
    """The version of satsweep's ns-3: the installed ``ns3`` wheel's (``3.44.post0``), or None
    without it. What the build cache, the runs' provenance and ``--version`` name."""
    try:
        return importlib.metadata.version("ns3")
    except importlib.metadata.PackageNotFoundError:
        return None
