"""`satsweep report`: a study's results and their factorial analysis as HTML and Markdown.

:func:`write_report` reads ``<results>/<study>/runs.parquet``, analyses each response per group
of the ``by`` column (:mod:`satsweep.analysis`) and writes ``<results>/<study>/report/``:
``index.html`` (self-contained: tables, CSS, ``<img>`` tags to the PNGs beside it), ``report.md``
(the same content in Markdown) and the figures (PNG, matplotlib). Per group and response: the
results table (the paper's layout, see :func:`results_table`), the allocation of variation, the
main effects with their confidence intervals, a figure of the main effects and one of the
interactions with the column factor; over a numeric column factor, the curves with their
intervals and the study's theory (``analysis.theory``). The report starts with the study's
provenance, then the traces of the program's tables (``analysis.traces``).

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
