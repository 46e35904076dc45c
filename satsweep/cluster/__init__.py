"""Clusters: a sweep submitted to Slurm as one batch job that runs a Ray cluster."""
