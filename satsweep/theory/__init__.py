"""A study's analytic model, as code: what the paper's theory predicts for a configuration.

A design names its theory in ``analysis.theory``; the report then draws the theory beside the
simulation: its predictions of a response as a dashed curve through the same configurations,
its thresholds as reference lines on the same axes, and a table of every simulated value
beside its prediction. A theory is pure arithmetic on a configuration's values (its parameters
and summary, one run's row of the run table): it imports no other room.

A theory is study code, outside this package, found in one of two ways (:func:`theory`):

- by name (``theory: barakat``): a theory installed under the entry-point group :data:`GROUP`,
  e.g. in its distribution's ``pyproject.toml``
  ``[project.entry-points."satsweep.theories"] barakat = "satsweep_barakat.theory:THEORY"``
  (Barakat & Altman's, kept with its study in ``analysis/barakat/``, is installed so);
- by file (``theory: ./my_theory.py``, any value ending in ``.py``): a Python module, relative
  to the design file, that defines ``THEORY``.

- :class:`Reference`: a value drawn as a line (a threshold on an x axis, a window on a y axis);
- :class:`Theory`: what a study's theory module provides;
- :func:`theory`: the theory a design names.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "GROUP",
    "Reference",
    "Theory",
    "TheoryError",
    "TheoryNotFound",
    "allowed",
    "installed",
    "theory",
    "theory_file",
]

#: The entry-point group installed theories are registered in.
GROUP = "satsweep.theories"


class TheoryError(ValueError):
    """A configuration the theory cannot evaluate (a missing value, an unknown level)."""


class TheoryNotFound(LookupError):
    """A theory a design names that nothing provides or that cannot be loaded; the message
    says why and what is allowed (:func:`allowed`)."""


@dataclass(frozen=True)
class Reference:
    """A theory's value drawn as a straight line: at x = ``value`` (``axis="x"``, a threshold
    of the plotted factor) or at y = ``value`` (``axis="y"``, a predicted level)."""

    axis: Literal["x", "y"]
    value: float
    label: str


@dataclass(frozen=True)
class Theory:
    """A study's theory.

    ``predictions(row)``: the named predicted values of one configuration, e.g.
    ``{"W_B, Theorem 1": 52.0, "W_B, eq. (4)": 40.0}`` (None where the theory says nothing);
    ``predicts``: which of those names predict which summary field (``{"wb": [...]}``), so the
    report can draw and tabulate them beside that response; ``references(x, y, row)``: the lines
    to draw on a figure of ``y`` against ``x`` (a factor, or a table's column such as ``time``)
    for the configuration ``row``.
    """

    name: str
    description: str
    predictions: Callable[[Mapping[str, Any]], dict[str, float | None]]
    predicts: Mapping[str, list[str]]
    references: Callable[[str, str, Mapping[str, Any]], list[Reference]]


def installed() -> list[str]:
    """The names of the installed theories (nothing imported)."""
    return sorted({point.name for point in entry_points(group=GROUP)})


def allowed() -> str:
    """What ``analysis.theory`` may be, as the messages say it."""
    names = ", ".join(installed()) or "none"
    return (
        f"{names} (installed), or a Python file defining THEORY, relative to the sweep file "
        "(e.g. ./theory.py)"
    )


@functools.cache
def theory(spec: str, base: Path | None = None) -> Theory:
    """The theory ``spec`` names: a file when it ends in ``.py`` (relative to ``base``, the
    design file's folder, if not absolute), else an installed theory's name. Only its own
    module is imported (once per process). Raises :class:`TheoryNotFound` in one line."""
    if (path := theory_file(spec, base)) is not None:
        return _from_file(path)
    points = entry_points(group=GROUP, name=spec)
    if not points:
        raise TheoryNotFound(f"no theory '{spec}'; allowed: {allowed()}")
    (point, *_) = points
    try:
        made = point.load()
    # a broken plug-in (or one calling sys.exit on import): say which, not a traceback
    except (Exception, SystemExit) as e:
        raise TheoryNotFound(f"theory '{spec}' ({point.value}) cannot be loaded: {_line(e)}")
    if not isinstance(made, Theory) or made.name != spec:
        raise TheoryNotFound(f"theory '{spec}' ({point.value}) is not a Theory named '{spec}'")
    return made


def theory_file(spec: str, base: Path | None = None) -> Path | None:
    """The module file ``spec`` names when it ends in ``.py``, absolute (relative to ``base``,
    the design file's folder); None for an installed theory's name."""
    return ((base or Path()) / spec).absolute() if spec.endswith(".py") else None


@functools.cache
def _from_file(path: Path) -> Theory:
    """The ``THEORY`` of the module file ``path`` (absolute), imported once under a name of its
    own."""
    if not path.is_file():
        raise TheoryNotFound(f"no theory file {path}; allowed: {allowed()}")
    name = "satsweep_theory_" + hashlib.sha256(str(path).encode()).hexdigest()[:12]
    module_spec = importlib.util.spec_from_file_location(name, path)
    assert module_spec is not None and module_spec.loader is not None  # a .py file's
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module  # its dataclasses look their module up while it runs
    try:
        module_spec.loader.exec_module(module)
    except (Exception, SystemExit) as e:  # sys.exit in a module would end satsweep silently
        del sys.modules[name]
        raise TheoryNotFound(f"theory file {path} cannot be loaded: {_line(e)}") from None
    made = getattr(module, "THEORY", None)
    if not isinstance(made, Theory):
        raise TheoryNotFound(
            f"theory file {path}: its THEORY is "
            f"{'missing' if made is None else type(made).__name__}; allowed: a module whose "
            "THEORY is a satsweep.theory.Theory"
        )
    return made


def _line(error: Exception) -> str:
    """An exception as one line of a message."""
    return " ".join(f"{type(error).__name__}: {error}".split())
