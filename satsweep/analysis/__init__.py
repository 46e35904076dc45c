"""Analysis of a full factorial design (Jain 1991) in DuckDB SQL.

The statistics live in ``analysis/*.sql``, numbered in run order (see ``analysis/README.md``);
this package is the thin runner around them:

- :mod:`~satsweep.analysis.sql`: where the files are, and running them with DuckDB variables;
- :mod:`~satsweep.analysis.dataset`: :class:`Dataset`, which loads a source (Parquet or CSV
  file, or a study's store) and analyses it: variables set, files run, checks raised as
  :class:`AnalysisError`, the t quantile (SciPy), the result tables read;
- :mod:`~satsweep.analysis.results`: the models and the result dataclasses;
- :mod:`~satsweep.analysis.formatting`: the JSON and Markdown that ``satsweep analyze`` prints;
- :mod:`~satsweep.analysis.study`: a study's defaults and units, from its recorded design.

Typical use, e.g. from a report generator::

    with Dataset.open("results/goyal98/runs.parquet") as data:
        for link, result in data.analyze_by("link", "efficiency", ["flavor", "buffer", "drop"]).items():
            result.allocation_percent, result.effects["flavor"]["SACK"].ci, ...
"""

from satsweep.analysis.dataset import (
    Dataset,
    analyze,
    analyze_by,
    identical_responses,
    resolve_source,
)
from satsweep.analysis.formatting import format_markdown, to_json
from satsweep.analysis.results import (
    DEFAULT_CONFIDENCE,
    DEFAULT_MODEL,
    MODELS,
    Analysis,
    AnalysisError,
    Cell,
    Effect,
    Interaction,
    Model,
    Term,
)
from satsweep.analysis.study import StudyDesign, study_design

__all__ = [
    "DEFAULT_CONFIDENCE",
    "DEFAULT_MODEL",
    "MODELS",
    "Analysis",
    "AnalysisError",
    "Cell",
    "Dataset",
    "Effect",
    "Interaction",
    "Model",
    "StudyDesign",
    "Term",
    "analyze",
    "analyze_by",
    "format_markdown",
    "identical_responses",
    "resolve_source",
    "study_design",
    "to_json",
]
