# One job per configuration (design point): it runs the configuration's replications that are not
# done yet, one after the other, each into its own files (see satsweep/store.py). Its output is a
# small manifest named after r, so raising r reruns the job, which then runs only the new
# replications. Then `collect` compacts every finished run into runs.parquet and connections.parquet.


wildcard_constraints:
    config_id="[0-9a-f]{12}",
    replications="[0-9]+",


rule simulate:
    output:
        STORE / "runs" / "{config_id}" / "complete-{replications}.json",
    log:
        STORE / "logs" / "{config_id}-{replications}.log",
    params:
        sweep=config["sweep"],
        results=config["results"],
    threads: 1
    resources:
        mem_mb=DESIGN.resources.mem_mb,
    script:
        "../scripts/simulate_configuration.py"


rule collect:
    input:
        [
            store.manifest_file(STORE, c.config_id, DESIGN.replications)
            for c in DESIGN.configurations
        ],
    output:
        runs=STORE / "runs.parquet",
        connections=STORE / "connections.parquet",
    log:
        STORE / "logs" / "collect.log",
    params:
        sweep=config["sweep"],
        results=config["results"],
    localrule: True
    threads: 1
    resources:
        mem_mb=1024,
    script:
        "../scripts/collect.py"


onerror:
    # With --keep-going (or after the first failure), still compact the runs that succeeded:
    # the store then holds exactly the successful runs.
    store.collect(DESIGN, config["results"])
