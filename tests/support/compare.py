"""Studies of tests/programs/normal.py and of versions of it that `satsweep compare` is tried
on: the same program, one whose mean moved for one level of one factor, one with another
parameter."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.support.sweeps import NORMAL, stored_study

#: How far normal.py 2.0 moves the mean of a=hi (its sd is 1): several sd.
SHIFT = 5.0


def _copy(folder: Path, name: str, edits: list[tuple[str, str]]) -> str:
    """normal.py with ``edits`` (each must apply) as ``folder/name``, executable; its name as
    a design gives it (relative to the design beside it)."""
    text = NORMAL.read_text()
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    path = folder / name
    path.write_text(text)
    path.chmod(0o755)
    return f"./{name}"


def programs(folder: Path) -> dict[str, str]:
    """The programs in ``folder``: ``same`` (normal.py as it is), ``moved`` (normal 2.0: a=hi's
    mean SHIFT higher, and one more draw from the stream before y, as a new model consumes
    its random numbers differently: every pair differs, only a=hi beyond noise), ``shifted``
    (normal 2.1: the same move, the same draws: a=hi's pairs all differ by SHIFT exactly, the
    others are identical) and ``wider`` (normal 3.0 with a parameter more)."""
    draw = '    rng = random.Random(int(given.get("run", 1)))\n'
    return {
        "same": _copy(folder, "normal.py", []),
        "moved": _copy(folder, "normal2.py", [
            ('"version": "1.0"', '"version": "2.0"'),
            ('"hi": 1.0}', f'"hi": {1.0 + SHIFT}}}'),
            (draw, draw + "    rng.random()\n"),
        ]),
        "shifted": _copy(folder, "normal21.py", [
            ('"version": "1.0"', '"version": "2.1"'),
            ('"hi": 1.0}', f'"hi": {1.0 + SHIFT}}}'),
        ]),
        "wider": _copy(folder, "normal3.py", [
            ('"version": "1.0"', '"version": "3.0"'),
            ("PARAMETERS = [\n", 'PARAMETERS = [\n    {"name": "c", "type": "int", "default": 0, '
                                 '"help": "unused"},\n'),
        ]),
    }  # fmt: skip


def study(
    folder: Path,
    name: str,
    program: str,
    factors: dict[str, list[object]],
    replications: int,
    fixed: dict[str, object] | None = None,
) -> Path:
    """The study ``name`` of ``program`` (a name :func:`programs` gives) stored in
    ``folder/results`` (its design ``folder/<name>.yaml``, base_seed 7): the results folder."""
    design = {
        "study": name,
        "program": program,
        "factors": factors,
        "fixed": fixed or {},
        "replications": replications,
        "base_seed": 7,
    }
    return stored_study(folder, yaml.safe_dump(design, sort_keys=False))
