"""Snakemake job of rule `collect`: compacts the finished runs into the study's two tables."""

from pathlib import Path

from satsweep import store
from satsweep.design import load_design

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive

design = load_design(snakemake.params.sweep)
n = store.collect(
    design,
    snakemake.params.results,
    runs_out=Path(snakemake.output.runs),
    connections_out=Path(snakemake.output.connections),
)
Path(snakemake.log[0]).write_text(f"{n} runs of {design.n_runs} in {snakemake.output.runs}\n")
