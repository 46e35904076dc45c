"""Who holds a store: its lock (``.satsweep.lock``, an flock that `satsweep run` takes, see
satsweep/workflow/run.py) and the lock's holder as it wrote itself down beside it
(``.satsweep.lock.holder``: host, pid, Slurm job id, command, since when).

/proc shows the processes holding the lock on this host only; on a cluster the run that holds
the store may be on another node (a Slurm job's batch node), which the holder file names. The
lock itself says whether the store is held now, on a shared file system too: a holder file is
only believed while the lock is held (a killed run cannot remove its own)."""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import os
import socket
import sys
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from satsweep.store.files import write_atomically

__all__ = ["HOLDER_FILE", "LOCK_FILE", "Holder", "holding", "is_held", "read_holder"]

#: The store's lock (`satsweep run` holds it exclusively, and so do its workers or Snakemake).
LOCK_FILE = ".satsweep.lock"
#: The lock's holder, written by the process that took the lock (JSON, :class:`Holder`).
HOLDER_FILE = ".satsweep.lock.holder"


@dataclass(frozen=True)
class Holder:
    """The process that took a store's lock: where, which, and since when."""

    host: str
    pid: int
    slurm_job_id: str | None
    command: str
    since: str  # ISO 8601, UTC

    @classmethod
    def me(cls) -> Holder:
        """This process (SLURM_JOB_ID when it runs in a Slurm job)."""
        command = " ".join(Path(sys.argv[0]).name if i == 0 else a for i, a in enumerate(sys.argv))
        return cls(
            host=socket.gethostname(),
            pid=os.getpid(),
            slurm_job_id=os.environ.get("SLURM_JOB_ID") or None,
            command=command if len(command) <= 100 else command[:97] + "...",
            since=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        )

    def describe(self) -> str:
        """``pid N on HOST (Slurm job J) since T: COMMAND``."""
        job = f" (Slurm job {self.slurm_job_id})" if self.slurm_job_id else ""
        return f"pid {self.pid} on {self.host}{job} since {self.since}: {self.command}"


@contextlib.contextmanager
def holding(root: Path) -> Iterator[None]:
    """Writes this process as the holder of ``root``'s lock (taken by the caller) and removes
    it when done; a kill leaves it, and :func:`read_holder` then ignores it once the lock is
    free."""
    path = root / HOLDER_FILE
    text = json.dumps(asdict(Holder.me()))
    write_atomically(path, lambda t: t.write_text(text))
    try:
        yield
    finally:
        path.unlink(missing_ok=True)  # the lock is still ours: no other holder wrote it


def is_held(root: Path) -> bool:
    """Whether a process (on any host sharing the file system) holds ``root``'s lock now: a
    shared lock that cannot be taken at once. Taken for an instant otherwise, and let go."""
    try:
        handle = open(root / LOCK_FILE, "rb")
    except OSError:  # no lock file: never run, or not readable, held by no one we can see
        return False
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:  # a file system without locks: the holder file cannot be checked
            return False
        fcntl.flock(handle, fcntl.LOCK_UN)
        return False


def read_holder(root: Path, check: bool = True) -> Holder | None:
    """The holder of ``root``'s lock as it wrote itself down; None when the lock is free (with
    ``check``: a holder file a killed run left is not believed) or the file is missing or
    unreadable."""
    if check and not is_held(root):
        return None
    try:
        data = json.loads((root / HOLDER_FILE).read_text())
        holder = Holder(**data)
    except (OSError, ValueError, TypeError):
        return None
    return holder if isinstance(holder.pid, int) else None
