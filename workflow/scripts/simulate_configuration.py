"""Snakemake job of rule `simulate`: one configuration's missing replications (satsweep.store)."""

import sys

from satsweep import store
from satsweep.design import load_design

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive

config_id = snakemake.wildcards.config_id
with open(snakemake.log[0], "w") as log:

    def say(message: str) -> None:
        print(message, file=log, flush=True)
        print(message, file=sys.stderr, flush=True)

    design = load_design(snakemake.params.sweep)
    if int(snakemake.wildcards.replications) != design.replications:
        sys.exit(f"the sweep file now has {design.replications} replications: run the sweep again")
    failures = store.run_configuration(design, config_id, snakemake.params.results, log=say)
if failures:
    sys.exit(f"{len(failures)} of {design.replications} runs of configuration {config_id} failed")
