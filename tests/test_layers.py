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


def _module_imports(path: Path, package: str) -> set[str]:
    """The modules of ``package`` (``satsweep.engine``) a module imports, anywhere in it (in
    functions too) but under ``if TYPE_CHECKING:``, which never runs."""
    tree = ast.parse(path.read_text())
    skipped = {
        id(child)
        for node in ast.walk(tree)
        if isinstance(node, ast.If)
        and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
        for statement in node.body
        for child in ast.walk(statement)
    }
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found.update(
            n.split(".")[2]
            for n in names
            if n.startswith(f"{package}.")
            and len(n.split(".")) > 2
            and (PACKAGE / package.split(".")[1] / f"{n.split('.')[2]}.py").is_file()
        )
    found.discard(path.stem)
    return found


def test_no_room_has_a_circular_import_inside_it():
    """Inside a room, its modules import one another without a cycle (a cycle works only by
    the order in which they happen to be imported)."""
    cycles = []
    for room in LAYERS:
        modules = {m.stem: m for m in (PACKAGE / room).glob("*.py") if m.stem != "__init__"}
        graph = {
            name: _module_imports(m, f"satsweep.{room}") & set(modules)
            for name, m in modules.items()
        }

        def reaches(start: str, target: str, seen: set[str]) -> bool:
            for nxt in graph[start]:
                if nxt == target or (nxt not in seen and reaches(nxt, target, seen | {nxt})):
                    return True
            return False

        cycles += [
            f"satsweep/{room}/{name}.py" for name in sorted(graph) if reaches(name, name, {name})
        ]
    assert not cycles, "modules in an import cycle: " + ", ".join(cycles)
