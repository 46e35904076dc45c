"""What long commands say besides their result: the note that a study's replications are
identical (a program that ignores its stream), and progress lines now and then when the
output is not a terminal (a log), where a live progress bar draws nothing."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from satsweep.design import Design

#: A progress line at most this often (seconds) in a log, and at least at every tenth of the
#: runs when they come slower; the first and the last count are always printed.
PROGRESS_EVERY = 30.0


def identical_note(runs_table: Path, design: Design, console: Console) -> list[str]:
    """Says, on ``console``, that the study's numeric responses all have identical replications
    in every configuration (:func:`~satsweep.analysis.identical_responses`), as a program that
    ignores its stream gives; returns those that have. Nothing with a single replication."""
    # late: a run with nothing to do, which says nothing of it, reads no table (DuckDB's import)
    from satsweep.analysis import identical_responses
    from satsweep.analysis.formatting import NO_INTERVALS_IDENTICAL

    if design.most_replications < 2:
        return []
    numeric = [f.name for f in design.describe.summary if f.type in ("int", "float")]
    same = identical_responses(runs_table, numeric)
    # a program that ignores its stream makes every response identical; one constant response
    # (mm1's customers served) is the model's, not a sign of that
    if same and len(same) == len(numeric):
        console.print(
            f"{', '.join(same)}: {NO_INTERVALS_IDENTICAL.split(';')[0]} (every configuration's "
            "replications gave the same value: analyze and report give no intervals)",
            style="yellow",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
    return same


class ProgressLines:
    """Progress as plain lines for a log: ``sweep: 12/144 runs done, 0:01:20`` at the first
    count, then when :data:`PROGRESS_EVERY` seconds have passed or a tenth more of the runs is
    done, and at the last; ``clock`` is the time source (seconds)."""

    def __init__(
        self,
        say: Callable[[str], None],
        what: str = "sweep",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._say, self._what, self._clock = say, what, clock
        self._start = clock()
        self._last_time: float | None = None
        self._last_done = 0

    def update(self, done: int, total: int) -> None:
        """The runs done of ``total``: a line when one is due."""
        now = self._clock()
        due = (
            self._last_time is None
            or done >= total > self._last_done
            or now - self._last_time >= PROGRESS_EVERY
            or (done - self._last_done) * 10 >= total
        )
        if not due or (self._last_time is not None and done == self._last_done):
            return
        elapsed = int(now - self._start)
        clock = f"{elapsed // 3600}:{elapsed // 60 % 60:02d}:{elapsed % 60:02d}"
        self._say(f"{self._what}: {done}/{total} runs done, {clock}")
        self._last_time, self._last_done = now, done
