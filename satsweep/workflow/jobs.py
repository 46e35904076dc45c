"""The workflow's jobs as a small command, so that a Snakemake job starts only what it needs.

    python -m satsweep.jobs simulate SWEEP CONFIG_ID MANIFEST   # one configuration's runs
    python -m satsweep.jobs collect SWEEP RUNS CONNECTIONS      # compact the store

Paths of the outputs locate the store (``<results>/<study>/...``), so a job needs no other
configuration and runs the same under any Snakemake executor with a shared file system.
"""

from __future__ import annotations

import sys
from pathlib import Path

from satsweep import store
from satsweep.design import load_design


def simulate(sweep: str, config_id: str, manifest: str) -> int:
    """Runs the configuration's missing replications; 1 if any failed (its stderr tail logged)."""
    design = load_design(sweep)
    expected = store.manifest_file(Path(manifest).parents[2], config_id, design.replications)
    if Path(manifest).name != expected.name:
        print(f"{sweep} now has {design.replications} replications: run the sweep again")
        return 1
    results = Path(manifest).parents[3]  # <results>/<study>/runs/<config_id>/complete-<r>.json
    failures = store.run_configuration(design, config_id, results, log=_say)
    if failures:
        _say(f"{len(failures)} of {design.replications} runs of {config_id} failed")
        return 1
    return 0


def collect(sweep: str, runs: str, connections: str) -> int:
    """Compacts the design's finished runs into RUNS and CONNECTIONS."""
    design = load_design(sweep)
    results = Path(runs).parents[1]  # <results>/<study>/runs.parquet
    n = store.collect(design, results, Path(runs), Path(connections))
    _say(f"{n} of {design.n_runs} runs in {runs}")
    return 0


def _say(message: str) -> None:
    print(message, flush=True)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    commands = {"simulate": simulate, "collect": collect}
    if len(args) != 4 or args[0] not in commands:
        print(__doc__, file=sys.stderr)
        return 2
    return commands[args[0]](*args[1:])


if __name__ == "__main__":
    sys.exit(main())
