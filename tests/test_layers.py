"""The package's rooms import only downward, in the data's direction (satsweep/__init__.py),
only the rooms that run things start processes, and the libraries that are slow to import are
imported only by the commands that use them."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import satsweep
from satsweep import LAYERS
from tests.support.sweeps import MM1, stored_study

PACKAGE = Path(satsweep.__file__).parent

#: Libraries that take a large part of a second to import; the functions that use them import
#: them, so that a command pays only for what it uses (issue 35).
HEAVY = ("duckdb", "matplotlib", "numpy", "pandas", "pyarrow", "rich", "scipy", "snakemake")


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
    functions too) but under ``if TYPE_CHECKING:``, which never runs; ``__init__`` for a name
    taken from the package itself (``from satsweep.cli import build_parser``)."""
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
            room = PACKAGE / package.split(".")[1]
            if node.module == package and any(
                not (room / f"{a.name}.py").is_file() for a in node.names
            ):
                found.add("__init__")  # a name the package's __init__ defines
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
            found.update("__init__" for name in names if name == package)
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
    the order in which they happen to be imported), its ``__init__`` included: a module that
    takes a name from its own package (``from satsweep.cli import build_parser``, in a
    function or not) imports the ``__init__`` that imports it."""
    cycles = []
    for room in LAYERS:
        modules = {m.stem: m for m in (PACKAGE / room).glob("*.py")}
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


def heavy_imports(*argv: str) -> list[str]:
    """The HEAVY libraries that `satsweep ARGV` imported (in a fresh Python), after checking
    that it exited 0."""
    said = "sorted(m for m in HEAVY if m in sys.modules)"
    code = (
        f"import atexit, sys; HEAVY = {HEAVY!r}\n"
        f"atexit.register(lambda: print('imported:', *{said}, file=sys.stderr))\n"
        "from satsweep.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stderr.splitlines()[-1].split()[1:]


def test_the_help_imports_no_heavy_library():
    assert heavy_imports("--help") == []


def test_status_and_a_run_with_nothing_to_do_use_rich_only(tmp_path):
    """A complete store: `status` reads records and stats files, `run` finds nothing to do and
    starts no Snakemake; both print through rich, neither needs pyarrow nor DuckDB."""
    design = f"study: toy\nprogram: {MM1}\nfactors: {{load: [0.3, 0.6]}}\nreplications: 2\n"
    results = stored_study(tmp_path, design)
    study = ["toy", "--results", str(results)]
    assert heavy_imports("status", *study) == ["rich"]
    assert heavy_imports("run", *study) == ["rich"]


def test_a_new_store_is_checked_for_rebuilt_programs_without_pyarrow(tmp_path):
    """Before a study's first sweep there are no runs whose program to compare: the check
    (Store.other_builds) imports no pyarrow, which a sweep loads while Snakemake starts."""
    design = tmp_path / "toy.yaml"
    design.write_text(f"study: toy\nprogram: {MM1}\nfactors: {{load: [0.3]}}\nreplications: 1\n")
    code = (
        "import sys\n"
        "from satsweep.design import load_design\n"
        "from satsweep.store import Store\n"
        f"design = load_design({str(design)!r})\n"
        f"print(Store.of(design, {str(tmp_path)!r}).other_builds(design))\n"
        "print(sorted(m for m in ('numpy', 'pyarrow') if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.splitlines() == ["{}", "[]"]
