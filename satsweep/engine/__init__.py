"""The engine contract (docs/engine-contract.md): a simulation program describes itself with
``--describe`` and runs one simulation per call. satsweep knows a program only through it.

The lowest room of the package: it knows no design, store or workflow.
"""

from satsweep.engine.description import (
    KEY_COLUMNS,
    PROVENANCE_COLUMNS,
    TABLE_KEY_COLUMNS,
    Column,
    Cost,
    Description,
    Parameter,
    flags,
    value_text,
)
from satsweep.engine.program import (
    USAGE_ERROR,
    Program,
    ProgramError,
    SimulationError,
    file_sha256,
    program_dirs,
)

__all__ = [
    "KEY_COLUMNS",
    "PROVENANCE_COLUMNS",
    "TABLE_KEY_COLUMNS",
    "USAGE_ERROR",
    "Column",
    "Cost",
    "Description",
    "Parameter",
    "Program",
    "ProgramError",
    "SimulationError",
    "file_sha256",
    "flags",
    "program_dirs",
    "value_text",
]
