"""Waits until a Ray cluster has registered at least N CPUs (used by ray-cluster.sbatch).

    python wait-for-ray.py HOST:PORT N SECONDS [PID]

Exit 0 when the cluster's CPUs reach N; 1 when SECONDS pass first, or when process PID (the
head's `srun`) is gone, printing why.
One process polls every 0.1 s: a `ray status` per try would cost about a second of CPU each,
taken from Ray's own start on the same node. The token comes from the environment
(RAY_AUTH_MODE, RAY_AUTH_TOKEN_PATH), as for any client of the cluster.
"""

import os
import sys
import time

POLL_S = 0.1


def main() -> int:
    address, want, limit = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    head = int(sys.argv[4]) if len(sys.argv) > 4 else None
    deadline = time.monotonic() + limit
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
            ray.shutdown()
            return 0
        if head is not None and not _alive(head):
            print("the Ray head exited", file=sys.stderr)
            return 1
        time.sleep(POLL_S)
    print(f"only {have:g} of {want:g} CPUs registered after {limit:g} s", file=sys.stderr)
    return 1


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
