"""Writing the report: the analyses, the document's sections, and the swap of the finished
directory into place."""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import duckdb

import satsweep
from satsweep import analysis, store
from satsweep.analysis import Analysis, AnalysisError, Dataset, Model, sql
from satsweep.report.design import StudyDesign, default_factors, study_design, unit
from satsweep.report.document import (
    Block,
    confidence_label,
    html_page,
    markdown,
    number,
    percent,
    table,
)
from satsweep.report.figures import effects_figure, interactions_figure
from satsweep.report.tables import provenance, results_table

__all__ = ["AUTO", "DEFAULT_BY", "DEFAULT_RESPONSES", "REPORT_DIR", "ReportError", "write_report"]

DEFAULT_RESPONSES = ("efficiency", "fairness")
#: The ``by`` column when none is given: one report section per link type, as in the paper.
DEFAULT_BY = "link"
#: ``by`` of :func:`write_report` that means "DEFAULT_BY when it is a factor of the study".
AUTO = ""
REPORT_DIR = "report"


class ReportError(Exception):
    """The report cannot be made (no such study, empty store, bad analysis); says why."""


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "x"


def _section(
    data: Dataset, heading: str, result: Analysis, directory: Path, log: Callable[[str], None]
) -> list[Block]:
    """The blocks of one group x response, writing its figures (titled ``heading`` · response)
    into ``directory``."""
    pct = confidence_label(result.confidence)
    blocks = [Block("h3", result.response)]
    blocks.append(
        Block(
            "p",
            f"{result.n} runs ({result.replications} per cell), overall mean {number(result.mean)}, "
            f"total variation (SST) {result.total_variation:.6g}; model {result.model}: "
            f"standard error {number(result.standard_error)} with {result.error_dof} degrees of "
            "freedom.",
        )
    )
    laid_out = results_table(data, result)
    replicated = result.replications >= 2
    blocks.append(
        Block(
            "h4",
            f"Results: mean {unit(result.response)}"
            + (
                f" ± {pct} CI half-width over the {result.replications} replications"
                if replicated
                else " (one run per cell)"
            ),
        )
    )
    header = [
        *(laid_out.row_factors or ("",)),
        *(f"{laid_out.column_factor} = {v}" for v in laid_out.column_levels),
    ]
    rows = []
    for levels, cells in laid_out.rows:
        shown = [
            number(c.mean) + (f" ± {number(c.half_width)}" if c.half_width is not None else "")
            for c in cells
        ]
        rows.append([*(levels or ("mean",)), *shown])
    n_row = max(1, len(laid_out.row_factors))
    blocks.append(table(header, rows, "l" * n_row + "r" * len(laid_out.column_levels)))

    blocks.append(Block("h4", "Allocation of variation"))
    blocks.append(
        table(
            ["term", "sum of squares", "dof", "% of variation"],
            [[t.term, f"{t.ss:.6g}", str(t.dof), percent(t.percent)] for t in result.terms]
            + [["total", f"{result.total_variation:.6g}", str(result.n - 1), "100.00"]],
            "lrrr",
        )
    )
    blocks.append(Block("h4", f"Main effects ({pct} confidence intervals; * = significant)"))
    blocks.append(
        table(
            ["factor", "level", "effect", f"{pct} CI", "significant"],
            [
                [
                    factor,
                    level,
                    number(e.effect),
                    f"[{number(e.ci[0])}, {number(e.ci[1])}]" if e.ci else "n/a",
                    "*" if e.significant else "",
                ]
                for factor, levels in result.effects.items()
                for level, e in levels.items()
            ],
            "llrrl",
        )
    )
    stem = _slug("-".join(([result.group] if result.group is not None else []) + [result.response]))
    name = f"{stem}-effects.png"
    effects_figure(heading, result, directory / name)
    log(f"{REPORT_DIR}/{name}")
    blocks.append(Block("img", name, header=(f"{result.response}: main effects",)))
    name = f"{stem}-interactions.png"
    if interactions_figure(data, heading, result, directory / name):
        log(f"{REPORT_DIR}/{name}")
        blocks.append(Block("img", name, header=(f"{result.response}: interactions",)))
    return blocks


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


def _read_store(study: str, runs: Path) -> tuple[StudyDesign, dict[str, str]]:
    """The study's design and provenance, from its ``runs.parquet``."""
    con = sql.connect()
    try:
        sql.load(con, str(runs))  # the runs as the analysis reads them: the table `source`
        if not len(con.table("source")):
            raise ReportError(f"study '{study}' has no finished runs ({runs} is empty)")
        con.table("source").create_view("runs")  # study_design's name for them
        return study_design(runs.parent, con), provenance(con)
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
    responses: Sequence[str] = DEFAULT_RESPONSES,
    factors: Sequence[str] | None = None,
    by: str | None = AUTO,
    model: Model = analysis.DEFAULT_MODEL,
    confidence: float = analysis.DEFAULT_CONFIDENCE,
    log: Callable[[str], None] = lambda line: None,
) -> Path:
    """Writes ``<results>/<study>/report/`` and returns the path of its ``index.html``.

    ``factors`` default to the study's factors but ``by`` (:func:`study_design`,
    :func:`default_factors`); ``by=AUTO`` (the default) means ``link`` when it is a factor of the
    study (with more than one level) and not among ``factors``, else none; ``by=None`` means
    none. ``log`` gets the path of every file written. Raises :class:`ReportError` (nothing
    written) when the study has no store or no runs, or the analysis refuses the data.
    """
    if not study or "/" in study or study in (".", ".."):
        raise ReportError(f"'{study}' is not a study name")
    base = store.results_dir(results)
    study_dir = base / study
    runs = study_dir / "runs.parquet"
    if not runs.is_file():
        raise ReportError(f"no study '{study}' in {base} (no {runs})")
    design, facts = _read_store(study, runs)
    if by == AUTO:
        by = (
            DEFAULT_BY
            if DEFAULT_BY in design.factors and (factors is None or DEFAULT_BY not in factors)
            else None
        )
    if factors is None:
        factors = default_factors(design, by)
        if not factors:
            raise ReportError(
                f"study '{study}' has no factor with more than one level besides "
                f"{by or 'none'} (found from {design.source}); give --factors"
            )
    factors, responses = list(factors), list(responses)
    if not responses:
        raise ReportError("no responses given")

    try:
        with Dataset.open(runs) as data:
            analyses = _analyses(data, responses, factors, by, model, confidence)
            target = study_dir / REPORT_DIR
            built = Path(tempfile.mkdtemp(prefix=f".{REPORT_DIR}-", dir=study_dir))
            try:
                os.chmod(built, 0o755)
                blocks = _front_matter(
                    study, facts, design, responses, factors, by, model, confidence, analyses
                )
                for group, results_ in analyses.items():
                    if by is not None:
                        where = f"{by} = {group}"
                    elif DEFAULT_BY in design.fixed:  # say which link, in every figure's title
                        where = f"{DEFAULT_BY} = {design.fixed[DEFAULT_BY]}"
                    else:
                        where = ""
                    blocks.append(Block("h2", where or "All runs"))
                    heading = f"{study} · {where}" if where else study
                    for result in results_:
                        blocks += _section(data, heading, result, built, log)
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
                *[[f"factor {f}", ", ".join(v)] for f, v in levels.items()],
                ["analysed per", f"{by}: {groups}" if by is not None else "none"],
                [
                    "fixed parameters",
                    ", ".join(f"{k} = {v}" for k, v in design.fixed.items()) or "none",
                ],
                ["error model", model],
                ["confidence", confidence_label(confidence)],
                ["study factors found from", design.source],
            ],
            "ll",
        ),
        Block(
            "p",
            f"Results tables: one row per combination of {' x '.join(factors[:-1]) or '(none)'} "
            f"(the first varying slowest), one column per level of {factors[-1]} (the last "
            "factor); each cell is the mean over the replications, with the half-width of its "
            f"t-based {confidence_label(confidence)} confidence interval when there are 2 or more. "
            "Allocation of variation: percent of the total variation per term, the error last. "
            "Main effects: effect of each level (mean at the level minus the overall mean) with "
            "its confidence interval; * marks a level whose interval excludes 0. Figures: main "
            f"effects with their intervals; interactions with {factors[-1]}: mean response over "
            f"its levels, one line per level of each other factor. Regenerate with:",
        ),
        Block("code", _command(study, responses, factors, by, model, confidence)),
    ]
    return blocks
