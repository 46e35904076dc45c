"""Running a design's runs: the Snakemake workflow's driver, its jobs and their schedule."""
