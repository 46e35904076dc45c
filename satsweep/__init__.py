"""satsweep: reproducible, distributed parameter-sweep campaigns for network simulation studies.

The package's rooms, in the data's direction; each imports only the rooms before it:

- ``engine``: the engine contract: a simulation program, its ``--describe``, one run;
- ``theory``: what a study's analytic model provides, pure arithmetic the design names (an
  installed plug-in such as Barakat & Altman's, ``analysis/barakat/``, or a file beside the
  design) and the report draws beside the simulation;
- ``design``: the YAML design, checked against its program, expanded into runs;
- ``store``: one study's results (``results/<study>/``): runs typed by the description,
  compaction, the recorded design, SQL views;
- ``analysis``: the factorial analysis (DuckDB SQL in ``analysis/``) of a table of runs;
- ``report``: a study's tables, analysis and figures as HTML and Markdown;
- ``workflow``: running a design's runs, by local workers or Snakemake (the driver, its jobs,
  their order);
- ``cluster``: a sweep as one Slurm job running a Ray cluster;
- ``cli``: the ``satsweep`` command.

``shipped`` finds the files installed beside the code (the Snakefile, the SQL, ...).
"""

__version__ = "0.1.0"

#: The rooms, lowest first (tests/test_layers.py checks that imports go only downward).
LAYERS = ("engine", "theory", "design", "store", "analysis", "report", "workflow", "cluster", "cli")
