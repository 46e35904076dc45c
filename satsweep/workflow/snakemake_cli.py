"""``python -m satsweep.workflow.snakemake_cli ARGS``: Snakemake's own command line, ending
as soon as Snakemake has.

Snakemake's scheduler starts a ``threading.Timer`` (not a daemon) of its job-rate window,
``--max-jobs-per-timespan``'s 1 s, after each step, and Python waits for it at exit: every
sweep ended about a second after its last job. Here the process leaves once Snakemake's
``main`` has returned, its logs flushed: nothing is left to do by then, the timer only wakes
the scheduler that has stopped.
"""

from __future__ import annotations

import logging
import os
import sys


def main() -> None:
    from snakemake.cli import main as snakemake

    try:
        snakemake()
        code = 0
    except SystemExit as e:  # how Snakemake's main ends, with its status
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
        code = e.code if isinstance(e.code, int) else int(e.code is not None)
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    main()
