"""``python -m satsweep.workflow.snakemake_cli ARGS``: Snakemake's own command line, ending
as soon as Snakemake has.

Snakemake's scheduler starts a ``threading.Timer`` (not a daemon) of its job-rate window,
``--max-jobs-per-timespan``'s 1 s, after each step, and Python waits for it at exit: every
sweep ended about a second after its last job. Here the process leaves once Snakemake's
``main`` has returned, its logs flushed: nothing is left to do by then, the timer only wakes
the scheduler that has stopped.

Snakemake's command line builds a registry of each kind of plug-in (executors, storage,
reports, schedulers), and each of them lists every module on ``sys.path`` (``pkgutil.iter_modules``)
to find its own: four listings of the whole environment, 0.1 s each on the 2-core reference
machine, before the first job. Here the listing is made once per ``sys.path``.
"""

from __future__ import annotations

import functools
import logging
import os
import pkgutil
import sys
from collections.abc import Callable, Iterable, Iterator
from pkgutil import ModuleInfo


def _list_once(
    iter_modules: Callable[..., Iterator[ModuleInfo]],
) -> Callable[..., Iterator[ModuleInfo]]:
    """``pkgutil.iter_modules`` listing the whole of an unchanged ``sys.path`` only once."""
    listed: dict[tuple[str, ...], list[ModuleInfo]] = {}

    @functools.wraps(iter_modules)
    def iter_modules_once(
        path: Iterable[str] | None = None, prefix: str = ""
    ) -> Iterator[ModuleInfo]:
        if path is not None or prefix:
            return iter_modules(path, prefix)
        key = tuple(sys.path)
        if key not in listed:
            listed[key] = list(iter_modules())
        return iter(listed[key])

    return iter_modules_once


def _report_only_when_asked(argv: list[str]) -> None:
    """Leaves Snakemake's built-in HTML report plug-in out of its report registry unless
    ``argv`` asks for a report; installed report plug-ins are still registered."""
    if any(arg.startswith("--rep") for arg in argv):
        return
    from snakemake_interface_report_plugins.registry import ReportPluginRegistry

    # the registry's own collection adds the built-in one after its base class's
    ReportPluginRegistry.collect_plugins = ReportPluginRegistry.__mro__[1].collect_plugins


def main() -> None:
    pkgutil.iter_modules = _list_once(pkgutil.iter_modules)
    _report_only_when_asked(sys.argv[1:])
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
