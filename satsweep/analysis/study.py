"""What the analysis and the report take from a study's recorded design
(``results/<study>/design.json``, :meth:`satsweep.store.Store.design`): the factors and fixed
parameters, the defaults of the analysis (the design's ``analysis`` section) and the units the
program declares."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from satsweep.design import Design, SteadySettings, TraceSettings
from satsweep.engine import value_text
from satsweep.store import Store
from satsweep.theory import theory_file

__all__ = ["StudyDesign", "level_text", "study_design"]


def level_text(value: object) -> str:
    """A value as the analysis and the report show it: booleans ``true``/``false`` (as DuckDB
    casts them to text, the levels of the analysis), numbers as a program gets them (``2.0`` ->
    ``2``), everything else as ``str``; one spelling in every table, title and legend."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value_text(value)


@dataclass(frozen=True)
class StudyDesign:
    """The study as its analysis lays it out; empty without a recorded design."""

    factors: dict[str, list[str]] = field(default_factory=dict)  # levels as text, design order
    fixed: dict[str, str] = field(default_factory=dict)
    responses: list[str] = field(default_factory=list)  # the default responses
    by: str | None = None  # the default --by
    layout: list[str] = field(default_factory=list)  # the default factors, columns last
    units: Mapping[str, str] = field(default_factory=dict)
    # each table's columns' units: a column name (an OMNeT++ table's value) in several tables
    # has a unit in each
    table_units: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    bounds: Mapping[str, tuple[float | None, float | None]] = field(default_factory=dict)
    theory: str | None = None  # the design's analysis.theory, as it names it
    theory_file: Path | None = None  # a theory given as a file, as the store recorded it
    traces: list[TraceSettings] = field(default_factory=list)
    steady: list[SteadySettings] = field(default_factory=list)  # steady-state responses
    # replications every configuration has when some have more (a precision campaign over
    # configurations): the factorial analysis takes 1..this of each; None when balanced
    balanced_replications: int | None = None
    fraction: str | None = None  # a fraction's generators and defining relation, as recorded
    recorded: bool = False

    def outside(self, name: str, low: float, high: float) -> float | None:
        """The bound of summary field ``name`` that the interval [low, high] runs past."""
        minimum, maximum = self.bounds.get(name, (None, None))
        if maximum is not None and high > maximum:
            return maximum
        if minimum is not None and low < minimum:
            return minimum
        return None

    def label(self, name: str) -> str:
        """``name`` with its unit, e.g. ``efficiency (fraction of capacity)``; bare without."""
        return f"{name} ({self.units[name]})" if name in self.units else name


def default_traces(design: Design) -> list[TraceSettings]:
    """The traces of a design whose ``analysis`` names none: its engine's adapter's
    (:meth:`satsweep.engine.adapters.Adapter.default_traces`; OMNeT++'s: each declared vector
    table), none for a program of no adapter."""
    from satsweep.engine.adapters import adapter

    engine = adapter(design.program)
    if engine is None:
        return []
    return [TraceSettings(**trace) for trace in engine.default_traces(design.describe)]


def study_design(store: Store, edited: Design | None = None) -> StudyDesign:
    """The recorded design of ``store`` as the analysis uses it, or ``edited``: the recorded
    design with its file's current ``analysis`` section
    (:func:`satsweep.design.with_analysis_of`). Default responses: the design's
    ``analysis.responses``, else every numeric summary field the program declares; default
    ``by`` and factors: ``analysis.by`` and ``analysis.factors``, else none and the design's
    factors in its order; traces: ``analysis.traces``, else :func:`default_traces`."""
    design = edited or store.design()
    if design is None:
        return StudyDesign()
    describe, settings = design.describe, design.analysis
    # a theory file as the store recorded where it was (the design names it relative to
    # itself), or beside the edited design file
    recorded_file = (
        design.theory_file
        if edited is not None
        else (store.recorded() or {}).get("theory", {}).get("path")
    )
    named_file = settings.theory is not None and theory_file(settings.theory) is not None
    numeric = [f.name for f in describe.summary if f.type in ("int", "float")]
    numeric += [s.response for s in settings.steady]
    by = settings.by
    return StudyDesign(
        factors={name: [level_text(v) for v in levels] for name, levels in design.factors.items()},
        fixed={name: level_text(value) for name, value in design.fixed.items()},
        responses=list(settings.responses or numeric),
        by=by,
        layout=list(settings.factors or [f for f in design.factors if f != by]),
        units={**describe.units(), **_steady_units(design)},
        table_units={
            name: {c.name: c.unit for c in columns if c.unit}
            for name, columns in describe.tables.items()
        },
        bounds={
            f.name: (f.minimum, f.maximum)
            for f in describe.summary
            if f.minimum is not None or f.maximum is not None
        },
        theory=settings.theory,
        theory_file=Path(recorded_file) if named_file and recorded_file else None,
        traces=list(settings.traces) or default_traces(design),
        steady=list(settings.steady),
        balanced_replications=None if design.balanced else design.replications,
        fraction=design.fractional.summary() if design.fractional is not None else None,
        recorded=True,
    )


def _steady_units(design: Design) -> dict[str, str]:
    """Each steady-state response's unit: its column's (``bytes``), over ``per``'s for a ratio
    (``bytes / s``); none when the column declares none."""
    units = {}
    for s in design.analysis.steady:
        columns = {c.name: c.unit for c in design.describe.tables.get(s.table, [])}
        y, per = columns.get(s.y), columns.get(s.per) if s.per else None
        if y and (s.per is None or per):
            units[s.response] = f"{y} / {per}" if per else y
    return units
