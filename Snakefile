# satsweep: a sweep design (sweeps/*.yaml) expanded into satnet runs, stored in Parquet.
#
#   snakemake --cores 2 --config sweep=sweeps/smoke.yaml [results=results]
#
# `satsweep run SWEEP` runs this with the store as working directory; see workflow/README.md.
import sys

from snakemake.utils import min_version, validate

from satsweep import store
from satsweep.workflow import schedule
from satsweep.design import load_design

min_version("9.0")

validate(config, "workflow/schemas/config.schema.yaml")  # fills in the defaults too

DESIGN = load_design(config["sweep"])
STORE = store.study_dir(DESIGN, config["results"])
# Longest configurations first; with `slots` (remote executors), batched into group jobs.
SCHEDULE = schedule.plan(
    DESIGN,
    config.get("slots"),
    config.get("group_size"),
    config.get("min_group_seconds", schedule.MIN_GROUP_SECONDS),
)


rule all:
    input:
        STORE / "runs.parquet",
        STORE / "connections.parquet",
    default_target: True


include: "workflow/rules/sweep.smk"
