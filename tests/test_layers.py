"""The package's rooms import only downward, in the data's direction (satsweep/__init__.py),
and only the rooms that run things start processes."""

from __future__ import annotations

import ast
from pathlib import Path

import satsweep
from satsweep import LAYERS

PACKAGE = Path(satsweep.__file__).parent


def imported_rooms(path: Path) -> set[str]:
    """The satsweep rooms a module imports (``satsweep.<room>...``)."""
    rooms = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "satsweep" and len(parts) > 1 and parts[1] in LAYERS:
                rooms.add(parts[1])
    return rooms


def test_every_room_is_a_layer():
    rooms = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert rooms == set(LAYERS)


def test_rooms_import_only_lower_rooms():
    upward = []
    for room in LAYERS:
        allowed = set(LAYERS[: LAYERS.index(room)]) | {room}
        for module in sorted((PACKAGE / room).glob("*.py")):
            for other in sorted(imported_rooms(module) - allowed):
                upward.append(f"{module.relative_to(PACKAGE)} imports satsweep.{other}")
    assert not upward, "\n".join(upward)


def test_only_engine_workflow_and_cluster_start_processes():
    """The engine runs programs, the workflow Snakemake (and git for provenance), the cluster
    Slurm; the design, the store, the analysis, the report and the CLI start nothing."""
    starters = [
        str(m.relative_to(PACKAGE))
        for m in PACKAGE.rglob("*.py")
        if m.parent.name not in ("engine", "workflow", "cluster")
        and "subprocess" in imported_modules(m)
    ]
    assert starters == []


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found
