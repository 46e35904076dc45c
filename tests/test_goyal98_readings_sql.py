"""The queries of issue 56's screening and paper-scale designs (analysis/goyal98/
goyal98-readings-screening.sql, goyal98-readings-page.sql) on small stores whose answers are
known: the per-run mechanism numbers (timeouts summed from the connections table, silent pairs,
the timeline's low bins after 10 s) averaged over the replications."""

from __future__ import annotations

import csv
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from tests.support.cli import run_cli

ROOT = Path(__file__).resolve().parent.parent
QUERIES = ROOT / "analysis" / "goyal98"
WAN_CSV = QUERIES / "goyal98-wan.csv"


def _store(tmp_path: Path, runs: list[dict], connections: list[dict], timeline: list[dict]):
    store = tmp_path / "results" / "g"
    store.mkdir(parents=True)
    for name, rows in (("runs", runs), ("connections", connections), ("timeline", timeline)):
        pq.write_table(pa.Table.from_pylist(rows), store / f"{name}.parquet")


def _pairs(config: str, rep: int, timeouts: tuple[int, ...], received: tuple[int, ...]):
    return [
        {"config_id": config, "replication": rep, "id": i, "timeouts": t, "fast_retransmits": 2 * t,
         "retransmissions": 3 * t, "bytes_received": b, "requests": 5}
        for i, (t, b) in enumerate(zip(timeouts, received, strict=True))
    ]  # fmt: skip


def _bins(config: str, rep: int, efficiencies: list[float]):
    """One 1 s bin per value from time 0; backlog 1 MB in every bin."""
    return [
        {"config_id": config, "replication": rep, "time": float(t), "duration": 1.0,
         "efficiency": e, "backlog_bytes": 1e6}
        for t, e in enumerate(efficiencies)
    ]  # fmt: skip


def _query(tmp_path, capsys, name: str, *extra: str) -> list[dict]:
    query = (QUERIES / name).read_text()
    argv = ["sql", "--results", str(tmp_path / "results"), "--study", "g", "--csv", *extra, query]
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    return list(csv.DictReader(out.splitlines()))


def test_screening_sql_averages_each_configuration_s_mechanism_numbers(tmp_path, capsys):
    """Two replications of one configuration: 10 and 20 timeouts (summed over 2 pairs), 1 and 0
    silent pairs, low bins 2 of 10 and 5 of 10 after 10 s (the low bins before 10 s left out)."""
    levels = {"flavor": "reno", "bufferRtt": 0.5, "connections": "page",
              "fastRetransmitGuard": True, "bsdTimers": False, "cwndUnit": "packets",
              "partialFrames": "ppd"}  # fmt: skip
    runs, connections, timeline = [], [], []
    for rep, timeouts, received, low, cut in (
        (1, (4, 6), (0, 9), 2, 10),
        (2, (5, 15), (7, 9), 5, 30),
    ):
        runs.append({"config_id": "c", "replication": rep, **levels, "efficiency": 0.5 + rep / 10,
                     "fairness": 0.9, "connections_opened": 1000, "frames_dropped_partial": cut})  # fmt: skip
        connections += _pairs("c", rep, timeouts, received)
        timeline += _bins("c", rep, [0.1] * 10 + [0.5] * low + [0.95] * (10 - low))
    _store(tmp_path, runs, connections, timeline)
    [row] = _query(tmp_path, capsys, "goyal98-readings-screening.sql")
    assert (row["runs"], row["efficiency"], row["timeouts"], row["fast_rtx"]) == (
        "2",
        "0.65",
        "15.0",
        "30.0",
    )
    assert (row["retransmissions"], row["opened"], row["silent"], row["cut_frames"]) == (
        "45.0",
        "1000.0",
        "0.5",
        "20.0",
    )
    assert (row["low_bins"], row["min_bin"]) == ("0.35", "0.5")


def test_page_sql_gives_each_cell_its_interval_and_the_paper_s_wan_value(tmp_path, capsys):
    """A WAN cell (Reno, SD, 0.5 RTT) with efficiencies 0.70 and 0.72: mean 0.71, 90% half-width
    t(0.95; 1) x 0.01414 / sqrt(2) = 0.063, the paper's 0.6474 beside it; the same cell on MEO has
    no paper value."""
    runs, connections, timeline = [], [], []
    for link in ("wan", "meo"):
        for rep, eff in ((1, 0.70), (2, 0.72)):
            config = f"{link}-page"
            runs.append({"config_id": config, "replication": rep, "link": link, "flavor": "reno",
                         "drop": "sd", "bufferRtt": 0.5, "connections": "page", "efficiency": eff,
                         "fairness": 0.9, "connections_opened": 1000})  # fmt: skip
            connections += _pairs(config, rep, (1, 3), (5, 0))
            timeline += _bins(config, rep, [0.9] * 10 + [0.7] * 4 + [0.9] * 6)
    _store(tmp_path, runs, connections, timeline)
    wan, meo = _query(tmp_path, capsys, "goyal98-readings-page.sql", "--table", f"paper={WAN_CSV}")
    assert (wan["link"], wan["efficiency"], wan["halfwidth_90"], wan["paper"]) == (
        "wan",
        "0.71",
        "0.063",
        "0.6474",
    )
    assert (wan["timeouts"], wan["requests"], wan["silent"], wan["low_bins"], wan["min_bin"]) == (
        "4.0",
        "10.0",
        "1.0",
        "0.4",
        "0.7",
    )
    assert (meo["link"], meo["paper"]) == ("meo", "")
