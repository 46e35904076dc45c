"""Steady-state responses of a study (docs/steady-state.md): a design's ``analysis.steady``
(:class:`satsweep.design.SteadySettings`) names a table of the program, a column and a warm-up;
this module measures each configuration's warm-up, computes each run's time average after it
in SQL over the store's Parquet table (``analysis/60-steady_series.sql``,
``61-steady_values.sql``) and joins the values onto the runs (``62-added_columns.sql``), where
the factorial analysis, the report and precision campaigns take them like a summary field.

Per configuration it also gives what one configuration's runs say on their own: the
replications' t interval, the ratio estimator's for a response declared as a ratio (``per``),
and batch means on its first replication's series (the interval a single long run gives).
The statistics themselves are :mod:`satsweep.analysis.steady_stats`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from satsweep.analysis import sql
from satsweep.analysis.dataset import IDENTICAL_NOISE, Dataset, t_quantile
from satsweep.analysis.formatting import significant, with_interval
from satsweep.analysis.results import AnalysisError
from satsweep.design import SteadySettings

if TYPE_CHECKING:  # numpy is imported where used: `satsweep --help` never loads it
    import duckdb
    import numpy as np

    from satsweep.analysis.steady_stats import BatchMeans

__all__ = [
    "ConfigurationSteady",
    "SteadyResult",
    "attach",
    "configuration_labels",
    "format_markdown",
    "heading",
    "measure",
    "method",
    "table_rows",
    "warnings",
    "welch_window",
]


def welch_window(n: int) -> int:
    """The half-width of the report's Welch moving average for a series of ``n`` points: a
    twentieth of the run (at least 1), smooth enough to see a trend, short enough to keep
    the transient's shape."""
    return max(1, n // 20)


@dataclass(frozen=True)
class ConfigurationSteady:
    """One configuration's steady state for one response."""

    config_id: str
    warmup: float  # the first x kept
    measured: bool  # warmup: auto (MSER-5), else the design's number
    too_short: bool  # MSER's minimum over the whole run falls in its last half
    start: float  # the series' first x, and its last plus one step (the run's end)
    end: float
    x: list[float]  # the replications' mean series, what MSER and the figure read
    mean_series: list[float]
    runs: int
    mean: float  # the mean over the runs of their values (a ratio: the ratio of sums)
    halfwidth: float | None  # over the runs: t interval, or the ratio estimator's
    batch: BatchMeans  # the first replication's series after the warm-up

    @property
    def fraction(self) -> float:
        """The warm-up as a fraction of the run (0 to 1)."""
        span = self.end - self.start
        return (self.warmup - self.start) / span if span > 0 else 0.0


@dataclass(frozen=True)
class SteadyResult:
    """A steady-state response over every configuration of a store."""

    settings: SteadySettings
    configurations: list[ConfigurationSteady]

    @property
    def too_short(self) -> list[ConfigurationSteady]:
        return [c for c in self.configurations if c.too_short]


def _series(con: duckdb.DuckDBPyConnection) -> dict[str, dict[int, dict[str, np.ndarray]]]:
    """steady_series by configuration and replication: arrays x, y, per (NaN without it)."""
    import numpy as np

    columns = con.execute(
        "SELECT config_id, replication, x, y, coalesce(per, 'NaN'::DOUBLE) AS per "
        "FROM steady_series ORDER BY config_id, replication, x"
    ).fetchnumpy()
    out: dict[str, dict[int, dict[str, np.ndarray]]] = {}
    ids, reps = columns["config_id"], columns["replication"]
    if len(ids) == 0:
        return out
    cut = np.flatnonzero((ids[1:] != ids[:-1]) | (reps[1:] != reps[:-1])) + 1
    for lo, hi in zip(np.r_[0, cut], np.r_[cut, len(ids)], strict=True):
        run = {k: np.asarray(columns[k][lo:hi], dtype=float) for k in ("x", "y", "per")}
        out.setdefault(str(ids[lo]), {})[int(reps[lo])] = run
    return out


def _mean_series(runs: dict[int, dict[str, np.ndarray]], ratio: bool) -> tuple[np.ndarray, ...]:
    """The x values every run has and the replications' mean at each: of y, or of a ratio the
    sum of y over the sum of per there."""
    import numpy as np

    common = runs[min(runs)]["x"]
    for run in runs.values():
        common = np.intersect1d(common, run["x"])
    picked = [{k: v[np.isin(run["x"], common)] for k, v in run.items()} for run in runs.values()]
    ys = np.sum([p["y"] for p in picked], axis=0)
    if ratio:
        pers = np.sum([p["per"] for p in picked], axis=0)
        return common, np.divide(ys, pers, out=np.full_like(ys, np.nan), where=pers != 0)
    return common, ys / len(picked)


def measure(
    con: duckdb.DuckDBPyConnection,
    table: Path,
    settings: SteadySettings,
    confidence: float,
    max_replication: int | None = None,
) -> SteadyResult:
    """Each configuration's warm-up for ``settings`` over the store table ``table`` (MSER-5 on
    the replications' mean series with ``warmup: auto``), then each run's value after it in
    the table ``steady_values`` of ``con``, and the configuration's intervals."""
    import numpy as np

    from satsweep.analysis.steady_stats import batch_means, mser, ratio_interval

    if not table.is_file():
        raise AnalysisError(
            f"steady response {settings.response}: no table {table.name} in the store ({table})"
        )
    ratio = settings.per is not None
    sql.set_variables(
        con,
        steady_table=str(table),
        steady_x=settings.x,
        steady_y=settings.y,
        steady_per=settings.per,
        max_replication=max_replication,
    )
    sql.run(con, sql.STEADY_SERIES)
    series = _series(con)
    warmups: dict[str, tuple[float, bool]] = {}
    means: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for cid, runs in series.items():
        x, mean = _mean_series(runs, ratio)
        means[cid] = (x, mean)
        if settings.warmup == "auto":
            finite = np.isfinite(mean)  # a ratio's bin with nothing below the line is NaN
            cut = mser(mean[finite])
            kept = x[finite]
            first = float(kept[cut.index]) if cut.index < len(kept) else math.nan
            warmups[cid] = (first, cut.too_short)
        else:
            warmups[cid] = (float(settings.warmup), False)
    con.execute("CREATE OR REPLACE TEMP TABLE steady_warmups (config_id VARCHAR, warmup DOUBLE)")
    if warmups:
        con.executemany(
            "INSERT INTO steady_warmups VALUES (?, ?)", [(c, w) for c, (w, _) in warmups.items()]
        )
    sql.run(con, sql.STEADY_VALUES)
    values: dict[str, list[tuple[float, float, float]]] = {}
    for cid, value, numerator, denominator in con.execute(
        "SELECT config_id, value, numerator, denominator FROM steady_values "
        "ORDER BY config_id, replication"
    ).fetchall():
        values.setdefault(cid, []).append((value, numerator, denominator))
    configurations = []
    for cid, runs in series.items():
        warmup, too_short = warmups[cid]
        rows = values.get(cid, [])
        x, mean_series = means[cid]
        first = runs[min(runs)]
        kept = first["x"] >= warmup
        one_run = first["y"][kept] / first["per"][kept] if ratio else first["y"][kept]
        if ratio:
            mean, half = ratio_interval([r[1] for r in rows], [r[2] for r in rows], confidence)
        else:
            got = np.array([r[0] for r in rows if r[0] is not None], dtype=float)
            mean = float(got.mean()) if len(got) else math.nan
            half = (
                t_quantile(confidence, len(got) - 1) * float(got.std(ddof=1)) / math.sqrt(len(got))
                if len(got) > 1
                else None
            )
        configurations.append(
            ConfigurationSteady(
                config_id=cid,
                warmup=warmup,
                measured=settings.warmup == "auto",
                too_short=too_short,
                start=float(x[0]) if len(x) else math.nan,
                # the last bin's end: the run's length when x is a bin's start
                end=float(x[-1] + (x[-1] - x[-2])) if len(x) > 1 else math.nan,
                x=[float(v) for v in x],
                mean_series=[float(v) for v in mean_series],
                runs=len(rows),
                mean=mean,
                halfwidth=half,
                batch=batch_means(one_run[np.isfinite(one_run)], confidence),
            )
        )
    return SteadyResult(settings, configurations)


def attach(
    data: Dataset,
    store_root: Path,
    steady: Sequence[SteadySettings],
    confidence: float,
    max_replication: int | None = None,
) -> list[SteadyResult]:
    """Each steady response of ``steady`` measured over the store at ``store_root`` and joined
    onto ``data``'s runs as a column of its name (:meth:`Dataset.add_columns`)."""
    results = []
    con = data.connection
    for settings in steady:
        result = measure(
            con, store_root / f"{settings.table}.parquet", settings, confidence, max_replication
        )
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE steady_named AS SELECT config_id, replication, "
            f"value AS {_identifier(settings.response)} FROM steady_values"
        )
        data.add_columns("steady_named", [settings.response])
        results.append(result)
    return results


def _identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def configuration_labels(data: Dataset, factors: Sequence[str]) -> dict[str, str]:
    """config_id -> its levels as text (``link=wan, flavor=sack``), in the order of the runs."""
    con = data.connection
    if not factors:
        return {}
    columns = ", ".join(f"level_text({_identifier(f)})" for f in factors)
    rows = con.execute(
        f"SELECT config_id, {columns} FROM source GROUP BY ALL ORDER BY min(rowid)"
    ).fetchall()
    return {
        str(row[0]): ", ".join(f"{f}={v}" for f, v in zip(factors, row[1:], strict=True))
        for row in rows
    }


def _interval_text(mean: float, half: float | None) -> str:
    if half is not None and half <= IDENTICAL_NOISE * abs(mean):
        return f"{significant(mean)} (runs identical)"  # no spread: no interval to show
    value, half_text = with_interval(mean, half)
    return value if half_text is None else f"{value} ± {half_text}"


def warnings(results: Sequence[SteadyResult], labels: dict[str, str]) -> list[str]:
    """One line per configuration whose run is too short to leave its transient."""
    return [
        f"{r.settings.response}: {labels.get(c.config_id, c.config_id)}: too short to leave "
        "its transient (MSER-5's least standard error is at the middle of the run: the "
        "transient reaches its last half); a longer run, or a warm-up given in the design"
        for r in results
        for c in r.too_short
    ]


def heading(result: SteadyResult) -> str:
    """What a steady response is, in a line: ``x_steady = time average of x of table series
    after the warm-up``."""
    s = result.settings
    what = f"sum({s.y}) / sum({s.per})" if s.per else f"time average of {s.y}"
    return f"{s.response} = {what} of table {s.table} after the warm-up"


def method(result: SteadyResult, confidence: float) -> str:
    """How the warm-up and the intervals were found, in a sentence or two."""
    s = result.settings
    how = (
        "MSER-5 on the replications' mean series (the batch of 5 whose truncation leaves the "
        "least standard error of the mean, searched over the run's first half; at its end, "
        "the run is too short)"
        if s.warmup == "auto"
        else f"{s.warmup:g} ({s.x}), as the design gives it"
    )
    over = "the ratio estimator over the runs (delta method)" if s.per else "t over the runs"
    return (
        f"Warm-up: {how}. Intervals at {confidence * 100:g}%: {over}; batch means on replication "
        "1 alone (batches doubled until their lag-1 autocorrelation is below 2/sqrt(batches)), "
        "the interval a single long run gives."
    )


def table_rows(result: SteadyResult, labels: dict[str, str]) -> tuple[list[str], list[list[str]]]:
    """The header and rows of a steady response's table, one row per configuration in the
    order of ``labels``: warm-up, its fraction of the run, runs, mean and interval after the
    warm-up, batch means on run 1, and a note when the run is too short."""
    s = result.settings
    header = [
        "configuration", f"warm-up ({s.x})", "of the run", "runs", s.response,
        "batch means (run 1)", "note",
    ]  # fmt: skip
    order = {cid: i for i, cid in enumerate(labels)}
    rows = []
    for c in sorted(result.configurations, key=lambda c: order.get(c.config_id, len(order))):
        batch = (
            f"{_interval_text(c.batch.mean, c.batch.halfwidth)} ({c.batch.batches} x "
            f"{c.batch.size})"
            if c.batch.halfwidth is not None
            else "n/a: " + c.batch.reason
        )
        rows.append(
            [
                labels.get(c.config_id, c.config_id),
                significant(c.warmup),
                f"{c.fraction:.0%}",
                str(c.runs),
                _interval_text(c.mean, c.halfwidth),
                batch,
                "too short to leave its transient" if c.too_short else "",
            ]
        )
    return header, rows


def format_markdown(
    results: Sequence[SteadyResult], labels: dict[str, str], confidence: float
) -> str:
    """The steady-state section of ``satsweep analyze``: per response, :func:`method` and the
    table of :func:`table_rows`."""
    lines = []
    for result in results:
        header, rows = table_rows(result, labels)
        lines += [f"## Steady state: {heading(result)}", "", method(result, confidence), ""]
        lines += ["| " + " | ".join(header) + " |", "|---|---:|---:|---:|---:|---:|---|"]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        lines.append("")
    return "\n".join(lines)
