"""`satsweep report`: a study's results and their factorial analysis as HTML and Markdown.

:func:`write_report` reads ``<results>/<study>/runs.parquet``, analyses each response per group
of the ``by`` column (:mod:`satsweep.analysis`) and writes ``<results>/<study>/report/``:
``index.html`` (self-contained: tables, CSS, ``<img>`` tags to the PNGs beside it), ``report.md``
(the same content in Markdown) and the figures (PNG, matplotlib). Per group and response: the
results table (the paper's layout, see :func:`results_table`), the allocation of variation, the
main effects with their confidence intervals, a figure of the main effects and one of the
interactions with the column factor.

Curves: when the column factor's levels are all numbers and there are 3 or more, the section
gets ``<group>-<response>-curves.png``, the response against that factor (its levels as the
ticks; log x when every level is > 0 and they span 20x, or 4x as ratios do: 0.5, 1, 2): one
line per row of the results table (a combination of the other factors' levels), through the
cell means, the series moved a little apart along x, with the cell's t interval (the results
table's ± half-width: from the model's pooled error when it has degrees of freedom, else from
the cell's own runs; each section says which) as error bars; a response's y axis stops at the
bounds its program declares. With
the design's ``analysis.theory`` (:mod:`satsweep.theory`), each of ``theory.predicts[response]``
evaluated on each cell's first run is drawn dashed in its series' color, the theory's
``references`` (thresholds, windows) dotted, and a table gives each cell's simulated mean beside
every prediction. The curves come after the results table, before the allocation of variation.

Traces (``analysis.traces``): a section "Traces", after the provenance and the analysis settings
and before the per-group sections, with one figure per entry: a panel per configuration (its
first replication's rows of the program's table, at most 4 panels a row), the ``y`` columns
against ``x``, a line per value of ``series``, the theory's references of that configuration.
With ``replications: mean`` (``57-trace_means.sql``), a line through the mean over the
configuration's replications at each x with its t interval at the report's confidence as a band;
with x a factor, a panel per configuration of the other factors and each run's rows averaged per
series first, error bars at each level (log x as the curves); with fewer than 3 replications
behind a panel's points each run drawn thin with their mean instead (no t interval of one
degree of freedom), and a band never past the range the runs reach (the caption says where it
is cut). The panels share their y scale; a line is named by its series' value. The caption
names the number of replications and the confidence.

Numbers follow one rule (:mod:`satsweep.analysis.formatting`): an interval to two significant
digits, its value to the same place; a value alone with the digits that tell it from its
neighbours. A study whose replications are all identical is told so, without intervals.

``index.html`` opens with a table of contents linking every section and figure. The defaults
of the analysis come from the recorded design, its ``analysis`` section from the design file
as it is now when that was edited since the run (only that section).

The directory is built next to the target and then swapped in, so a failed report leaves the
previous one (or none) untouched.

One job per module:

- :mod:`~satsweep.report.write`: :func:`write_report`: the analyses, the sections, the swap;
- :mod:`~satsweep.report.tables`: the results table with its intervals, the provenance;
- :mod:`~satsweep.report.figures`: the figures (matplotlib);
- :mod:`~satsweep.report.document`: the block list rendered as Markdown and HTML;
"""

from satsweep.report.tables import CellResult, ResultsTable, provenance, results_table
from satsweep.report.write import AUTO, REPORT_DIR, ReportError, write_report

__all__ = [
    "AUTO",
    "REPORT_DIR",
    "CellResult",
    "ReportError",
    "ResultsTable",
    "provenance",
    "results_table",
    "write_report",
]
