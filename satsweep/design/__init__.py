"""Sweep designs: the YAML file, checked against its program's ``--describe``, and its
expansion into configurations and runs. Imports only the engine and theory rooms.

- :mod:`~satsweep.design.expansion`: configurations and runs, their ``config_id`` and random
  streams (``rng_run``);
- :mod:`~satsweep.design.fraction`: 2^(k-p) fractions: generators, defining relation,
  resolution, their rows;
- :mod:`~satsweep.design.schema`: the design's fields (:class:`Design`) and what each takes;
- :mod:`~satsweep.design.checks`: the checks against the program's ``--describe``;
- :mod:`~satsweep.design.loading`: :func:`load_design`, the file read, checked and sized.
"""

from satsweep.design.checks import RESERVED_PARAMETERS
from satsweep.design.expansion import (
    MAX_REPLICATIONS,
    MAX_RNG,
    Configuration,
    Run,
    config_id,
    rng_run,
)
from satsweep.design.loading import MAX_RUNS, load_design, with_analysis_of
from satsweep.design.schema import (
    AnalysisSettings,
    Design,
    DesignError,
    FractionSettings,
    Precision,
    SteadySettings,
    Target,
    TraceSettings,
)

__all__ = [
    "MAX_REPLICATIONS",
    "MAX_RNG",
    "MAX_RUNS",
    "RESERVED_PARAMETERS",
    "AnalysisSettings",
    "Configuration",
    "Design",
    "DesignError",
    "FractionSettings",
    "Precision",
    "Run",
    "SteadySettings",
    "Target",
    "TraceSettings",
    "config_id",
    "load_design",
    "rng_run",
    "with_analysis_of",
]
