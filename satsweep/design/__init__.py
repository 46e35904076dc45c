"""Sweep designs: the YAML file, checked against its program's ``--describe``, and its
expansion into configurations and runs. Imports only the engine and theory rooms."""

from satsweep.design.design import (
    MAX_REPLICATIONS,
    MAX_RNG,
    MAX_RUNS,
    RESERVED_PARAMETERS,
    AnalysisSettings,
    Configuration,
    Design,
    DesignError,
    Precision,
    Run,
    Target,
    TraceSettings,
    config_id,
    load_design,
    rng_run,
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
    "Precision",
    "Run",
    "Target",
    "TraceSettings",
    "config_id",
    "load_design",
    "rng_run",
]
