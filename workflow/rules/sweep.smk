# Through a remote executor, one job per group of runs (a configuration's replications), in
# one process: it runs its runs that are not done yet, one after the other, each into its own
# files (satsweep/store). The groups, ranges of the runs longest first, shrinking, and their
# priorities (decreasing in that order) are the pass's plan (satsweep/workflow/schedule.py). A
# group's output is a marker beside the plan, `workers/<pass>/<group>.json`, written when all
# its runs succeeded: Snakemake deletes a failed job's outputs, which are therefore never runs.
# A configuration's replications may spread over several groups: its manifest
# `runs/<config_id>/complete-<r>.json` is written by the job that finds its last one done.
# Locally, one `work` job per core instead: the workers take the runs from a queue
# they share, so that a run costs neither a job nor a Python start (satsweep/workflow/jobs.py).
# `satsweep run` starts the same workers itself, without Snakemake, whose start a local pass
# does not need (satsweep/workflow/run.py); this rule is for a Snakemake started by hand.
# `collect` compacts every finished run into runs.parquet and one file per table of the
# program; its declared output is only compaction.json, written last, so that Snakemake, which
# deletes the outputs of a failed job, never deletes the tables (satsweep/store). Jobs are
# `python -m satsweep.workflow.jobs ...` (a lean entry point) and locate the store from their
# output paths: any executor with a shared file system runs them as they are.
# See workflow/README.md.


wildcard_constraints:
    worker="[0-9]+",


if REMOTE:
    # one rule, and so one job and one process, per group of runs
    for GROUP, PRIORITY in GROUPS.priorities().items():

        rule:
            name:
                GROUP
            output:
                here(PLAN.with_name(f"{GROUP}.json")),
            log:
                here(STORE.logs / f"{GROUP}.log"),
            params:  # functions: a string here would be a pattern, and `{` in a path a wildcard
                sweep=lambda wildcards: config["sweep"],
                python=lambda wildcards: sys.executable,
            threads: 1
            resources:
                mem_mb=DESIGN.resources.mem_mb,
            priority: PRIORITY
            shell:
                "{params.python:q} -m satsweep.workflow.jobs simulate {params.sweep:q} {output:q}"
                " > {log:q} 2>&1"

    RUN_OUTPUTS = [here(PLAN.with_name(f"{group}.json")) for group in GROUPS.names]
else:

    rule work:
        output:
            here(STORE.worker_file(PASS, "{worker}")),
        log:
            here(STORE.worker_log("{worker}")),
        params:  # a function: a string here would be a pattern, and `{` in a path a wildcard
            # the command `satsweep run` starts its workers with; this Snakemake is their
            # parent, once gone a worker takes no more
            command=lambda wildcards, output: shlex.join(
                jobs.work_command(
                    config["sweep"],
                    output[0],
                    workflow.execution_settings.keep_going,
                    os.getpid(),
                )
            ),
        threads: 1
        resources:
            mem_mb=DESIGN.resources.mem_mb,
        shell:
            "{params.command} > {log:q} 2>&1"

    RUN_OUTPUTS = [here(STORE.worker_file(PASS, k)) for k in range(1, WORKERS + 1)]


rule runs:
    # every run, not compacted: what `satsweep run` asks Snakemake for, compacting the store
    # itself afterwards (its process has the store's stack loaded: no job's start)
    input:
        RUN_OUTPUTS,
    localrule: True


rule collect:
    input:
        RUN_OUTPUTS,
    output:
        here(STORE.compaction_file),
    log:
        here(STORE.logs / "collect.log"),
    params:  # functions: a string here would be a pattern, and `{` in a path a wildcard
        sweep=lambda wildcards: config["sweep"],
        python=lambda wildcards: sys.executable,
    localrule: True
    threads: 1
    resources:
        mem_mb=1024,
    shell:
        "{params.python:q} -m satsweep.workflow.jobs collect {params.sweep:q} {output:q}"
        " > {log:q} 2>&1"


onerror:
    # With --keep-going (or after the first failure), still compact the runs that succeeded:
    # the store then holds exactly the successful runs.
    jobs.compact(STORE, DESIGN, print)
