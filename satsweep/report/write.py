"""Writing the report: the analyses, the document's sections, and the swap of the finished
directory into place."""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from pathlib import Path

import yaml

import satsweep
from satsweep import analysis
from satsweep.analysis import Analysis, AnalysisError, Dataset, Model, sql, steady
from satsweep.analysis.formatting import (
    NO_INTERVALS_IDENTICAL,
    distinguishing_digits,
    effect_cells,
    fraction_note,
    mean_text,
    significant,
    with_interval,
)
from satsweep.analysis.study import StudyDesign, study_design
from satsweep.design import Design, DesignError, TraceSettings, with_analysis_of
from satsweep.store import Store, StoreError
from satsweep.report.document import (
    Block,
    confidence_label,
    html_page,
    markdown,
    number,
    percent,
    table,
)
from satsweep.report.figures import (
    curves_figure,
    effects_figure,
    interactions_figure,
    numeric_levels,
    traces_figure,
    warmup_figure,
)
from satsweep.analysis import precision
from satsweep.report.tables import (
    BAND_LEAST_REPLICATIONS,
    ResultsTable,
    TracePanel,
    curves,
    provenance,
    results_table,
    trace_mean_panels,
    trace_over_factor,
    trace_panels,
    trace_range,
)
from satsweep.theory import Theory, TheoryNotFound, theory

__all__ = ["AUTO", "REPORT_DIR", "ReportError", "write_report"]

#: ``by`` of :func:`write_report` that means "the design's ``analysis.by``".
AUTO = ""
REPORT_DIR = "report"


class ReportError(Exception):
    """The report cannot be made (no such study, empty store, bad analysis); says why."""


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "x"


def _section(
    data: Dataset,
    study: StudyDesign,
    heading: str,
    result: Analysis,
    directory: Path,
    log: Callable[[str], None],
    study_theory: Theory | None,
) -> list[Block]:
    """The blocks of one group x response, writing its figures (titled ``heading`` · response)
    into ``directory``; ``study_theory``: the study's theory, if any."""
    pct = confidence_label(result.confidence)
    blocks = [Block("h3", result.response)]
    part = study.balanced_replications
    blocks.append(
        Block(
            "p",
            f"{result.n} runs ({result.replications} per cell), overall mean {mean_text(result)}, "
            f"total variation (SST) {number(result.total_variation)}; model {result.model}: "
            f"standard error {number(result.standard_error)} with {result.error_dof} degrees of "
            "freedom."
            + (
                f" The configurations have their own replications (precision over "
                f"configurations): the effects and the allocation of variation take replications "
                f"1..{part} of each (a balanced design), the results table every run."
                if part is not None
                else ""
            ),
        )
    )
    if result.identical_replications:
        blocks.append(
            Block("p", f"{NO_INTERVALS_IDENTICAL[0].upper()}{NO_INTERVALS_IDENTICAL[1:]}.")
        )
    laid_out = results_table(data, result)
    intervals = _intervals_short(result, laid_out)
    blocks.append(
        Block(
            "h4",
            f"Results: mean {study.label(result.response)}"
            + (
                f" ± {intervals} half-width"
                if intervals
                else " (replications identical)"
                if result.identical_replications
                else " (one run per cell)"
            ),
        )
    )
    header = [
        *(laid_out.row_factors or ("",)),
        *(f"{laid_out.column_factor} = {v}" for v in laid_out.column_levels),
    ]
    rows = []
    past: set[float] = set()  # bounds of the response that an interval runs past
    # a cell without an interval: the digits that tell it from the table's other cells
    digits = distinguishing_digits(c.mean for _, cells in laid_out.rows for c in cells if c)
    for levels, cells in laid_out.rows:
        shown = []
        for c in cells:
            if c is None:  # not in the fraction
                shown.append("·")
                continue
            text, half = with_interval(c.mean, c.half_width)
            if half is None:
                text = significant(c.mean, digits)
            else:
                text += f" ± {half}"
                bound = study.outside(result.response, c.mean - c.half_width, c.mean + c.half_width)
                if bound is not None:
                    past.add(bound)
                    text += " †"
            shown.append(text)
        rows.append([*(levels or ("mean",)), *shown])
    n_row = max(1, len(laid_out.row_factors))
    blocks.append(table(header, rows, "l" * n_row + "r" * len(laid_out.column_levels)))
    blocks.append(Block("p", _intervals_sentence(result, laid_out, part is not None)))
    if past:
        bounds = " and ".join(f"{b:g}" for b in sorted(past))
        blocks.append(
            Block(
                "p",
                f"† The interval runs past {bounds}, a bound {result.response} cannot cross "
                "(declared by the program): the t interval assumes a symmetric, unbounded "
                "response, which a mean this close to its bound is not; read it as reaching "
                "the bound, or add replications.",
            )
        )

    stem = _slug("-".join(([result.group] if result.group is not None else []) + [result.response]))
    blocks += _curves(
        data, heading, result, laid_out, study_theory, directory / f"{stem}-curves.png", log, study
    )
    aliased = result.defining_relation is not None  # a fraction: say what each effect estimates
    blocks.append(Block("h4", "Allocation of variation"))
    if aliased:
        blocks.append(Block("p", fraction_note(result)))
    blocks.append(
        table(
            ["term", "sum of squares", "dof", "% of variation"],
            [
                [result.alias_set(t.term), number(t.ss), str(t.dof), percent(t.percent)]
                for t in result.terms
            ]
            + [["total", number(result.total_variation), str(result.n - 1), "100.00"]],
            "lrrr",
        )
    )
    blocks.append(Block("h4", f"Main effects ({pct} confidence intervals; * = significant)"))
    shown_effects = effect_cells(result)
    blocks.append(
        table(
            ["factor", "level", "effect", f"{pct} CI", "significant"]
            + (["estimates"] if aliased else []),
            [
                [
                    factor,
                    level,
                    *shown_effects[(factor, level)],
                    "*" if e.significant else "",
                ]
                + ([result.alias_set(factor)] if aliased else [])
                for factor, levels in result.shown_effects().items()
                for level, e in levels.items()
            ],
            "llrrl" + ("l" if aliased else ""),
        )
    )
    name = f"{stem}-effects.png"
    effects_figure(heading, result, directory / name, study)
    log(f"{REPORT_DIR}/{name}")
    blocks.append(Block("img", name, header=(f"{result.response}: main effects",)))
    name = f"{stem}-interactions.png"
    if interactions_figure(data, heading, result, directory / name, study):
        log(f"{REPORT_DIR}/{name}")
        blocks.append(Block("img", name, header=(f"{result.response}: interactions",)))
    return blocks


def _has_intervals(laid_out: ResultsTable) -> bool:
    # a fraction's table has no cell (None) where its runs are not
    return any(
        c is not None and c.half_width is not None for _, cells in laid_out.rows for c in cells
    )


def _intervals_short(result: Analysis, laid_out: ResultsTable) -> str | None:
    """The cells' intervals in a few words (a heading, a figure's title); None without any."""
    pct = confidence_label(result.confidence)
    if laid_out.pooled:
        return f"{pct} CI (pooled error, {result.error_dof} dof)"
    return f"{pct} CI (each cell's runs)" if _has_intervals(laid_out) else None


def _intervals_sentence(result: Analysis, laid_out: ResultsTable, every_run: bool) -> str:
    """Which error the cells' intervals (the table's ± and the curves' bars) use, in one
    sentence: the model's pooled error where it has degrees of freedom, else each cell's runs."""
    pct = confidence_label(result.confidence)
    runs = "every run of the cell" if every_run else "its runs"
    if laid_out.pooled:
        return (
            f"Intervals: each cell's {pct} interval uses the pooled error of the {result.model} "
            f"model (the ANOVA's error term: standard error {number(result.standard_error)}, "
            f"{result.error_dof} degrees of freedom, t = {result.t_quantile:.3f}) divided by "
            f"the square root of the number of {runs}, not the cell's own replications alone."
        )
    if result.identical_replications:
        return f"Intervals: none ({NO_INTERVALS_IDENTICAL.split(';')[0]})."
    if _has_intervals(laid_out):
        return (
            f"Intervals: the {result.model} model leaves no degrees of freedom for the error, so "
            f"each cell's {pct} interval uses its own runs (t with n - 1 degrees of freedom, s "
            "the cell's standard deviation); none where a cell has one run."
        )
    return (
        f"Intervals: none (one run per cell, and the {result.model} model leaves no degrees of "
        "freedom for the error)."
    )


def _curves(
    data: Dataset,
    heading: str,
    result: Analysis,
    laid_out: ResultsTable,
    study_theory: Theory | None,
    path: Path,
    log: Callable[[str], None],
    study: StudyDesign,
) -> list[Block]:
    """The curves figure when the column factor's levels are numbers (3 or more), and the
    table of each cell's mean beside the theory's predictions of the response."""
    x = numeric_levels(laid_out.column_levels)
    if x is None:
        return []
    runs = data.cell_runs(result.response, result.factors, by=result.by, group=result.group)
    lines, references = curves(laid_out, x, runs, study_theory, result.response)
    curves_figure(
        heading, result, lines, references, path, study, _intervals_short(result, laid_out)
    )
    log(f"{REPORT_DIR}/{path.name}")
    blocks = [
        Block("img", path.name, header=(f"{result.response} against {laid_out.column_factor}",)),
        Block("p", _curves_caption(result, laid_out)),
    ]
    if references:
        blocks.append(
            Block(
                "p",
                f"Theory ({study.theory}), dotted: "
                + "; ".join(f"{r.label} at {r.axis} = {number(r.value)}" for r in references)
                + ".",
            )
        )
    names = list(dict.fromkeys(n for line in lines for n in line.predictions))
    if names:
        rows = [
            [
                line.label,
                level,
                " ± ".join(t for t in with_interval(mean, half) if t is not None),
                *(
                    number(line.predictions[n][i])
                    if n in line.predictions and line.predictions[n][i] is not None
                    else ""
                    for n in names
                ),
            ]
            for line in lines
            for i, (level, mean, half) in enumerate(
                zip(laid_out.column_levels, line.means, line.half_widths, strict=True)
            )
        ]
        blocks.append(Block("h4", f"{result.response}: simulated and predicted ({study.theory})"))
        blocks.append(
            table(
                ["series", laid_out.column_factor, "simulated", *names],
                rows,
                "ll" + "r" * (1 + len(names)),
            )
        )
    return blocks


def _curves_caption(result: Analysis, laid_out: ResultsTable) -> str:
    """What the points, bars and lines of a curves figure are."""
    lines = (
        f"one line per combination of {', '.join(laid_out.row_factors)}"
        if laid_out.row_factors
        else "one line"
    )
    points = (
        "one run per cell, its value a point" if result.replications < 2
        else f"each point the mean of a cell over its {result.replications} replications"
    )  # fmt: skip
    if not _has_intervals(laid_out):
        return (
            f"{result.response} against {laid_out.column_factor}: {points} (no intervals); {lines}."
        )
    error = "the model's pooled error" if laid_out.pooled else "the cell's own runs"
    return (
        f"{result.response} against {laid_out.column_factor}: {points}, its bar the "
        f"{confidence_label(result.confidence)} confidence interval of that mean from {error} "
        f"(the results table's ± half-width); {lines}."
    )


def _traces(
    store: Store,
    design: StudyDesign,
    study_theory: Theory | None,
    confidence: float,
    directory: Path,
    log: Callable[[str], None],
) -> list[Block]:
    """The section of the design's traces: a figure each, a panel per configuration (with x a
    factor, per configuration of the others)."""
    if not design.traces:
        return []
    blocks = [Block("h2", "Traces")]
    for i, trace in enumerate(design.traces):
        title = trace.title or f"{', '.join(trace.y)} against {trace.x} ({trace.table})"
        table = store.table(trace.table)
        if not table.is_file():
            blocks.append(Block("p", f"{title}: the store has no {trace.table}.parquet."))
            continue
        factors = list(design.factors)
        factor_x = False
        if trace.replications == "first":
            panels = trace_panels(store.runs_table, table, trace, factors, study_theory)
            theory_lines = f", the lines of theory {design.theory} dotted" if study_theory else ""
            caption = (
                f"{title}: a panel per configuration, the rows of {trace.table} of its first "
                f"replication{theory_lines}."
            )
        else:
            factor_x = trace_over_factor(trace, factors, table)
            panels = trace_mean_panels(store.runs_table, table, trace, factors, confidence)
            if not panels:  # the panels come from the rows: none without any
                blocks.append(Block("p", f"{title}: {trace.table}.parquet has no rows."))
                continue
            counts = sorted({p.replications for p in panels})
            runs = f"{counts[0]}" + (f" to {counts[-1]}" if len(counts) > 1 else "")
            interval = (
                f"{confidence_label(confidence)} t confidence interval (none where a point has "
                "one run)"
            )
            if not any(p.banded for p in panels):  # too few runs for any interval
                interval = (
                    f"each run drawn thin beside it: fewer than {BAND_LEAST_REPLICATIONS} "
                    "replications are too few for a t interval"
                )
            caption = (
                f"{title}: a panel per configuration of the factors but {trace.x}; each run's "
                f"rows of {trace.table} averaged per {trace.series or 'run'}, then at each level "
                f"of {trace.x} the mean over the {runs} replications of each configuration, "
                + (f"the bar its {interval}." if any(p.banded for p in panels) else f"{interval}.")
                if factor_x
                else f"{title}: a panel per configuration; at each {trace.x}, the mean of its "
                f"rows of {trace.table} over the {runs} replications of each configuration, "
                + (f"the band its {interval}." if any(p.banded for p in panels) else f"{interval}.")
            )
            caption += _trace_honesty(trace, panels)
        name = f"trace-{i + 1}-{_slug(trace.table)}.png"
        traces_figure(f"{store.study} · {title}", trace, panels, directory / name, design, factor_x)
        log(f"{REPORT_DIR}/{name}")
        blocks.append(Block("p", caption))
        blocks.append(Block("img", name, header=(title,)))
    return blocks


def _steady(
    study: str,
    measured: Sequence[steady.SteadyResult],
    labels: dict[str, str],
    design: StudyDesign,
    confidence: float,
    directory: Path,
    log: Callable[[str], None],
) -> list[Block]:
    """The section of the design's steady-state responses (docs/steady-state.md): per
    response, how its warm-up and intervals were found, each configuration's warm-up and
    intervals, and the figure of its mean series with Welch's moving average and the warm-up."""
    if not measured:
        return []
    blocks = [Block("h2", "Steady state")]
    for i, result in enumerate(measured):
        header, rows = steady.table_rows(result, labels)
        short = result.too_short
        warning = (
            f" {len(short)} of {len(result.configurations)} configurations are too short to "
            "leave their transient (MSER-5's least standard error is at the middle of the run: "
            "the transient reaches its last half): their steady-state values are not to be "
            "trusted."
            if short
            else ""
        )
        blocks.append(Block("h3", steady.heading(result)))
        blocks.append(Block("p", steady.method(result, confidence) + warning))
        blocks.append(table(header, rows, "lrrrrrl"))
        s = result.settings
        name = f"warmup-{i + 1}-{_slug(s.response)}.png"
        y = f"{s.y} / {s.per}" if s.per else design.label(s.y)
        warmup_figure(f"{study} · {s.response}: warm-up", result, labels, directory / name, y)
        log(f"{REPORT_DIR}/{name}")
        blocks.append(
            Block(
                "p",
                f"{s.response}: a panel per configuration, the mean over its replications of "
                f"{y} against {s.x} (grey), Welch's moving average of it (blue) to judge where "
                "the transient ends, the warm-up (dashed) and the mean after it (dotted).",
            )
        )
        blocks.append(Block("img", name, header=(f"{s.response}: warm-up",)))
    return blocks


def _trace_honesty(trace: TraceSettings, panels: Sequence[TracePanel]) -> str:
    """What a trace of means draws instead of a band, and where its band is cut, in a sentence
    or two for its caption (empty when neither)."""
    said = ""
    if any(not p.banded for p in panels) and any(p.banded for p in panels):
        said += (
            f" Where fewer than {BAND_LEAST_REPLICATIONS} replications are behind a point, "
            "each run is drawn (thin) with their mean and no interval: a t interval of so few "
            "runs reaches far past anything they did."
        )
    for y in trace.y:
        limits = trace_range(panels, y)
        if limits is not None and any(
            p.band(series, y, limits)[2] for p in panels if p.banded for series in p.series
        ):
            said += (
                f" The band of {y} is cut at the range the runs reach ({number(limits[0])} to "
                f"{number(limits[1])}) where the t interval runs past it."
            )
    return said


def _precision(store: Store, confidence: float) -> list[Block]:
    """A precision campaign's targets against the store: the half-width asked, the widest
    reached, the replications and runs spent (docs/precision.md); nothing for a fixed r."""
    design = store.design()
    if design is None or design.precision is None:
        return []
    p = design.precision
    rows = []
    for x in precision.reached(str(store.runs_table), design, confidence):
        t = x.target
        asked = number(t.halfwidth) if t.halfwidth is not None else f"{t.relative:g} x |mean|"
        verdict = "—" if x.halfwidth is None else ("met" if x.met else "not met")
        rows.append([t.response, asked, number(x.halfwidth), verdict])
    return [
        Block("h2", "Precision"),
        Block(
            "p",
            f"Replications until every {'main effect' if p.over == 'effects' else 'configuration mean'}"
            f"'s {confidence_label(confidence)} half-width is at most the one asked, from "
            f"{p.min} to {p.max} per configuration"
            + (
                f", runs of {design.length_parameter} up to {p.max_length:g}"
                if p.max_length
                else ""
            )
            + f" (docs/precision.md): {design.round_text()}, {design.n_runs} runs.",
        ),
        table(["response", "half-width asked", "widest reached", "target"], rows, "llrl"),
    ]


def _command(
    study: str,
    responses: Sequence[str],
    factors: Sequence[str],
    by: str | None,
    model: str,
    confidence: float,
) -> str:
    return (
        f"satsweep report {study} --responses {','.join(responses)} --factors "
        f"{','.join(factors)} --by {by or 'none'} --model {model} --confidence {confidence:g}"
    )


def _swap_in(built: Path, target: Path) -> None:
    """Replaces ``target`` by the directory ``built`` (its sibling)."""
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}-old-{os.getpid()}")
        os.replace(target, old)
    os.replace(built, target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _provenance(store: Store) -> dict[str, str]:
    """The study's provenance, from its ``runs.parquet``."""
    import duckdb

    runs = store.runs_table
    con = sql.connect()
    try:
        sql.load(con, str(runs))  # the runs as the analysis reads them: the table `source`
        if not len(con.table("source")):
            raise ReportError(f"study '{store.study}' has no finished runs ({runs} is empty)")
        return provenance(con)
    except duckdb.Error as e:
        raise ReportError(f"cannot read {runs}: {e}") from e
    finally:
        con.close()


def _analyses(
    data: Dataset,
    responses: Sequence[str],
    factors: Sequence[str],
    by: str | None,
    model: Model,
    confidence: float,
) -> dict[str | None, list[Analysis]]:
    """Every response's analysis, grouped by the value of ``by`` (one group, None, without)."""
    analyses: dict[str | None, list[Analysis]] = {}
    for response in responses:
        if by is None:
            per_group = {None: data.analyze(response, factors, model=model, confidence=confidence)}
        else:
            per_group = data.analyze_by(by, response, factors, model=model, confidence=confidence)
        for group, result in per_group.items():
            analyses.setdefault(group, []).append(result)
    return analyses


def write_report(
    study: str,
    results: str | os.PathLike[str] | None = None,
    *,
    responses: Sequence[str] | None = None,
    factors: Sequence[str] | None = None,
    by: str | None = AUTO,
    model: Model = analysis.DEFAULT_MODEL,
    confidence: float = analysis.DEFAULT_CONFIDENCE,
    log: Callable[[str], None] = lambda line: None,
    design_file: str | os.PathLike[str] | None = None,
    note: Callable[[str], None] = lambda line: None,
) -> Path:
    """Writes ``<results>/<study>/report/`` and returns the path of its ``index.html``.

    The defaults come from the design the store recorded (:func:`study_design`): the
    responses, ``by`` (``by=AUTO``; ``by=None`` means none) and the factors of its ``analysis``
    section, else every numeric summary field, none and its factors. A store without a
    recorded design (made before satsweep kept it) needs ``responses`` and ``factors``. The
    ``analysis`` section (only that) is read from the design file as it is now when it differs
    from the recorded one: ``design_file``, else the file the store recorded (when it still
    exists and names the study); the report and ``note`` say so. ``log`` gets the path of every
    file written. Raises :class:`ReportError` (nothing written) when the
    study has no store or no runs, or the analysis refuses the data.
    """
    try:
        store = Store.named(study, results)
        edited = _edited_analysis(store, design_file)
        design = study_design(store, edited)
    except (StoreError, DesignError) as e:
        raise ReportError(str(e)) from None
    if edited is not None:
        note(
            f"the analysis section of {edited.source} differs from the one recorded at run: "
            "the report uses the file's (the factors and runs stay as recorded)"
        )
    facts = _provenance(store)
    if by == AUTO:
        by = design.by if factors is None or design.by not in factors else None
    if factors is None:
        factors = design.layout
    if responses is None:
        responses = design.responses
    if not design.recorded and not (factors and responses):
        raise ReportError(
            f"{store.root} has no design.json (the store predates it): give --responses and "
            "--factors, or run the study's sweep once to record its design (nothing is rerun)"
        )
    factors, responses = list(factors), list(responses)
    if not factors:
        raise ReportError(f"study '{study}' has no factor besides {by or 'none'}: give --factors")
    if not responses:
        raise ReportError("no responses given")

    try:  # a theory file by where the store recorded it: the report may run elsewhere
        spec = str(design.theory_file) if design.theory_file else design.theory
        study_theory = theory(spec) if spec else None
    except TheoryNotFound as e:
        raise ReportError(f"analysis.theory of the recorded design: {e}") from None
    try:
        # with configurations of their own replications, the factorial analysis takes the
        # balanced part (replications 1..r of each); the results table every run
        part = design.balanced_replications
        with (
            Dataset.open(store.runs_table) as data,
            Dataset.open(store.runs_table, max_replication=part)
            if part
            else nullcontext(data) as balanced,
        ):
            measured = []
            if design.steady:  # steady-state responses: columns of the runs, like a field
                measured = steady.attach(data, store.root, design.steady, confidence)
                if balanced is not data:
                    steady.attach(balanced, store.root, design.steady, confidence, part)
            labels = steady.configuration_labels(data, list(design.factors))
            analyses = _analyses(balanced, responses, factors, by, model, confidence)
            target = store.root / REPORT_DIR
            built = Path(tempfile.mkdtemp(prefix=f".{REPORT_DIR}-", dir=store.root))
            try:
                os.chmod(built, 0o755)
                blocks = _front_matter(
                    study, facts, design, responses, factors, by, model, confidence, analyses,
                    edited.source if edited is not None else None,
                )  # fmt: skip
                blocks += _precision(store, confidence)
                blocks += _steady(store.study, measured, labels, design, confidence, built, log)
                blocks += _traces(store, design, study_theory, confidence, built, log)
                for group, results_ in analyses.items():
                    where = f"{by} = {group}" if by is not None else ""
                    blocks.append(Block("h2", where or "All runs"))
                    heading = f"{study} · {where}" if where else study
                    for result in results_:
                        blocks += _section(data, design, heading, result, built, log, study_theory)
                title = f"satsweep report: {study}"
                (built / "report.md").write_text(markdown(blocks))
                log(f"{REPORT_DIR}/report.md")
                (built / "index.html").write_text(html_page(title, blocks))
                log(f"{REPORT_DIR}/index.html")
                _swap_in(built, target)
            except BaseException:
                shutil.rmtree(built, ignore_errors=True)
                raise
    except AnalysisError as e:
        raise ReportError(str(e)) from e
    return target / "index.html"


def _edited_analysis(store: Store, design_file: str | os.PathLike[str] | None) -> Design | None:
    """The recorded design with the current ``analysis`` section of its design file
    (:func:`with_analysis_of`) when that differs from the recorded one, else None: the file
    given, or the one the store recorded when it still exists and names the study."""
    recorded = store.design()
    if recorded is None:
        return None
    if design_file is None:
        source = (store.recorded() or {}).get("source")
        try:  # a file gone, or since reused for another study, is not this study's any more
            named = yaml.safe_load(Path(source).read_text()).get("study") if source else None
        except (OSError, yaml.YAMLError, AttributeError):
            named = None
        if named != store.study:
            return None
        design_file = source
    edited = with_analysis_of(design_file, recorded)
    return None if edited.analysis == recorded.analysis else edited


def _front_matter(
    study: str,
    facts: dict[str, str],
    design: StudyDesign,
    responses: Sequence[str],
    factors: Sequence[str],
    by: str | None,
    model: str,
    confidence: float,
    analyses: dict[str | None, list[Analysis]],
    edited_file: Path | None,
) -> list[Block]:
    groups = ", ".join(str(g) for g in analyses) if by is not None else "none (all runs together)"
    levels = {f: list(r.effects[f]) for r in next(iter(analyses.values())) for f in r.factors}
    blocks = [
        Block("h1", f"Study {study}"),
        Block(
            "p",
            f"Factorial analysis (Jain 1991) of {', '.join(responses)} over "
            f"{' x '.join(factors)}"
            + (f", one analysis per {by} ({groups})" if by is not None else "")
            + f"; generated {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC by satsweep "
            f"{satsweep.__version__}.",
        ),
        Block("h2", "Provenance"),
        table(["what", "recorded in the runs"], list(facts.items()), "ll"),
        Block("h2", "Analysis"),
        table(
            ["setting", "value"],
            [
                ["responses", ", ".join(responses)],
                *([["design", design.fraction]] if design.fraction is not None else []),
                *[[f"factor {design.label(f)}", ", ".join(v)] for f, v in levels.items()],
                ["analysed per", f"{by}: {groups}" if by is not None else "none"],
                [
                    "fixed parameters",
                    ", ".join(f"{k} = {v}" for k, v in design.fixed.items()) or "none",
                ],
                ["error model", model],
                ["confidence", confidence_label(confidence)],
                [
                    "defaults from",
                    f"the analysis section of {edited_file}, edited since the run (the factors "
                    "and runs as recorded in design.json)"
                    if edited_file is not None
                    else "the recorded design (design.json)"
                    if design.recorded
                    else "none",
                ],
            ],
            "ll",
        ),
        Block(
            "p",
            f"Results tables: one row per combination of {' x '.join(factors[:-1]) or '(none)'} "
            f"(the first varying slowest), one column per level of {factors[-1]} (the last "
            "factor); each cell is the mean over the replications, with the half-width of its "
            f"t-based {confidence_label(confidence)} confidence interval: from the model's pooled "
            "error (the ANOVA's error term) when it has degrees of freedom, else from the cell's "
            "own replications (each section says which). "
            "Allocation of variation: percent of the total variation per term, the error last. "
            "Main effects: effect of each level (mean at the level minus the overall mean) with "
            "its confidence interval; * marks a level whose interval excludes 0. Figures: main "
            f"effects with their intervals; interactions with {factors[-1]}: mean response over "
            "its levels, one line per level of each other factor; when the levels of "
            f"{factors[-1]} are 3 or more numbers, the curves of each response against it "
            "(one line per row of the results table, the cell means with their intervals"
            + (f", theory {design.theory} dashed and dotted" if design.theory else "")
            + "). Regenerate with:",
        ),
        Block("code", _command(study, responses, factors, by, model, confidence)),
    ]
    return blocks
