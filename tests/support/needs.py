"""What the markers of tests/conftest.py stand for (pyproject.toml registers them): for each, why
this machine lacks it ('' when it has it), saying what provides it."""

from __future__ import annotations

import os
import shutil
from functools import cache

from satsweep.engine import Program, ProgramError
from satsweep.engine import ns3 as ns3_engine
from satsweep.engine import omnetpp
from tests.support import REPO
from tests.support.programs import TEST_BINARY

#: The programs ./setup.sh builds and installs (sim/programs/), which `programs` tests run; it
#: also builds the C++ test suites (sim-test) and installs the ns3 wheel (program: ns3).
PROGRAMS = ("satnet", "barakat", "sabt")
#: Where local-cluster.sh finds the daemons (root's PATH may lack /usr/sbin).
SBIN = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])


@cache
def programs() -> str:
    missing = []
    for name in PROGRAMS:
        try:
            Program.find(name, REPO)
        except ProgramError:
            missing.append(name)
    if not TEST_BINARY.is_file():
        missing.append("sim/build/sim-test")
    try:
        ns3_engine._wheel()
    except ns3_engine.Ns3Error:
        missing.append("the ns3 wheel")
    if missing:
        return f"no {', '.join(missing)}: ./setup.sh builds and installs them"
    return ""


@cache
def omnetpp_build() -> str:
    try:
        omnetpp.installation()
    except omnetpp.OmnetppError as e:
        return str(e)
    return ""


def _not_root() -> str:
    return "" if os.geteuid() == 0 else "not root: run the tests as root (CI does)"


@cache
def root() -> str:
    if _not_root():
        return _not_root()
    tools = [t for t in ("unshare", "setpriv", "mount") if not shutil.which(t, path=SBIN)]
    return f"no {', '.join(tools)} (util-linux)" if tools else ""


@cache
def cluster() -> str:
    if _not_root():
        return _not_root()
    slurm = ("slurmctld", "slurmd", "sbatch", "munged")
    if not all(shutil.which(t, path=SBIN) for t in slurm) and not shutil.which("apt-get"):
        return (
            "no Slurm and no apt-get to install it: ray_jobs/slurm/local-cluster.sh start "
            "installs it on Debian"
        )
    tools = [t for t in ("ip", "nsenter", "unshare") if not shutil.which(t, path=SBIN)]
    return (
        f"no {', '.join(tools)} (iproute2, util-linux) for the nodes' namespaces" if tools else ""
    )


def browser() -> str:
    return "" if shutil.which("chromium") else "no chromium: ./setup.sh --with-browser installs it"


#: marker -> why its need is missing ('' when it is not).
MISSING = {
    "programs": programs,
    "omnetpp": omnetpp_build,
    "root": root,
    "cluster": cluster,
    "browser": browser,
}
