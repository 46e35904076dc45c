"""Where the WWW servers' time goes: a trace of losses and timeouts from one satnet run.

    .venv/bin/python sim/diagnostics/timeouts.py OUTDIR [--connection I] [--run R] [--name=value ...]

Runs satnet once (default: the study's WAN, 100 pairs, 100 s; any satnet flag may be given, e.g.
``--flavor=reno --bufferRtt=0.5``) with ns-3 logging of the ns2 TCP model (``Ns2TcpSocket``) and
the WWW servers (``WwwServer``), and turns the log into tables:

- ``events.csv``: every server's timeouts (backoff, RTO, ssthresh), fast-retransmit window cuts
  and idle restarts;
- ``occupancy.csv``: on a 10 ms grid, how many servers are backlogged (requested bytes not yet
  acknowledged), how many of those wait on a retransmission timer, and how many can send;
- ``trace.png``: that occupancy over time, and one connection's requested and acknowledged
  bytes with its timer waits;
- ``result.json``: satnet's own output for the run.

A server "waits on a timer" from the moment its expired timer was set until it fires: the
expired timer is the logged RTO halved, as a timeout doubles the backoff (Karn: no RTT sample
changes it in between). Every server's timeout count and requested bytes parsed from the log
are checked against satnet's own per-connection counts; a mismatch is an error (exit 1).
Needs the ns2 TCP model (``--tcpModel=ns2``, the default) and the www workload.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
from bisect import bisect_right
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from satsweep.engine import Program  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
NS_LOG = (
    "Ns2TcpSocket=level_debug|level_function|prefix_time|prefix_node:"
    "WwwServer=level_info|prefix_time|prefix_node"
)
GRID_S = 0.01
LINE = re.compile(r"^\+(?P<t>[0-9.]+)s (?P<node>\d+) (?P<msg>.*)$")
TIMEOUT = re.compile(r"timeout: backoff (\d+), rto \+([0-9.e+-]+)ms, ssthresh (\d+)")
SLOWDOWN = re.compile(r"slowdown: ssthresh (\d+) cwnd ([0-9.e+-]+)")
IDLE = re.compile(r"idle restart: cwnd 1, ssthresh (\d+)")
ACK = re.compile(r"Ns2TcpSocket:ProcessAck\(0x[0-9a-f]+, (\d+), \d+\)")
REQUEST = re.compile(r"request \d+ at \S+: file of (\d+) B")


class Server:
    """What the log says about one server: its requests, ACKs and loss reactions."""

    def __init__(self) -> None:
        self.requested: list[tuple[float, int]] = []  # (time, cumulative bytes requested)
        self.acked: list[tuple[float, int]] = []  # (time, bytes acknowledged)
        self.events: list[dict[str, object]] = []
        self.client_timeouts = 0  # the client's end of the connection (requests)

    def waits(self) -> list[tuple[float, float]]:
        """The intervals spent waiting on a timer that then fired with data outstanding."""
        return [
            (float(e["time_s"]) - float(e["rto_s"]) / 2, float(e["time_s"]))
            for e in self.events
            if e["event"] == "timeout"
        ]


def parse(lines, servers: int) -> list[Server]:
    """Reads satnet's log; nodes 0..servers-1 are the servers and the next ones their clients
    (satnet creates them in that order)."""
    state = [Server() for _ in range(servers)]
    pending_slowdown: dict[int, dict[str, object]] = {}
    for line in lines:
        m = LINE.match(line)
        if not m:
            continue
        t, node, msg = float(m["t"]), int(m["node"]), m["msg"]
        if servers <= node < 2 * servers:  # a client: only its timeouts, for the check
            if TIMEOUT.search(msg):
                state[node - servers].client_timeouts += 1
            continue
        if node >= servers:
            continue
        s = state[node]
        if a := ACK.search(msg):
            s.acked.append((t, int(a[1]) - 1))  # data starts at sequence 1, after the SYN
        elif r := REQUEST.search(msg):
            total = (s.requested[-1][1] if s.requested else 0) + int(r[1])
            s.requested.append((t, total))
        elif sd := SLOWDOWN.search(msg):
            # A timeout logs its slowdown first; the slowdown stays a fast retransmit's
            # window cut unless a timeout line follows at the same instant.
            _flush(pending_slowdown, node, s)
            pending_slowdown[node] = {
                "time_s": t, "connection": node, "event": "fast_retransmit_cut",
                "backoff": "", "rto_s": "", "ssthresh": int(sd[1]), "cwnd": float(sd[2]),
            }  # fmt: skip
        elif to := TIMEOUT.search(msg):
            if pending_slowdown.get(node, {}).get("time_s") == t:
                del pending_slowdown[node]
            _flush(pending_slowdown, node, s)
            s.events.append({
                "time_s": t, "connection": node, "event": "timeout", "backoff": int(to[1]),
                "rto_s": float(to[2]) / 1000, "ssthresh": int(to[3]), "cwnd": 1.0,
            })  # fmt: skip
        elif i := IDLE.search(msg):
            s.events.append({
                "time_s": t, "connection": node, "event": "idle_restart", "backoff": "",
                "rto_s": "", "ssthresh": int(i[1]), "cwnd": 1.0,
            })  # fmt: skip
    for node in list(pending_slowdown):
        _flush(pending_slowdown, node, state[node])
    return state


def _flush(pending: dict[int, dict[str, object]], node: int, server: Server) -> None:
    if node in pending:
        server.events.append(pending.pop(node))


def _step(series: list[tuple[float, int]], grid: np.ndarray) -> np.ndarray:
    """The value of a cumulative step series at each grid time (0 before its first point)."""
    times = [t for t, _ in series]
    values = np.array([0] + [v for _, v in series])
    return values[[bisect_right(times, g) for g in grid]]


def occupancy(state: list[Server], sim_time: float) -> dict[str, np.ndarray]:
    """Servers backlogged, waiting on a timer while backlogged, and able to send, per grid step."""
    grid = np.arange(0, sim_time, GRID_S)
    backlogged = np.zeros(grid.size, dtype=int)
    waiting = np.zeros(grid.size, dtype=int)
    for s in state:
        has_data = _step(s.requested, grid) > _step(s.acked, grid)
        stalled = np.zeros(grid.size, dtype=bool)
        for start, end in s.waits():
            stalled[(grid >= start) & (grid < end)] = True
        backlogged += has_data
        waiting += has_data & stalled
    return {"time_s": grid, "backlogged": backlogged, "waiting": waiting,
            "able": backlogged - waiting}  # fmt: skip


def check(state: list[Server], connections: list[dict]) -> list[str]:
    """Differences between the parsed log and satnet's own per-connection counts."""
    problems = []
    for i, (s, c) in enumerate(zip(state, connections, strict=True)):
        timeouts = sum(e["event"] == "timeout" for e in s.events) + s.client_timeouts
        requested = s.requested[-1][1] if s.requested else 0
        if timeouts != c["timeouts"]:
            problems.append(
                f"connection {i}: {timeouts} timeouts in the log, {c['timeouts']} counted"
            )
        if requested != c["bytes_requested"]:
            problems.append(
                f"connection {i}: {requested} B requested in the log, {c['bytes_requested']} counted"
            )
    return problems


def plot(occ: dict[str, np.ndarray], server: Server, connection: int, title: str, path: Path):
    """Occupancy over the run, and one connection's progress with its timer waits."""
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 6.5), constrained_layout=True)
    for key, label in (("backlogged", "backlogged"), ("waiting", "backlogged, waiting on a timer"),
                       ("able", "backlogged, able to send")):  # fmt: skip
        top.plot(occ["time_s"], occ[key], lw=0.6, label=label)
    top.set(xlabel="time (s)", ylabel="servers", title=title)
    top.legend(loc="upper left", fontsize=8)
    for series, label in ((server.requested, "requested"), (server.acked, "acknowledged")):
        if series:
            t, v = zip(*series, strict=True)
            bottom.step(t, np.array(v) / 1e6, where="post", lw=0.8, label=label)
    for start, end in server.waits():
        bottom.axvspan(start, end, color="tab:red", alpha=0.25, lw=0)
    bottom.set(xlabel="time (s)", ylabel="MB",
               title=f"connection {connection}: bytes, and timer waits (red)")  # fmt: skip
    bottom.legend(loc="upper left", fontsize=8)
    fig.savefig(path, dpi=110)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=Path)
    parser.add_argument(
        "--connection", type=int, help="the connection to draw (default: median timeouts)"
    )
    parser.add_argument("--run", type=int, default=1)
    args, satnet_flags = parser.parse_known_args()
    flags = dict(f.removeprefix("--").split("=", 1) for f in satnet_flags)
    args.outdir.mkdir(parents=True, exist_ok=True)
    result_path = args.outdir / "result.json"
    command = Program.find("satnet", REPO).command(flags, args.run, result_path)
    env = {**os.environ, "NS_LOG": NS_LOG}
    with subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=env) as proc:
        state = parse(proc.stderr, servers=int(flags.get("clients", 100)))
    if proc.returncode != 0:
        print(f"satnet failed (exit {proc.returncode})", file=sys.stderr)
        return 1
    result = json.loads(result_path.read_text())
    result_params = result["params"]
    if problems := check(state, result["connections"]):
        print(
            "the log does not match satnet's counts:\n  " + "\n  ".join(problems), file=sys.stderr
        )
        return 1

    events = sorted(
        (e for s in state for e in s.events), key=lambda e: (e["time_s"], e["connection"])
    )
    with open(args.outdir / "events.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(events[0]) if events else ["time_s"])
        writer.writeheader()
        writer.writerows(events)
    occ = occupancy(state, float(result_params["simTime"]))
    with open(args.outdir / "occupancy.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(list(occ))
        writer.writerows(
            zip(*(occ[k].round(3) if k == "time_s" else occ[k] for k in occ), strict=True)
        )

    timeouts = np.array([sum(e["event"] == "timeout" for e in s.events) for s in state])
    connection = args.connection
    if connection is None:
        connection = int(np.argsort(timeouts)[len(timeouts) // 2])
    summary = result["summary"]
    p = result_params
    title = f"{p['flavor']} {p['drop']} {p['link']} buffer {p['bufferCells']} cells: E = {summary['efficiency']:.3f}"
    plot(occ, state[connection], connection, title, args.outdir / "trace.png")

    late = occ["time_s"] >= 10  # after the first page cycle, when every client has started
    waited = np.array([sum(end - start for start, end in s.waits()) for s in state])
    backoffs = [e["backoff"] for s in state for e in s.events if e["event"] == "timeout"]
    print(title)
    for key in ("backlogged", "waiting", "able"):
        v = occ[key][late]
        print(f"  servers {key:10}: mean {v.mean():5.1f}  p5 {np.percentile(v, 5):3.0f}  "
              f"p50 {np.percentile(v, 50):3.0f}  p95 {np.percentile(v, 95):3.0f}  (10 s on)")  # fmt: skip
    print(
        f"  timeouts per server: mean {timeouts.mean():.1f}, max {timeouts.max()}; "
        f"time waiting on a timer per server: mean {waited.mean():.1f} s, max {waited.max():.1f} s"
    )
    print("  backoff at each timeout: " + ", ".join(
        f"{b}: {backoffs.count(b)}" for b in sorted(set(backoffs))))  # fmt: skip
    print(
        f"  connection {connection}: {timeouts[connection]} timeouts, "
        f"{waited[connection]:.1f} s waiting; tables and trace.png in {args.outdir}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
