"""The files satsweep ships beside its Python code: the Snakefile and its rules, the analysis
SQL, the executor profiles and the Slurm batch script.

In the repository they stay where a reader expects them (``Snakefile``, ``workflow/``,
``analysis/``, ``ray_jobs/``); ``pyproject.toml`` maps the repository root to the package
``satsweep.files`` so that an installed satsweep carries them as package data, in the same
layout. When satsweep is imported from a source tree instead (the checkout on ``sys.path``,
as ``python -m`` from its root or pytest do), that tree holds the same files.
"""

from __future__ import annotations

import importlib
from functools import cache
from pathlib import Path

__all__ = ["path"]


@cache
def _root() -> Path:
    try:
        files = importlib.import_module("satsweep.files")  # a namespace package: data only
    except ModuleNotFoundError:  # imported from a source tree: its root has the files
        return Path(__file__).resolve().parent.parent
    return Path(next(iter(files.__path__)))


def path(*parts: str) -> Path:
    """The shipped file or folder ``parts`` (e.g. ``path("analysis")``, ``path("Snakefile")``)."""
    return _root().joinpath(*parts)
