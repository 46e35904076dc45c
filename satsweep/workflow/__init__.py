"""Running a design's runs: the Snakemake workflow's driver, its jobs and their schedule, and
the cores a process may use."""

from satsweep.workflow.cores import usable_cores

__all__ = ["usable_cores"]
