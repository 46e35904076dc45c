# satsweep: a sweep design (a YAML file naming its program) expanded into runs, stored in Parquet.
#
#   snakemake --cores 2 --config sweep=sweeps/smoke.yaml [results=results]
#
# `satsweep run SWEEP --executor E` runs this with the store as working directory and its paths
# in a JSON file (--configfile: `--config key=value` parses values again as YAML); locally
# `satsweep run` starts the `work` rule's workers itself, without Snakemake. See
# workflow/README.md.
import hashlib
import os
import shlex
import sys
import uuid
from pathlib import Path

from snakemake.utils import min_version, validate

from satsweep.design import load_design
from satsweep.store import Store
from satsweep.store.files import write_bytes
from satsweep.workflow import jobs, schedule

min_version("9.0")

validate(config, "workflow/schemas/config.schema.yaml")  # fills in the defaults too

# `satsweep run` has checked the design's size (--max-runs) and bound it to its store
DESIGN = load_design(config["sweep"], max_runs=None)
STORE = Store.of(DESIGN, config["results"])
DESIGN = STORE.bind(DESIGN)  # an existing store keeps its run numbers (streams)
DESIGN = STORE.round(DESIGN)  # a precision campaign: the round satsweep run recorded last


def here(path):
    """A path of the store relative to it, the working directory: the store's own path, which
    may hold `{` or `}`, never enters a file pattern."""
    return str(Path(path).relative_to(STORE.root))


workdir: str(STORE.root)


# Through a remote executor (`slots`): one job per group of runs, the plan `satsweep run` wrote
# for this pass (`plan`: the runs not done yet), or without one (a Snakemake started by hand) a
# plan over every run, written into a folder named after it (its jobs skip the runs done).
# Locally: one worker job per core, which share a queue of the runs, longest first, this
# pass's own.
REMOTE = config.get("slots") is not None
if REMOTE:
    if config.get("plan"):
        PLAN = Path(config["plan"])
        GROUPS = schedule.RunGroups.from_json(PLAN.read_text())
    else:
        GROUPS = schedule.plan(
            schedule.RunOrder(DESIGN),
            config["slots"],
            config.get("group_size"),
            config.get("min_group_seconds", schedule.MIN_GROUP_SECONDS),
        )
        PLANNED = GROUPS.to_json()
        PLAN_DIGEST = hashlib.sha256(PLANNED.encode()).hexdigest()[:12]
        PLAN = STORE.pass_folder(f"plan-{PLAN_DIGEST}") / schedule.PLAN_FILE
        if not PLAN.is_file():  # each remote job evaluates this again: the same plan
            PLAN.parent.mkdir(parents=True, exist_ok=True)
            write_bytes(PLAN, PLANNED.encode())
else:
    PASS = uuid.uuid4().hex
    WORKERS = max(1, min(workflow.cores, DESIGN.n_configurations))  # counted, not expanded


rule all:
    input:
        here(STORE.compaction_file),
    default_target: True


include: "workflow/rules/sweep.smk"


onstart:
    # the design of the runs, for the store's readers (satsweep run has recorded it already)
    STORE.record(DESIGN)
