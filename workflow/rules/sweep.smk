# Through a remote executor, one job per group of configurations (design points), in one
# process: it runs each configuration's replications that are not done yet, one after the
# other, each into its own files (satsweep/store). A configuration's output is a small manifest
# named after r, so raising r reruns its group's job, which then runs only the new replications.
# The groups, and their priorities (the longest configurations first), are
# satsweep/workflow/schedule.py's.
# Locally, one `work` job per core instead: the workers take the configurations from a queue
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
    config_id="[0-9a-f]{12}",
    replications="[0-9]+",
    worker="[0-9]+",


if REMOTE:
    # one rule, and so one job and one process, per group of configurations
    for GROUP, MEMBERS in SCHEDULE.members().items():

        rule:
            name:
                GROUP
            output:
                [
                    here(STORE.manifest_file(c, DESIGN.replications_for(c)))
                    for c in MEMBERS
                ],
            log:
                here(STORE.logs / f"{GROUP}.log"),
            params:  # functions: a string here would be a pattern, and `{` in a path a wildcard
                sweep=lambda wildcards: config["sweep"],
                python=lambda wildcards: sys.executable,
            threads: 1
            resources:
                mem_mb=DESIGN.resources.mem_mb,
            priority: SCHEDULE.priority[MEMBERS[0]]
            shell:
                "{params.python:q} -m satsweep.workflow.jobs simulate {params.sweep:q} {output:q}"
                " > {log:q} 2>&1"

    RUN_OUTPUTS = [
        here(STORE.manifest_file(c.config_id, DESIGN.replications_for(c.config_id)))
        for c in DESIGN.configurations
    ]
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
