"""The simulator contract: parameters in, one JSON result out.

satsweep talks to its engine only through this module. The engine today is `satnet` (ns-3, built
from `sim/`): it takes `--name=value` flags and writes one JSON object
`{"params": ..., "summary": ..., "connections": [...]}`. Another engine can be added behind the
same two functions.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

#: Exit code of satnet for a bad command line (unknown flag or value).
USAGE_ERROR = 2


class SimulationError(RuntimeError):
    """A simulation that did not produce a result; carries the tail of its stderr."""

    def __init__(self, message: str, returncode: int, stderr_tail: str):
        super().__init__(f"{message} (exit code {returncode})\n{stderr_tail}".rstrip())
        self.returncode = returncode
        self.stderr_tail = stderr_tail


def satnet_binary() -> Path:
    """Path of the satnet binary: $SATSWEEP_SATNET, else the one `setup.sh` builds."""
    path = Path(os.environ.get("SATSWEEP_SATNET", REPO_ROOT / "sim" / "build" / "satnet"))
    if not path.is_file():
        raise FileNotFoundError(f"satnet not found at {path}: run ./setup.sh to build it")
    return path


def satnet_flags(params: Mapping[str, object]) -> list[str]:
    """Turns a parameter mapping into satnet's `--name=value` flags (booleans as 0/1)."""
    flags = []
    for name, value in params.items():
        if isinstance(value, bool):
            value = int(value)
        flags.append(f"--{name}={value}")
    return flags


def run_satnet(
    params: Mapping[str, object], out: Path | None = None, timeout: float | None = None
) -> dict:
    """Runs one simulation and returns its parsed JSON result.

    The result is written to `out` when given (atomically, by satnet itself), else to a temporary
    file that is removed afterwards. Raises SimulationError when satnet fails.
    """
    with tempfile.TemporaryDirectory(prefix="satnet-") as scratch:
        target = Path(out) if out is not None else Path(scratch) / "result.json"
        command = [str(satnet_binary()), *satnet_flags(params), f"--out={target}"]
        proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            tail = "\n".join(proc.stderr.strip().splitlines()[-20:])
            raise SimulationError("satnet failed", proc.returncode, tail)
        return json.loads(target.read_text())
