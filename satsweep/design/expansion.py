"""A design's expansion: its configurations (a stable ``config_id`` each) and their runs (a
random stream each, ``rng_run``). Stores depend on both: their arithmetic never changes."""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from satsweep.engine import value_text

if TYPE_CHECKING:
    from satsweep.design.schema import Design

__all__ = ["MAX_REPLICATIONS", "MAX_RNG", "Configuration", "Run", "config_id", "rng_run"]

#: The largest base_seed (and, with ``streams: 1``, the largest --run satsweep derives).
MAX_RNG = 2**32 - 1
#: Replications of a configuration: k takes the low 15 bits of a ``streams: 2`` run number.
MAX_REPLICATIONS = 2**15 - 1
#: Canonical JSON: keys sorted, no spaces. One encoder for every configuration: json.dumps
#: with these options would build a new one per call.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class Configuration:
    """One design point: the values of every factor plus the fixed parameters."""

    index: int
    config_id: str
    params: dict[str, Any]

    def run(self, design: Design, replication: int, number: int | None = None) -> Run:
        """Replication k of this configuration, with its random stream (``number``: its run
        number when it is known, made with the design's base_seed and streams)."""
        if number is None:
            number = rng_run(design.base_seed, self.config_id, replication, design.streams)
        return Run(
            study=design.study,
            config_id=self.config_id,
            replication=replication,
            seed=design.base_seed,
            run=number,
            params=self.params,
        )

    def runs(self, design: Design) -> list[Run]:
        """Its replications 1..r (:meth:`Design.replications_for`)."""
        return [self.run(design, k) for k in range(1, design.replications_for(self.config_id) + 1)]


@dataclass(frozen=True)
class Run:
    """One simulation: a configuration, its replication index k (1..r) and its random stream."""

    study: str
    config_id: str
    replication: int
    seed: int  # the design's base_seed, the root of the run's stream
    run: int  # the program's --run: rng_run(base_seed, config_id, replication, streams)
    params: dict[str, Any]


def config_id(params: dict[str, Any]) -> str:
    """The stable id of a configuration: 12 hex digits of the sha256 of its effective parameters.

    The parameters are serialised as canonical JSON (keys sorted, each value as the text the
    program gets, see :func:`satsweep.engine.value_text`), so neither the order of keys in the file nor
    ``5`` versus ``"5"`` or ``2.0`` versus ``2`` changes it; replication and seed are not part of it.
    """
    canonical = _CANONICAL.encode({name: value_text(value) for name, value in params.items()})
    return hashlib.sha256(canonical.encode()).hexdigest()[:12]


def rng_run(base_seed: int, cid: str, replication: int, streams: int = 2) -> int:
    """The random stream (``--run``) of replication k of a configuration.

    ``streams: 2``: ``(P(config_id) << 15) | k``, where P is a permutation of the 48-bit
    config_id keyed by base_seed (a four-round Feistel network whose round function is
    sha256): distinct configurations have distinct P, and k (1 .. 2**15 - 1) takes the low
    bits, so no two runs of a design share a stream, whatever its size (at most 2**63 - 1,
    which ns-3's 64-bit RngRun and the store's int64 column hold).

    ``streams: 1`` (stores made before): 1 + (first 8 bytes, big-endian, of
    sha256("satsweep:<base_seed>:<config_id>:<k>")) mod (2**32 - 1), in 1 .. 2**32 - 1;
    collisions are checked, and likely past ~10^5 runs.

    Either depends on nothing else, so raising r keeps every existing run's stream and adds
    new ones.
    """
    if streams == 1:
        digest = hashlib.sha256(f"satsweep:{base_seed}:{cid}:{replication}".encode()).digest()
        return 1 + int.from_bytes(digest[:8], "big") % MAX_RNG
    if not 1 <= replication <= MAX_REPLICATIONS:
        raise ValueError(f"replication {replication} is outside 1..{MAX_REPLICATIONS}")
    return (_permute48(base_seed, int(cid, 16)) << 15) | replication


@functools.lru_cache(maxsize=4096)  # a configuration's replications in turn: one computation
def _permute48(key: int, value: int) -> int:
    """A permutation of 48-bit integers chosen by ``key`` (Feistel: any round function gives
    a bijection)."""
    left, right = value >> 24, value & 0xFFFFFF
    for round_ in range(4):
        digest = hashlib.sha256(f"satsweep:{key}:{round_}:{right}".encode()).digest()
        left, right = right, left ^ int.from_bytes(digest[:3], "big")
    return (left << 24) | right
