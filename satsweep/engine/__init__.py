"""The simulator contract: parameters in, one JSON result out.

satsweep talks to its engine only through this module. The engine today is `satnet` (ns-3, built
from `sim/`): it takes `--name=value` flags and writes one JSON object
`{"params": ..., "summary": ..., "connections": [...]}`. Another engine can be added behind the
same two functions.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import tempfile
from collections.abc import Mapping
from functools import cache
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent.parent

#: Exit code of satnet for a bad command line (unknown flag or value).
USAGE_ERROR = 2

#: satnet's flags (sim/README.md, "The contract"), used when the binary cannot be asked
#: (`satnet --help`); kept in this one place.
KNOWN_FLAGS = (
    "accessDelay", "accessRate", "bottleneckRate", "bufferCells", "bufferRtt", "clients",
    "delay", "drop", "epdThreshold", "flavor", "link", "minRto", "mss", "out", "run", "sdZ",
    "seed", "simTime", "ssthresh", "tick", "window", "workload",
)  # fmt: skip

#: Numbers of the JSON result that are real-valued. JSON does not keep the distinction (satnet
#: prints 0.0 as `0`), so these are read as float whatever their text, for stable column types.
FLOAT_FIELDS = frozenset(
    {
        # params
        "bufferRtt", "simTime", "epdThreshold", "sdZ", "delay", "bottleneckRate",
        "accessRate", "accessDelay", "tick", "minRto",
        # summary
        "efficiency", "fairness", "capacity_bps", "goodput_bps", "offered_bps",
        "wall_seconds", "peak_rss_mb",
        # connections
        "throughput_bps", "scheduled_bps", "fair_share_bps", "first_drop_s",
        "cwnd_at_first_drop_segments",
    }
)  # fmt: skip

#: Machine-dependent entries of the summary: everything else is a function of the flags.
VOLATILE_FIELDS = frozenset({"wall_seconds", "peak_rss_mb"})


#: satnet's cost, in seconds of one core per client/server pair and simulated second, by link
#: preset: WAN's 1024 B segments make ~6x the events of MEO's and GEO's 9180 B ones. Measured
#: on the 2-core reference machine (SACK, SD, 1 RTT buffer; 50 and 100 pairs, 30 and 60 s).
SECONDS_PER_PAIR_SECOND = {"wan": 1.4e-3, "meo": 2.2e-4, "geo": 2.2e-4}


def estimated_seconds(params: Mapping[str, object]) -> float:
    """A rough estimate of one run's wall seconds, from its link, pairs and simulated time.

    For ordering and batching jobs only (satsweep.schedule): only ratios between runs matter,
    and a wrong estimate costs efficiency, never results. satnet's defaults fill in what
    `params` does not set (WAN, 100 pairs, 100 s).
    """
    wan = SECONDS_PER_PAIR_SECOND["wan"]
    rate = SECONDS_PER_PAIR_SECOND.get(str(params.get("link", "wan")), wan)
    try:
        return rate * float(params.get("clients", 100)) * float(params.get("simTime", 100))
    except (TypeError, ValueError):  # a value satnet will refuse anyway
        return rate * 100 * 100


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


@cache
def _help_flags(path: Path, mtime_ns: int) -> tuple[str, ...] | None:
    try:
        proc = subprocess.run([str(path), "--help"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    names = re.findall(r"^\s+--([A-Za-z][A-Za-z0-9_]*)\b", proc.stdout, flags=re.MULTILINE)
    return tuple(sorted(set(names))) if proc.returncode == 0 and names else None


def satnet_flag_names() -> tuple[str, ...]:
    """satnet's flag names, as `satnet --help` lists them; KNOWN_FLAGS if it cannot tell."""
    try:
        path = satnet_binary()
    except FileNotFoundError:
        return KNOWN_FLAGS
    return _help_flags(path, path.stat().st_mtime_ns) or KNOWN_FLAGS


def flag_value(value: object) -> str:
    """The text satnet gets for a value: booleans as 0/1, integral floats without `.0`."""
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def satnet_flags(params: Mapping[str, object]) -> list[str]:
    """Turns a parameter mapping into satnet's `--name=value` flags (see flag_value)."""
    return [f"--{name}={flag_value(value)}" for name, value in params.items()]


def file_sha256(path: Path) -> str:
    """The sha256 of a file's bytes, in hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def ns3_version(version: str) -> str | None:
    """The ns-3 version inside satnet's `version` ("satnet 0.1.0 (ns-3 3.44)" -> "3.44")."""
    match = re.search(r"ns-3[ -]([0-9][^) ]*)", version or "")
    return match.group(1) if match else None


def typed(name: str, value: object) -> object:
    """A JSON number of the result as the type its field has (see FLOAT_FIELDS)."""
    if name in FLOAT_FIELDS and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


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
