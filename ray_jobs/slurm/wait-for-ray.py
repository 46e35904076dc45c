"""Waits until a Ray cluster has registered its nodes' CPUs, or goes on without the missing
nodes after a grace period (used by ray-cluster.sbatch).

    python wait-for-ray.py HOST:PORT NODES CPUS GRACE [HEAD_PID [DRIVER_PID]]

Exit 0, saying how many nodes came, when the cluster's CPUs reach CPUS, or when GRACE seconds
pass with at least one node registered ("only 2 of 3 nodes registered after 60 s: going on
with 2": Ray runs the jobs on those, and a node that registers later gets jobs as it comes), or
when process DRIVER_PID has ended (the sweep needs no more nodes). Exit 1, printing why, when
HEAD_PID (the head's `srun`) is gone, or no node at all came within GRACE.
One process polls every 0.1 s: a `ray status` per try would cost about a second of CPU each,
taken from Ray's own start on the same node. The token comes from the environment
(RAY_AUTH_MODE, RAY_AUTH_TOKEN_PATH), as for any client of the cluster.
"""

import sys
import time

POLL_S = 0.1


def main() -> int:
    address, nodes, want, grace = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    grace_s = float(grace)
    head = int(sys.argv[5]) if len(sys.argv) > 5 else None
    driver = int(sys.argv[6]) if len(sys.argv) > 6 else None
    deadline = time.monotonic() + grace_s
    import ray  # after reading the arguments: a usage error costs no import

    have = 0.0
    while time.monotonic() < deadline:
        try:
            if not ray.is_initialized():
                ray.init(address=address, logging_level="error", log_to_driver=False)
            have = ray.cluster_resources().get("CPU", 0.0)
        except (ConnectionError, RuntimeError):  # the GCS is not up yet
            pass
        if have >= want:
            print(f"all {nodes} node(s) registered: {have:g} CPUs")
            return 0
        if head is not None and not _alive(head):
            print("the Ray head exited", file=sys.stderr)
            return 1
        if driver is not None and not _alive(driver):
            print(f"the driver ended with {have:g} of {want:g} CPUs registered")
            return 0
        time.sleep(POLL_S)
    came = _alive_nodes() if ray.is_initialized() else 0
    if came == 0:
        print(f"no Ray node registered after {grace} s", file=sys.stderr)
        return 1
    print(
        f"only {came} of {nodes} nodes registered after {grace} s: going on with {came} "
        f"({have:g} of {want:g} CPUs); a node that registers later gets jobs too"
    )
    return 0


def _alive_nodes() -> int:
    import ray

    try:
        return sum(1 for node in ray.nodes() if node.get("Alive"))
    except (ConnectionError, RuntimeError):
        return 0


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (an exited one its parent has not reaped yet does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


if __name__ == "__main__":
    sys.exit(main())
