"""Barakat & Altman's study, the code of it that is not a program: its theory
(:mod:`satsweep_barakat.theory`), installed as the top-level package ``satsweep_barakat`` and
registered as the theory ``barakat`` (pyproject.toml, the entry-point group
``satsweep.theories``), which sweeps/barakat-*.yaml name in ``analysis.theory``."""
