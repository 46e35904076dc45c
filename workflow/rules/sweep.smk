# Through a remote executor, one job per group of configurations (design points), in one
# process: it runs each configuration's replications that are not done yet, one after the
# other, each into its own files (satsweep/store). A configuration's output is a small manifest
# named after r, so raising r reruns its group's job, which then runs only the new replications.
# The groups, and their priorities (the longest configurations first), are
# satsweep/workflow/schedule.py's.
# Locally, one `work` job per core instead: the workers take the configurations from a queue
# they share, so that a run costs neither a job nor a Python start (satsweep/workflow/jobs.py);
# while Snakemake starts, `satsweep run` may take the first short ones itself (jobs.HeadStart).
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
            here(STORE.logs / "worker-{worker}.log"),
        params:  # functions: a string here would be a pattern, and `{` in a path a wildcard
            sweep=lambda wildcards: config["sweep"],
            python=lambda wildcards: sys.executable,
            keep_going=lambda wildcards: int(workflow.execution_settings.keep_going),
            snakemake=lambda wildcards: os.getpid(),  # a worker takes no more once it is gone
        threads: 1
        resources:
            mem_mb=DESIGN.resources.mem_mb,
        shell:
            "{params.python:q} -m satsweep.workflow.jobs work {params.sweep:q} {output:q}"
            " {params.keep_going} {params.snakemake} > {log:q} 2>&1"

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
